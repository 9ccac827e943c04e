"""``tilescope read IMAGE``: detect and name the tiles in a photo."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from .setflag import add_set_argument, with_set

HELP = "detect the tiles in a photo (boxes, tile codes, confidence); --json for machines"


def add_arguments(parser) -> None:
    parser.add_argument("image", help="photo of tiles (JPEG, PNG, WebP, BMP, TIFF; - : standard input)")
    parser.add_argument("--json", action="store_true",
                        help='print {"image": {"width", "height"}, "tiles": [...]} as JSON')
    parser.add_argument("--annotate", metavar="OUT.jpg",
                        help="also write a copy of the photo with the boxes drawn")
    parser.add_argument("--weights", metavar="DIR",
                        help="folder with detector.onnx and classifier.onnx (default: bundled)")
    parser.add_argument("--conf", type=float, default=0.25,
                        help="minimum detector confidence, 0..1 (default 0.25)")
    add_set_argument(parser)


def _fail(message: str) -> int:
    print(f"tilescope read: {message}", file=sys.stderr)
    return 2


def _text_report(dets) -> str:
    lines = [f"{len(dets.tiles)} tiles in {dets.width}x{dets.height} px "
             "(left to right, top to bottom; * = sideways)"]
    for n, d in enumerate(dets.tiles, 1):
        x1, y1, x2, y2 = (round(v) for v in d.box)
        alts = ", ".join(f"{t} {c:.2f}" for t, c in d.alternatives)
        lines.append(f"{n:3d}  {d.tile + ('*' if d.sideways else ''):5s} {d.confidence:.2f}  "
                     f"[{x1}, {y1}, {x2}, {y2}]" + (f"  (or {alts})" if alts else ""))
    if dets.reflections:
        boxes = ", ".join("[" + ", ".join(str(round(v)) for v in b) + "]" for b in dets.reflections)
        lines.append(f"not tiles: {len(dets.reflections)} mirror image(s) in the table top {boxes}")
    if getattr(dets, "crowded", 0):
        lines.append(f"none named: {dets.crowded} or more tile-like boxes, more than a whole table "
                     "holds (a grainy, noisy or dithered photo)")
    return "\n".join(lines)


def run(args) -> int:
    if not 0.0 <= args.conf <= 1.0:
        return _fail(f"--conf {args.conf} is not between 0 and 1")
    if args.annotate and Path(args.annotate).suffix.lower() not in (".jpg", ".jpeg", ".png", ".webp"):
        return _fail(f"--annotate {args.annotate!r}: give a .jpg, .png or .webp file name")
    from .score import overwrite_problem
    problem = overwrite_problem("--annotate", args.annotate, args.image) if args.annotate else None
    if problem:
        return _fail(problem)

    from vision.read.imageio import ImageError, load_image

    try:
        image = load_image(args.image)
    except ImageError as exc:
        return _fail(str(exc))

    from vision.read.detector import ModelError, TileReader
    from vision.read.tileset import SetError

    try:
        reader = TileReader(args.weights, conf=args.conf)
    except (ModelError, OSError, ValueError) as exc:
        return _fail(f"cannot load the tile models: {exc}")
    try:
        reader = with_set(reader, args.set)
    except SetError as exc:
        return _fail(str(exc))
    dets = reader.read(image)

    if args.annotate:
        import cv2

        from vision.photo.annotate import draw

        if not cv2.imwrite(args.annotate, draw(image, dets.tiles, show_confidence=True)):
            return _fail(f"cannot write {args.annotate!r}")
    if args.json:
        print(json.dumps(dets.to_json()))
    else:
        print(_text_report(dets))
    return 0
