"""Hands per second: shanten (scoring/shanten.py) and waits with values (scoring/waits.py).

    TILESCOPE_ART=... PYTHONPATH=. .venv/bin/python -m benchmarks.waits [N]

The hands are tenpai hands of play: N random riichi wins (scoring.riichi.random_hands, seed
30; melds, winds, riichi and dora indicators as drawn) less their winning tile, valued under
riichi with their table, and the same hands under MCR (plain tiles, winds only). Each set is
timed after a warm-up on N other hands (seed 31), as a server or a stream runs: the per-suit
tables the shanten and the scorers fill on first use are then mostly filled; the first line
times the same work in a fresh process's first hands (``cold``). Times are the process's CPU
time (the machine's other work does not count), one thread.
"""
from __future__ import annotations

import argparse
import random
import time

from scoring.hand import HandError
from scoring.mcr.shanten import mcr_shanten
from scoring.riichi.random_hands import random_request
from scoring.shanten import shanten
from scoring.tiles import TileError, check_physical, counts34, tile
from scoring.waits import hand_waits


def tenpai_hands(n: int, seed: int, ruleset: str) -> list[tuple]:
    """``n`` (concealed, melds, context) tenpai hands from random wins less the winning tile."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        req = random_request(rng)
        try:        # a few drawn indicators repeat a tile the hand holds four of: skipped
            check_physical(req.all_tiles + req.dora_indicators)
        except TileError:
            continue
        if ruleset == "riichi":
            ctx = {"seat_wind": req.seat_wind, "round_wind": req.round_wind, "riichi": req.riichi,
                   "dora_indicators": req.dora_indicators, "rules": req.rules}
            out.append((req.concealed, req.melds, ctx))
            continue
        plain = tuple(tile(t.kind) for t in req.concealed)
        melds = tuple(type(m)(m.type, tuple(tile(t.kind) for t in m.tiles)) for m in req.melds)
        out.append((plain, melds, {"ruleset": "mcr", "seat_wind": req.seat_wind,
                                   "round_wind": req.round_wind}))
    return out


def _time(hands: list[tuple]) -> tuple[float, float, int]:
    """(µs per shanten, µs per valued waits, hands the scorer refused) over ``hands``."""
    counts = [(counts34(c), len(m)) for c, m, _ in hands]
    of = mcr_shanten if hands[0][2].get("ruleset") == "mcr" else shanten
    start = time.process_time()
    for c, n in counts:
        of(c, n)
    per_shanten = (time.process_time() - start) / len(hands) * 1e6
    refused = 0
    start = time.process_time()
    for concealed, melds, ctx in hands:
        try:
            hand_waits(concealed, melds, ctx)
        except HandError:
            refused += 1
    per_waits = (time.process_time() - start) / len(hands) * 1e6
    return per_shanten, per_waits, refused


def _line(name: str, per_shanten: float, per_waits: float, refused: int) -> str:
    return (f"{name:<14} shanten {1e6 / per_shanten:>9,.0f} hands/s ({per_shanten:6.1f} µs)   "
            f"waits with values {1e6 / per_waits:>7,.0f} hands/s ({per_waits:7.1f} µs)"
            + (f"   {refused} refused" if refused else ""))


def main(n: int = 2000) -> None:
    for ruleset in ("riichi", "mcr"):
        timed = tenpai_hands(n, 30, ruleset)
        cold = _time(timed[:200])
        _time(tenpai_hands(n, 31, ruleset))
        print(_line(f"{ruleset} cold", *cold))
        print(_line(f"{ruleset} warm", *_time(timed)))


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.waits",
                                     description="hands per second: shanten and waits with values")
    parser.add_argument("n", nargs="?", type=int, default=2000,
                        help="hands timed per ruleset (and as many as warm-up; default 2000)")
    args = parser.parse_args(argv)
    if args.n < 1:
        parser.error(f"n: at least 1 hand, got {args.n}")
    return args


if __name__ == "__main__":
    main(parse_args().n)
