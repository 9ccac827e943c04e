"""Write the cases web/test/colour_vs_python.mjs checks web/src/site/colour.js against: each
sample photo's BGR pixels as OpenCV reads them, and what
``vision.photo.photo_warnings.PhotoColour`` measures of them (the coloured share, and the
off-tint share of a few areas: the hand's, the whole photo, odd rectangles).

    python web/test/colour_cases.py /tmp/colour && node web/test/colour_vs_python.mjs /tmp/colour
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def main(out: Path) -> int:
    sys.path.insert(0, str(ROOT))
    from vision.photo.photo_warnings import PhotoColour
    from vision.read.imageio import load_image

    out.mkdir(parents=True, exist_ok=True)
    cases = []
    for path in sorted((ROOT / "vision" / "samples").glob("*.jpg")):
        image = load_image(str(path))
        h, w = image.shape[:2]
        (out / f"{path.stem}.bgr").write_bytes(image.tobytes())
        colour = PhotoColour(image)
        areas = [(0, 0, w, h), (w // 7, h // 3, w - w // 9, h - h // 5), (13, 29, 13 + 97, 29 + 61),
                 (5, 7, 5 + 250, 7 + 31), (w // 2, h // 2, w // 2 + 96, h // 2 + 96)]
        cases.append({"file": f"{path.stem}.bgr", "width": w, "height": h,
                      "coloured": colour.coloured_share(),
                      "tint": [[*a, colour.off_tint_share(*a)] for a in areas]})
    (out / "cases.json").write_text(json.dumps(cases))
    print(f"wrote {len(cases)} photos to {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/colour")))
