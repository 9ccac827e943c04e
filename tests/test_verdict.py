"""Verdicts on declared wins, every branch, amounts from the seed rule texts.

MCR (seed 000 §2.9, §3.3): a revealed false hu under 8 points pays 10 to each other player
(30); a revealed invalid hand (wrong sets or tile count) 20 to each (60); not revealed: dead
hand, nothing paid. Riichi (seed 001): chombo is a reverse mangan (non-dealer: 4000 to the
dealer + 2000 to each other player = 8000; dealer: 4000 to each = 12000), or 20,000 standings
points in tournament mode; no yaku and furiten ron are chombo too.
"""
from __future__ import annotations

import json

import pytest

from scoring import verdict as V
from scoring.hand import HandError
from scoring.request import parse_request

MELDS3 = [{"type": "chi", "tiles": "234m"}, {"type": "pon", "tiles": "777z"}, {"type": "chi", "tiles": "567s"}]


def req(**kw):
    obj = {"ruleset": "mcr", "win": "ron", "seat_wind": "S"}
    obj.update(kw)
    return parse_request(obj)


# --- MCR -----------------------------------------------------------------------------------

def test_mcr_valid_win():
    v = V.check(req(concealed="45p77z", win_tile="3p", melds=[{"type": "chi", "tiles": "234m"},
                                                              {"type": "pon", "tiles": "666p"},
                                                              {"type": "chi", "tiles": "567s"}]))
    assert v.ruling == V.VALID and v.valid and v.penalty is None
    assert v.result["total"] == 8 and "Chicken Hand" in v.explanation


def test_mcr_false_hu_under_minimum_revealed():
    # complete: 234m 777z 567s 345p 99s = Dragon Pung 2 only
    v = V.check(req(concealed="45p99s", win_tile="3p", melds=MELDS3))
    assert v.ruling == V.MCR_UNDER_MINIMUM and not v.valid
    assert v.penalty == {"kind": "points", "offender_pays_each": 10, "total": 30}
    assert "Dragon Pung" in v.explanation and "2 points" in v.explanation


def test_mcr_false_hu_not_revealed_is_a_dead_hand():
    v = V.check(req(concealed="45p99s", win_tile="3p", melds=MELDS3), revealed=False)
    assert v.ruling == V.MCR_DEAD_HAND and v.penalty is None


def test_mcr_invalid_hand_revealed():
    v = V.check(req(concealed="45p89s", win_tile="3p", melds=MELDS3))
    assert v.ruling == V.MCR_INVALID_HAND
    assert v.penalty == {"kind": "points", "offender_pays_each": 20, "total": 60}
    assert v.result is None and "not four sets and a pair" in v.explanation


def test_mcr_wrong_tile_count_is_an_error_unless_confirmed():
    # 4 tiles + 3 melds where a hand has 5 (14 - 3 x 3): far likelier a slip than the table's
    # truth, so no ruling; confirmed (count_as_typed), a wrong count is an invalid hand (EMA MCR
    # rules §2.9.2): 20 to each other player, 60 in all, when revealed (§3.3)
    with pytest.raises(V.CountError, match=r"4 tiles given besides 3 melds; a hand with 3 melds has 5"):
        V.check(req(concealed="45p9s", win_tile="3p", melds=MELDS3))
    v = V.check(req(concealed="45p9s", win_tile="3p", melds=MELDS3), count_as_typed=True)
    assert v.ruling == V.MCR_INVALID_HAND and v.penalty["total"] == 60
    assert "it has 4 tiles besides its 3 melds where a hand has 5" in v.explanation
    assert "the ruling rests on it" in v.explanation and "§2.9.2" in v.explanation
    assert V.check(req(concealed="45p9s", win_tile="3p", melds=MELDS3), revealed=False,
                   count_as_typed=True).ruling == V.MCR_DEAD_HAND


def test_mcr_penalty_amounts_are_configurable():
    opts = V.PenaltyOptions(mcr_under_minimum=5, mcr_invalid_hand=30)
    assert V.check(req(concealed="45p99s", win_tile="3p", melds=MELDS3), options=opts).penalty["total"] == 15
    assert V.check(req(concealed="45p89s", win_tile="3p", melds=MELDS3), options=opts).penalty["total"] == 90


