"""The last step of web/test/compare_reader.sh: score each photo (vision.photo.pipeline.score_photo,
`tilescope score`'s pipeline, under the ruleset golden.py noted) once with Python's TileReader and
once with the JS reader's results (web/test/reader_vs_python.mjs wrote them, its second looks
too), and compare the `tilescope score --json` objects: tiles, grouping, score, warnings.

    PYTHONPATH=. python web/test/score_vs_python.py GOLDEN_DIR

Boxes there are rounded to 0.1 px and confidences to 1e-4; one that rounds the other way (the
readers differ by ~1e-7) is counted apart, not as a difference."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np


def detections(obj, width, height):
    from vision.read.detections import Detection, Detections

    return Detections(width, height,
                      [Detection(t["tile"], tuple(t["box"]), t["confidence"], t["sideways"],
                                 tuple((a[0], a[1]) for a in t["alternatives"])) for t in obj["tiles"]],
                      windows=tuple(tuple(w) for w in obj["windows"]),
                      reflections=tuple(tuple(b) for b in obj["reflections"]), crowded=obj["crowded"])


class JsReader:
    """The JS reader's results for one photo, as a reader score_photo can use."""

    def __init__(self, row, js):
        self.row, self.js = row, js

    def read(self, image, windows=()):
        return detections(self.js["read"], self.row["width"], self.row["height"])

    def look_again(self, image, how):
        if f"look_{how}" not in self.js:
            raise KeyError(f"{self.row['name']}: scoring asked the JS reader for look_again {how!r}, "
                           "which Python's scoring did not")
        return detections(self.js[f"look_{how}"], self.row["width"], self.row["height"])


def differences(a, b, path="", tol=False):
    """Paths where JSON values ``a`` and ``b`` differ; with ``tol``, a box number within 0.1 px
    and any other number within 1e-4 counts as equal. Timings are left out."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) | set(b)):
            if k in ("seconds", "timings"):
                continue
            if k not in a or k not in b:
                out.append(f"{path}/{k}")
            else:
                out += differences(a[k], b[k], f"{path}/{k}", tol)
        return out
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [f"{path} (length {len(a)} vs {len(b)})"]
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in differences(x, y, f"{path}/{i}", tol)]
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        # tol: 0.1 px for boxes (rounded to 0.1), one unit of 1e-4 for confidences
        limit = 0.0 if not tol else (0.1 + 1e-9 if "/box/" in path else 1e-4 + 1e-9)
        return [] if abs(a - b) <= limit else [f"{path} ({a} vs {b})"]
    return [] if a == b else [f"{path} ({a!r} vs {b!r})"]


def main() -> int:
    from vision.photo.pipeline import score_photo
    from vision.read.detector import TileReader

    folder = Path(sys.argv[1])
    golden = json.loads((folder / "golden.json").read_text())
    js_all = json.loads((folder / "js_results.json").read_text())
    reader = TileReader(threads=1)
    same = rounding = 0
    for row in golden:
        img = np.fromfile(folder / row["file"], np.uint8).reshape(row["height"], row["width"], 3)
        context = {"ruleset": row.get("ruleset", "riichi")}
        py = score_photo(img, context, reader=reader).to_json()
        try:
            js = score_photo(img, context, reader=JsReader(row, js_all[row["name"]])).to_json()
        except KeyError as exc:
            print(f"{row['name']:36} DIFFERENT flow: {exc}")
            continue
        exact = differences(py, js)
        # numbers the JSON rounds (boxes to 0.1 px, confidences to 1e-4) may round the other way
        # when the two readers differ by 1e-7: that is no different reading
        loose = differences(py, js, tol=True)
        if not exact:
            same += 1
            verdict = "same"
        elif not loose and all(("/box/" in d or "confidence" in d or "alternatives" in d or "read_as" in d)
                               for d in exact):
            rounding += 1
            verdict = "same but a rounded number: " + "; ".join(exact[:3])
        else:
            verdict = "DIFFERENT: " + "; ".join(exact[:6])
        print(f"{row['name']:36} {row.get('ruleset', 'riichi'):7} tiles {len(py.get('tiles', [])):3}  "
              f"scored {'yes' if (py.get('result') or {}).get('valid') else 'no':3}  {verdict}")
    n = len(golden)
    print(f"\n{same}/{n} photos: the same `tilescope score --json` (tiles, grouping, score, warnings) from the "
          f"JS reader's results as from Python's reader" + (f"; {rounding} more the same but for a box or "
                                                              f"confidence rounded (0.1 px, 1e-4) the other way" if rounding else ""))
    return 0 if same + rounding == n else 1


if __name__ == "__main__":
    sys.exit(main())
