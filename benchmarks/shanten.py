"""Hands per second: shanten (scoring/shanten.py) and waits with values (scoring/waits.py).

    .venv/bin/python -m benchmarks.shanten [N]

Random 13-tile hands from a shuffled set (seed 30); tenpai hands for the valued waits are
drawn until N are found. Also checks agreement with mahjong==2.1.0 when it is installed.
"""
from __future__ import annotations

import random
import sys
import time

from scoring.shanten import shanten
from scoring.tiles import tile
from scoring.waits import hand_waits


def main(n: int = 20000) -> None:
    rng = random.Random(30)
    wall = [k for k in range(34) for _ in range(4)]
    hands = []
    for _ in range(n):
        c = [0] * 34
        for k in rng.sample(wall, 13):
            c[k] += 1
        hands.append(c)
    start = time.perf_counter()
    values = [shanten(c) for c in hands]
    spent = time.perf_counter() - start
    print(f"shanten: {n / spent:,.0f} hands/s ({spent / n * 1e6:.1f} us each)")
    try:
        from mahjong.shanten import Shanten
        bad = sum(Shanten.calculate_shanten(c) != v for c, v in zip(hands, values))
        print(f"agreement with mahjong==2.1.0: {n - bad:,} of {n:,}")
    except ImportError:
        pass
    tenpai = []
    suits = [k for k in range(9) for _ in range(4)] + [27, 27, 27]
    while len(tenpai) < min(n, 2000):
        kinds = rng.sample(suits, 13)
        c = [0] * 34
        for k in kinds:
            c[k] += 1
        if shanten(c) == 0:
            hand = [tile(k) for k in sorted(kinds)]
            if c[4] == 4:           # a set with red fives: one of the four 5m is red
                hand[hand.index(tile(4))] = tile(4, red=True)
            tenpai.append(hand)
    start = time.perf_counter()
    for h in tenpai:
        hand_waits(h)
    spent = time.perf_counter() - start
    print(f"waits with values (13 tiles, tenpai): {len(tenpai) / spent:,.0f} hands/s "
          f"({spent / len(tenpai) * 1e3:.2f} ms each)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20000)
