"""What Python's reader says about each test photo, for web/test/classify_vs_python.mjs.

    PYTHONPATH=. python web/test/classify_golden.py OUT_DIR [--samples] [--rendered N]
        [--glass N] [--real N] [--set-seed SEED] [--photo FILE ...]

For each photo: the boxes of ``TileReader._detect`` (the reader's own detection), then
``TileReader._classify`` (probs, likeness), ``_merge_back``, ``combine`` (with a set),
``assign_within_counts`` and ``reflections`` (each call of its ``name_turned_over`` kept), and
the crop tensors (``crop_boxes``, ``contrast_crops``, ``turned_over`` at one angle) so the
browser's crops can be compared apart from its classifier. Written per photo to
``OUT_DIR/NAME/``: ``image.bgr`` (H*W*3 bytes), ``golden.json``, ``crops.f32``,
``contrast.f32``, ``turned.f32`` (float32, little-endian). ``--set-seed``: also learn a set
profile from a rendered sheet of the held-out style (as benchmarks/set_unseen.py does), write
it as ``OUT_DIR/profile.json`` (web/tools/profile_json.py) with the sheet's calibration inputs,
and read the held-out style's rendered photos with it.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "web" / "tools"))

from vision.read import detector  # noqa: E402
from vision.read.detector import TileReader, _merge_back, mark_sideways  # noqa: E402
from vision.read.reflections import hanging_pairs, ink_contrast, mirror_likeness, reflections  # noqa: E402
from vision.read.tile_counts import assign_within_counts  # noqa: E402
from vision.read.tile_crops import contrast_crops, crop_boxes, turned_over  # noqa: E402
from vision.read.tileset import calibrate, combine, looks  # noqa: E402

TURN_THETA = 0.3          # the angle turned_over's crops are dumped at (reflections use the rows')


def rows(a) -> list:
    return np.asarray(a, np.float64).tolist()


def dump(reader: TileReader, name: str, image: np.ndarray, out: Path) -> None:
    """One photo's golden files under ``out / name``."""
    folder = out / name
    folder.mkdir(parents=True, exist_ok=True)
    image = np.ascontiguousarray(image, np.uint8)
    (folder / "image.bgr").write_bytes(image.tobytes())
    boxes, scores, det_cls, _ = reader._detect(image)
    boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
    gold = {"name": name, "width": image.shape[1], "height": image.shape[0], "boxes": rows(boxes),
            "det_cls": [int(c) for c in det_cls], "names": list(reader.names), "turns": reader.turns,
            "contrast": bool(reader.contrast), "with_set": reader.references is not None,
            "turn_theta": TURN_THETA}
    crops = crop_boxes(image, boxes, reader.crop_size)
    crops.astype("<f4").tofile(folder / "crops.f32")
    contrast_crops(crops).astype("<f4").tofile(folder / "contrast.f32")
    turned_over(crops, TURN_THETA).astype("<f4").tofile(folder / "turned.f32")
    looked = []
    real_contrast = detector.contrast_crops
    detector.contrast_crops = lambda c: looked.append(1) or real_contrast(c)
    try:
        probs, likeness = reader._classify(image, boxes)
    finally:
        detector.contrast_crops = real_contrast
    gold["contrast_views"] = bool(looked)
    gold["probs"] = rows(probs)
    gold["likeness"] = None if likeness is None else rows(likeness)
    merged = _merge_back(probs, det_cls, reader.names)
    gold["merged"] = rows(merged)
    final = merged
    if likeness is not None:
        final, decided = combine(merged, likeness, reader.tileset.calibration)
        gold["combined"] = rows(final)
        gold["decided"] = [bool(d) for d in decided]
    gold["counts"] = [int(c) for c in assign_within_counts(final)]
    calls = []

    def name_turned_over(idx, theta):
        got = reader._turned_over(image, boxes[idx], theta)
        calls.append({"idx": [int(i) for i in idx], "theta": float(theta), "names": [int(v) for v in got]})
        return got

    sideways = mark_sideways(boxes)
    gone = reflections(image, boxes, final.argmax(axis=1), name_turned_over, sideways)
    gold["reflections"] = {"names": [int(v) for v in final.argmax(axis=1)],
                           "sideways": [bool(v) for v in sideways],
                           "calls": calls, "gone": [bool(v) for v in gone]}
    # the measures reflections decides by, pair by pair (at most 40 pairs), apart from the names;
    # mirror_likeness blurs the whole photo each time: on a photo of megapixels, one pair
    pairs, theta = hanging_pairs(boxes)
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32)
    mirrors = 40 if image.shape[0] * image.shape[1] <= 2_000_000 else 1
    gold["pairs"] = [{"tile": t, "below": j, "contrast": [ink_contrast(grey, boxes[t]), ink_contrast(grey, boxes[j])],
                      "mirror": mirror_likeness(grey, boxes, t, j) if k < mirrors else None}
                     for k, (t, j) in enumerate(pairs[:40])]
    gold["theta"] = float(theta)
    (folder / "golden.json").write_text(json.dumps(gold))
    print(f"{name}: {len(boxes)} boxes{' (set)' if likeness is not None else ''}"
          f"{', contrast views' if looked else ''}"
          f"{', reflections ' + str(int(gone.sum())) if gone.any() else ''}", flush=True)


