"""The MCR session ledger (scoring/tournament/mcr_game.py), payments worked by hand.

Sources: the Green Book payments as scoring/mcr/RULES.md states them (« Win on a discard: the
discarder pays 8 + total, each other player 8. Self-drawn: each of the three pays 8 + total »);
seed 000 (EMA MCR clarifications) §2.9.2 for the 8-point minimum and the false hu; the EMA
table points 4 / 2 / 1 / 0, ties sharing (scoring/tournament/ema.py).
"""
import json
from fractions import Fraction

import pytest

from scoring.tournament.mcr_game import (
    E_UNDER_8, FalseHu, McrDraw, McrRon, McrTsumo, McrWin, final_ranking, play, standings_line)
from scoring.tournament.riichi_game import E_GAME_OVER, E_RON_BY_DISCARDER, GameError
from vision.cli.dispatch import main

P = ("A", "B", "C", "D")


def last(events):
    return play(P, events)[-1]


# « the discarder pays 8 + total, each other player 8 »
def test_win_on_a_discard():
    s = last([McrRon("C", "A", McrWin(12))])
    assert s.points == (8 + 12 + 8 + 8, -8, -(8 + 12), -8) == (36, -8, -20, -8)


# « Self-drawn: each of the three pays 8 + total » (flowers in the total)
def test_self_drawn_win():
    s = last([McrTsumo("B", McrWin(10, flowers=2))])
    assert s.points == (-18, 54, -18, -18)


def test_draw_pays_nothing_and_the_deal_passes():
    s = last([McrDraw()])
    assert s.points == (0,) * 4 and s.round_name == "East 2" and s.players[s.dealer] == "B"


# §2.9.2 « необходимые 8 очков »; RULES.md 14: flowers never count toward the minimum
def test_under_8_without_flowers_is_refused():
    with pytest.raises(GameError) as exc:
        play(P, [McrTsumo("B", McrWin(9, flowers=2))])
    assert exc.value.code == E_UNDER_8 and "7 points without flowers" in str(exc.value)
    with pytest.raises(GameError) as exc:
        play(P, [McrRon("A", "A", McrWin(8))])
    assert exc.value.code == E_RON_BY_DISCARDER


# §2.9.2: a false hu with four sets and a pair under 8 points: « по 10 очков каждому »;
# an invalid hand: « по 20 очков каждому »; the hand goes on (dead hand, §2.9.3)
def test_false_hu_pays_10_or_20_to_each_and_the_hand_goes_on():
    s = last([FalseHu("D", "short"), FalseHu("A", "invalid")])
    assert s.points == (-60 + 10, 10 + 20, 10 + 20, -30 + 20) and s.round_name == "East 1"


def test_sixteen_hands_green_book_seats_and_table_points():
    """Seats by round (Green Book scheme): East A B C D, South B A D C, West C D B A,
    North D C A B; the deal passes every hand."""
    dealers, winds = [], []
    states = play(P, [McrDraw()] * 16)
    for s in states[:16]:
        dealers.append(s.players[s.dealer])
        if s.hand == 1:
            winds.append("".join(s.seat_wind(i)[0] for i in range(4)))
    assert "".join(dealers) == "ABCD" "BADC" "CDBA" "DCAB"
    # A's, B's, C's, D's wind in each round's first hand
    assert winds == ["ESWN", "SENW", "NWES", "WNSE"]
    assert states[-1].ended and "North 4" in states[-1].ended
    with pytest.raises(GameError) as exc:
        play(P, [McrDraw()] * 17)
    assert exc.value.code == E_GAME_OVER


def test_a_session_worked_by_hand_ends_with_table_points():
    events = [
        McrRon("C", "A", McrWin(12)),        # A +36, B -8, C -20, D -8
        McrTsumo("B", McrWin(10, 2)),        # B +54, A C D -18
        McrDraw(),
        McrRon("D", "C", McrWin(8)),         # C +32, A -8, B -8, D -16
    ] + [McrDraw()] * 12
    s = last(events)
    assert s.points == (36 - 18 - 8, -8 + 54 - 8, -20 - 18 + 32, -8 - 18 - 16) == (10, 38, -6, -42)
    assert sum(s.points) == 0
    ranking = final_ranking(s)
    assert [(r.name, r.place, r.table_points) for r in ranking] == [
        ("B", 1, 4), ("A", 2, 2), ("C", 3, 1), ("D", 4, 0)]
    assert "session over" in standings_line(s)


# ema.py: « players tied on score share the points of the places they cover »
def test_tied_players_share_table_points():
    s = last([McrRon("C", "A", McrWin(8)), McrRon("D", "B", McrWin(8))] + [McrDraw()] * 14)
    # A: +32 - 8 = 24, B: -8 + 32 = 24, C: -16 - 8 = -24, D: -8 - 16 = -24
    assert s.points == (24, 24, -24, -24)
    assert [r.table_points for r in final_ranking(s)] == [3, 3, Fraction(1, 2), Fraction(1, 2)]


