"""MCR combination principles, win context, rule options, payments and the JSON result.

Sources: Green Book 2006 (Chinese Official rules, EMA English translation): the principles
of non-repeat, non-separation, non-identical, account-once and highest score; the fan
definitions; Flower Tiles outside the 8-point minimum; the payment rule (discarder pays
8 + total, the others 8 each; self-drawn, each pays 8 + total). The seed text's §1.9: a
winning tile not shown separately gives no wait fans, no Last Tile, no Nine Gates.
"""
from __future__ import annotations

import pytest

from scoring.api import score_json
from scoring.hand import HandError
from scoring.mcr import McrRules, NotCompleteError, score_mcr
from tests.mcr_hands import mcr

PLAIN = dict(concealed="45p77z", win_tile="3p", melds=(("chi", "234m"), ("pon", "666p"), ("chi", "567s")))


def fans(res) -> dict:
    return {f.name: f.count for f in res.fans}


# --- combination principles ------------------------------------------------------------------

def test_account_once_four_chows_make_at_most_three_pair_fans():
    # 234m 567m 234p 567p: four relations exist (two Mixed Double Chows, two Short Straights);
    # n sets combine at most n - 1 times, repeats dropped first -> 2 MDC + 1 SS.
    res = score_mcr(mcr("234567m234567p9s", "9s"))
    assert fans(res) == {"Mixed Double Chow": 2, "Short Straight": 1, "All Chows": 1,
                         "Concealed Hand": 1, "Single Wait": 1}
    assert res.total == 8


def test_non_identical_pure_triple_chow_is_not_also_pure_double_chows():
    res = score_mcr(mcr("789s1z", "1z", melds=(("chi", "234p"),) * 3))
    assert "Pure Double Chow" not in fans(res) and fans(res)["Pure Triple Chow"] == 1


def test_non_separation_pure_straight_is_not_split_into_smaller_fans():
    res = score_mcr(mcr("123456789m111p1z", "1z"))
    assert "Short Straight" not in fans(res) and "Two Terminal Chows" not in fans(res)


def test_non_repeat_fully_concealed_excludes_concealed_hand_and_self_drawn():
    res = score_mcr(mcr("234567m234p678s9s", "9s", win="tsumo"))
    assert "Fully Concealed Hand" in fans(res)
    assert "Self-Drawn" not in fans(res) and "Concealed Hand" not in fans(res)


def test_highest_scoring_reading_is_chosen():
    # 111122223333p: four chows 123p (Quadruple Chow) beat three pungs + a chow.
    assert "Quadruple Chow" in fans(score_mcr(mcr("111122223333p9s", "9s")))


def test_pung_completed_by_a_discard_counts_as_melded():
    ron = score_mcr(mcr("222m555p888s44s99p", "4s"))
    assert fans(ron) == {"All Pungs": 1, "Three Concealed Pungs": 1, "Concealed Hand": 1, "No Honors": 1}
    assert ron.total == 25
    tsumo = score_mcr(mcr("222m555p888s44s99p", "4s", win="tsumo"))
    assert fans(tsumo) == {"Four Concealed Pungs": 1, "Self-Drawn": 1, "No Honors": 1}
    assert tsumo.total == 66


# --- waits and the winning tile ------------------------------------------------------------

def test_wait_fan_only_for_the_only_wait():
    # 12s waits only on 3s (Edge Wait); 23s waits on 1s and 4s (no wait fan).
    edge = score_mcr(mcr("12s345p77z", "3s", melds=(("chi", "456m"), ("pon", "888p"))))
    assert fans(edge) == {"Edge Wait": 1}
    two_sided = score_mcr(mcr("23s345p77z", "4s", melds=(("chi", "456m"), ("pon", "888p"))))
    assert "Edge Wait" not in fans(two_sided)


def test_hidden_winning_tile_gives_no_wait_fans_no_last_tile_no_nine_gates():
    hand = dict(concealed="123456m9p", win_tile="9p", melds=(("pon", "555z"), ("pon", "666z")))
    assert score_mcr(mcr(**hand)).total == 9
    hidden = score_mcr(mcr(**hand, win_tile_shown=False))
    assert fans(hidden) == {"Two Dragon Pungs": 1, "Short Straight": 1, "One Voided Suit": 1}
    assert hidden.total == 8
    # Nine Gates unclaimable: the hand is then Full Flush 24 + Concealed Hand 2 + Two Concealed
    # Pungs 2 + Pung of Terminals x2 (111m, 999m) = 30.
    ng = score_mcr(mcr("1112345678999m", "5m", win_tile_shown=False))
    assert "Nine Gates" not in fans(ng) and ng.total == 30
    # Last Tile unclaimable: no fan is left, but the hand is no Chicken Hand (Green Book fan
    # 43: a hand that scores nothing; this one forfeited a fan): 0 points, not a win
    assert fans(score_mcr(mcr(**PLAIN, last_copy=True))) == {"Last Tile": 1}
    forfeit = score_mcr(mcr(**PLAIN, last_copy=True, win_tile_shown=False))
    assert fans(forfeit) == {} and forfeit.total == 0 and not forfeit.valid


