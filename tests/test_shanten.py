"""Shanten, accepting tiles and valued waits (scoring/shanten.py, scoring/waits.py).

Values worked out by hand from the definitions in scoring/shanten.py (the riichi community's
shanten: 8 - 2 x sets - partial sets - pair; seven pairs 6 - pairs + missing kinds; thirteen
orphans 13 - kinds - pair), and differentially against ``mahjong==2.1.0``'s Shanten (the
test-only reference, as for scoring)."""
from __future__ import annotations

import random

import pytest

from scoring.api import score_hand
from scoring.decompose import is_complete
from scoring.hand import HandError, HandRequest, Meld
from scoring.shanten import accepting, discards, drawn_shanten, orphans_shanten, seven_pairs_shanten, shanten
from scoring.tiles import counts34, kind_of, parse_tiles
from scoring.waits import hand_waits


def c(text: str) -> list[int]:
    return counts34(parse_tiles(text))


@pytest.mark.parametrize("hand, melds, want", [
    ("123456789m1122p", 0, 0),          # 3 sets + 2 pairs: 8 - 6 - 1 - 1 = 0 (waits 1p 2p)
    ("123456789m11123p", 0, -1),        # complete: three runs, 11p, 123p
    ("123456789m1123p", 0, 0),          # 11p pair + 23p: waits 1p 4p
    ("13579m2468p1357s", 0, 4),         # 6 kanchan, no set, no pair: 8 - min(6, 4) = 4
    ("19m19p19s1234567z", 0, 0),        # thirteen orphans, 13-sided
    ("19m19p19s123456z5m", 0, 1),       # orphans without Red: 13 - 12 = 1
    ("1122m3344p5566s7z", 0, 0),        # seven pairs tenpai (tanki on 7z)
    ("1111m2233p4455s66z", 0, 1),       # a quad is one pair, not two (seven pairs: 2)
    ("1111m234p567p789s", 0, 1),        # tanki on a fifth 1m is no wait; 11m+11m are not two pairs
    ("223344678m9999m", 0, 0),          # 234m 234m 789m 999m + 6m: tanki on 6m (not on a fifth 9m)
    ("234m567p1z", 2, 0),               # two melds: tanki on 1z
    ("1z", 4, 0),                       # four melds, tanki
])
def test_shanten_by_hand(hand, melds, want):
    assert shanten(c(hand), melds) == want


def test_seven_pairs_and_orphans_formulas():
    assert seven_pairs_shanten(c("1122m3344p5566s77z")) == -1
    assert seven_pairs_shanten(c("1111m2222p3333s4z")) == 6 - 3 + (7 - 4)    # 6: 3 pairs, 4 kinds
    assert orphans_shanten(c("19m19p19s1234567z")) == 0
    assert orphans_shanten(c("19m19p19s1234566z")) == 0     # 12 kinds + a pair: waits on 7z
    assert orphans_shanten(c("2345678m2345678p")) == 13


def test_known_waits():
    # 123456789m1122p waits on 1p and 2p, two of each left
    assert [(a.kind, a.left) for a in accepting(c("123456789m1122p"))] == [(kind_of("1p"), 2), (kind_of("2p"), 2)]
    # the nine gates 1112345678999m waits on all nine manzu
    assert [a.kind for a in accepting(c("1112345678999m"))] == list(range(9))
    # 13-sided thirteen orphans waits on all 13
    assert len(accepting(c("19m19p19s1234567z"))) == 13
    # a quad in the hand is no wait: 1111m 234p 567p 789s + 1z: tanki on 1z only
    assert [a.kind for a in accepting(c("1111m234p567p789s1z"))] == [kind_of("1z")]


def test_accepting_counts_visible_tiles():
    hand = c("123456789m1122p")
    seen = c("123456789m1122p1p")          # a 1p in the discards or an indicator
    assert [(a.kind, a.left) for a in accepting(hand, 0, seen)] == [(kind_of("1p"), 1), (kind_of("2p"), 2)]


def test_discards_of_fourteen():
    # 123456789m1122p + 5z: throwing 5z leaves tenpai on 1p 2p (4 tiles)
    table = discards(c("123456789m1122p5z"))
    best = table[0]
    assert best.kind == kind_of("5z") and best.shanten == 0 and best.left == 4
    assert all(d.shanten >= 0 for d in table)