def test_game_cli_mcr_session(tmp_path, capsys):
    path = str(tmp_path / "mcr.jsonl")
    assert main(["game", path, "--new", "A", "B", "C", "D", "--ruleset", "mcr"]) == 0
    assert json.loads(open(path).readline())["ruleset"] == "mcr"
    for ev in [{"type": "ron", "discarder": "C", "winners": [{"player": "A", "fan": 12}]},
               {"type": "tsumo", "player": "B", "fan": 10, "flowers": 2}, {"type": "draw"},
               {"type": "ron", "discarder": "D", "winners": [{"player": "C", "fan": 8}]}] \
            + [{"type": "draw"}] * 12:
        assert main(["game", path, "--add", json.dumps(ev)]) == 0
    capsys.readouterr()
    assert main(["game", path]) == 0
    out = capsys.readouterr().out
    assert "C pays A 20" in out and "1. B 38 → 4 table points" in out
    assert "4. D -42 → 0 table points" in out
    # refused by name: two winners, a riichi event, riichi options
    path2 = str(tmp_path / "m2.jsonl")
    main(["game", path2, "--new", "A", "B", "C", "D", "--ruleset", "mcr"])
    capsys.readouterr()
    two = {"type": "ron", "discarder": "C", "winners": [{"player": "A", "fan": 8},
                                                         {"player": "B", "fan": 8}]}
    assert main(["game", path2, "--add", json.dumps(two)]) == 2
    assert "too_many_winners" in capsys.readouterr().err
    assert main(["game", path2, "--add", '{"type": "riichi", "player": "A"}']) == 2
    assert "riichi" in capsys.readouterr().err
    assert main(["game", str(tmp_path / "m3.jsonl"), "--new", "A", "B", "C", "D",
                 "--ruleset", "mcr", "--options", '{"east_only": true}']) == 2
    assert "takes no options" in capsys.readouterr().err


# a win's value scored from the hand (docs/hand-json.md), seat and prevailing wind from the
# ledger: 123m 456m 789m 123p 55p, ron on 5p, one flower. Green Book fans: Pure Straight 16,
# Concealed Hand 2, All Chows 2, Mixed Double Chow (123m 123p) 1, One Voided Suit (no bamboo)
# 1, Single Wait 1, one flower 1 = 24; « the discarder pays 8 + total, each other player 8 »
def test_game_cli_mcr_win_from_a_scored_hand(tmp_path, capsys):
    path = str(tmp_path / "mcr.jsonl")
    main(["game", path, "--new", "A", "B", "C", "D", "--ruleset", "mcr"])
    hand = {"concealed": "123m456m789m123p5p", "win_tile": "5p", "flowers": 1}
    ev = {"type": "ron", "discarder": "C", "winners": [{"player": "A", "hand": hand}]}
    assert main(["game", path, "--add", json.dumps(ev)]) == 0
    out = capsys.readouterr().out
    assert "C pays A 32" in out and "B pays A 8" in out
    # all chows, concealed, single wait: well under « необходимые 8 очков »
    short = {"concealed": "123m456p678s234s5p", "win_tile": "5p"}
    ev = {"type": "tsumo", "player": "B", "hand": short}
    assert main(["game", path, "--add", json.dumps(ev)]) == 2
    assert "under_8_points" in capsys.readouterr().err
    ev = {"type": "tsumo", "player": "B", "fan": 8, "hand": short}
    assert main(["game", path, "--add", json.dumps(ev)]) == 2
    assert "one of them" in capsys.readouterr().err


# The ledger decides the win, the seat and the prevailing wind; a scored hand saying otherwise
# (A is East in the East round's first hand, the event a ron) is refused naming the key, never
# scored with the two mixed (a self-drawn scoring adds Self-Drawn; the winds change the fans)
@pytest.mark.parametrize("keys, word", [({"win": "tsumo"}, '"win": "tsumo" but the event is a ron'),
                                        ({"seat_wind": "S"}, '"seat_wind": "S" but A sits East'),
                                        ({"round_wind": "N"}, '"round_wind": "N" but the round')])
def test_game_cli_mcr_hand_contradicting_the_ledger_is_refused(tmp_path, capsys, keys, word):
    path = str(tmp_path / "mcr.jsonl")
    main(["game", path, "--new", "A", "B", "C", "D", "--ruleset", "mcr"])
    capsys.readouterr()
    hand = {"concealed": "123m456m789m123p5p", "win_tile": "5p", "flowers": 1, **keys}
    ev = {"type": "ron", "discarder": "C", "winners": [{"player": "A", "hand": hand}]}
    assert main(["game", path, "--add", json.dumps(ev)]) == 2
    err = capsys.readouterr().err
    assert "hand_contradicts_ledger: --add: A's hand says" in err and word in err, err


# at most 8 flowers and seasons (docs/hand-json.md: « flowers … int 0..8 »)
def test_an_mcr_value_out_of_range_is_said_in_the_users_words():
    with pytest.raises(GameError) as exc:
        last([McrRon("C", "A", McrWin(12, 9))])
    assert str(exc.value).endswith("A's flowers must be a whole number ≥ 0 and ≤ 8, got 9")
