"""Dead hands and penalties in the session ledgers a streamer keeps (``tilescope game``).

Sources, quoted where they decide a value:

* seed 000 (``shared/rules/000_ema_mcr_clarifications_ru.txt``, the EMA MCR clarifications):
  §2.8.9 « Если установлено, что «ху» является недействительным, игрок, который открыл свои
  кости имеет мертвую руку »; §3.2 « Мертвая рука: нарушитель не может объявлять «ху», но
  продолжает играть »; §3.1 « (Повторное) нарушение: предупреждение -> 5 очков -> 10 очков ->
  20 очков -> 30 очков -> и т.д. Эти очки вычитаются из результата нарушителя. »;
  §2.9.2 « игрок уплачивает по 20 очков каждому из других игроков » (an invalid hand).
* the riichi rules (``shared/rules/001_riichi_fr.txt``): « Un joueur main morte ne peut plus
  gagner ni réclamer de combinaison. Il ne peut être considéré tenpai en cas de partie du
  mur. »
* the Green Book payments (scoring/mcr/RULES.md): « the discarder pays 8 + total, each other
  player 8 », « each of the three pays 8 + total »; EMA table points 4 / 2 / 1 / 0.
"""
import json

import pytest

from scoring.tournament import mcr_game as mcr
from scoring.tournament import riichi_game as rg
from vision.cli.dispatch import main

P = ("Ann", "Bob", "Cai", "Dan")
SECTION_3_2 = "Мертвая рука: нарушитель не может объявлять «ху», но продолжает играть"
# the refusal says the seed's sentence in English (tests/test_cli_errors: no French on screen)
MAIN_MORTE = "a dead hand can neither win nor claim a tile, and is not tenpai at an exhaustive draw"


def new_mcr(tmp_path, capsys):
    path = str(tmp_path / "x.jsonl")
    assert main(["game", path, "--new", *P, "--ruleset", "mcr"]) == 0
    capsys.readouterr()
    return path


def add(path, event) -> int:
    return main(["game", path, "--add", json.dumps(event, ensure_ascii=False)])


# the commands: a false hu (invalid hand) makes Ann's hand dead (§2.8.9); her ron in
# the same hand is refused by name, §3.2 quoted, and the file keeps the false hu only
def test_a_dead_hand_cannot_win_in_that_hand(tmp_path, capsys):
    path = new_mcr(tmp_path, capsys)
    assert add(path, {"type": "false_win", "player": "Ann", "kind": "invalid"}) == 0
    capsys.readouterr()
    assert add(path, {"type": "ron", "discarder": "Bob", "winners": [{"player": "Ann", "fan": 8}]}) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "Ann's hand is dead" in err and SECTION_3_2 in err and "§3.2" in err
    assert len(open(path).read().splitlines()) == 2
    # a tsumo too; the others may still win: Bob's ron from Cai, 8 points
    assert add(path, {"type": "tsumo", "player": "Ann", "fan": 8}) == 2
    assert add(path, {"type": "ron", "discarder": "Cai", "winners": [{"player": "Bob", "fan": 8}]}) == 0
    # the next hand Ann is alive again: her tsumo of 8 is paid, 8 + 8 from each of three
    assert add(path, {"type": "tsumo", "player": "Ann", "fan": 8}) == 0
    capsys.readouterr()
    assert main(["game", path, "--json"]) == 0
    last = json.loads(capsys.readouterr().out.splitlines()[-1])
    # Ann −60 (20 to each, §2.9.2) − 8 (Bob's ron) + 3 × 16 = −20; Bob +20 + 16 + 8 + 8 − 16
    # = 36; Cai +20 − 16 − 16 = −12; Dan +20 − 8 − 16 = −4
    assert last["points"] == {"Ann": -20, "Bob": 36, "Cai": -12, "Dan": -4}
    assert sum(last["points"].values()) == 0 and last["dead"] == []


