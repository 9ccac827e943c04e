"""A referee's slips against the session ledgers (``tilescope game``): each refused in one line
naming the problem, never paid twice or silently paid another value.

Sources, quoted where they decide a value:

* seed 000 (``shared/rules/000_ema_mcr_clarifications_ru.txt``): §3.2 « Мертвая рука:
  нарушитель не может объявлять «ху», но продолжает играть »; §2.9.2 a false hu pays « по 10
  очков » / « по 20 очков каждому из других игроков »; §2.8.9 the hand is then dead.
* seed 001 (``shared/rules/001_riichi_fr.txt``): « Les yakumans ... n'ont pas de valeur en hans
  mais une valeur en points forfaitaire » and « ils rendent caduques les yakus ordinaires »;
  « Un joueur main morte ne peut plus gagner ».
* the Green Book's fan table (scoring/mcr/fans.py, 81 fans): no hand's total reaches
  4 × their sum + 8 flowers.
"""
import json

import pytest

from scoring.mcr import fans
from scoring.tournament import mcr_game as mcr
from scoring.tournament import riichi_game as rg
from vision.cli.dispatch import main

P = ("Ann", "Bob", "Cai", "Dan")
SECTION_3_2 = "Мертвая рука: нарушитель не может объявлять «ху», но продолжает играть"


def game(tmp_path, capsys, *events, ruleset="riichi"):
    path = str(tmp_path / f"{ruleset}.jsonl")
    assert main(["game", path, "--new", *P, "--ruleset", ruleset]) == 0
    for ev in events:
        assert main(["game", path, "--add", json.dumps(ev, ensure_ascii=False)]) == 0
    capsys.readouterr()
    return path


