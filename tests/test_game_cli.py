"""`tilescope game`: a riichi game kept as JSON Lines of events (docs/game-json.md)."""
import json

import pytest

from vision.cli.dispatch import main

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
    ({"type": "draw", "tenpai": ["Ann"], "note": 1}, '--add: a draw event takes no "note"'),
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
    headless = tmp_path / "headless.jsonl"
    headless.write_text('{"type": "riichi", "player": "A"}\n')
    code, _, err = cli(capsys, str(headless))
    assert code == 2 and err.endswith('headless.jsonl:1: the first line names the players '
                                      '({"type": "game", "players": [...]}), not a "riichi" event\n')


def test_ema_preset_tournament_chombo(tmp_path, capsys):
    path = str(tmp_path / "ema.jsonl")
    cli(capsys, path, "--new", "A", "B", "C", "D", "--options", '{"preset": "ema"}')
    code, out, err = add(capsys, path, {"type": "chombo", "player": "C"})
    assert code == 0 and "pays nothing, -20000 at the final ranking" in out
    assert "A (E) 30000" in out.splitlines()[-1]


# The hand the tester scored: 234m 456p 678s 33p 45s + 6s, closed, all simples, two-sided:
# pinfu tanyao. By ron, 2 han 30 fu (seed 001 line 99: « portés à 30 si la main est
# entièrement cachée et que la victoire est obtenue en volant la tuile gagnante »): Cai, a
# non-dealer, is paid 30 × 2^4 × 4 = 1920 → 2000. Scored as a tsumo it would be 3 han 20 fu
# (line 110: « pinfu tout caché tiré … 20 mini-points »), 2600 — the two must not mix.
PINFU = {"concealed": "234m456p678s33p45s", "win_tile": "6s"}


@pytest.mark.parametrize("keys, word", [
    ({"win": "tsumo"}, '"win": "tsumo" but the event is a ron'),
    ({"seat_wind": "E"}, '"seat_wind": "E" but Cai sits West in East 1'),
    ({"round_wind": "S"}, '"round_wind": "S" but the round is East'),
    ({"honba": 2}, '"honba": 2 but 0 counter(s) on the table'),
    ({"riichi_sticks": 1}, '"riichi_sticks": 1 but 0 riichi stick(s)'),
    ({"riichi": "riichi"}, '"riichi": "riichi" but Cai did not declare riichi this hand'),
    ({"ruleset": "mcr"}, '"ruleset": "mcr" but the game is riichi'),
])
def test_a_scored_hand_that_contradicts_the_ledger_is_refused_by_name(game, capsys, keys, word):
    before = open(game).read()
    event = {"type": "ron", "discarder": "Ann", "winners": [{"player": "Cai",
                                                             "hand": {**PINFU, **keys}}]}
    code, out, err = add(capsys, game, event)
    assert code == 2 and err.startswith("tilescope game: hand_contradicts_ledger: --add: Cai's")
    assert word in err and len(err.splitlines()) == 1
    assert open(game).read() == before


def test_a_scored_hand_that_agrees_with_the_ledger_is_paid(game, capsys):
    hand = {**PINFU, "win": "ron", "seat_wind": "W", "round_wind": "E", "riichi": "none"}
    code, out, err = add(capsys, game, {"type": "ron", "discarder": "Ann",
                                        "winners": [{"player": "Cai", "hand": hand}]})
    assert code == 0 and "Ann pays Cai 2000" in out and "non-dealer wins" in out
    # Cai in riichi: the ledger fills riichi in (riichi pinfu tanyao, 3 han 30 fu: 3900 + the
    # stick); a double riichi is one the ledger cannot tell apart, the hand may say so
    add(capsys, game, {"type": "riichi", "player": "Cai"})
    code, out, err = add(capsys, game, {"type": "ron", "discarder": "Bob",
                                        "winners": [{"player": "Cai", "hand": PINFU}]})
    assert code == 0 and "Bob pays Cai 3900" in out, err
    cli(capsys, game, "--undo")
    double = {**PINFU, "riichi": "double", "riichi_sticks": 1}
    code, out, err = add(capsys, game, {"type": "ron", "discarder": "Bob",
                                        "winners": [{"player": "Cai", "hand": double}]})
    # double riichi 2, pinfu, tanyao: 4 han 30 fu, 30 × 2^6 × 4 = 7680 → 7700
    assert code == 0 and "Bob pays Cai 7700" in out, err


