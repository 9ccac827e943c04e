"""Top-1 accuracy of the crop classifier on real tile crops it never trained on.

The crops are the 628 single-tile photos of a Chinese (MCR-style) set in
``../shared/real/camerash/crops`` (Camerash/mahjong-dataset, MIT): ``labels.csv`` has
``image-name,label,label-name`` with names such as ``dots-1``, ``bamboo-9``, ``characters-5``,
``honors-east``, ``honors-white``, ``bonus-plum``, ``bonus-spring``. Each crop is the whole tile,
so the box is the whole image. That set has no red fives: a ``0x`` answer is always wrong and
is counted on its own.

    .venv/bin/python benchmarks/classifier_real.py [--crops DIR] [--weights DIR] [--json OUT]
"""
from __future__ import annotations

import argparse
import csv
import json
import sys
from collections import Counter
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from vision.read.classes import TILE_CLASSES  # noqa: E402
from vision.read.imageio import load_image  # noqa: E402
from vision.read.tile_crops import crop_boxes  # noqa: E402

DEFAULT_CROPS = REPO.parent / "shared" / "real" / "camerash" / "crops"
SUITS = {"characters": "m", "dots": "p", "bamboo": "s"}
HONORS = {"east": "1z", "south": "2z", "west": "3z", "north": "4z",
          "white": "5z", "green": "6z", "red": "7z"}
# flowers 1f-4f = plum orchid chrysanthemum bamboo, seasons 5f-8f = spring summer autumn winter
BONUS = {"plum": "1f", "orchid": "2f", "chrysanthemum": "3f", "bamboo": "4f",
         "spring": "5f", "summer": "6f", "autumn": "7f", "winter": "8f"}


def mpsz_of(label_name: str) -> str:
    """``dots-5`` -> ``5p``, ``honors-red`` -> ``7z``, ``bonus-spring`` -> ``5f``.

    Raises ValueError for a name outside the Camerash label list.
    """
    group, _, rest = label_name.partition("-")
    if group in SUITS and rest.isdigit() and 1 <= int(rest) <= 9:
        return f"{rest}{SUITS[group]}"
    if group == "honors" and rest in HONORS:
        return HONORS[rest]
    if group == "bonus" and rest in BONUS:
        return BONUS[rest]
    raise ValueError(f"unknown Camerash label {label_name!r}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--crops", type=Path, default=DEFAULT_CROPS)
    p.add_argument("--weights", type=Path, default=REPO / "vision" / "weights")
    p.add_argument("--json", type=Path, help="also write the numbers here")
    args = p.parse_args(argv)
    labels = args.crops / "labels.csv"
    if not labels.is_file():
        print(f"no {labels}: pass --crops DIR (Camerash/mahjong-dataset crops)", file=sys.stderr)
        return 2
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 2
    sess = ort.InferenceSession(str(args.weights / "classifier.onnx"), opts,
                                providers=["CPUExecutionProvider"])
    size = sess.get_inputs()[0].shape[2]
    with labels.open(newline="") as f:
        rows = [(r["image-name"], mpsz_of(r["label-name"])) for r in csv.DictReader(f)]

    truth, pred, conf = [], [], []
    for start in range(0, len(rows), 64):
        chunk = rows[start:start + 64]
        crops = []
        for name, _ in chunk:
            img = load_image(args.crops / name)
            h, w = img.shape[:2]
            crops.append(crop_boxes(img, np.array([[0, 0, w, h]]), size, context=0.0))
        probs = sess.run(None, {sess.get_inputs()[0].name: np.concatenate(crops)})[0]
        truth += [t for _, t in chunk]
        pred += [TILE_CLASSES[int(i)] for i in probs.argmax(1)]
        conf += probs.max(1).tolist()

    truth_a, pred_a = np.array(truth), np.array(pred)
    ok = truth_a == pred_a
    playing = ~np.char.endswith(truth_a, "f")
    groups = {"characters (m)": "m", "dots (p)": "p", "bamboo (s)": "s", "honours (z)": "z",
              "flowers/seasons (f)": "f"}
    report = {
        "n": len(truth), "top1": round(float(ok.mean()), 4),
        "top1_playing_tiles": round(float(ok[playing].mean()), 4),
        "by_group": {g: round(float(ok[np.char.endswith(truth_a, s)].mean()), 4)
                     for g, s in groups.items()},
        "red_five_false_alarms": int(np.char.startswith(pred_a, "0").sum()),
        "fives_called_red": {f"5{s}": int(((truth_a == f"5{s}") & (pred_a == f"0{s}")).sum())
                             for s in "mps"},
        "called_back": int((pred_a == "back").sum()),
        "top_confusions": [f"{t}->{p} x{n}" for (t, p), n in
                           Counter((t, p) for t, p in zip(truth, pred) if t != p).most_common(15)],
        "per_class": {c: round(float(ok[truth_a == c].mean()), 3)
                      for c in TILE_CLASSES if (truth_a == c).any()},
    }
    print(json.dumps(report, indent=1))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