def refused(path, capsys, event) -> str:
    before = open(path, encoding="utf-8").read()
    assert main(["game", path, "--add", json.dumps(event, ensure_ascii=False)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert open(path, encoding="utf-8").read() == before       # nothing written
    return err


# §2.9.2: a false hu (short) pays 10 to each other player (30 in all) and the hand is dead
# (§2.8.9); a second false hu by that player in the same hand would pay again, but a dead
# hand « не может объявлять «ху» » (§3.2): refused, the rule quoted; next hand it is allowed
def test_mcr_a_dead_hand_declares_no_second_false_hu(tmp_path, capsys):
    path = game(tmp_path, capsys, {"type": "false_win", "player": "Cai", "kind": "short"},
                ruleset="mcr")
    err = refused(path, capsys, {"type": "false_win", "player": "Cai", "kind": "invalid"})
    assert "dead_hand" in err and "Cai's hand is already dead" in err and SECTION_3_2 in err
    assert main(["game", path, "--json"]) == 0
    last = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert last["points"] == {"Ann": 10, "Bob": 10, "Cai": -30, "Dan": 10}
    s = mcr.play(P, [mcr.FalseHu("Cai", "short"), mcr.McrDraw(), mcr.FalseHu("Cai", "short")])
    assert s[-1].points == (20, 20, -60, 20)


# a dead hand lasts until the hand ends: ruling it twice is one ruling, not two events
def test_mcr_and_riichi_dead_hand_twice_is_refused(tmp_path, capsys):
    for ruleset in ("mcr", "riichi"):
        path = game(tmp_path, capsys, {"type": "dead_hand", "player": "Dan"}, ruleset=ruleset)
        err = refused(path, capsys, {"type": "dead_hand", "player": "Dan", "reason": "again"})
        assert "dead_hand" in err and "Dan's hand is already dead in this hand" in err
    with pytest.raises(mcr.GameError):
        mcr.play(P, [mcr.FalseHu("Dan", "short"), mcr.DeadHand("Dan")])
    # the next hand Dan is alive: dead again, then a win the hand after (tsumo 8: 16 each)
    s = mcr.play(P, [mcr.DeadHand("Dan"), mcr.McrDraw(), mcr.DeadHand("Dan"), mcr.McrDraw(),
                     mcr.McrTsumo("Dan", mcr.McrWin(8))])[-1]
    assert s.points == (-16, -16, -16, 48)


# the fan table's sum, and a typed total past the bound refused (a keyboard slip, never paid)
def test_mcr_fan_past_any_hand_is_refused(tmp_path, capsys):
    assert len(fans.FANS) == 81 and sum(f.points for f in fans.FANS) == 1727
    assert mcr.MAX_FAN == 4 * 1727 + 8
    path = game(tmp_path, capsys, ruleset="mcr")
    err = refused(path, capsys, {"type": "tsumo", "player": "Bob", "fan": 10 ** 23})
    assert "bad_value" in err and "Bob's fan must be a whole number ≥ 0 and ≤ 6,916" in err
    # the 8-point minimum's refusal names its source, the seed's §2.9.2
    err = refused(path, capsys, {"type": "tsumo", "player": "Bob", "fan": 9, "flowers": 2})
    assert "under_8_points" in err and "seed 000, EMA MCR clarifications §2.9.2" in err


# riichi: a yakuman has no han (« pas de valeur en hans »): han and fu beside it are refused,
# not dropped; past the sextuple yakuman the scorer pays, a value is refused, not capped
def test_riichi_yakuman_with_han_or_past_six_is_refused(tmp_path, capsys):
    path = game(tmp_path, capsys)
    err = refused(path, capsys, {"type": "tsumo", "player": "Bob", "han": 3, "fu": 30,
                                 "yakuman": 1})
    assert "bad_value" in err and "not both" in err and "han 3" in err
    err = refused(path, capsys, {"type": "ron", "discarder": "Ann",
                                 "winners": [{"player": "Bob", "yakuman": 10 ** 20}]})
    assert "Bob's yakuman must be at most 6" in err
    # a sextuple yakuman tsumo by a non-dealer: 6 × 32,000 = 192,000, dealer 96,000, others 48,000
    s = rg.play(P, [rg.Tsumo("Bob", rg.Value(yakuman=6))])[-1]
    assert s.points == (25000 - 96000, 25000 + 192000, 25000 - 48000, 25000 - 48000)


# pydantic's "should have 1 items" for a ron with no winner, said as a scorekeeper would
def test_a_ron_without_winners_says_at_least_one(tmp_path, capsys):
    path = game(tmp_path, capsys, ruleset="mcr")
    err = refused(path, capsys, {"type": "ron", "discarder": "Ann", "winners": []})
    assert err.strip().endswith('a ron event\'s "winners" should have at least 1 item, got []')


# --undo across a penalty and a false hu puts back the ladder, the points and the living hand;
# --undo --json names the event taken out, as the text does (« undone: #n … »)
def test_undo_across_penalty_and_false_hu(tmp_path, capsys):
    path = game(tmp_path, capsys, {"type": "penalty", "player": "Dan"},
                {"type": "penalty", "player": "Dan"},
                {"type": "false_win", "player": "Dan", "kind": "invalid"}, ruleset="mcr")
    assert main(["game", path, "--undo", "--json"]) == 0
    out = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert len(out) == 1 and out[0]["event"] == 2 and out[0]["dead"] == []
    assert out[0]["undone"] == {"event": 3, "type": "false_win", "player": "Dan",
                                "kind": "invalid"}
    assert out[0]["points"] == dict.fromkeys(P, 0)       # the 20 × 3 given back
    assert out[0]["penalties"]["Dan"] == -5                # warning, then 5 (§3.1)
    assert main(["game", path, "--undo"]) == 0
    assert 'undone: #2 penalty player="Dan"' in capsys.readouterr().out
    # the ladder is back at one step: the next penalty is 5 points again, not 10
    assert main(["game", path, "--add", '{"type": "penalty", "player": "Dan"}']) == 0
    assert "no. 2: 5 points off the session score" in capsys.readouterr().out


# after North 4 the session is over: a penalty is refused in one line that says how to record
# it (the table points are decided on points + penalties, §3.1), the ranking unchanged
def test_mcr_penalty_after_the_session_says_how(tmp_path, capsys):
    path = game(tmp_path, capsys, *[{"type": "draw"}] * 16, ruleset="mcr")
    err = refused(path, capsys, {"type": "penalty", "player": "Ann"})
    assert "game_over" in err and "the session is over (16 hands played (North 4))" in err
    assert "--undo it, add the penalty, add the hand again" in err
    err = refused(path, capsys, {"type": "dead_hand", "player": "Ann"})
    assert "--undo" not in err


# the table mode's API: a body that is no JSON object is said as the CLI says it (pydantic's
# "Input should be a valid dictionary" before); the rules' refusals are the ledger's one line
def test_api_odd_bodies_and_refusals_in_words(tmp_path, monkeypatch):
    from fastapi.testclient import TestClient

    from vision.server.app import create_app

    monkeypatch.setenv("TILESCOPE_DATA", str(tmp_path))
    c = TestClient(create_app(reader=object()))
    gid = c.post("/api/games", json={"players": list(P), "ruleset": "mcr"}).json()["id"]
    r = c.post(f"/api/games/{gid}/events", json="junk")
    assert r.status_code == 422 and r.json()["error"] == 'body: should be one JSON object, got "junk"'
    assert c.post(f"/api/games/{gid}/events", json={"type": "dead_hand", "player": "Ann"}).status_code == 200
    r = c.post(f"/api/games/{gid}/events", json={"type": "dead_hand", "player": "Ann"})
    assert r.status_code == 422 and r.json()["code"] == "dead_hand"
    assert r.json()["error"] == ("Ann's hand is already dead in this hand (recorded once; it "
                                 "lasts until the hand ends)")
    # Ann's own discard: that reason, before her dead hand
    r = c.post(f"/api/games/{gid}/events", json={"type": "ron", "discarder": "Ann",
                                                   "winners": [{"player": "Ann", "fan": 8}]})
    assert r.json()["code"] == "ron_by_discarder"
    assert c.get(f"/api/games/{gid}").json()["state"]["dead"] == ["Ann"]


# a chombo's reason was the one free text without a bound (a dead hand's and a penalty's: 200)
def test_a_chombo_reason_is_bounded_as_the_others(tmp_path, capsys):
    path = game(tmp_path, capsys)
    err = refused(path, capsys, {"type": "chombo", "player": "Ann", "reason": "x" * 201})
    assert 'a chombo event\'s "reason" string should have at most 200 characters' in err


# MCR: a scored hand counts its own flowers (docs/hand-json.md: "flowers", 0..8); a "flowers"
# typed beside the hand was dropped unsaid, the win paid without them
def test_mcr_flowers_beside_a_scored_hand_are_refused(tmp_path, capsys):
    path = game(tmp_path, capsys, ruleset="mcr")
    hand = {"concealed": "123m456m789m123p5p", "win_tile": "5p"}
    err = refused(path, capsys, {"type": "tsumo", "player": "Bob", "flowers": 2, "hand": hand})
    assert "bad_value" in err and "Bob's flowers go in the hand when it is scored" in err
    # inside the hand they count: « each of the three pays 8 + total », flowers included
    assert main(["game", path, "--add", json.dumps(
        {"type": "tsumo", "player": "Bob", "hand": {**hand, "flowers": 2}})]) == 0
    assert main(["game", path, "--json"]) == 0
    out = capsys.readouterr().out.splitlines()
    bare = mcr.play(P, [])[-1]
    from vision.server.game_file import to_mcr_event, McrTsumoIn
    win = to_mcr_event(bare, McrTsumoIn(type="tsumo", player="Bob", hand=hand)).value
    assert win.flowers == 0 and win.fan >= 8
    assert json.loads(out[-1])["points"]["Bob"] == 3 * (8 + win.fan + 2)


# riichi: han, fu, yakuman, dora or furiten typed beside a scored hand were dropped unsaid (the
# hand scored alone); asked which one was meant, as the forms now ask
def test_riichi_typed_value_beside_a_scored_hand_is_refused(tmp_path, capsys):
    path = game(tmp_path, capsys)
    hand = {"concealed": "22234m345p56678s", "win_tile": "4s"}
    err = refused(path, capsys, {"type": "ron", "discarder": "Ann",
                                 "winners": [{"player": "Dan", "hand": hand, "han": 3, "dora": 1}]})
    assert "bad_value" in err and "Dan's win: give the hand or the typed value (han, dora)" in err
    err = refused(path, capsys, {"type": "tsumo", "player": "Dan", "hand": hand, "furiten": True})
    assert "(furiten)" in err
    # the hand alone: pinfu tanyao 2 han 30 fu by ron → 30 × 2^4 × 4 = 1920 → 2000 (seed 001)
    assert main(["game", path, "--add", json.dumps(
        {"type": "ron", "discarder": "Ann", "winners": [{"player": "Dan", "hand": hand}]})]) == 0
    assert "Ann pays Dan 2000" in capsys.readouterr().out
