"""MCR shanten over every MCR shape (scoring/mcr/shanten.py) and the waits of MCR hands.

Shapes and fans from the Green Book 2006 (the MCR rule book; fan numbers as in
scoring/mcr/fans.py): Thirteen Orphans (fan 7), Seven Pairs (fan 19: any seven pairs, four of
a kind being two, scoring/mcr/RULES.md rule 3), Greater Honors and Knitted Tiles (fan 20: the
seven honours and seven tiles of one knitted straight), Lesser Honors and Knitted Tiles (fan 34:
fourteen different tiles among a knitted straight's nine and the honours), Knitted Straight
(fan 35: 147, 258, 369 in three suits, with a set and a pair). The brute force asks the MCR
scoring core (scoring.mcr.shapes.is_complete, and scoring.api.score_hand for the values)
whether each draw completes the hand."""
from __future__ import annotations

import random

import pytest

from scoring.api import score_hand
from scoring.hand import HandRequest, Meld
from scoring.mcr.shanten import (honours_knitted_shanten, knitted_straight_shanten, mcr_shanten,
                                 seven_pairs_shanten)
from scoring.mcr.shapes import KNITTED_PATTERNS, is_complete
from scoring.shanten import shanten
from scoring.tiles import counts34, kind_of, parse_tiles, tile
from scoring.waits import hand_waits

TERMINALS_HONOURS = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)


def c(text: str) -> list[int]:
    return counts34(parse_tiles(text))


def kinds(text: str) -> list[int]:
    return [t.kind for t in parse_tiles(text)]


@pytest.mark.parametrize("hand, want_waits, fan", [
    # fan 20: seven honours + 147m 258p, the knitted straight's 369s missing: any of them
    ("147m258p1234567z", "369s", "Greater Honors and Knitted Tiles"),
    # fan 34 (and 35: the whole knitted straight is there): 9 knitted + 4 honours, 3 to go
    ("147m258p369s1234z", "567z", "Lesser Honors and Knitted Tiles"),
    # fan 35: knitted straight + 123m + a single 5z: the pair's tile
    ("147m258p369s123m5z", "5z", "Knitted Straight"),
    # fan 35 with a pung: 111z + 22z, the straight's 9s missing
    ("147m258p36s11122z", "9s", "Knitted Straight"),
    # fan 19 with four of a kind as two pairs (riichi: 1-shanten, seven *different* pairs)
    ("1111m2233p4455s6z", "6z", "Seven Pairs"),
    # fan 7, the 13-sided wait
    ("19m19p19s1234567z", "19m19p19s1234567z", "Thirteen Orphans"),
])
def test_special_shapes_are_tenpai_with_their_waits(hand, want_waits, fan):
    assert mcr_shanten(c(hand)) == 0
    report = hand_waits(parse_tiles(hand), context={"ruleset": "mcr"})
    assert report.shanten == 0
    assert [w.kind for w in report.waits] == sorted(kinds(want_waits))
    for w in report.waits:
        assert fan in [f["name"] for f in w.ron["fans"]], (hand, tile(w.kind))


def test_quad_seven_pairs_differs_from_riichi():
    # riichi: four of a kind is one pair: 5 pairs of 6 kinds, 6 - 5 + (7 - 6) = 2
    assert shanten(c("1111m2233p4455s6z")) == 2
    assert seven_pairs_shanten(c("1111m2233p4455s6z")) == 0


def test_shape_formulas_by_hand():
    # 8 of 147m258p369s + 4 honours: 12 of the 16 kinds, 13 - 12 = 1
    assert honours_knitted_shanten(c("147m258p36s1234z5m")) == 1
    # one knitted tile missing (9s), the rest 5m 1234z: no set, no pair beside the straight:
    # 1 missing + (8 - 2 x 3 sets) = 3
    assert knitted_straight_shanten(c("147m258p36s1234z5m")) == 3
    assert knitted_straight_shanten(c("147m258p369s123m5z"), 2) == 99    # no room with two melds
    assert mcr_shanten(c("147m258p36s1234z5m")) == 1


def test_knitted_straight_beside_one_meld():
    hand = parse_tiles("147m258p369s5z")
    pon = Meld("pon", tuple(parse_tiles("777z")))
    assert mcr_shanten(counts34(hand), 1) == 0
    report = hand_waits(hand, (pon,), context={"ruleset": "mcr"})
    assert [w.kind for w in report.waits] == [kind_of("5z")]


def _complete(rng: random.Random) -> list[int] | None:
    """A random complete MCR hand of one of its shapes, as 34 counts (None: five of a kind)."""
    def a_set():
        if rng.random() < 0.5:
            s, r = rng.randrange(3), rng.randrange(7)
            return [9 * s + r, 9 * s + r + 1, 9 * s + r + 2]
        return [rng.randrange(34)] * 3

    shape = rng.choice(["knitted", "honours_knitted", "pairs", "orphans", "regular"])
    if shape == "knitted":
        tiles = list(rng.choice(KNITTED_PATTERNS)) + a_set() + [rng.randrange(34)] * 2
    elif shape == "honours_knitted":
        tiles = rng.sample(list(rng.choice(KNITTED_PATTERNS)) + list(range(27, 34)), 14)
    elif shape == "pairs":
        tiles = [k for k in rng.sample(range(34), 7) for _ in range(2)]
        if rng.random() < 0.3:
            tiles[2:4] = tiles[0:2]         # four of a kind, two pairs
    elif shape == "orphans":
        tiles = list(TERMINALS_HONOURS) + [rng.choice(TERMINALS_HONOURS)]
    else:
        tiles = [k for _ in range(4) for k in a_set()] + [rng.randrange(34)] * 2
    out = [0] * 34
    for k in tiles:
        out[k] += 1
    return out if max(out) <= 4 else None


