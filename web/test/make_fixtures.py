"""Write web/test/fixtures/readings.json: what the Python reader reads in each sample photo
(vision/samples/*.jpg), at full precision, in the shape of the browser reader's answers
(web/src/reader: ``{width, height, tiles: [{tile, box, confidence, sideways, alternatives}],
windows, reflections, crowded}``), for the first read and each second look (``x``, ``y``).

web/test/fixture-reader.js answers with these until the browser's own reader is built into the
site, so that the page, the worker and the Python in Pyodide can be tested now, and a browser
test can compare the page's values with ``vision.photo.pipeline.score_photo``'s.

A photo is recognised by its size and a coarse colour signature (the mean B, G, R of an 8 × 8
grid of cells): a browser's JPEG decoder may differ from OpenCV's in a few low bits.

    python web/test/make_fixtures.py        # from the checkout's root
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
OUT = Path(__file__).resolve().parent / "fixtures" / "readings.json"
GRID = 8


def signature(bgr: np.ndarray) -> list[float]:
    """Mean B, G, R of each cell of a GRID × GRID grid, row by row (web/test/fixture-reader.js
    computes the same from the browser's pixels)."""
    h, w = bgr.shape[:2]
    out = []
    for gy in range(GRID):
        for gx in range(GRID):
            cell = bgr[gy * h // GRID:(gy + 1) * h // GRID, gx * w // GRID:(gx + 1) * w // GRID]
            out.extend(round(float(v), 3) for v in cell.reshape(-1, 3).mean(axis=0))
    return out


def as_reader_answer(d) -> dict:
    """A ``vision.read.detections.Detections`` as the browser reader answers, unrounded."""
    return {"width": d.width, "height": d.height,
            "tiles": [{"tile": t.tile, "box": [float(v) for v in t.box],
                       "confidence": float(t.confidence), "sideways": bool(t.sideways),
                       "alternatives": [[a, float(c)] for a, c in t.alternatives]}
                      for t in d.tiles],
            "windows": [[int(v) for v in w] for w in d.windows],
            "reflections": [[float(v) for v in b] for b in d.reflections],
            "crowded": int(d.crowded)}


def main() -> int:
    sys.path.insert(0, str(ROOT))
    from vision.photo.pipeline import get_reader
    from vision.read.imageio import load_image

    reader = get_reader()
    photos = {}
    for path in sorted((ROOT / "vision" / "samples").glob("*.jpg")):
        image = load_image(str(path))
        photos[path.name] = {"width": int(image.shape[1]), "height": int(image.shape[0]),
                             "signature": signature(image),
                             "read": as_reader_answer(reader.read(image)),
                             "x": as_reader_answer(reader.look_again(image, "x")),
                             "y": as_reader_answer(reader.look_again(image, "y"))}
        print(path.name, len(photos[path.name]["read"]["tiles"]), "tiles", file=sys.stderr)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({"grid": GRID, "photos": photos}, separators=(",", ":")) + "\n")
    print(f"wrote {OUT.relative_to(ROOT)} ({OUT.stat().st_size // 1024} KiB)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
