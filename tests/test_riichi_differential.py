"""Differential test against the reference engine ``mahjong==2.1.0`` (PyPI, MIT).

A fixed-seed slice of random valid hands (scoring/riichi/random_hands.py: open melds, every kan
kind, red fives, yaku and yakuman themes, dora/ura/aka, honba, sticks, rule options) must agree
on validity, han, fu and every payment. The 10,000-hand run is benchmarks/riichi_differential.py;
rule differences are listed in scoring/riichi/RULES.md (none arise in this slice).
"""
import random

import pytest

pytest.importorskip("mahjong", reason="the dev extra (mahjong==2.1.0) is not installed")

from riichi_reference import compare, ours, reference_score  # noqa: E402  (tests/ helper)

from scoring.api import score_hand  # noqa: E402
from scoring.riichi.random_hands import THEMES, random_request  # noqa: E402


def _slice(seed, n):
    rng = random.Random(seed)
    return [random_request(rng) for _ in range(n)]


@pytest.mark.parametrize("seed", [20260, 20261, 20262])
def test_agrees_with_mahjong_package(seed):
    disagreements = []
    for req in _slice(seed, 100):
        d = compare(ours(score_hand(req)), reference_score(req))
        if d:
            disagreements.append((req, d))
    assert not disagreements, disagreements[:3]


@pytest.mark.parametrize("theme", THEMES)
def test_every_theme_agrees(theme):
    rng = random.Random(f"theme-{theme}")    # str seeds are stable across runs
    for _ in range(8):
        req = random_request(rng, theme=theme)
        assert compare(ours(score_hand(req)), reference_score(req)) == [], req


def test_slice_covers_the_rulebook():
    # the fixed slice must exercise what the differential claims to check
    seen_yaku, kinds, flags = set(), set(), set()
    for seed in (20260, 20261, 20262):
        for req in _slice(seed, 100):
            res = score_hand(req)
            if getattr(res, "valid", False):
                seen_yaku.update(y.name.split(" (")[0] for y in res.yaku)
            kinds.update(m.type for m in req.melds)
            flags.update(k for k in ("riichi", "ippatsu", "last_wall_tile", "replacement_tile", "robbing_kong")
                         if getattr(req, k) not in (False, "none"))
            if any(t.red for t in req.all_tiles):
                flags.add("red")
    assert kinds == {"chi", "pon", "daiminkan", "kakan", "ankan"}
    assert flags >= {"riichi", "ippatsu", "last_wall_tile", "replacement_tile", "red"}
    assert len(seen_yaku) >= 30, sorted(seen_yaku)


def test_one_suit_hands_agree():
    # 150 random complete one-suit hands, every winning tile, tsumo and ron: the hands where
    # readings compete most (pinfu, peikou, ittsu, sanankou, nine gates); all 13,277 such hands
    # are checked by `benchmarks.riichi_differential --one-suit`
    from riichi_reference import one_suit_wins, random_one_suit_hands

    for hand in random_one_suit_hands(random.Random(2026), 150):
        for req in one_suit_wins(hand, seat_wind="S", round_wind="E"):
            assert compare(ours(score_hand(req)), reference_score(req)) == [], (hand, req.win_tile, req.win)