def test_a_dead_hand_ruled_without_a_false_hu_pays_nothing_and_cannot_win():
    s = mcr.play(P, [mcr.DeadHand("Dan", "hu declared, tiles not shown (§2.9.1)")])[-1]
    assert s.points == (0, 0, 0, 0) and s.dead == {3}
    with pytest.raises(rg.GameError) as e:
        mcr.apply(s, mcr.McrTsumo("Dan", mcr.McrWin(8)))
    assert e.value.code == mcr.E_DEAD_HAND and SECTION_3_2 in str(e.value)
    after = mcr.apply(s, mcr.McrDraw())            # the hand ends: Dan's next hand is alive
    assert after.dead == frozenset()
    assert mcr.apply(after, mcr.McrTsumo("Dan", mcr.McrWin(8))).points == (-16, -16, -16, 48)


# §3.1: warning → 5 → 10 → 20 → 30, subtracted from the offender's result; delay of game on a
# ladder of its own
def test_penalties_climb_the_ladder_and_come_off_the_offender_only():
    events = [mcr.Penalty("Cai")] * 5 + [mcr.Penalty("Cai", "delay_of_game")]
    states = mcr.play(P, events)
    assert [s.penalties[2] for s in states] == [0, 0, -5, -15, -35, -65, -65]
    assert "warning" in states[1].lines[0] and "5 points" in states[2].lines[0]
    assert states[-1].points == (0, 0, 0, 0)               # nobody else is paid
    assert "warning" in states[-1].lines[0]                # delay of game: its own first step
    with pytest.raises(rg.GameError):
        mcr.apply(states[0], mcr.Penalty("Cai", "rudeness"))


# the table points are decided on the score after penalties (« Эти очки вычитаются из
# результата нарушителя »): Bob wins 8 from Ann's discard (Ann −16, Bob +32, Cai −8, Dan −8),
# then Bob gets a warning, 5, 10, 20 = −35: Bob's 32 becomes −3, still above the others
def test_penalties_count_in_the_table_points(tmp_path, capsys):
    path = new_mcr(tmp_path, capsys)
    assert add(path, {"type": "ron", "discarder": "Ann", "winners": [{"player": "Bob", "fan": 8}]}) == 0
    for _ in range(4):
        assert add(path, {"type": "penalty", "player": "Bob", "reason": "slow"}) == 0
    for _ in range(15):
        assert add(path, {"type": "draw"}) == 0
    capsys.readouterr()
    assert main(["game", path, "--json"]) == 0
    lines = capsys.readouterr().out.splitlines()
    ranking = json.loads(lines[-1])["ranking"]
    by_name = {r["name"]: r for r in ranking}
    assert by_name["Bob"]["points"] == 32 and by_name["Bob"]["penalty"] == -35
    assert by_name["Bob"]["final"] == -3
    # places: Bob −3 (4), Cai −8 and Dan −8 share 2nd and 3rd ((2 + 1) / 2 = 1.5), Ann −16 (0)
    assert [(r["name"], r["table_points"]) for r in ranking] == [
        ("Bob", 4.0), ("Cai", 1.5), ("Dan", 1.5), ("Ann", 0.0)]
    assert main(["game", path]) == 0
    assert "Bob 32 (penalties -35: -3) → 4 table points" in capsys.readouterr().out


def test_a_bad_penalty_is_one_line(tmp_path, capsys):
    path = new_mcr(tmp_path, capsys)
    assert add(path, {"type": "penalty", "player": "Cai", "kind": "rude"}) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and '"infraction" or "delay_of_game"' in err
    assert add(path, {"type": "penalty", "player": "Zed"}) == 2
    assert "Zed" in capsys.readouterr().err


# riichi: « Un joueur main morte ne peut plus gagner [...] Il ne peut être considéré tenpai en
# cas de partie du mur »
def test_riichi_dead_hand_cannot_win_nor_be_tenpai():
    s = rg.play(P, [rg.DeadHand("Cai", "wrong call")])[-1]
    assert s.points == (25000,) * 4 and s.dead == {2}
    for ev in (rg.Tsumo("Cai", rg.Value(1, 30)), rg.Ron("Ann", {"Cai": rg.Value(1, 30)}),
               rg.Draw(("Cai",))):
        with pytest.raises(rg.GameError) as e:
            rg.apply(s, ev)
        assert e.value.code == rg.E_DEAD_HAND and MAIN_MORTE in str(e.value)
    # noten at the draw: Bob tenpai alone, the three others pay 1000 each
    drawn = rg.apply(s, rg.Draw(("Bob",)))
    assert drawn.points == (24000, 28000, 24000, 24000) and drawn.dead == frozenset()