def rendered(n: int, style_name: str, seed: int, glass: float):
    """``n`` rendered hands of ``style_name`` (benchmarks/pipeline.py's way), glass top reflectance."""
    from datasets.art import load_style
    from datasets.hands import random_hand
    from datasets.render import Look, render_hand

    style = load_style(style_name, str(ROOT.parent.parent / "shared" / "art")
                       if (ROOT.parent.parent / "shared" / "art").is_dir() else "/work/shared/art")
    rng = np.random.default_rng(seed)
    made = 0
    while made < n:
        spec = random_hand(rng, "mcr" if rng.random() < 0.35 else "riichi")
        try:
            img, _ = render_hand(spec, rng, style, imgsz=960, upside_down=bool(rng.random() < 0.15),
                                 look=Look(occlude=0.0, glass=glass))
        except KeyError:
            continue
        made += 1
        yield f"{style_name}-{seed}-{made}{'-glass' if glass else ''}", img


def learn(reader: TileReader, seed: int, hands: int, out: Path) -> None:
    """A profile learned from a rendered sheet of the held-out jade (benchmarks/pipeline.py's
    learned_sheet, one seed): the sheet (``OUT/sheet/``: its bytes and its boxes in sheet
    order), the profile as JSON with the reader's references and what learning computed
    (``OUT/profile.json``), the looks (``OUT/looks.u8``); then ``hands`` jade hands read with it."""
    from datasets.art import load_style
    from datasets.render import render_sheet
    from profile_json import profile_json
    from vision.read.set_learning import learn_sheet, parse_sheet
    from vision.read.tileset import DEFAULT_SHEET

    style = load_style("kmahjongg-jade", "/work/shared/art")
    groups = [[k for k in parse_sheet(g) if k in style.classes] for g in DEFAULT_SHEET.split()]
    kinds = [k for g in groups for k in g]
    img, _ = render_sheet(np.random.default_rng(seed), style, kinds, imgsz=960,
                          row_lengths=[len(g) for g in groups if g])
    learned = learn_sheet(reader, img, kinds, name=style.name, source=f"sheet seed {seed}")
    tileset = learned.tileset
    print(f"set profile: {len(tileset)} references from the sheet of seed {seed}", flush=True)
    sheet = out / "sheet"
    sheet.mkdir(parents=True, exist_ok=True)
    (sheet / "image.bgr").write_bytes(np.ascontiguousarray(img, np.uint8).tobytes())
    with_set = reader.with_set(tileset)
    profile = profile_json(tileset, with_set.references)
    profile["golden"] = {"width": img.shape[1], "height": img.shape[0],
                         "boxes": [list(d.box) for d in learned.detections.tiles], "sheet_kinds": kinds,
                         "sheet_probs": rows(learned.sheet_probs),
                         "disagreements": [[d.index, d.given, d.read] for d in learned.disagreements],
                         "calibration": calibrate(tileset.kinds, learned.sheet_probs, tileset.crops,
                                                  tileset.embeddings).to_meta()}
    (out / "profile.json").write_text(json.dumps(profile))
    altered, _ = looks(tileset.crops)
    altered.tofile(out / "looks.u8")
    for name, image in rendered(hands, "kmahjongg-jade", 5, 0.0):
        dump(with_set, name + "-set", image, out)


def count_cases(out: Path, n: int = 60, seed: int = 0) -> None:
    """``OUT/counts.json``: random probability rows (few distinct values, so ties happen; up to
    400 tiles, so several sets) and what ``assign_within_counts`` names them."""
    rng = np.random.default_rng(seed)
    cases = []
    for _ in range(n):
        k = int(rng.choice([5, 14, 40, 161, 400]))
        hot = rng.integers(0, 46, size=k) if rng.random() < 0.5 else rng.integers(0, 6, size=k)
        p = np.round(rng.random((k, 46)) ** 8, 2) * 0.01
        p[np.arange(k), hot] += np.round(rng.random(k), 1)
        p = (p / p.sum(axis=1, keepdims=True)).astype(np.float32)
        cases.append({"probs": p.astype(np.float64).tolist(), "names": assign_within_counts(p).tolist()})
    (out / "counts.json").write_text(json.dumps(cases))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--samples", action="store_true", help="vision/samples/*.jpg")
    ap.add_argument("--rendered", type=int, default=0, help="rendered hands of riichi-regular-like styles")
    ap.add_argument("--glass", type=int, default=0, help="rendered hands on a glass table top")
    ap.add_argument("--glass-real", type=int, default=0, help="rendered xmahjongg-real hands on glass")
    ap.add_argument("--jade", type=int, default=0, help="rendered hands of the held-out jade, no set")
    ap.add_argument("--real", type=int, default=0, help="real photos (validation only)")
    ap.add_argument("--set-seed", type=int, default=None, help="learn a profile from this sheet seed")
    ap.add_argument("--set-hands", type=int, default=2, help="held-out hands read with the profile")
    ap.add_argument("--photo", nargs="*", default=[])
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    reader = TileReader(threads=1)
    count_cases(out)
    photos = [Path(p) for p in args.photo]
    if args.samples:
        photos += sorted((ROOT / "vision" / "samples").glob("*.jpg"))
    if args.real:
        photos += sorted(Path("/work/shared/real/camerash/photos").glob("*.jpg"))[:args.real]
    for p in photos:
        dump(reader, p.stem, cv2.imread(str(p), cv2.IMREAD_COLOR), out)
    for name, img in rendered(args.rendered, "kmahjongg-default", 7, 0.0):
        dump(reader, name, img, out)
    # on a glass top of reflectance 0.45 the third hand of seed 21 shows 4 reflections, and the
    # fifth of xmahjongg-real's seed 5 has 50 hanging pairs (none a reflection)
    for name, img in rendered(args.glass, "kmahjongg-default", 21, 0.45):
        dump(reader, name, img, out)
    for name, img in rendered(args.glass_real, "xmahjongg-real", 5, 0.4):
        dump(reader, name, img, out)
    for name, img in rendered(args.jade, "kmahjongg-jade", 3, 0.0):
        dump(reader, name, img, out)
    if args.set_seed is not None:
        learn(reader, args.set_seed, args.set_hands, out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
