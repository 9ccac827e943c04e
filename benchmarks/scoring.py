"""Scoring speed: hands per second for tilescope and a reference engine on the same hands.

One function per ruleset; each draws its hands once, builds both engines' native inputs
beforehand, then times only the scoring calls, interleaving the two engines in chunks so that
a busy machine slows both alike (CPU time of this process, the median chunk). Run from the
repo root:

    .venv/bin/python -m benchmarks.scoring [N]

Riichi: ``scoring.api.score_hand`` (validation included) against ``mahjong==2.1.0``'s
``HandCalculator.estimate_hand_value``; the ``mahjong`` figure is given with its ``HandConfig``
prebuilt (the engine alone) and with the config built per hand (what a caller must do when
each hand has its own flags). The timed rounds score each hand several times, so tilescope's
shape cache (scoring/riichi/scorer.py: a hand's readings are kept from its second sighting)
answers them; a last line times both engines once on as many hands never seen before (every
tilescope call a first sighting: no whole-hand cache answers), the figure for a stream of new
hands. What tilescope keeps below the whole hand is there for them as it would be in a running
stream: the complete tables of one-suit splits and their riichi facts (scoring/decompose.py,
built on the first call; scoring/riichi/suits.py, entry by entry, then all at once after 512
entries, ~0.1 s, in the earlier rounds), and the yaku-row and tile-trait caches that the
earlier rounds' 2,000 other hands filled lazily (a new hand still misses them now and then: a
set of traits not met before costs its entry).
"""
from __future__ import annotations

import random
import statistics
import sys
import time


def _one_pass(calls_a, calls_b, per_a: list, per_b: list, chunk: int) -> None:
    """Call both lists once, chunk by chunk in turns, appending seconds per call of each chunk."""
    for i in range(0, len(calls_a), chunk):
        for calls, out in ((calls_a, per_a), (calls_b, per_b)):
            part = calls[i:i + chunk]
            t = time.process_time()
            for f in part:
                f()
            out.append((time.process_time() - t) / len(part))


def _interleaved(calls_a, calls_b, chunk: int = 200, rounds: int = 5) -> tuple[float, float]:
    """Median seconds per call of two lists of zero-argument callables, timed in turns after a
    warm-up chunk (so a hand is scored several times: repeats are what this measures)."""
    for f in calls_a[:chunk]:
        f()
    for f in calls_b[:chunk]:
        f()
    per_a, per_b = [], []
    for _ in range(rounds):
        _one_pass(calls_a, calls_b, per_a, per_b, chunk)
    return statistics.median(per_a), statistics.median(per_b)


def _once(calls_a, calls_b, chunk: int = 200) -> tuple[float, float]:
    """Median seconds per call of two lists of callables, each called once, in turns."""
    per_a, per_b = [], []
    _one_pass(calls_a, calls_b, per_a, per_b, chunk)
    return statistics.median(per_a), statistics.median(per_b)