def test_mcr_flowers_do_not_rescue_a_false_hu():
    v = V.check(req(concealed="45p99s", win_tile="3p", melds=MELDS3, flowers=8))
    assert v.ruling == V.MCR_UNDER_MINIMUM and "flowers never count" in v.explanation


def test_impossible_hand_is_an_error_not_a_verdict():
    with pytest.raises(HandError, match="5 copies"):
        V.check(req(concealed="1111m23456789p9s", win_tile="1m"))


# --- riichi --------------------------------------------------------------------------------

PINFU = dict(ruleset="riichi", concealed="234m456p678s23s55p", win_tile="4s")  # waits 1s / 4s


def test_riichi_valid_win():
    v = V.check(req(**PINFU))
    assert v.ruling == V.VALID and v.result["payment"]["total"] == 2000
    assert "pinfu" in v.explanation


def test_riichi_furiten_ron_is_chombo():
    from scoring.tiles import parse_tiles
    v = V.check(req(**PINFU), discards=tuple(parse_tiles("9m1s")))
    assert v.ruling == V.RIICHI_FURITEN
    assert v.penalty == {"kind": "reverse mangan", "offender_pays_dealer": 4000,
                         "offender_pays_each_non_dealer": 2000, "total": 8000}
    assert "1s" in v.explanation


def test_riichi_discards_off_the_waits_are_not_furiten():
    from scoring.tiles import parse_tiles
    assert V.check(req(**PINFU), discards=tuple(parse_tiles("9m2s"))).ruling == V.VALID


def test_riichi_furiten_does_not_apply_to_tsumo():
    from scoring.tiles import parse_tiles
    assert V.check(req(**dict(PINFU, win="tsumo")), discards=tuple(parse_tiles("1s"))).ruling == V.VALID


def test_riichi_no_yaku_is_chombo():
    # open hand, a terminal pair: no tanyao, no yakuhai, no pinfu
    v = V.check(req(ruleset="riichi", concealed="456p678s23s99m", win_tile="4s",
                    melds=[{"type": "chi", "tiles": "234m"}]))
    assert v.ruling == V.RIICHI_NO_YAKU and v.penalty["total"] == 8000


def test_riichi_not_complete_dealer_pays_four_thousand_each():
    v = V.check(req(**dict(PINFU, concealed="234m456p678s23s56p", seat_wind="E")))
    assert v.ruling == V.RIICHI_NOT_COMPLETE
    assert v.penalty == {"kind": "reverse mangan", "offender_pays_each": 4000, "total": 12000}


def test_riichi_chombo_in_tournament_mode():
    v = V.check(req(**dict(PINFU, concealed="234m456p678s23s56p")), tournament=True)
    assert v.penalty == {"kind": "standings", "points": 20000, "total": 20000}
    opts = V.PenaltyOptions(tournament_chombo=8000)
    assert V.check(req(**dict(PINFU, concealed="234m456p678s23s56p")), tournament=True,
                   options=opts).penalty["total"] == 8000


# --- JSON ----------------------------------------------------------------------------------

def test_check_json_reads_the_table_keys():
    out = V.check_json({"ruleset": "mcr", "concealed": "45p99s", "win_tile": "3p", "win": "ron",
                        "melds": MELDS3, "revealed": False})
    assert out["ruling"] == V.MCR_DEAD_HAND and out["error"] is None
    out = V.check_json(dict(PINFU, win="ron", discards="1s", tournament=True))
    assert out["ruling"] == V.RIICHI_FURITEN and out["penalty"]["total"] == 20000
    out = V.check_json({"ruleset": "mcr", "concealed": "45p99s", "win_tile": "3p", "win": "ron",
                        "melds": MELDS3, "penalties": {"mcr_under_minimum": 8}})
    assert out["penalty"]["total"] == 24


