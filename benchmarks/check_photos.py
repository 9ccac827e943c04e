"""Verdicts on photos: how often `tilescope check PHOTO` rules a penalty against a valid win.

Renders winning hands as ``benchmarks.pipeline`` does (same generator, same seeds, same
contexts), works out each hand's true verdict from its request (``scoring.verdict``), and
counts what ``vision.photo.pipeline.check_photo`` answers from the photo: the ruling, held back
("Cannot rule from this photo"), or no verdict (the tiles as read make no hand to rule on).
A *false penalty* is a ruling against the player on a hand whose true verdict is a valid
win: the number a referee needs to be zero. Run from the repo root:

    .venv/bin/python -m benchmarks.check_photos --style riichi-regular --n 300 --seed 7
    .venv/bin/python -m benchmarks.check_photos --n 300          # the held-out jade set
"""
from __future__ import annotations

import argparse
import sys
from collections import Counter

import numpy as np


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.check_photos", description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=300, help="photos (default 300)")
    ap.add_argument("--style", default=None, help="tile style (default: the held-out style)")
    ap.add_argument("--seed", type=int, default=20261129, help="as benchmarks.pipeline's")
    ap.add_argument("--weights", default=None, help="model folder (default vision/weights)")
    args = ap.parse_args(argv)

    from benchmarks.pipeline import context_for
    from datasets.art import HELDOUT_STYLES, ArtError, load_style
    from datasets.hands import random_hand
    from datasets.render import Look, render_hand
    from scoring.verdict import check_json
    from vision.photo.pipeline import check_photo, get_reader

    name = args.style or HELDOUT_STYLES[0]
    try:
        style = load_style(name, None)
    except ArtError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    reader = get_reader(args.weights)
    rng = np.random.default_rng(args.seed)
    counts: Counter = Counter()
    false_penalties = []
    for i in range(args.n):
        # the draws of benchmarks.pipeline, in its order, so hand i is its hand i
        ruleset = "mcr" if rng.random() < 0.35 else "riichi"
        spec = random_hand(rng, ruleset)
        look, upside_down = Look(occlude=0.0), bool(rng.random() < 0.15)
        try:
            img, ann = render_hand(spec, rng, style, imgsz=960, upside_down=upside_down, look=look)
        except KeyError:                   # the style lacks a tile of this hand
            continue
        want = ann["request"]
        shown_dora = any(t["group"] == "dora" for t in ann["tiles"])
        truly_valid = check_json({**want, "declared": "hu"}).get("ruling") == "valid"
        got = check_photo(img, context_for(want, shown_dora), reader=reader).result.to_json()
        if got.get("ruling") == "valid":
            answer = "ruled valid"
        elif got.get("ruling"):
            answer = "ruled against the player"
        elif (got.get("explanation") or "").startswith("Cannot rule from this photo"):
            answer = "held back"
        else:
            answer = "no verdict"
        counts[(truly_valid, answer)] += 1
        if truly_valid and answer == "ruled against the player":
            false_penalties.append(f"{i} ({got['ruling']})")
    for truth in (True, False):
        total = sum(v for (t, _), v in counts.items() if t == truth)
        if total:
            parts = ", ".join(f"{a} {v}" for (t, a), v in sorted(counts.items()) if t == truth)
            print(f"{name}: {total} hands whose true verdict is {'a valid win' if truth else 'no valid win'}: {parts}")
    print(f"false penalties (a valid win ruled against the player): {len(false_penalties)}"
          + (f" — hands {', '.join(false_penalties)}" if false_penalties else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