def _random_hand(rng, n_melds: int) -> list[int]:
    suits = rng.sample(range(4), rng.choice([1, 2, 4]))
    wall = [k for k in range(34) if k // 9 in suits for _ in range(4)]
    size = rng.choice([13, 14]) - 3 * n_melds
    return counts34(parse_tiles("")) if size <= 0 else _counts(rng.sample(wall, size))


def _counts(kinds):
    out = [0] * 34
    for k in kinds:
        out[k] += 1
    return out


def test_agrees_with_mahjong_package():
    mahjong = pytest.importorskip("mahjong.shanten")
    rng = random.Random(30)
    for _ in range(3000):
        n = rng.choice([0, 0, 0, 1, 2, 3, 4])
        h = _random_hand(rng, n)
        ref = (mahjong.Shanten.calculate_shanten(h) if n == 0
               else mahjong.Shanten.calculate_shanten_for_regular_hand(h))
        assert shanten(h, n) == ref, (h, n)


def test_tenpai_by_brute_force():
    # tenpai <=> some drawable kind (fewer than four held) completes the hand
    rng = random.Random(31)
    for _ in range(800):
        n = rng.choice([0, 0, 1, 2])
        suits = rng.sample(range(4), rng.choice([1, 2]))
        wall = [k for k in range(34) if k // 9 in suits for _ in range(4)]
        h = _counts(rng.sample(wall, 13 - 3 * n))
        drawable = [k for k in range(34) if h[k] < 4]
        tenpai = any(is_complete([x + (i == k) for i, x in enumerate(h)], n) for k in drawable)
        assert (shanten(h, n) == 0) == tenpai, (h, n)


def test_one_away_by_brute_force():
    # 1-shanten <=> not tenpai, and some draw then discard leaves it tenpai
    rng = random.Random(32)
    checked = 0
    while checked < 40:
        h = _counts(rng.sample([k for k in range(9) for _ in range(4)] + [27, 27, 28], 13))
        s = shanten(h)
        if s not in (1, 2):
            continue
        checked += 1
        best = min(shanten([x + (i == d) - (i == t) for i, x in enumerate(h)])
                   for d in range(34) if h[d] < 4 for t in range(34) if h[t] + (t == d) > 0)
        assert best == s - 1, h


# --- valued waits ---------------------------------------------------------------------------

def test_wait_values_equal_the_hand_scorer():
    report = hand_waits(parse_tiles("123456789m1122p"), context={"dora_indicators": parse_tiles("1p")})
    assert [w.kind for w in report.waits] == [kind_of("1p"), kind_of("2p")]
    assert [w.left for w in report.waits] == [1, 2]      # the 1p indicator is seen
    for w in report.waits:
        for how, got in (("ron", w.ron), ("tsumo", w.tsumo)):
            req = HandRequest(concealed=parse_tiles("123456789m1122p"), win_tile=parse_tiles(str(_t(w.kind)))[0],
                              win=how, dora_indicators=parse_tiles("1p"))
            assert got == score_hand(req).to_json()
    assert report.waits[1].ron["han"] == 2 + 3        # 2p wins: ittsu 2, three 2p are dora


def _t(kind):
    from scoring.tiles import tile
    return tile(kind)


def test_no_yaku_by_ron_said_plainly():
    report = hand_waits(parse_tiles("123456m789p1122s"), context={"seat_wind": "S"})
    assert report.shanten == 0
    for w in report.waits:
        assert not w.ron["valid"] and w.tsumo["valid"]
        assert w.note == "no yaku by ron: only tsumo wins (or declare riichi)"
    riichi = hand_waits(parse_tiles("123456m789p1122s"), context={"seat_wind": "S", "riichi": "riichi"})
    assert all(w.note is None for w in riichi.waits)


def test_no_yaku_at_all_on_an_open_hand():
    # 456m 789p 11s 22s + chi 123m, seat South: no yaku by ron nor by tsumo
    report = hand_waits(parse_tiles("456m789p1122s"), (Meld("chi", tuple(parse_tiles("123m"))),),
                        context={"seat_wind": "S"})
    assert [w.note for w in report.waits] == ["no yaku on this wait: neither ron nor tsumo is a win"] * 2


def test_furiten():
    report = hand_waits(parse_tiles("123456789m1123p"), discards=parse_tiles("4p"))
    assert report.furiten == (kind_of("4p"),)
    assert report.to_json()["furiten"] is True
    assert hand_waits(parse_tiles("123456789m1123p"), discards=parse_tiles("5p")).to_json()["furiten"] is False
    assert hand_waits(parse_tiles("123456789m1123p")).to_json()["furiten"] is None   # not given


def test_discarding_a_wait_is_furiten():
    # 123456789m1123p + 4p drawn: throwing 4p waits on 1p 4p with a 4p in the discards
    report = hand_waits(parse_tiles("123456789m11234p"))
    assert report.shanten == -1
    throw_4p = next(d for d in report.discards if d.tile.kind == kind_of("4p"))
    assert throw_4p.shanten == 0 and throw_4p.furiten == (kind_of("4p"),)


def test_bad_hands_raise():
    with pytest.raises(HandError):
        hand_waits(parse_tiles("123m"))
    with pytest.raises(HandError):
        hand_waits(parse_tiles("11111m23456789p"))


def test_mcr_waits_and_points():
    report = hand_waits(parse_tiles("123456789m1122p"), context={"ruleset": "mcr"})
    assert [w.kind for w in report.waits] == [kind_of("1p"), kind_of("2p")]
    assert all("total" in w.ron for w in report.waits)


def test_three_plain_fives_wait_on_the_red_one():
    report = hand_waits(parse_tiles("55567m456p789s11z"))
    five = next(w for w in report.waits if w.kind == kind_of("5m"))
    assert five.tsumo["valid"] and five.tsumo["dora"]["aka"] == 1


def test_drawn_shanten_equals_one_shanten_per_draw():
    # the per-suit shortcut of accepting() gives what 34 separate shanten calls give
    rng = random.Random(33)
    for _ in range(1500):
        n = rng.choice([0, 0, 1, 2, 3])
        suits = rng.sample(range(4), rng.choice([1, 2, 4]))
        wall = [k for k in range(34) if k // 9 in suits for _ in range(4)]
        h = _counts(rng.sample(wall, 13 - 3 * n))
        drawn = drawn_shanten(h, n)
        for k in range(34):
            if h[k] < 4:
                assert drawn[k] == shanten([x + (i == k) for i, x in enumerate(h)], n), (h, n, k)


def _tenpai_of_random_wins(rng, count: int, mcr: bool):
    """(concealed, melds, context) of random wins (scoring.riichi.random_hands) less their
    winning tile: tenpai hands of play with melds, riichi, winds and dora indicators."""
    from scoring.riichi.random_hands import random_request
    from scoring.tiles import TileError, check_physical, tile
    out = []
    while len(out) < count:
        req = random_request(rng)
        try:
            check_physical(req.all_tiles + req.dora_indicators)
        except TileError:
            continue
        if mcr:
            plain = tuple(tile(t.kind) for t in req.concealed)
            melds = tuple(Meld(m.type, tuple(tile(t.kind) for t in m.tiles)) for m in req.melds)
            out.append((plain, melds, {"ruleset": "mcr", "seat_wind": req.seat_wind,
                                       "round_wind": req.round_wind}))
        else:
            out.append((req.concealed, req.melds, {
                "seat_wind": req.seat_wind, "round_wind": req.round_wind, "riichi": req.riichi,
                "dora_indicators": req.dora_indicators, "rules": req.rules}))
    return out


@pytest.mark.parametrize("mcr", [False, True], ids=["riichi", "mcr"])
def test_every_wait_value_equals_the_hand_scorer_on_random_hands(mcr):
    # the value of each wait, by ron and by tsumo, is what `tilescope hand` says of the hand
    # completed by that tile (scoring.api.score_json is the command's own scorer)
    from scoring.api import score_json
    from scoring.request import request_to_json
    rng = random.Random(34 + mcr)
    waits = 0
    for concealed, melds, ctx in _tenpai_of_random_wins(rng, 150, mcr):
        report = hand_waits(concealed, melds, ctx)
        assert report.shanten == 0 and report.waits, (concealed, melds)
        for w in report.waits:
            for how, got in (("ron", w.ron), ("tsumo", w.tsumo)):
                plain = [t for t in concealed + tuple(x for m in melds for x in m.tiles) if t.kind == w.kind]
                red = not mcr and w.kind in (4, 13, 22) and len(plain) == 3 and not any(t.red for t in plain)
                req = HandRequest(**ctx, concealed=concealed, melds=melds, win=how,
                                  win_tile=parse_tiles(str(_t(w.kind)).replace("5", "0") if red else str(_t(w.kind)))[0])
                if got.get("error"):        # every copy in sight: the scorer says five copies
                    assert w.left == 0 and "copies" in got["error"]
                assert got == score_json(request_to_json(req)), (concealed, melds, w.kind, how)
            waits += 1
    assert waits > 200


def test_a_wait_with_every_copy_in_sight_is_said_so():
    # 11p 234p 567p 78p 999p waits on 1p 6p 9p (the full flush's shapes); three 9p in the hand
    # and the fourth as the dora indicator: no 9p can come, and the scorer refuses a fifth
    report = hand_waits(parse_tiles("1123456778999p"), context={"dora_indicators": parse_tiles("9p")})
    nine = report.waits[-1]
    assert [w.kind for w in report.waits] == [kind_of("1p"), kind_of("6p"), kind_of("9p")]
    assert nine.left == 0 and "5 copies of 9p" in nine.ron["error"]
    assert nine.note.startswith("no copy left")
    assert report.waits[0].note is None and report.waits[0].ron["valid"]
