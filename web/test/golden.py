"""Python's side of web/test/compare_reader.sh: decode each test photo as `tilescope score` does
(vision.read.imageio.load_image), read it with vision.read.detector.TileReader, and write for the
JS reader (web/test/reader_vs_python.mjs) the raw BGR bytes and Python's full-precision results:
the detector's boxes (TileReader._detect) and the Detections of TileReader.read.

    PYTHONPATH=. python web/test/golden.py OUTDIR [--rendered 20] [--real 4] [--crop-hands 6]
                                                  [--set-sheet 101]

Photos: vision/samples/*.jpg; hands rendered as benchmarks.pipeline renders them (its seed, the
held-out style; the last quarter as broadcast frames, 1280x720 with 21 px tiles, which take the
zoom windows); the first --real photos of ../shared/real/camerash/photos; and --crop-hands MCR
hands composed from the real crops (benchmarks.real_crop_hands, glass tables among them: mirror
images). Each sample is also read by TileReader.look_again ('x', 'y'), and any photo whose
scoring (score_photo) asks for a second look, and a photo read through
zoom windows once more with those windows as the hint (a stream's next frame). With --set-sheet SEED (default 101; 0: none) the rendered hands are read once more by
the reader with a set profile learned from the held-out style's rendered sheet
(benchmarks.pipeline.learned_sheet; TileReader.with_set), the profile written as the browser's
JSON (web/tools/profile_json.py) to OUTDIR/profile.json. Writes OUTDIR/NAME.bgr and
OUTDIR/golden.json."""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
# the ruleset each photo is scored under (web/test/score_vs_python.py): its truth's, else riichi
RULESETS: dict[str, str] = {}
SHARED = Path("/work/shared") if Path("/work/shared").is_dir() else REPO.parent / "shared"


def photos(args) -> list[tuple[str, np.ndarray]]:
    from vision.read.imageio import load_image

    out = []
    for p in sorted((REPO / "vision" / "samples").glob("*.jpg")):
        truth = p.with_suffix(".json")
        if truth.is_file():
            RULESETS[f"sample/{p.stem}"] = (json.loads(truth.read_text()).get("request") or {}).get("ruleset", "riichi")
        out.append((f"sample/{p.stem}", load_image(p)))
    if args.rendered:
        out += rendered(args.rendered, args.art)
    real = Path(args.real_dir) / "camerash" / "photos"
    if args.real and real.is_dir():
        for p in sorted(real.glob("*.jpg"))[:args.real]:
            out.append((f"real/{p.stem}", load_image(p)))
            RULESETS[f"real/{p.stem}"] = "mcr"      # Chinese sets
    if args.crop_hands and (Path(args.real_dir) / "camerash" / "crops").is_dir():
        from benchmarks.real_crop_hands import make_photos

        folder = Path(args.out) / "crop_hands"
        folder.mkdir(parents=True, exist_ok=True)
        for p in make_photos(args.crop_hands, 1, folder, Path(args.real_dir) / "camerash" / "crops"):
            out.append((f"crophand/{p.stem}", load_image(p)))
            RULESETS[f"crophand/{p.stem}"] = "mcr"
    return out


def rendered(n: int, art: str) -> list[tuple[str, np.ndarray]]:
    """Hands as benchmarks.pipeline renders them (its default seed and style); the last quarter
    as broadcast frames (--frame 1280x720 --tile-px 21)."""
    from datasets.art import HELDOUT_STYLES, load_style
    from datasets.hands import random_hand
    from datasets.render import Look, hand_camera_look, render_hand

    style = load_style(HELDOUT_STYLES[0], art)
    out = []
    broadcast = n // 4
    for kind, count in (("hand", n - broadcast), ("broadcast", broadcast)):
        rng = np.random.default_rng(20261129)
        i = 0
        while sum(name.startswith(f"{kind}/") for name, _ in out) < count:
            ruleset = "mcr" if rng.random() < 0.35 else "riichi"
            spec = random_hand(rng, ruleset)
            look, upside_down = Look(occlude=0.0), bool(rng.random() < 0.15)
            size = 960
            if kind == "broadcast":
                look, upside_down, size = hand_camera_look(rng, 21.0), False, (1280, 720)
            try:
                img, _ = render_hand(spec, rng, style, imgsz=size, upside_down=upside_down, look=look)
            except KeyError:
                i += 1
                continue
            out.append((f"{kind}/{i:03d}", np.ascontiguousarray(img)))
            RULESETS[f"{kind}/{i:03d}"] = ruleset
            i += 1
    return out