def test_a_forfeited_wait_fan_does_not_buy_a_chicken_hand():
    # 12m waits on 3m alone (Edge Wait 1): a false hu under 8 points. Not showing the winning
    # tile loses the Edge Wait (RULES.md 11); it must not make the hand a Chicken Hand worth 8
    hand = dict(concealed="12m456p33z", win_tile="3m", melds=(("chi", "678s"), ("pon", "222p")))
    assert fans(score_mcr(mcr(**hand))) == {"Edge Wait": 1}
    hidden = score_mcr(mcr(**hand, win_tile_shown=False))
    assert fans(hidden) == {} and hidden.total == 0 and not hidden.valid
    # a hand with no fan even when shown stays a Chicken Hand: 23m waits on 1m and 4m
    plain = dict(hand, concealed="23m456p33z", win_tile="4m")
    assert fans(score_mcr(mcr(**plain, win_tile_shown=False))) == {"Chicken Hand": 1}


def test_last_tile_when_the_other_three_are_in_the_winners_exposed_pung():
    res = score_mcr(mcr("12p77z", "3p", melds=(("chi", "234m"), ("pon", "333p"), ("chi", "567s"))))
    # the exposed pung and the winning chow hold all four 3p: also a Tile Hog
    assert fans(res) == {"Last Tile": 1, "Edge Wait": 1, "Tile Hog": 1}


def test_last_copy_while_holding_another_copy_is_refused():
    with pytest.raises(HandError, match="last_copy"):
        score_mcr(mcr("123456m9p", "9p", melds=(("pon", "555z"), ("pon", "666z")), last_copy=True))


def test_knitted_straight_tile_gives_no_wait_fan():
    # 147m258p36s + 9s: the only wait completes the knitted straight, which is not a chow.
    res = score_mcr(mcr("147m258p36s123m55z", "9s"))
    assert fans(res) == {"Knitted Straight": 1, "Concealed Hand": 1}


def test_not_complete_hand_raises():
    with pytest.raises(NotCompleteError):
        score_mcr(mcr("45p98s", "3p", melds=(("chi", "234m"), ("pon", "777z"), ("chi", "567s"))))


def test_five_copies_are_rejected():
    # pymahjonggb scores this; a physical set has four of each tile.
    with pytest.raises(HandError, match="5 copies"):
        mcr("1111m23456789p9s", "1m")
    out = score_json({"ruleset": "mcr", "concealed": "1111m23456789p9s", "win_tile": "1m", "win": "ron"})
    assert out["valid"] is False and "5 copies" in out["error"]


# --- flowers, minimum, payments ----------------------------------------------------------

def test_flowers_do_not_count_toward_the_minimum():
    res = score_mcr(mcr("12s345p77z", "3s", melds=(("chi", "456m"), ("pon", "888p")), flowers=8))
    assert res.total == 9 and res.total_without_flowers == 1 and not res.valid
    assert res.payment is None and "8" in res.reason


def test_payment_on_a_discard():
    # Chicken Hand 8 + 2 flowers = 10: discarder pays 8 + 10, the other two 8 each.
    res = score_mcr(mcr(**PLAIN, flowers=2))
    assert res.payment == {"total": 34, "from_discarder": 18, "from_each_other": 8}


def test_payment_self_drawn():
    # Self-Drawn 1 makes Chicken Hand impossible: use Last Tile Draw 8: each pays 8 + 8.
    res = score_mcr(mcr(**PLAIN, win="tsumo", last_wall_tile=True))
    assert res.total == 8 and res.payment == {"total": 48, "from_each": 16}


def test_spec_example_payment_shape():
    # spec: a 17-point win on a discard -> discarder 25, others 8 each, 41 in all.
    res = score_mcr(mcr("123456789m111p1z", "1z", flowers=0))     # 21 points
    assert res.payment == {"total": 8 + 21 + 16, "from_discarder": 29, "from_each_other": 8}


# --- rule options --------------------------------------------------------------------------