def _near_complete(rng: random.Random, away: int) -> list[int]:
    """13 tiles: a complete hand less ``away + 1`` tiles plus ``away`` random ones."""
    while True:
        full = _complete(rng)
        if full is None:
            continue
        assert mcr_shanten(full) == -1 and is_complete(full, 0)
        h = list(full)
        for k in rng.sample([k for k in range(34) for _ in range(full[k])], away + 1):
            h[k] -= 1
        for _ in range(away):
            k = rng.randrange(34)
            if h[k] < 4:
                h[k] += 1
        if sum(h) == 13:
            return h


def test_tenpai_by_brute_force():
    # tenpai <=> a tile the player can still draw (fewer than four held) completes an MCR shape
    rng = random.Random(35)
    tenpai = 0
    for _ in range(600):
        h = _near_complete(rng, rng.choice([0, 0, 1]))
        drawable = [k for k in range(34) if h[k] < 4]
        completes = any(is_complete([x + (i == k) for i, x in enumerate(h)], 0) for k in drawable)
        assert (mcr_shanten(h) == 0) == completes, h
        tenpai += completes
    assert tenpai > 300


def test_one_away_by_brute_force():
    # shanten s (1 or 2) <=> the best draw-and-discard leaves shanten s - 1
    rng = random.Random(36)
    checked = 0
    while checked < 40:
        h = _near_complete(rng, rng.choice([1, 2]))
        s = mcr_shanten(h)
        if s not in (1, 2):
            continue
        checked += 1
        best = min(mcr_shanten([x + (i == d) - (i == t) for i, x in enumerate(h)])
                   for d in range(34) if h[d] < 4 for t in range(34) if h[t] + (t == d) > 0)
        assert best == s - 1, h


def test_fourteen_tiles_complete_by_brute_force():
    rng = random.Random(37)
    for _ in range(300):
        h = _near_complete(rng, rng.choice([0, 1]))
        for k in range(34):
            if h[k] < 4:
                full = [x + (i == k) for i, x in enumerate(h)]
                assert (mcr_shanten(full) == -1) == is_complete(full, 0), full


def test_waits_are_the_completing_draws_scored_by_the_mcr_core():
    # every drawable tile is tried: the waits are exactly those the MCR scorer takes as a win,
    # each valued as `tilescope hand` values the completed hand
    rng = random.Random(38)
    seen = 0
    while seen < 60:
        h = _near_complete(rng, 0)
        hand = tuple(tile(k) for k in range(34) for _ in range(h[k]))
        report = hand_waits(hand, context={"ruleset": "mcr"})
        if report.shanten != 0:
            continue
        seen += 1
        wins = []
        for k in range(34):
            if h[k] >= 4:
                continue
            req = HandRequest(ruleset="mcr", concealed=hand, win_tile=tile(k), win="ron")
            result = score_hand(req).to_json()
            if not result.get("error"):
                wins.append((k, result))
        assert [w.kind for w in report.waits] == [k for k, _ in wins], h
        assert [w.ron for w in report.waits] == [r for _, r in wins]


def test_a_knitted_straight_one_tile_short_beside_a_complete_rest():
    # 147m 258p 36s (9s missing) + 555z 66z: the rest is a set and a pair, so one tile (9s)
    # completes it: tenpai, whatever the other shapes say (the shortcut that skips knitted
    # straights missing too many tiles must count a complete rest as -1)
    hand = c("147m258p36s55566z")
    assert knitted_straight_shanten(hand) == 0 and mcr_shanten(hand) == 0
    assert knitted_straight_shanten(hand, 0, 1) == 0


def test_accepting_tiles_equal_one_shanten_per_draw():
    # mcr_accepting's shortcut (riichi's per-suit draws, then MCR's special shapes) lists the
    # draws that lower mcr_shanten, as trying each draw does
    from scoring.mcr.shanten import mcr_accepting
    rng = random.Random(39)
    for i in range(600):
        n = 0 if i % 2 else rng.choice([0, 1, 2])
        if i % 2:
            h = _near_complete(rng, rng.choice([1, 2, 3]))
        else:
            h = [0] * 34
            for k in rng.sample([k for k in range(34) for _ in range(4)], 13 - 3 * n):
                h[k] += 1
        now = mcr_shanten(h, n)
        want = [k for k in range(34) if h[k] < 4
                and mcr_shanten([x + (i == k) for i, x in enumerate(h)], n) < now]
        assert [a.kind for a in mcr_accepting(h, n)] == want, (h, n)