@pytest.mark.parametrize("bad,msg", [
    ([1, 2], "JSON object"),
    ({"ruleset": "mcr"}, "concealed"),
    (dict(PINFU, win="ron", discards=5), "discards"),
    (dict(PINFU, win="ron", discards="9x"), "discards"),
    (dict(PINFU, win="ron", revealed="yes"), "revealed"),
    (dict(PINFU, win="ron", penalties={"bogus": 1}), "penalties"),
    (dict(PINFU, win="ron", declared="pon"), "declared"),
    ({"ruleset": "mcr", "concealed": "1111m23456789p9s", "win_tile": "1m", "win": "ron"}, "5 copies"),
])
def test_check_json_never_raises(bad, msg):
    out = V.check_json(bad)
    assert out["valid"] is False and msg in out["error"]


# --- CLI -----------------------------------------------------------------------------------

def test_cli_check_text(capsys):
    from vision.cli.dispatch import main
    rc = main(["check", "--text", "45p99s3p +chi 234m +pon 777z +chi 567s", "--ruleset", "mcr", "--seat", "S"])
    out = capsys.readouterr().out
    assert rc == 0 and "FALSE HU: UNDER THE MINIMUM" in out and "30 in all" in out
    rc = main(["check", "--text", "45p99s3p +chi 234m +pon 777z +chi 567s", "--ruleset", "mcr",
               "--not-revealed", "--json"])
    assert rc == 0 and json.loads(capsys.readouterr().out)["ruling"] == V.MCR_DEAD_HAND


def test_cli_check_bad_input_exits_2(capsys):
    from vision.cli.dispatch import main
    assert main(["check", "--text", "1111m1m23456789p9s", "--ruleset", "mcr"]) == 2
    assert "5 copies" in capsys.readouterr().err
    assert main(["check", "--text", "234m456p678s23s55p4s", "--discards", "9x"]) == 2


