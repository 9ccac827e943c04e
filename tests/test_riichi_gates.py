"""The trait gates of the riichi yaku tables never hide a yaku.

Each row of ``YAKU`` / ``YAKUMAN`` (scoring/riichi/yaku.py) names the traits it needs, and the
scorer tests only the rows whose traits a hand and reading have (for YAKU, runs no test at all:
the traits are exact). That is a speed device: it is right only if every trait is a necessary
condition of its row (and, for YAKU, a sufficient one). Here every row is tested on every
reading of fixed-seed random hands (every theme, so yakuman and rare yaku appear) *without* the
gates; a row that passes while its traits are missing, or a gated result that differs from the
ungated one, fails the test.
"""
import random

import pytest

from scoring.decompose import meld_groups, readings
from scoring.hand import check
from scoring.riichi.random_hands import THEMES, random_request
from scoring.riichi.yaku import (HAND, YAKU, YAKUMAN, facts_for, hand_facts, tile_flags, yaku_of,
                                 yakuman_of)


def _facts(seed, theme, n):
    rng = random.Random(f"gates-{seed}-{theme}")
    for _ in range(n):
        req = random_request(rng, theme=theme)
        tally = check(req)
        h = hand_facts(req, tally.all, *tile_flags(tally.all))
        for r in readings(tally.hand, meld_groups(req.melds), req.win_tile.kind):
            yield req, facts_for(h, r)


@pytest.mark.parametrize("theme", THEMES)
def test_every_passing_row_has_its_traits(theme):
    for req, f in _facts(1, theme, 60):
        h = f.h
        ungated = []
        for y in YAKU:
            han = y.closed if h.closed else y.open
            if han and y.test(h if y.per == HAND else f):
                needs = y.needs if h.closed else y.needs | y.open_needs
                assert needs & f.traits == needs, (y.name, req)
                ungated.append((y.name, han))
        assert [(line.name, line.han) for line in yaku_of(f)] == ungated, req
        ungated_ym = []
        for y in YAKUMAN:
            v = int(y.test(h if y.per == HAND else f))
            if v:
                assert y.needs & h.yakuman_traits == y.needs, (y.names, req)
                ungated_ym.append(y.names[v - 1])
        assert [line.name for line, _ in yakuman_of(f)] == ungated_ym, req


def test_themes_reach_gated_rows():
    """The hands above do exercise the gates: most rows pass somewhere, yakuman included."""
    seen = set()
    for theme in THEMES:
        for _, f in _facts(1, theme, 15):
            seen.update(line.name for line in yaku_of(f))
            seen.update(line.name for line, _ in yakuman_of(f))
    for name in ("riichi", "pinfu", "iipeikou", "tanyao", "sanshoku", "ittsu", "chiitoitsu",
                 "toitoi", "honitsu", "chinitsu", "daisangen", "kokushi musou"):
        assert any(s.startswith(name) for s in seen), name


def test_row_lookup_tables_equal_a_plain_filter():
    """yaku._rows reads the rows a set of traits passes off per-byte tables of failing rows;
    it must equal filtering the table's rows one by one (needs all present, value non-zero)."""
    from scoring.riichi import yaku

    rng = random.Random("rows")
    all_bits = [1 << b for b in range(yaku.SANANKOU.bit_length())]     # every trait bit
    for _ in range(3000):
        traits = sum(b for b in all_bits if rng.random() < 0.3)
        for closed in (False, True):
            want = []
            for y in YAKU:
                han = y.closed if closed else y.open
                needs = y.needs if closed else y.needs | y.open_needs
                if han and needs & traits == needs:
                    want.append((y.name, han))
            assert list(yaku._rows(closed, traits)) == want, (traits, closed)
