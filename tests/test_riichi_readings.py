"""The scorer's first-sighting path (scoring/riichi/readings.py, from per-suit tables) gives the
readings of scoring.decompose.readings, in order, with the facts of yaku.facts_of.

readings.py adds up each suit's precomputed share of a reading; decompose.readings and
yaku.reading_facts walk the reading's sets one by one. Both must agree on every field, fu lines
included, for hands of every theme, by tsumo and by ron.
"""
import dataclasses
import random

import pytest

from scoring.decompose import meld_groups, readings
from scoring.hand import check
from scoring.riichi.fu import set_fu
from scoring.riichi.random_hands import THEMES, random_request
from scoring.riichi.readings import hand_readings
from scoring.riichi.yaku import facts_of, hand_facts, reading_facts, tile_flags


@pytest.mark.parametrize("theme", THEMES)
def test_hand_readings_equal_the_set_by_set_facts(theme):
    rng = random.Random(f"readings-{theme}")
    for _ in range(60):
        req = random_request(rng, theme=theme)
        for win in ("tsumo", "ron"):
            try:
                v = dataclasses.replace(req, win=win, robbing_kong=False, replacement_tile=False,
                                        tenhou=False, chiihou=False)
            except TypeError:
                continue
            tally = check(v)
            melds = meld_groups(v.melds)
            h = hand_facts(v, tally.all, *tile_flags(tally.all))
            want = [facts_of(h, reading_facts(r, h.closed, set_fu(r)))
                    for r in readings(tally.hand, melds, v.win_tile.kind)]
            assert hand_readings(h, bytes(tally.hand), melds, v.win_tile.kind) == want, v


def test_incomplete_hands_have_no_readings():
    rng = random.Random("readings-incomplete")
    n = 0
    for _ in range(300):
        req = random_request(rng)
        tally = check(req)
        hand = bytearray(tally.hand)
        k = req.win_tile.kind
        other = (k + 1 + rng.randrange(33)) % 34
        if hand[other] >= 4:
            continue
        hand[k] -= 1
        hand[other] += 1
        melds = meld_groups(req.melds)
        h = hand_facts(req, tally.all, *tile_flags(tally.all))
        want = readings(hand, melds, other)
        got = hand_readings(h, bytes(hand), melds, other)
        assert [f.r for f in got] == want
        n += not want
    assert n > 100
