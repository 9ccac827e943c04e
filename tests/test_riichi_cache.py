"""The riichi scorer's caches: bounded, and a hand scored again gets exactly the same answer.

scoring/riichi/scorer.py keeps a hand's readings (its "shape": concealed counts, melds, winning
tile) from the hand's second sighting on; the per-suit group caches are capped too, and the
per-suit split tables are complete (fixed size). A long-running server must not grow without
bound, and a cached answer must equal a fresh one (flags differ between requests
of one shape: the cache holds nothing that depends on them).
"""
import dataclasses
import random

import scoring.decompose as decompose
import scoring.riichi.scorer as scorer
from scoring.api import score_hand
from scoring.riichi.random_hands import random_request


def _result(req):
    res = score_hand(req)
    return res.to_json(), getattr(res, "reading", None)


def test_first_second_and_third_sighting_agree():
    scorer.clear_cache()
    rng = random.Random("cache-1")
    for _ in range(300):
        req = random_request(rng)
        first = _result(req)        # seen once: nothing kept
        second = _result(req)       # seen twice: kept
        third = _result(req)        # from the cache
        assert first == second == third, req


def test_cached_shape_with_other_flags_scores_as_new():
    """One shape, many flag sets: each answer equals the answer with an empty cache."""
    rng = random.Random("cache-2")
    for _ in range(150):
        req = random_request(rng)
        variants = [req]
        for win in ("tsumo", "ron"):
            for seat in "ESWN":
                try:
                    variants.append(dataclasses.replace(req, win=win, seat_wind=seat,
                                                        robbing_kong=False, replacement_tile=False,
                                                        tenhou=False, chiihou=False))
                except TypeError:
                    continue
        fresh = []
        for v in variants:
            scorer.clear_cache()
            fresh.append(_result(v))
        for _ in range(2):          # the second pass runs on cached shapes
            assert [_result(v) for v in variants] == fresh, req


def test_caches_are_bounded(monkeypatch):
    monkeypatch.setattr(scorer, "SHAPE_CACHE_SIZE", 50)
    scorer.clear_cache()
    rng = random.Random("cache-3")
    reqs = [random_request(rng) for _ in range(400)]
    for req in reqs:
        score_hand(req)
        score_hand(req)
    assert len(scorer._SHAPES) <= 50
    assert len(scorer._SEEN) <= 100
    assert all(len(c) <= decompose.SUIT_CACHE_SIZE for c in decompose._SPLIT_CACHE)
    # the split tables are complete, hence of fixed size: every pattern that splits
    assert [len(t) for t in decompose._SPLIT_TABLES] == [21_743, 498]


def test_a_hand_seen_once_is_not_kept():
    scorer.clear_cache()
    rng = random.Random("cache-4")
    for _ in range(50):
        score_hand(random_request(rng))
    assert not scorer._SHAPES
    assert scorer._SEEN


def test_shape_key_names_the_shape():
    """scoring.hand.shape_key: one bytes key per (concealed counts, meld groups, winning kind);
    check() hands it out, and keys differ where the shapes do (an open kan is not a closed one,
    the same tiles won on another kind are another shape)."""
    from scoring.decompose import MELD_GROUPS, meld_groups
    from scoring.hand import check, shape_key
    rng = random.Random("cache-5")
    for _ in range(200):
        req = random_request(rng)
        tally = check(req)
        assert tally.shape == shape_key(tally.key, meld_groups(req.melds), req.win_tile.kind)
    hand = bytes(34)
    kans = [shape_key(hand, (MELD_GROUPS[t][5][0],), 5) for t in ("daiminkan", "kakan", "ankan")]
    assert kans[0] == kans[1] != kans[2]        # daiminkan and kakan are one group: open kan
    assert shape_key(hand, (), 5) != shape_key(hand, (), 6)
    assert shape_key(hand, (MELD_GROUPS["chi"][0][0],), 5) != shape_key(hand, (MELD_GROUPS["pon"][0][0],), 5)