class Asked:
    """A reader that notes which second looks scoring a photo asks of it."""

    def __init__(self, reader):
        self.reader, self.looks = reader, []

    def read(self, image, windows=()):
        return self.reader.read(image, windows)

    def look_again(self, image, how):
        self.looks.append(how)
        return self.reader.look_again(image, how)


def detections_json(det) -> dict:
    """Detections at full precision, in read.js's result shape."""
    return {"tiles": [{"tile": d.tile, "box": list(d.box), "confidence": d.confidence,
                       "sideways": d.sideways, "alternatives": [list(a) for a in d.alternatives]}
                      for d in det.tiles],
            "windows": [list(map(int, w)) for w in det.windows],
            "reflections": [list(b) for b in det.reflections], "crowded": det.crowded}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--rendered", type=int, default=20)
    ap.add_argument("--real", type=int, default=4)
    ap.add_argument("--crop-hands", type=int, default=6)
    ap.add_argument("--set-sheet", type=int, default=101)
    ap.add_argument("--art", default=str(SHARED / "art"))
    ap.add_argument("--real-dir", default=str(SHARED / "real"))
    args = ap.parse_args()
    from vision.photo.pipeline import score_photo
    from vision.read.detector import TileReader

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    reader = TileReader(threads=1)      # one thread, as the page's wasm runs
    set_reader = None
    if args.set_sheet and args.rendered:
        from benchmarks.pipeline import learned_sheet
        from datasets.art import HELDOUT_STYLES, load_style

        sys.path.insert(0, str(REPO / "web" / "tools"))
        from profile_json import profile_json

        tileset = learned_sheet(reader, load_style(HELDOUT_STYLES[0], args.art), args.set_sheet)
        set_reader = reader.with_set(tileset)
        (out / "profile.json").write_text(json.dumps(profile_json(tileset)))
    rows = []
    for name, img in photos(args):
        file = name.replace("/", "_") + ".bgr"
        np.ascontiguousarray(img, np.uint8).tofile(out / file)
        boxes, scores, cls, used = reader._detect(img)
        start = time.perf_counter()
        det = reader.read(img)
        seconds = time.perf_counter() - start
        row = {
            "name": name, "file": file, "width": int(img.shape[1]), "height": int(img.shape[0]),
            "seconds": seconds,
            "detect": {"boxes": np.asarray(boxes, np.float64).tolist(), "scores": [float(s) for s in scores],
                       "cls": [int(c) for c in cls], "windows": [list(map(int, w)) for w in used]},
            "read": detections_json(det),
        }
        # the second looks, mirrored (TileReader.look_again): on the samples, and wherever
        # scoring the photo (vision.photo.pipeline.score_photo) asks for one
        row["ruleset"] = RULESETS.get(name, "riichi")
        asked = Asked(reader)
        score_photo(img, {"ruleset": row["ruleset"]}, reader=asked)
        for how in ("x", "y"):
            if name.startswith("sample/") or how in asked.looks:
                row[f"look_{how}"] = detections_json(reader.look_again(img, how))
        if det.windows:                     # a stream's next frame: the windows looked through first
            row["hinted"] = detections_json(reader.read(img, windows=det.windows))
        if set_reader is not None and name.startswith(("hand/", "broadcast/")):
            start = time.perf_counter()
            row["read_set"] = detections_json(set_reader.read(img))
            row["seconds_set"] = time.perf_counter() - start
        rows.append(row)
        print(f"{name}: {len(det.tiles)} tiles, {len(det.reflections)} reflections, {seconds:.2f} s", file=sys.stderr)
    (out / "golden.json").write_text(json.dumps(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
