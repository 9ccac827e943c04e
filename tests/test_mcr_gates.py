"""The scorer's shortcuts give the fan table's own answer.

For speed, ``scoring.mcr.score`` does not run all 81 rows of the fan table on every reading:
it skips a row when a cheap necessary condition of that row fails (no kong, no honour, no
pung of the right kind, a rank outside the row's ranks, ...). These tests run every row of
the table (``scoring.mcr.fans.FANS``) on the same readings, then the non-repeat principle,
and require the very same fans and counts as the scorer, on the one-hand-per-fan cases and
on random hands of every shape (the differential generator, no reference engine needed).
"""
from __future__ import annotations

import random

import pytest

from benchmarks.mcr_differential import random_request
from scoring.hand import HandError, validate
from scoring.mcr import McrRules, score_mcr
from scoring.mcr import score as score_module
from scoring.mcr.fans import FANS, apply_exclusions
from scoring.mcr.shapes import SEVEN_PAIRS
from scoring.request import parse_request
from tests.test_mcr_fans import CASES
from tests.mcr_hands import mcr

_GIVEN_BY_SCORER = {"Chicken Hand", "Flower Tiles"}


def _every_row(f, rules: McrRules) -> dict[str, int]:
    """All rows of the table on one reading, then the non-repeat principle (no shortcut)."""
    found = {}
    for fan in FANS:
        if fan.name in _GIVEN_BY_SCORER:
            continue
        n = fan.test(f)
        if n:
            found[fan.name] = n
    if not rules.seven_pairs_tile_hog and f.shape == SEVEN_PAIRS:
        found.pop("Tile Hog", None)
    found = apply_exclusions(found, f)
    return found or {"Chicken Hand": 1}


def _check(monkeypatch, req, rules: McrRules) -> int:
    """Score ``req``; assert every reading's fans equal the table's. Returns readings seen."""
    seen = []
    fast = score_module._fans_for

    def compared(f, rules_, hand_cache):
        found, points = fast(f, rules_, hand_cache)
        seen.append((f, dict(found), points))
        return found, points

    monkeypatch.setattr(score_module, "_fans_for", compared)
    score_mcr(req, rules)
    monkeypatch.undo()
    for f, found, points in seen:
        f._chow = f._pung = f._packs = None  # recomputed from the reading, not reused
        want = _every_row(f, rules)
        assert found == want, (f.reading, f.slot)
        assert points == sum(fan.points * want[fan.name] for fan in FANS if fan.name in want)
    return len(seen)


@pytest.mark.parametrize("fan,kwargs,expected,total", CASES, ids=[c[0] for c in CASES])
def test_one_hand_per_fan_matches_every_row(monkeypatch, fan, kwargs, expected, total):
    assert _check(monkeypatch, mcr(**kwargs), McrRules()) >= 1


@pytest.mark.parametrize("rules", [McrRules(), McrRules(seven_pairs_tile_hog=False, fifth_copy_wait=True)],
                         ids=["green-book", "options"])
def test_random_hands_match_every_row(monkeypatch, rules):
    rng = random.Random(3)
    hands = readings = 0
    while hands < 400:
        obj = random_request(rng)
        if obj is None:
            continue
        if rng.random() < 0.1:
            obj["win_tile_shown"] = False
        try:
            req = parse_request(obj)
            validate(req)
        except HandError:
            continue
        hands += 1
        readings += _check(monkeypatch, req, rules)
    assert readings >= hands