def test_option_seven_pairs_tile_hog():
    hand = dict(concealed="1111m3355p7799s5z", win_tile="5z")
    assert fans(score_mcr(mcr(**hand))) == {"Seven Pairs": 1, "Tile Hog": 1}
    assert fans(score_mcr(mcr(**hand), McrRules(seven_pairs_tile_hog=False))) == {"Seven Pairs": 1}


def test_option_concealed_and_melded_kong_as_five_points():
    hand = dict(concealed="345s78s99s", win_tile="6s", melds=(("ankan", "2222m"), ("daiminkan", "5555p")))
    green = score_mcr(mcr(**hand))
    assert fans(green) == {"Concealed Kong": 1, "Melded Kong": 1, "Short Straight": 1, "No Honors": 1}
    assert green.total == 5
    five = score_mcr(mcr(**hand), McrRules(kong_pair_5=True))
    assert fans(five) == {"Concealed Kong and Melded Kong": 1, "Short Straight": 1, "No Honors": 1}
    assert five.total == 7


def test_option_fifth_copy_wait():
    # 1112m waits on 2m and 3m, but the winner's kong holds all four 3m: 2m is the only wait.
    hand = dict(concealed="1112m", win_tile="2m", melds=(("daiminkan", "3333m"), ("chi", "456p"), ("chi", "789s")))
    assert fans(score_mcr(mcr(**hand))) == {"Melded Kong": 1, "Pung of Terminals or Honors": 1,
                                            "No Honors": 1, "Single Wait": 1}
    assert "Single Wait" not in fans(score_mcr(mcr(**hand), McrRules(fifth_copy_wait=True)))


def test_option_min_points():
    res = score_mcr(mcr(**PLAIN), McrRules(min_points=10))
    assert not res.valid


# --- JSON ----------------------------------------------------------------------------------

def test_json_result_has_exactly_the_spec_keys():
    out = score_mcr(mcr(**PLAIN, flowers=1)).to_json()
    assert set(out) == {"valid", "total", "total_without_flowers", "fans", "payment", "error"}
    assert out["fans"] == [{"name": "Chicken Hand", "points": 8, "count": 1},
                           {"name": "Flower Tiles", "points": 1, "count": 1}]
    low = score_mcr(mcr("12s345p77z", "3s", melds=(("chi", "456m"), ("pon", "888p")))).to_json()
    assert set(low) == {"valid", "total", "total_without_flowers", "fans", "payment", "error", "reason"}


def test_score_json_dispatches_mcr():
    out = score_json({"ruleset": "mcr", "concealed": "123456789m111p1z", "win_tile": "1z", "win": "ron"})
    assert out["valid"] is True and out["total"] == 21 and out["error"] is None
    bad = score_json({"ruleset": "mcr", "concealed": "123456789m111p2z", "win_tile": "1z", "win": "ron"})
    assert bad["valid"] is False and "not a complete hand" in bad["error"]


def test_tilescope_hand_answers_mcr_lines(tmp_path, capsys):
    import json
    from vision.cli.dispatch import main
    f = tmp_path / "in.jsonl"
    f.write_text(json.dumps({"ruleset": "mcr", "concealed": "45p77z", "win_tile": "3p", "win": "ron",
                             "melds": [{"type": "chi", "tiles": "234m"}, {"type": "pon", "tiles": "666p"},
                                       {"type": "chi", "tiles": "567s"}]}) + "\n")
    assert main(["hand", str(f)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["total"] == 8 and out["payment"]["from_discarder"] == 16


def test_a_replacement_tile_that_is_the_wall_s_last_scores_both_fans():
    # MCR draws a kong's replacement from the wall's end (no dead wall): Last Tile Draw 8 +
    # Out with Replacement Tile 8 (each replaces Self-Drawn) + Melded Kong 1 = 17, as
    # pymahjonggb scores it; riichi refuses the pair (its replacements come from the dead wall)
    res = score_mcr(mcr("23m456p33z", "1m", melds=(("chi", "678s"), ("daiminkan", "2222p")),
                        win="tsumo", replacement_tile=True, last_wall_tile=True))
    assert fans(res) == {"Last Tile Draw": 1, "Out with Replacement Tile": 1, "Melded Kong": 1}
    assert res.total == 17
    riichi = score_json({"ruleset": "riichi", "concealed": "23m456p33z", "win_tile": "1m",
                         "win": "tsumo", "replacement_tile": True, "last_wall_tile": True,
                         "melds": [{"type": "chi", "tiles": "678s"}, {"type": "daiminkan", "tiles": "2222p"}]})
    assert "cannot go together" in riichi["error"]
