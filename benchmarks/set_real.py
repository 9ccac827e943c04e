"""How much a set profile helps on real tiles: the real crops read with and without one.

    python -m benchmarks.set_real [--crops DIR] [--per-kind 1] [--splits 5] [--seed 0]

The 628 real single-tile crops of ``../shared/real/camerash/crops`` (Camerash/mahjong-dataset,
MIT; see benchmarks/classifier_real.py) are split at random, ``--splits`` times: ``--per-kind``
crops of each kind become a profile's references (as ``tilescope set learn`` or ``--learn``
would keep them; the crops are never trained on), the rest are read by the reader's classifier
(its four turns and contrast views, as in a photo) without and with that profile
(:func:`vision.read.tileset.combine` under the profile's calibration, decided from its references). Printed: top-1 accuracy of both on the same crops, per split
and overall, and the crops each way turned right and wrong.
"""
from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.classifier_real import DEFAULT_CROPS, mpsz_of  # noqa: E402
from vision.read.classes import CLASS_INDEX  # noqa: E402
from vision.read.imageio import load_image  # noqa: E402
from vision.read.set_learning import reference_crops  # noqa: E402
from vision.read.tileset import TileSet, combine  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--crops", type=Path, default=DEFAULT_CROPS)
    p.add_argument("--weights", type=Path, default=None, help="model folder (default: the bundled one)")
    p.add_argument("--per-kind", type=int, default=1, help="references per kind (default 1)")
    p.add_argument("--splits", type=int, default=5)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    labels = args.crops / "labels.csv"
    if not labels.is_file():
        print(f"no {labels}: pass --crops DIR (Camerash/mahjong-dataset crops)", file=sys.stderr)
        return 2
    from vision.read.detector import TileReader

    reader = TileReader(args.weights) if args.weights else TileReader()
    with labels.open(newline="") as f:
        rows = [(r["image-name"], mpsz_of(r["label-name"])) for r in csv.DictReader(f)]
    images = [load_image(args.crops / name) for name, _ in rows]
    truth = np.array([CLASS_INDEX[t] for _, t in rows])
    # each crop is the whole tile: its box is the whole image
    probs, squares = [], []
    for img in images:
        box = np.array([[0, 0, img.shape[1], img.shape[0]]], np.float64)
        probs.append(reader.classify(img, box)[0])
        squares.append(reference_crops(img, box, reader.crop_size)[0])
    probs, squares = np.array(probs), np.array(squares)
    rng = np.random.default_rng(args.seed)
    totals = np.zeros(2)
    n_all, won, lost = 0, 0, 0
    for split in range(args.splits):
        refs = np.concatenate([rng.choice(np.flatnonzero(truth == k), min(args.per_kind, (truth == k).sum()),
                                          replace=False) for k in np.unique(truth)])
        queries = np.setdiff1d(np.arange(len(rows)), refs)
        kinds = tuple(rows[i][1] for i in refs)
        ts = TileSet("real", kinds, squares[refs], reader.embed(squares[refs]), reader.model_id)
        with_set = reader.with_set(ts)
        likeness = []
        for i in queries:
            img = images[i]
            box = np.array([[0, 0, img.shape[1], img.shape[0]]], np.float64)
            likeness.append(with_set._classify(img, box)[1][0])
        fused = combine(probs[queries], np.array(likeness), with_set.tileset.calibration)[0]
        before = probs[queries].argmax(1) == truth[queries]
        after = fused.argmax(1) == truth[queries]
        totals += [before.sum(), after.sum()]
        n_all += len(queries)
        won += int((after & ~before).sum())
        lost += int((before & ~after).sum())
        print(f"split {split}: {len(refs)} references, {len(queries)} crops read: "
              f"without the set {before.mean():.3f}, with it {after.mean():.3f}")
    print(f"all {args.splits} splits ({args.per_kind} reference(s) per kind): without the set "
          f"{totals[0] / n_all:.3f}, with it {totals[1] / n_all:.3f}; {won} crops turned right, "
          f"{lost} turned wrong")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
