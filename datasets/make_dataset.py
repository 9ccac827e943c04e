"""Write a synthetic YOLO dataset of tile scenes.

    python -m datasets.make_dataset --out DIR --n 2000 --seed 0 --imgsz 416 [--styles ...] [--art DIR]

Layout of DIR::

    images/{train,val,test}/<split>_000000.jpg    JPEG, quality drawn per image (50..95)
    labels/{train,val,test}/<split>_000000.txt    YOLO: class cx cy w h (normalised), 46 classes
    annotations/{train,val,test}/<split>_000000.json   render_hand/render_rows annotation
    data.yaml                                      ultralytics dataset file (46 class names)

``train`` and ``val`` use the training styles (every style but ``datasets.art.HELDOUT_STYLES``);
``test`` uses only the held-out styles, so test numbers measure a tile design never seen in
training. Image ``i`` of a split is rendered from ``numpy.random.default_rng([seed, split, i])``:
the same seed gives the same files whatever the number of worker processes. Files already
present are kept, so an interrupted run can be continued with the same command.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from multiprocessing import Pool
from pathlib import Path

import cv2
import numpy as np

from datasets.art import HELDOUT_STYLES, ArtError, list_styles
from datasets.render import SCENE_MIXES
from vision.read.classes import CLASS_INDEX, TILE_CLASSES

SPLITS = ("train", "val", "test")


def yolo_lines(ann: dict) -> list[str]:
    """YOLO label lines (class cx cy w h, normalised to the image) from an annotation."""
    w, h = ann["image"]["width"], ann["image"]["height"]
    out = []
    for t in ann["tiles"]:
        x1, y1, x2, y2 = t["box"]
        out.append(f"{CLASS_INDEX[t['tile']]} {(x1 + x2) / 2 / w:.6f} {(y1 + y2) / 2 / h:.6f} "
                   f"{(x2 - x1) / w:.6f} {(y2 - y1) / h:.6f}")
    return out


_JOB: dict = {}


def _init(job: dict) -> None:
    cv2.setNumThreads(1)
    _JOB.update(job)


def _one(task: tuple[str, int]) -> str:
    from datasets.render import random_scene  # imported in the worker, after cv2 threads are set

    split, i = task
    out = Path(_JOB["out"])
    stem = f"{split}_{i:06d}"
    ann_path = out / "annotations" / split / f"{stem}.json"
    if ann_path.exists():
        return split
    rng = np.random.default_rng([_JOB["seed"], SPLITS.index(split), i])
    styles = _JOB["test_styles"] if split == "test" else _JOB["styles"]
    img, ann = random_scene(rng, styles, imgsz=_JOB["imgsz"], art=_JOB["art"], jpeg=False, mix=_JOB["mix"],
                            glass=_JOB.get("glass", 0.0))
    cv2.imwrite(str(out / "images" / split / f"{stem}.jpg"), img,
                [cv2.IMWRITE_JPEG_QUALITY, int(ann["jpeg_quality"])])
    (out / "labels" / split / f"{stem}.txt").write_text("\n".join(yolo_lines(ann)) + ("\n" if ann["tiles"] else ""))
    ann_path.write_text(json.dumps(ann))  # written last: its presence marks the image as done
    return split


def remove_unfinished(out: Path) -> int:
    """Delete images and labels whose annotation was never written (a worker stopped mid-image);
    returns how many images were removed. The annotation is written last, so it marks a done image."""
    removed = 0
    for split in SPLITS:
        ann_dir = out / "annotations" / split
        for img in (out / "images" / split).glob("*.jpg"):
            if not (ann_dir / f"{img.stem}.json").exists():
                img.unlink()
                (out / "labels" / split / f"{img.stem}.txt").unlink(missing_ok=True)
                removed += 1
    return removed


def write_data_yaml(out: Path) -> Path:
    """The ultralytics dataset file for ``out`` (absolute path, 46 names in TILE_CLASSES order)."""
    lines = [f"path: {out.resolve()}", "train: images/train", "val: images/val", "test: images/test",
             f"nc: {len(TILE_CLASSES)}", "names:"] + [f"  {i}: '{n}'" for i, n in enumerate(TILE_CLASSES)]
    path = out / "data.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m datasets.make_dataset", description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="output folder (created)")
    ap.add_argument("--n", type=int, required=True, help="training images")
    ap.add_argument("--val", type=int, default=None, help="validation images (default n/10, at least 20)")
    ap.add_argument("--test", type=int, default=None, help="held-out-style test images (default n/10, at least 20)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--imgsz", type=int, default=416, help="long side of the images in pixels")
    ap.add_argument("--styles", nargs="+", default=None, help="training styles (default: all but the held-out ones)")
    ap.add_argument("--test-styles", nargs="+", default=list(HELDOUT_STYLES), help="styles of the test split")
    ap.add_argument("--art", default=None, help="tile artwork folder (default $TILESCOPE_ART or ../shared/art)")
    ap.add_argument("--workers", type=int, default=2, help="worker processes")
    ap.add_argument("--mix", default="default", choices=sorted(SCENE_MIXES),
                    help="scene-kind shares (datasets.render.SCENE_MIXES); 'real' adds frame-filling close-ups")
    ap.add_argument("--glass", type=float, default=0.0, metavar="SHARE",
                    help="share of scenes on a glass table top, reflections unlabelled (default 0)")
    ap.add_argument("--max-seconds", type=float, default=None,
                    help="stop rendering training images after this many seconds (val and test are made first)")
    args = ap.parse_args(argv)
    if args.n < 0 or (args.val or 0) < 0 or (args.test or 0) < 0:
        print("error: image counts must be >= 0", file=sys.stderr)
        return 2
    if not 0.0 <= args.glass <= 1.0:
        print(f"error: --glass is a share, 0..1, not {args.glass}", file=sys.stderr)
        return 2
    if args.imgsz < 64 or args.imgsz > 4096:
        print(f"error: --imgsz {args.imgsz} out of range 64..4096", file=sys.stderr)
        return 2
    try:
        have = list_styles(args.art)
    except ArtError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    styles = args.styles or [s for s in have if s not in args.test_styles]
    unknown = [s for s in styles + args.test_styles if s not in have]
    if unknown:
        print(f"error: unknown style(s) {' '.join(unknown)}; have {' '.join(have)}", file=sys.stderr)
        return 2
    leak = set(styles) & set(args.test_styles)
    if leak:
        print(f"error: style(s) {' '.join(sorted(leak))} in both training and test", file=sys.stderr)
        return 2
    n_val = args.val if args.val is not None else max(20, args.n // 10)
    n_test = args.test if args.test is not None else max(20, args.n // 10)
    out = Path(args.out)
    for kind in ("images", "labels", "annotations"):
        for split in SPLITS:
            (out / kind / split).mkdir(parents=True, exist_ok=True)
    # val and test first: a time-capped run still has complete evaluation splits.
    tasks = [("val", i) for i in range(n_val)] + [("test", i) for i in range(n_test)] + \
            [("train", i) for i in range(args.n)]
    job = {"out": str(out), "seed": args.seed, "imgsz": args.imgsz, "art": args.art,
           "styles": styles, "test_styles": args.test_styles, "mix": args.mix, "glass": args.glass}
    try:
        from tqdm import tqdm
    except ImportError:  # the progress bar is a nicety, not a requirement
        def tqdm(it, **_):
            return it
    t0 = time.time()
    deadline = None if args.max_seconds is None else t0 + args.max_seconds
    done = {split: 0 for split in SPLITS}
    if args.workers <= 1:
        _init(job)
        for split in tqdm(map(_one, tasks), total=len(tasks), unit="img"):
            done[split] += 1
            if deadline and time.time() > deadline and split == "train":
                break
    else:
        with Pool(args.workers, initializer=_init, initargs=(job,)) as pool:
            for split in tqdm(pool.imap_unordered(_one, tasks, chunksize=4), total=len(tasks), unit="img"):
                done[split] += 1
                if deadline and time.time() > deadline and split == "train":
                    pool.terminate()
                    break
    secs = time.time() - t0
    removed = remove_unfinished(out)
    write_data_yaml(out)
    n_train = len(list((out / "annotations" / "train").glob("*.json")))
    if n_train < args.n:
        print(f"time cap: {n_train} of {args.n} training images made ({removed} unfinished removed)", file=sys.stderr)
    info = {"train": n_train, "val": n_val, "test": n_test, "seed": args.seed, "imgsz": args.imgsz,
            "styles": styles, "test_styles": args.test_styles, "mix": args.mix, "glass": args.glass,
            "seconds": round(secs, 1),
            "workers": args.workers, "cpu_count": os.cpu_count()}
    (out / "dataset.json").write_text(json.dumps(info, indent=1))
    made = n_train + n_val + n_test
    print(f"wrote {made} images to {out} in {secs:.0f} s "
          f"({secs / max(made, 1):.3f} s per image with {args.workers} workers)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
