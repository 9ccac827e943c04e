"""datasets.hands: random hands are complete, legal, and use every meld kind."""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from datasets.hands import random_hand, split_mpsz


def _is_complete(tiles: list[str]) -> bool:
    """Four sets and a pair, seven pairs, or thirteen orphans (worked out independently here)."""
    c = Counter(t.replace("0", "5") for t in tiles)
    if len(tiles) != 14:
        return False
    if len(c) == 7 and all(v == 2 for v in c.values()):
        return True
    orphans = {f"{n}{s}" for s in "mps" for n in (1, 9)} | {f"{n}z" for n in range(1, 8)}
    if set(c) == orphans:
        return True

    def sets(cnt: Counter) -> bool:
        left = sorted(k for k, v in cnt.items() if v)
        if not left:
            return True
        t = left[0]
        if cnt[t] >= 3:
            cnt[t] -= 3
            if sets(cnt):
                return True
            cnt[t] += 3
        n, s = int(t[0]), t[1]
        nxt = [f"{n + 1}{s}", f"{n + 2}{s}"]
        if s != "z" and n <= 7 and all(cnt[x] for x in nxt):
            for x in [t] + nxt:
                cnt[x] -= 1
            ok = sets(cnt)
            for x in [t] + nxt:
                cnt[x] += 1
            return ok
        return False

    for pair in [k for k, v in c.items() if v >= 2]:
        cc = Counter(c)
        cc[pair] -= 2
        if sets(cc):
            return True
    return False


@pytest.mark.parametrize("ruleset", ["riichi", "mcr"])
def test_random_hands_are_complete_and_physical(ruleset):
    rng = np.random.default_rng(0)
    kinds = Counter()
    for _ in range(300):
        spec = random_hand(rng, ruleset)
        r = spec.request
        melds = r.get("melds", [])
        concealed = split_mpsz(r["concealed"])
        assert len(concealed) == 13 - 3 * len(melds)
        hand = concealed + [r["win_tile"]]
        every = list(hand)
        for m in melds:
            kinds[m["type"]] += 1
            t = split_mpsz(m["tiles"])
            every += t
            # a kan counts as one set of three for completeness
            hand += t[:3]
            assert len(t) == (4 if "kan" in m["type"] else 3)
            if m["type"] == "chi":
                assert m["from"] == "left"
            if m["type"] != "ankan":
                assert m["called"] in t and m["from"] in ("left", "across", "right")
        assert _is_complete(hand), r
        every += split_mpsz(r.get("dora_indicators", ""))
        assert max(Counter(t.replace("0", "5") for t in every).values()) <= 4
        reds = Counter(t[1] for t in every if t[0] == "0")
        assert all(v <= 1 for v in reds.values())
        if ruleset == "mcr":
            assert not reds and r["flowers"] == len(spec.flower_tiles)
            assert len(set(spec.flower_tiles)) == len(spec.flower_tiles)
        elif not melds or all(m["type"] == "ankan" for m in melds):
            assert r["riichi"] == "riichi"
        else:  # an open riichi hand holds three of a dragon (yakuhai), melded or concealed
            dragons = Counter(t for t in hand if t in ("5z", "6z", "7z"))
            assert dragons and max(dragons.values()) >= 3, r
    assert set(kinds) == {"chi", "pon", "daiminkan", "kakan", "ankan"}


def test_split_mpsz_keeps_order_and_rejects_junk():
    assert split_mpsz("406m77z") == ["4m", "0m", "6m", "7z", "7z"]
    for bad in ("12", "m", "1x"):
        with pytest.raises(ValueError):
            split_mpsz(bad)


def test_unknown_ruleset():
    with pytest.raises(ValueError, match="ruleset"):
        random_hand(np.random.default_rng(0), "hk")


def test_four_fives_of_a_suit_include_the_red_one():
    # riichi sets have one red five per suit (seed rules: aka dora), so a hand holding all four
    # fives of a suit (a kan of fives, say) holds the red one; the layout parser assumes so for
    # a closed kan whose red five lies face down
    rng = np.random.default_rng(3)
    seen = 0
    for _ in range(3000):
        r = random_hand(rng, "riichi").request
        tiles = split_mpsz(r["concealed"]) + [r["win_tile"]]
        for m in r.get("melds", []):
            tiles += split_mpsz(m["tiles"])
        for suit in "mps":
            fives = [t for t in tiles if t in (f"5{suit}", f"0{suit}")]
            if len(fives) == 4:
                seen += 1
                assert f"0{suit}" in fives, r
    assert seen >= 3
