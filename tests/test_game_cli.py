"""`tilescope game`: a riichi game kept as JSON Lines of events (docs/game-json.md)."""
import json

import pytest

from vision.cli import main

HAND = {"concealed": "22234m345p56678s", "win_tile": "4s", "dora_indicators": "9p"}


def cli(capsys, *argv):
    code = main(["game", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def game(tmp_path, capsys):
    path = str(tmp_path / "game.jsonl")
    code, out, err = cli(capsys, path, "--new", "Ann", "Bob", "Cai", "Dan",
                         "--options", '{"east_only": true}')
    assert code == 0, err
    assert "East 1 · 0 counter(s) · 0 stick(s) · Ann (E) 25000" in out
    return path


def add(capsys, path, event):
    return cli(capsys, path, "--add", json.dumps(event))


def test_events_append_and_standings_print(game, capsys):
    code, out, err = add(capsys, game, {"type": "riichi", "player": "Bob"})
    assert code == 0, err
    code, out, err = add(capsys, game, {"type": "tsumo", "player": "Bob", "han": 2, "fu": 30})
    assert code == 0, err
    # seed 001: 2 han 30 fu tsumo, base 480: the dealer Ann pays 1000, Cai and Dan 500; the stick
    assert out.splitlines()[-1].endswith(
        "Ann (N) 24000  Bob (E) 27000  Cai (S) 24500  Dan (W) 24500")
    assert "East 2" in out.splitlines()[-1]
    lines = open(game).read().splitlines()
    assert len(lines) == 3 and json.loads(lines[1]) == {"type": "riichi", "player": "Bob"}


def test_a_scored_hand_and_a_furiten_ron(game, capsys):
    # pinfu tanyao 2 han 30 fu ron: 30 × 2^4 × 4 = 1920 → 2000
    code, out, err = add(capsys, game, {"type": "ron", "discarder": "Ann",
                                        "winners": [{"player": "Cai", "hand": HAND}]})
    assert code == 0, err
    assert "Ann pays Cai 2000" in out
    # « Un joueur furiten ne peut alors gagner que sur pioche »: 7s, a wait, is in the discards
    code, out, err = add(capsys, game, {"type": "ron", "discarder": "Ann", "winners": [
        {"player": "Cai", "hand": HAND, "discards": "7s"}]})
    assert code == 2 and out == "" and err.startswith("tilescope game: furiten_ron: --add:")


@pytest.mark.parametrize("event, message", [
    ({"type": "riichi", "player": "Zed"}, "unknown_player"),
    ({"type": "draw", "tenpai": ["Ann"], "note": 1}, "note: Extra inputs are not permitted"),
    ({"type": "ron", "discarder": "Ann", "winners": [{"player": "Bob", "han": 1, "fu": 30}] * 2},
     "winner_twice"),
    ({"type": "ron", "discarder": "Ann", "winners": [
        {"player": p, "han": 1, "fu": 30} for p in ("Bob", "Cai", "Dan", "Ann", "Eve")]},
     "too_many_winners"),
    ({"type": "abortive", "reason": "four_riichi"}, "four_riichi_not_declared"),
    ({"type": "yell"}, "yell"),
])
def test_impossible_events_are_refused_and_the_file_kept(game, capsys, event, message):
    before = open(game).read()
    code, out, err = add(capsys, game, event)
    assert code == 2 and out == "" and message in err and "Traceback" not in err
    assert open(game).read() == before


def test_undo_takes_the_last_event_out(game, capsys):
    add(capsys, game, {"type": "riichi", "player": "Bob"})
    add(capsys, game, {"type": "draw", "tenpai": ["Bob"]})
    code, out, err = cli(capsys, game, "--undo")
    assert code == 0, err
    assert out.splitlines()[-1].startswith("  East 1 · 0 counter(s) · 1 stick(s)")
    cli(capsys, game, "--undo")
    code, out, err = cli(capsys, game, "--undo")
    assert code == 2 and "no event to undo" in err


def test_game_over_prints_the_ranking_and_json(game, capsys):
    # the dealer is noten four times: the deal passes after East 4. Dan takes 3 × 3000, pays 1000
    for tenpai in (["Dan"], ["Dan"], ["Dan"], ["Cai"]):
        add(capsys, game, {"type": "draw", "tenpai": tenpai})
    code, out, err = cli(capsys, game)
    assert code == 0 and "game over" in out and "1. Dan 33000 → +8.0" in out
    code, out, err = cli(capsys, game, "--json")
    last = json.loads(out.splitlines()[-1])
    assert last["ranking"][0] == {"name": "Dan", "place": 1, "points": 33000, "uma": 0.0,
                                  "oka": 0.0, "penalty": 0, "final": 8000.0}
    code, out, err = add(capsys, game, {"type": "riichi", "player": "Bob"})
    assert code == 2 and "game_over" in err


def test_bad_files_exit_2(tmp_path, capsys, game):
    code, _, err = cli(capsys, str(tmp_path / "nope.jsonl"))
    assert code == 2 and "cannot read" in err
    code, _, err = cli(capsys, game, "--new", "A", "B", "C", "D")
    assert code == 2 and "exists" in err
    code, _, err = cli(capsys, str(tmp_path / "x.jsonl"), "--new", "A", "B", "C", "A")
    assert code == 2 and "bad_players" in err
    code, _, err = cli(capsys, str(tmp_path / "y.jsonl"), "--new", "A", "B", "C", "D",
                       "--options", '{"chombo": "soft"}')
    assert code == 2 and "chombo" in err
    code, _, err = cli(capsys, game, "--options", '{"east_only": false}')
    assert code == 2 and "--options and --ruleset go with --new" in err
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "game", "players": ["A", "B", "C", "D"]}\n{"type": "chombo"\n')
    code, _, err = cli(capsys, str(bad))
    assert code == 2 and "bad.jsonl:2: not valid JSON" in err


def test_ema_preset_tournament_chombo(tmp_path, capsys):
    path = str(tmp_path / "ema.jsonl")
    cli(capsys, path, "--new", "A", "B", "C", "D", "--options", '{"preset": "ema"}')
    code, out, err = add(capsys, path, {"type": "chombo", "player": "C"})
    assert code == 0 and "pays nothing, -20000 at the final ranking" in out
    assert "A (E) 30000" in out.splitlines()[-1]