def test_cli_check_json_lines(tmp_path, capsys):
    from vision.cli.dispatch import main
    f = tmp_path / "in.jsonl"
    f.write_text(json.dumps(dict(PINFU, win="ron", discards="1s")) + "\nnot json\n\n")
    assert main(["check", str(f)]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert lines[0]["ruling"] == V.RIICHI_FURITEN and "not JSON" in lines[1]["error"] and len(lines) == 2
    assert main(["check", str(tmp_path / "missing.jsonl")]) == 2


def test_discards_are_tiles_of_the_same_set():
    from scoring.tiles import parse_tiles
    V.check(req(**PINFU), discards=tuple(parse_tiles("9999m")))      # all four 9m: possible
    with pytest.raises(HandError, match="discards: 7 copies of 5p"):  # 456p and 55p in the hand
        V.check(req(**PINFU), discards=tuple(parse_tiles("5555p")))


def test_valid_win_explanation_names_the_dora_beside_the_yaku():
    """1 han of yakuhai (chun) and 1 aka dora (the red 0p): 2 han 40 fu (20 + 10 closed ron +
    4 chun pon completed by ron + 4 double-east pair = 38 -> 40), dealer ron 40 x 2^4 x 6 =
    3840 -> 3900."""
    hand = {"ruleset": "riichi", "concealed": "123m406p789s1177z", "win_tile": "7z",
            "win": "ron", "seat_wind": "E", "round_wind": "E"}
    v = V.check(parse_request(hand))
    assert v.ruling == V.VALID and v.result["payment"]["total"] == 3900
    assert "yaku yakuhai (chun) 1; aka dora 1; 2 han 40 fu" in v.explanation


def test_declared_tsumo_is_valued_as_a_tsumo_not_ruled_on_the_default_ron(capsys):
    # 234m 678s 55z 23p+4p 789p, South seat: no yaku by ron (chombo), but a closed self-drawn
    # win has menzen tsumo (seed 001): 1 han; fu 20 + 2 tsumo + 2 (a dragon pair) + 0 (23p
    # waits on 1p/4p) = 24 -> 30; non-dealer tsumo 30 x 2^3 = 240: 300 / 500, 1100
    from vision.cli.dispatch import main
    rc = main(["check", "--text", "234m678s55z23p789p4p", "--seat", "S", "--declared", "tsumo"])
    out = capsys.readouterr().out
    assert rc == 0 and "Ruling: VALID" in out
    assert "from dealer 500, from non-dealer 300; total 1100" in out
    rc = main(["check", "--text", "234m678s55z23p789p4p", "--seat", "S", "--declared", "ron",
               "--win", "tsumo"])
    assert rc == 2 and "--declared ron but --win tsumo" in capsys.readouterr().err


def test_declared_ron_or_tsumo_must_match_the_request_s_win():
    out = V.check_json(dict(PINFU, win="ron", declared="tsumo"))
    assert out["valid"] is False and "declared 'tsumo' but 'win' is 'ron'" in out["error"]
    assert V.check_json(dict(PINFU, win="tsumo", declared="tsumo"))["error"] is None


def test_a_valid_ron_says_what_furiten_was_not_checked():
    # a referee reading VALID must not take furiten as cleared when no discards were given
    no_discards = V.check_json(dict(PINFU, win="ron"))
    assert no_discards["ruling"] == V.VALID
    assert "Furiten was not checked: no discards were given" in no_discards["explanation"]
    with_discards = V.check_json(dict(PINFU, win="ron", discards="9m"))
    assert "own discards only" in with_discards["explanation"]
    assert "Furiten" not in V.check_json(dict(PINFU, win="tsumo"))["explanation"]  # tsumo: none


def test_pao_is_named_when_a_daisangen_has_an_open_dragon_set():
    # EMA/WRC: the feeder of the third dragon pon pays; a request cannot say who that was
    obj = {"ruleset": "riichi", "concealed": "234m1p", "win_tile": "1p", "win": "ron", "seat_wind": "S",
           "melds": [{"type": "pon", "tiles": "555z"}, {"type": "pon", "tiles": "666z"},
                     {"type": "pon", "tiles": "777z"}]}
    out = V.check_json(obj)
    assert out["result"]["payment"]["total"] == 32000 and "Pao not applied" in out["explanation"]
    closed = dict(obj, concealed="234m1p555666777z", melds=[])   # suuankou-free, all concealed
    assert "Pao" not in V.check_json(closed)["explanation"]


def test_rules_tilescope_does_not_model_are_named_as_such():
    out = V.check_json(dict(PINFU, win="ron", pao="left"))
    assert "unknown key 'pao': pao (liability payments) is not modelled" in out["error"]
    out = V.check_json(dict(PINFU, win="ron", renhou=True))
    assert "renhou is not modelled" in out["error"]


def test_check_text_one_tile_short_is_an_input_error_unless_the_count_is_confirmed(capsys):
    # 7 tiles typed besides 2 melds where a hand has 8 (14 - 3 x 2): a typed count is far
    # likelier a slip (the winning tile left out) than the table's truth: exit 2, naming it.
    # Confirmed (--count-as-typed), a declared hu one tile short is an MCR revealed invalid
    # hand (EMA MCR rules §2.9.2): 20 to each other player, 60 in all (§3.3)
    from vision.cli.dispatch import main
    text = ["--ruleset", "mcr", "--text", "3m456p3z3z1m +chi 678s +pon 222p", "--seat", "S"]
    assert main(["check", *text]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert ("7 tiles typed besides 2 melds; a hand with 2 melds has 8 (7 + the winning tile) "
            "(the winning tile left out?") in captured.err and "--count-as-typed" in captured.err
    assert main(["check", *text, "--count-as-typed"]) == 0
    out = capsys.readouterr().out
    assert "FALSE HU: INVALID HAND" in out and "60 in all" in out
    assert "it has 7 tiles besides its 2 melds where a hand has 8" in out and "rests on it" in out
    assert main(["hand", "--ruleset", "mcr", "--text", "3m456p3z3z1m +chi 678s +pon 222p"]) == 2
    assert "without its winning tile" in capsys.readouterr().err


def test_a_check_request_that_cannot_be_ruled_on_answers_with_a_verdict_s_keys(tmp_path, capsys):
    # docs/hand-json.md: the answer is ruleset, ruling, valid, penalty, result, explanation,
    # error; a malformed request had only valid and error
    keys = ["ruleset", "ruling", "valid", "penalty", "result", "explanation", "error"]
    out = V.check_json(dict(PINFU, win="ron", comment="x"))
    assert list(out) == keys and out["ruleset"] == "riichi" and out["ruling"] is None
    assert "unknown key 'comment'" in out["error"]
    assert V.check_json([1])["error"] == "a request is a JSON object, got an array"
    from vision.cli.dispatch import main
    requests = tmp_path / "claims.jsonl"
    # one bad line in a JSON Lines file (a file of no JSON at all is refused in one line)
    requests.write_bytes(b"{bad\n" + json.dumps(dict(PINFU, win="ron")).encode() + b"\n")
    assert main(["check", str(requests)]) == 0
    line = json.loads(capsys.readouterr().out.splitlines()[0])
    assert list(line) == keys and line["error"].startswith("not JSON")


def test_check_text_wrong_count_is_an_input_error_unless_confirmed(capsys):
    # issue 35: 11 tiles typed was ruled CHOMBO, 12000, exit 0. A hand is 14 tiles (13 + the
    # winning tile); 11 is a slip until confirmed: exit 2, nothing on stdout
    from vision.cli.dispatch import main
    assert main(["check", "--text", "234m456p678s22s", "--discards", "2s5s"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("tilescope check: 11 tiles typed; a hand has 14 (13 + the winning tile)")
    # an MCR hand typed with 15 tiles: likewise, not a 60-point false hu
    assert main(["check", "--ruleset", "mcr", "--text", "123m456p789s111z22z3z"]) == 2
    assert "15 tiles typed; a hand has 14" in capsys.readouterr().err


def test_check_text_confirmed_wrong_count_is_ruled_and_says_what_it_assumed(capsys):
    # 15 tiles confirmed: a false mahjong, chombo (seed 001: « Mah-jong invalide »), the
    # dealer's reverse mangan 4000 x 3 = 12000 — and the report says the seat and win it
    # assumed, and that the ruling rests on the count
    from vision.cli.dispatch import main
    assert main(["check", "--text", "234m456p678s1199s3m9s", "--count-as-typed"]) == 0
    out = capsys.readouterr().out
    assert "12000 in all" in out
    assert out.startswith("Assumed: riichi rules (--ruleset mcr for Chinese Official); won on a "
                          "discard (--win tsumo if self-drawn); seat East, the dealer (--seat)")
    assert "it has 15 tiles where a hand has 14 (the count as given, confirmed" in out


def test_json_check_wrong_count_is_an_error_unless_count_as_typed():
    # docs/hand-json.md: count_as_typed confirms a count that is not a hand's; without it no ruling
    obj = {"ruleset": "mcr", "concealed": "123m456p789s111z", "win_tile": "2z", "win": "ron"}
    out = V.check_json(obj)
    assert out["ruling"] is None and out["penalty"] is None
    assert out["error"].startswith("13 tiles given; a hand has 14 (13 + the winning tile)")
    assert '"count_as_typed": true' in out["error"]
    out = V.check_json(dict(obj, count_as_typed=True))
    assert out["ruling"] == V.MCR_INVALID_HAND and out["penalty"]["total"] == 60   # 3 x 20, §2.9.2
    assert V.check_json(dict(obj, count_as_typed="yes"))["error"] == "count_as_typed must be true or false"
    # an impossible hand stays an error, confirmed or not: five of a tile (a set has 4)
    five = dict(obj, concealed="11111m56p789s111z", count_as_typed=True)
    assert "5 copies of 1m" in V.check_json(five)["error"]


def test_check_photo_refuses_count_as_typed(capsys):
    # a photo's count is no typing: one that does not add up holds the ruling back
    # (vision.photo.held_ruling.layout_doubts), so there is nothing to confirm
    from vision.cli.dispatch import main
    assert main(["check", "hand.jpg", "--count-as-typed"]) == 2
    assert "--count-as-typed goes with --text or FILE" in capsys.readouterr().err