# findings 7, 8, 9: bad input is one line naming the problem, exit 2, never a traceback
def test_a_file_that_is_not_utf8_or_a_folder_that_does_not_exist_is_one_line(tmp_path, capsys):
    binary = tmp_path / "bin.jsonl"
    binary.write_bytes(b'{"type":"game","players":["A","B","C","D"]}\n\xff\xfe\n')
    code, out, err = cli(capsys, str(binary))
    assert code == 2 and err == f"tilescope game: {binary} is not a game's JSON Lines (not UTF-8 text)\n"
    nowhere = tmp_path / "no" / "g.jsonl"
    code, out, err = cli(capsys, str(nowhere), "--new", "A", "B", "C", "D")
    assert code == 2 and err == (f"tilescope game: cannot write {nowhere}: no such folder "
                                 f"{tmp_path / 'no'}\n")
    assert not (tmp_path / "no").exists()


@pytest.mark.parametrize("event, said", [
    ({"type": "riichi"}, '--add: a riichi event needs "player"'),
    ({"type": "tsumo", "player": "Bob", "han": -3, "fu": 30},
     "bad_value: --add: Bob's han must be a whole number ≥ 0, got -3"),
    ({"type": "ron", "discarder": "Ann", "winners": [{"player": "Bob", "han": "3", "fu": 30}]},
     '--add: a ron event\'s winner #1\'s "han" should be a whole number, got "3"'),
    ({"type": "deal"}, '--add: "type": "deal" is no event: one of riichi, tsumo, ron, '
                       "draw, abortive, chombo, dead_hand"),
])
def test_a_refused_add_is_named_as_the_argument_in_one_line(game, capsys, event, said):
    for _ in range(3):                     # the file has lines 1..4: none of them is at fault
        add(capsys, game, {"type": "draw", "tenpai": []})
    code, out, err = add(capsys, game, event)
    assert code == 2 and err == f"tilescope game: {said}\n"
    assert "game.jsonl:5" not in err and "Value(" not in err


# finding 11: --add and --undo print what changed, not the whole game again
def test_add_and_undo_print_the_change_and_the_standings_after_it(game, capsys):
    add(capsys, game, {"type": "riichi", "player": "Bob"})
    code, out, err = add(capsys, game, {"type": "draw", "tenpai": ["Bob"]})
    assert code == 0 and out.splitlines() == [
        '#2 draw tenpai=["Bob"]',
        "  Ann, Cai, Dan (noten) pay 1000 each; Bob (tenpai) receives 3000",
        "  dealer noten: seats rotate, +1 counter; 1 stick(s) stay on the table",
        "  East 2 · 1 counter(s) · 1 stick(s) · Ann (N) 24000  Bob (E) 27000  Cai (S) 24000  "
        "Dan (W) 24000"]
    code, out, err = cli(capsys, game, "--undo")
    assert code == 0 and out.splitlines() == [
        'undone: #2 draw tenpai=["Bob"]',
        "  East 1 · 0 counter(s) · 1 stick(s) · Ann (E) 25000  Bob (S) 24000  Cai (W) 25000  "
        "Dan (N) 25000"]
    code, out, err = add(capsys, game, {"type": "draw", "tenpai": ["Bob"]})
    code, out, err = cli(capsys, game, "--add", '{"type": "riichi", "player": "Ann"}', "--all")
    assert out.startswith("start\n") and "#1 riichi" in out and "#3 riichi" in out
    code, out, err = cli(capsys, game, "--add", '{"type": "riichi", "player": "Cai"}', "--json")
    assert [json.loads(ln)["event"] for ln in out.splitlines()] == [4]
