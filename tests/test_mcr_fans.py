"""One hand per fan of the Green Book 2006 (81 fans), each with its full fan list and total.

Every expected list is worked out by hand from the Green Book's fan definitions and its
"not counted with" lists (EMA English translation of the Chinese Official rules). The default
seat is South and the prevalent wind East (see tests/mcr_hands.py). A comment explains each
hand where a fan is excluded or a second reading exists.
"""
from __future__ import annotations

import pytest

from scoring.mcr import FANS, score_mcr
from tests.mcr_hands import mcr

CHI_234M, PON_666P, CHI_567S = ("chi", "234m"), ("pon", "666p"), ("chi", "567s")
PLAIN = dict(concealed="45p77z", win_tile="3p", melds=(CHI_234M, PON_666P, CHI_567S))  # no fan

# (fan under test, request kwargs, expected {fan: count}, expected total without flowers)
CASES = [
    ("Big Four Winds", dict(concealed="33344z55m", win_tile="4z", melds=(("pon", "111z"), ("pon", "222z"))),
     # winds never also score Big Three Winds / All Pungs / wind fans / Pung of T or H
     {"Big Four Winds": 1, "Half Flush": 1}, 94),
    ("Big Three Dragons", dict(concealed="555666z77z123m99p", win_tile="7z"),
     # 777z completed by the discard counts melded: two concealed pungs, not three;
     # every set holds a terminal or honour (123m, 99p): Outside Hand
     {"Big Three Dragons": 1, "Outside Hand": 1, "Concealed Hand": 1, "Two Concealed Pungs": 1,
      "One Voided Suit": 1}, 97),
    ("All Green", dict(concealed="22334466688s66z", win_tile="6z"),
     {"All Green": 1, "Pure Double Chow": 1, "Dragon Pung": 1, "Concealed Hand": 1}, 93),
    ("Nine Gates", dict(concealed="1112345678999m", win_tile="5m"),
     # 111 234 55 678 999: Two Concealed Pungs and one Pung of Terminals stay
     {"Nine Gates": 1, "Two Concealed Pungs": 1, "Pung of Terminals or Honors": 1}, 91),
    ("Four Kongs", dict(concealed="9s", win_tile="9s", melds=(("daiminkan", "1111m"), ("kakan", "4444p"),
                                                              ("ankan", "3333s"), ("daiminkan", "5555z"))),
     {"Four Kongs": 1, "Dragon Pung": 1, "Pung of Terminals or Honors": 1}, 91),
    ("Seven Shifted Pairs", dict(concealed="2233445566778p", win_tile="8p", win="tsumo"),
     # Fully Concealed is implied, Self-Drawn is not
     {"Seven Shifted Pairs": 1, "All Simples": 1, "Self-Drawn": 1}, 91),
    ("Thirteen Orphans", dict(concealed="19m19p19s1234567z", win_tile="1z"), {"Thirteen Orphans": 1}, 88),
    ("All Terminals", dict(concealed="111999m111999p9s", win_tile="9s"),
     {"All Terminals": 1, "Four Concealed Pungs": 1, "Single Wait": 1}, 129),
    ("Little Four Winds", dict(concealed="333z4z789m", win_tile="4z", melds=(("pon", "111z"), ("pon", "222z"))),
     {"Little Four Winds": 1, "Half Flush": 1, "Outside Hand": 1, "Prevalent Wind": 1, "Seat Wind": 1,
      "Single Wait": 1}, 79),
    ("Little Three Dragons", dict(concealed="555666z77z123m45m", win_tile="6m"),
     {"Little Three Dragons": 1, "Half Flush": 1, "Concealed Hand": 1, "Two Concealed Pungs": 1,
      "Short Straight": 1}, 75),
    ("All Honors", dict(concealed="111222333555z6z", win_tile="6z"),
     {"All Honors": 1, "Four Concealed Pungs": 1, "Big Three Winds": 1, "Dragon Pung": 1,
      "Prevalent Wind": 1, "Seat Wind": 1, "Single Wait": 1}, 147),
    ("Four Concealed Pungs", dict(concealed="222888m444p666s5p", win_tile="5p", win="tsumo"),
     # 3p and 6p also complete (44p + 345p / 456p): no Single Wait
     {"Four Concealed Pungs": 1, "All Simples": 1, "Self-Drawn": 1}, 67),
    ("Pure Terminal Chows", dict(concealed="1122335778899s", win_tile="5s"),
     # beats the seven-pairs reading (24 + 24 Full Flush)
     {"Pure Terminal Chows": 1, "Concealed Hand": 1, "Single Wait": 1}, 67),
    ("Quadruple Chow", dict(concealed="111122223333p9s", win_tile="9s"),
     # highest reading: 4 x 123p (65) beats 111 222 333 123p (Pure Shifted Pungs, Three
     # Concealed Pungs, 3 Tile Hogs...: 58); 123p and 9s are all reversible tiles
     {"Quadruple Chow": 1, "Reversible Tiles": 1, "Outside Hand": 1, "Concealed Hand": 1, "All Chows": 1,
      "Single Wait": 1}, 65),
    ("Four Pure Shifted Pungs", dict(concealed="222333444555m9p", win_tile="9p"),
     {"Four Pure Shifted Pungs": 1, "Four Concealed Pungs": 1, "Single Wait": 1, "One Voided Suit": 1,
      "No Honors": 1}, 115),
    ("Four Pure Shifted Chows", dict(concealed="122333444556s9m", win_tile="9m"),
     {"Four Pure Shifted Chows": 1, "All Chows": 1, "Concealed Hand": 1, "Single Wait": 1,
      "One Voided Suit": 1}, 38),
    ("Three Kongs", dict(concealed="234m5p", win_tile="5p", melds=(("daiminkan", "1111m"), ("daiminkan", "9999p"),
                                                                 ("ankan", "5555s"))),
     {"Three Kongs": 1, "Pung of Terminals or Honors": 2, "Single Wait": 1, "No Honors": 1}, 36),
    ("All Terminals and Honors", dict(concealed="999p111555z9s", win_tile="9s", melds=(("pon", "111m"),)),
     {"All Terminals and Honors": 1, "Three Concealed Pungs": 1, "All Types": 1, "Dragon Pung": 1,
      "Prevalent Wind": 1, "Single Wait": 1}, 59),
    ("Seven Pairs", dict(concealed="1133m5577p2266s7z", win_tile="7z"), {"Seven Pairs": 1}, 24),
    ("Greater Honors and Knitted Tiles", dict(concealed="147m25p3s1234567z", win_tile="8p"),
     {"Greater Honors and Knitted Tiles": 1}, 24),
    ("All Even Pungs", dict(concealed="888m444p666s6p", win_tile="6p", melds=(("pon", "222m"),)),
     # 5p also completes (44p + 456p): no Single Wait
     {"All Even Pungs": 1, "Three Concealed Pungs": 1}, 40),
    ("Full Flush", dict(concealed="33367m99m", win_tile="8m", melds=(("chi", "123m"), ("chi", "456m"))),
     # 123m + 333m hold all four 3m: Tile Hog
     {"Full Flush": 1, "Short Straight": 1, "Tile Hog": 1}, 27),
    ("Pure Triple Chow", dict(concealed="789s1z", win_tile="1z", melds=(("chi", "234p"),) * 3),
     {"Pure Triple Chow": 1, "One Voided Suit": 1, "Single Wait": 1}, 26),
    ("Pure Shifted Pungs", dict(concealed="555s234m7z", win_tile="7z", melds=(("pon", "333s"), ("pon", "444s"))),
     {"Pure Shifted Pungs": 1, "One Voided Suit": 1, "Single Wait": 1}, 26),
    ("Upper Tiles", dict(concealed="999m789p789s8s", win_tile="8s", melds=(("chi", "789m"),)),
     {"Upper Tiles": 1, "Mixed Triple Chow": 1, "Tile Hog": 1, "Pung of Terminals or Honors": 1,
      "Single Wait": 1}, 36),
    ("Middle Tiles", dict(concealed="444m456p456s5s", win_tile="5s", melds=(("chi", "456m"),)),
     {"Middle Tiles": 1, "Mixed Triple Chow": 1, "Tile Hog": 1, "Single Wait": 1}, 35),
    ("Lower Tiles", dict(concealed="333m123p123s2s", win_tile="2s", melds=(("chi", "123m"),)),
     {"Lower Tiles": 1, "Mixed Triple Chow": 1, "Tile Hog": 1, "Single Wait": 1}, 35),
    ("Pure Straight", dict(concealed="123456789m111p1z", win_tile="1z"),
     {"Pure Straight": 1, "Concealed Hand": 1, "Pung of Terminals or Honors": 1, "One Voided Suit": 1,
      "Single Wait": 1}, 21),
    ("Three-Suited Terminal Chows", dict(concealed="123789m123789p5s", win_tile="5s"),
     {"Three-Suited Terminal Chows": 1, "Concealed Hand": 1, "Single Wait": 1}, 19),
    ("Pure Shifted Chows", dict(concealed="234345s567m8p", win_tile="8p", melds=(("chi", "123s"),)),
     {"Pure Shifted Chows": 1, "All Chows": 1, "Single Wait": 1}, 19),
    ("All Fives", dict(concealed="456p555567s5m", win_tile="5m", melds=(("chi", "345m"),)),
     # four 5s (555s + 567s) is a Tile Hog
     {"All Fives": 1, "Mixed Shifted Chows": 1, "Tile Hog": 1, "Single Wait": 1}, 25),
    ("Triple Pung", dict(concealed="777p777s12m55z", win_tile="3m", melds=(("pon", "777m"),)),
     {"Triple Pung": 1, "Two Concealed Pungs": 1, "Edge Wait": 1}, 19),
    ("Three Concealed Pungs", dict(concealed="22234m555p888s99p", win_tile="5m"),
     {"Three Concealed Pungs": 1, "Concealed Hand": 1, "No Honors": 1}, 19),
    ("Lesser Honors and Knitted Tiles", dict(concealed="14m258p369s12345z", win_tile="6z"),
     {"Lesser Honors and Knitted Tiles": 1}, 12),
    ("Knitted Straight", dict(concealed="147m258p369s123m5z", win_tile="5z"),
     {"Knitted Straight": 1, "Concealed Hand": 1, "Single Wait": 1}, 15),
    ("Upper Four", dict(concealed="999m678p789s6s", win_tile="6s", melds=(("chi", "678m"),)),
     # 6s and 9s both complete the hand: no Single Wait
     {"Upper Four": 1, "Mixed Double Chow": 1, "Pung of Terminals or Honors": 1}, 14),
    ("Lower Four", dict(concealed="444m123p123s1s", win_tile="1s", melds=(("chi", "234m"),)),
     {"Lower Four": 1, "Mixed Double Chow": 1, "Tile Hog": 1}, 15),
    ("Big Three Winds", dict(concealed="333z23m55s", win_tile="4m", melds=(("pon", "111z"), ("pon", "222z"))),
     {"Big Three Winds": 1, "Prevalent Wind": 1, "Seat Wind": 1, "One Voided Suit": 1}, 17),
    ("Mixed Straight", dict(concealed="123m456p789s555z2p", win_tile="2p"),
     {"Mixed Straight": 1, "Dragon Pung": 1, "Concealed Hand": 1, "Single Wait": 1}, 13),
    ("Reversible Tiles", dict(concealed="123345p456s8s", win_tile="8s", melds=(("pon", "555z"),)),
     {"Reversible Tiles": 1, "Dragon Pung": 1, "Single Wait": 1}, 11),
    ("Mixed Triple Chow", dict(concealed="345p345s678m2z", win_tile="2z", melds=(("chi", "345m"),)),
     # the fourth chow 678m still makes a Short Straight with 345m
     {"Mixed Triple Chow": 1, "Short Straight": 1, "Single Wait": 1}, 10),
    ("Mixed Shifted Pungs", dict(concealed="333p444s567m9s", win_tile="9s", melds=(("pon", "222m"),)),
     {"Mixed Shifted Pungs": 1, "Two Concealed Pungs": 1, "Single Wait": 1, "No Honors": 1}, 12),
    ("Chicken Hand", PLAIN, {"Chicken Hand": 1}, 8),
    ("Last Tile Draw", dict(PLAIN, win="tsumo", last_wall_tile=True), {"Last Tile Draw": 1}, 8),
    ("Last Tile Claim", dict(PLAIN, last_wall_tile=True), {"Last Tile Claim": 1}, 8),
    ("Out with Replacement Tile", dict(PLAIN, win="tsumo", replacement_tile=True,
                                       melds=(CHI_234M, ("daiminkan", "6666p"), CHI_567S)),
     {"Out with Replacement Tile": 1, "Melded Kong": 1}, 9),
    ("Robbing the Kong", dict(PLAIN, robbing_kong=True), {"Robbing the Kong": 1}, 8),
    ("All Pungs", dict(concealed="888s99m66z", win_tile="6z", melds=(("pon", "222m"), ("pon", "555p"))),
     {"All Pungs": 1, "Dragon Pung": 1}, 8),
    ("Half Flush", dict(concealed="456888m44z33z", win_tile="4z", melds=(("chi", "123m"),)),
     {"Half Flush": 1, "Short Straight": 1, "Pung of Terminals or Honors": 1}, 8),
    ("Mixed Shifted Chows", dict(concealed="345p456s789m5m", win_tile="5m", melds=(("chi", "234m"),)),
     {"Mixed Shifted Chows": 1, "All Chows": 1, "Single Wait": 1}, 9),
    ("All Types", dict(concealed="234m456p789s11z55z", win_tile="5z"),
     {"All Types": 1, "Dragon Pung": 1, "Concealed Hand": 1}, 10),
    ("Melded Hand", dict(concealed="7m", win_tile="7m", melds=(("chi", "123m"), ("pon", "555p"),
                                                              ("chi", "789s"), ("pon", "666z"))),
     # Single Wait is implied by Melded Hand
     {"Melded Hand": 1, "Dragon Pung": 1}, 8),
    ("Two Concealed Kongs", dict(concealed="345s78s99s", win_tile="6s",
                                 melds=(("ankan", "2222m"), ("ankan", "5555p"))),
     # two concealed kongs are two concealed pungs: not counted again
     {"Two Concealed Kongs": 1, "Concealed Hand": 1, "Short Straight": 1, "No Honors": 1}, 10),
    ("Two Dragon Pungs", dict(concealed="123456m9p", win_tile="9p", melds=(("pon", "555z"), ("pon", "666z"))),
     {"Two Dragon Pungs": 1, "Short Straight": 1, "One Voided Suit": 1, "Single Wait": 1}, 9),
    ("Outside Hand", dict(concealed="999p111s44z99m", win_tile="4z", melds=(("chi", "123m"),)),
     {"Outside Hand": 1, "Pung of Terminals or Honors": 3, "Two Concealed Pungs": 1}, 9),
    ("Fully Concealed Hand", dict(concealed="234567m234p678s9s", win_tile="9s", win="tsumo"),
     # 6s also completes (66s + 789s): no Single Wait
     {"Fully Concealed Hand": 1, "All Chows": 1, "Short Straight": 1, "Mixed Double Chow": 1}, 8),
    ("Two Melded Kongs", dict(concealed="345s67s44s", win_tile="8s",
                              melds=(("daiminkan", "2222m"), ("kakan", "2222p"))),
     {"Two Melded Kongs": 1, "Double Pung": 1, "Short Straight": 1, "All Simples": 1}, 9),
    ("Last Tile", dict(concealed="12s345p77z", win_tile="3s", melds=(("chi", "456m"), ("pon", "888p")),
                       last_copy=True),
     {"Last Tile": 1, "Edge Wait": 1}, 5),
    ("Dragon Pung", dict(concealed="45p99s", win_tile="3p", melds=(CHI_234M, ("pon", "777z"), CHI_567S)),
     {"Dragon Pung": 1}, 2),
    ("Prevalent Wind", dict(concealed="45p99s", win_tile="3p", melds=(CHI_234M, ("pon", "111z"), CHI_567S)),
     {"Prevalent Wind": 1}, 2),
    ("Seat Wind", dict(concealed="45p99s", win_tile="3p", melds=(CHI_234M, ("pon", "222z"), CHI_567S)),
     {"Seat Wind": 1}, 2),
    ("Concealed Hand", dict(concealed="234567m234p678s9s", win_tile="9s"),
     {"Concealed Hand": 1, "All Chows": 1, "Short Straight": 1, "Mixed Double Chow": 1}, 6),
    ("All Chows", dict(concealed="567m345p678s9s", win_tile="9s", melds=(CHI_234M,)),
     {"All Chows": 1, "Short Straight": 1}, 3),
    ("Tile Hog", dict(concealed="444m567p678s9s", win_tile="9s", melds=(CHI_234M,)),
     {"Tile Hog": 1, "No Honors": 1}, 3),
    ("Double Pung", dict(concealed="333p567s789m5z", win_tile="5z", melds=(("pon", "333m"),)),
     {"Double Pung": 1, "Single Wait": 1}, 3),
    ("Two Concealed Pungs", dict(concealed="555p777s678m9s", win_tile="9s", melds=(CHI_234M,)),
     # 8s also completes (77s + 789s): no Single Wait
     {"Two Concealed Pungs": 1, "No Honors": 1}, 3),
    ("Concealed Kong", dict(concealed="345m567s1z", win_tile="1z", melds=(("ankan", "8888p"), CHI_234M)),
     {"Concealed Kong": 1, "Single Wait": 1}, 3),
    ("All Simples", dict(concealed="567p345s66m78s", win_tile="6s", melds=(CHI_234M,)),
     {"All Simples": 1, "All Chows": 1, "Short Straight": 1}, 5),
    ("Pure Double Chow", dict(concealed="567p77s44z", win_tile="4z", melds=(CHI_234M, CHI_234M)),
     {"Pure Double Chow": 1, "Pung of Terminals or Honors": 1}, 2),
    ("Mixed Double Chow", dict(concealed="789s55s44z", win_tile="4z", melds=(CHI_234M, ("chi", "234p"))),
     {"Mixed Double Chow": 1, "Pung of Terminals or Honors": 1}, 2),
    ("Short Straight", dict(concealed="789p55s44z", win_tile="4z", melds=(CHI_234M, ("chi", "567m"))),
     {"Short Straight": 1, "Pung of Terminals or Honors": 1}, 2),
    ("Two Terminal Chows", dict(concealed="456p55s44z", win_tile="4z", melds=(("chi", "123m"), ("chi", "789m"))),
     {"Two Terminal Chows": 1, "Pung of Terminals or Honors": 1}, 2),
    ("Pung of Terminals or Honors", dict(concealed="45p66s", win_tile="3p", melds=(CHI_234M, ("pon", "999p"), CHI_567S)),
     {"Pung of Terminals or Honors": 1, "No Honors": 1}, 2),
    ("Melded Kong", dict(concealed="45p66s", win_tile="3p", melds=(CHI_234M, ("daiminkan", "8888p"), CHI_567S)),
     {"Melded Kong": 1, "All Simples": 1}, 3),
    ("One Voided Suit", dict(concealed="789p4z", win_tile="4z", melds=(CHI_234M, ("chi", "567m"), ("chi", "345p"))),
     {"One Voided Suit": 1, "Short Straight": 1, "Single Wait": 1}, 3),
    ("No Honors", dict(concealed="45p66s", win_tile="3p", melds=(CHI_234M, ("pon", "999p"), CHI_567S)),
     {"Pung of Terminals or Honors": 1, "No Honors": 1}, 2),
    ("Edge Wait", dict(concealed="12s345p77z", win_tile="3s", melds=(("chi", "456m"), ("pon", "888p"))),
     {"Edge Wait": 1}, 1),
    ("Closed Wait", dict(concealed="13s345p77z", win_tile="2s", melds=(("chi", "456m"), ("pon", "888p"))),
     {"Closed Wait": 1}, 1),
    ("Single Wait", dict(concealed="123s345p7z", win_tile="7z", melds=(("chi", "456m"), ("pon", "888p"))),
     {"Single Wait": 1}, 1),
    ("Self-Drawn", dict(PLAIN, win="tsumo"), {"Self-Drawn": 1}, 1),
    ("Flower Tiles", dict(PLAIN, flowers=3), {"Chicken Hand": 1, "Flower Tiles": 3}, 8),
]


def test_every_fan_has_a_case():
    assert sorted(c[0] for c in CASES) == sorted(f.name for f in FANS)
    assert len(FANS) == 81


def test_fan_table_points_match_green_book():
    # Green Book 2006: 7 fans of 88, 6 of 64, 2 of 48, 3 of 32, 9 of 24, 6 of 16, 5 of 12,
    # 9 of 8, 7 of 6, 4 of 4, 10 of 2, 13 of 1 (Flower Tiles included).
    from collections import Counter
    assert Counter(f.points for f in FANS) == {88: 7, 64: 6, 48: 2, 32: 3, 24: 9, 16: 6, 12: 5,
                                               8: 9, 6: 7, 4: 4, 2: 10, 1: 13}
    assert [f.no for f in FANS] == list(range(1, 82))


@pytest.mark.parametrize("fan,kwargs,expected,total", CASES, ids=[c[0] for c in CASES])
def test_fan(fan, kwargs, expected, total):
    res = score_mcr(mcr(**kwargs))
    assert {f.name: f.count for f in res.fans} == expected
    assert res.total_without_flowers == total
    assert res.total == total + kwargs.get("flowers", 0)
    assert res.valid == (total >= 8)