def riichi(n: int = 2000, seed: int = 7) -> dict:
    """Riichi hands/second: tilescope vs mahjong 2.1.0 on ``n`` random valid wins."""
    from mahjong.hand_calculating.hand import HandCalculator
    from mahjong.hand_calculating.hand_config import HandConfig, OptionalRules

    from scoring.api import score_hand
    from scoring.riichi.random_hands import random_request
    from tests.riichi_reference import reference_inputs

    rng = random.Random(seed)
    reqs = [random_request(rng) for _ in range(n)]
    inputs = [reference_inputs(r) for r in reqs]
    est = HandCalculator.estimate_hand_value
    ours = [lambda r=r: score_hand(r) for r in reqs]
    theirs = [lambda a=a, k=k: est(*a, **k) for a, k in inputs]

    def with_config(a, k):
        c = k["config"]
        o = c.options
        cfg = HandConfig(
            is_tsumo=c.is_tsumo, is_riichi=c.is_riichi, is_daburu_riichi=c.is_daburu_riichi,
            is_ippatsu=c.is_ippatsu, is_rinshan=c.is_rinshan, is_chankan=c.is_chankan,
            is_haitei=c.is_haitei, is_houtei=c.is_houtei, is_tenhou=c.is_tenhou,
            is_chiihou=c.is_chiihou, player_wind=c.player_wind, round_wind=c.round_wind,
            tsumi_number=c.tsumi_number, kyoutaku_number=c.kyoutaku_number,
            options=OptionalRules(has_open_tanyao=o.has_open_tanyao, has_aka_dora=o.has_aka_dora,
                                  has_double_yakuman=o.has_double_yakuman,
                                  kazoe_limit=o.kazoe_limit, kiriage=o.kiriage))
        return est(*a, **{**k, "config": cfg})

    theirs_cfg = [lambda a=a, k=k: with_config(a, k) for a, k in inputs]
    t_ours, t_theirs = _interleaved(ours, theirs)
    t_ours2, t_theirs_cfg = _interleaved(ours, theirs_cfg)
    new = [random_request(rng) for _ in range(n)]       # hands tilescope has not seen
    new_inputs = [reference_inputs(r) for r in new]
    t_new, t_theirs_new = _once([lambda r=r: score_hand(r) for r in new],
                                [lambda a=a, k=k: est(*a, **k) for a, k in new_inputs])
    return {
        "hands": n,
        "tilescope_per_s": 1 / t_ours,
        "mahjong_per_s": 1 / t_theirs,
        "ratio": t_theirs / t_ours,
        "mahjong_with_config_per_s": 1 / t_theirs_cfg,
        "ratio_with_config": t_theirs_cfg / t_ours2,
        "tilescope_new_hands_per_s": 1 / t_new,
        "mahjong_new_hands_per_s": 1 / t_theirs_new,
        "ratio_new_hands": t_theirs_new / t_new,
    }


def mcr(n: int = 2000, seed: int = 7) -> dict:
    """MCR hands/second: tilescope vs pymahjonggb 1.4.0 (C++) on ``n`` random valid wins.

    tilescope is timed twice: ``score_hand`` (validation included, as a caller runs it) and
    ``score_mcr`` alone on the validated request; pymahjonggb with its inputs prebuilt (tuples
    of its tile codes). Hands from ``benchmarks.mcr_differential``'s generator.
    """
    from MahjongGB import MahjongFanCalculator

    from benchmarks.mcr_differential import gb_args, random_request
    from scoring.api import score_hand
    from scoring.hand import HandError, validate
    from scoring.mcr import score_mcr
    from scoring.request import parse_request

    rng = random.Random(seed)
    reqs, args = [], []
    while len(reqs) < n:
        obj = random_request(rng)
        if obj is None:
            continue
        try:
            r = parse_request(obj)
            validate(r)
        except HandError:
            continue
        reqs.append(r)
        args.append(gb_args(obj))

    def gb(a):
        try:
            return MahjongFanCalculator(*a)
        except TypeError:  # it raises for hands it cannot score; none expected here
            return None

    theirs = [lambda a=a: gb(a) for a in args]
    t_api, t_gb = _interleaved([lambda r=r: score_hand(r) for r in reqs], theirs)
    t_core, t_gb2 = _interleaved([lambda r=r: score_mcr(r) for r in reqs], theirs)
    return {"hands": n, "tilescope_per_s": 1 / t_api, "tilescope_core_per_s": 1 / t_core,
            "pymahjonggb_per_s": 1 / t_gb, "slowdown": t_api / t_gb, "slowdown_core": t_core / t_gb2}


def main(argv: list[str]) -> int:
    n = int(argv[0]) if argv else 2000
    r = riichi(n)
    print(f"riichi, {r['hands']} random valid hands (CPU time, median of interleaved chunks):")
    print(f"  tilescope score_hand          {r['tilescope_per_s']:9.0f} hands/s")
    print(f"  mahjong 2.1.0 (config ready)  {r['mahjong_per_s']:9.0f} hands/s   tilescope {r['ratio']:.1f}x faster")
    print(f"  mahjong 2.1.0 (config built)  {r['mahjong_with_config_per_s']:9.0f} hands/s   "
          f"tilescope {r['ratio_with_config']:.1f}x faster")
    print(f"  {r['hands']} hands never seen before, each scored once:")
    print(f"  tilescope score_hand          {r['tilescope_new_hands_per_s']:9.0f} hands/s")
    print(f"  mahjong 2.1.0 (config ready)  {r['mahjong_new_hands_per_s']:9.0f} hands/s   "
          f"tilescope {r['ratio_new_hands']:.1f}x faster")
    from benchmarks.mcr_differential import print_speed  # MCR: tilescope vs pymahjonggb (C++)
    print_speed(n)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
