"""Latency of tile reading on this CPU: the detector model alone, the whole ``TileReader.read``
(detector + crop classifier + post-processing) and the whole ``tilescope read`` command
(process start, model loading, image decoding included).

Photos are scaled so their long side is 640 px (the size a phone app or the server would send).
Run by hand on an idle machine; numbers go into ``models/README.md``::

    .venv/bin/python benchmarks/detect.py [--photos DIR] [--weights DIR] [--repeat 5]
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import cv2

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from vision.read.detector import TileReader, letterbox  # noqa: E402
from vision.read.imageio import load_image  # noqa: E402

DEFAULT_PHOTOS = [REPO.parent / "shared" / "real" / "camerash" / "photos", REPO / "tests" / "data"]


def _photos(folder: Path | None) -> list[Path]:
    for cand in ([folder] if folder else DEFAULT_PHOTOS):
        found = sorted(p for p in cand.glob("*") if p.suffix.lower() in (".jpg", ".jpeg", ".png"))
        if found:
            return found
    return []


def _ms(times: list[float]) -> float:
    return round(1000 * statistics.median(times), 1)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--photos", type=Path)
    p.add_argument("--weights", type=Path, default=REPO / "vision" / "weights")
    p.add_argument("--repeat", type=int, default=5, help="timed runs per photo")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--turns", type=int, default=4, choices=(1, 2, 4), help="classifier quarter turns per crop")
    p.add_argument("--cli-runs", type=int, default=3, help="timed `tilescope read` processes")
    args = p.parse_args(argv)
    photos = _photos(args.photos)
    if not photos:
        print("no photos found: pass --photos DIR", file=sys.stderr)
        return 2
    reader = TileReader(args.weights, threads=args.threads, turns=args.turns)
    images = []
    for path in photos:
        img = load_image(path)
        s = 640 / max(img.shape[:2])
        images.append(cv2.resize(img, None, fx=s, fy=s, interpolation=cv2.INTER_AREA))

    model_t, read_t, tiles = [], [], []
    name = reader.detector.get_inputs()[0].name
    for img in images:
        blob, _ = letterbox(img, reader.imgsz)
        reader.detector.run(None, {name: blob})          # warm-up
        reader.read(img)
        for _ in range(args.repeat):
            t = time.perf_counter()
            reader.detector.run(None, {name: blob})
            model_t.append(time.perf_counter() - t)
            t = time.perf_counter()
            dets = reader.read(img)
            read_t.append(time.perf_counter() - t)
        tiles.append(len(dets.tiles))

    cli_t = []
    with tempfile.TemporaryDirectory() as tmp:
        sample = Path(tmp) / "sample.jpg"
        cv2.imwrite(str(sample), images[0])
        for _ in range(args.cli_runs):
            t = time.perf_counter()
            subprocess.run([sys.executable, "-m", "vision.cli", "read", str(sample), "--json",
                            "--weights", str(args.weights)], cwd=REPO, check=True,
                           capture_output=True)
            cli_t.append(time.perf_counter() - t)

    print(f"{len(images)} photos, long side 640 px, detector input {reader.imgsz} px, "
          f"{args.threads} threads")
    print(f"detector model alone     median {_ms(model_t)} ms")
    print(f"TileReader.read (all)    median {_ms(read_t)} ms  "
          f"({statistics.median(tiles):.0f} tiles per photo, median)")
    print(f"`tilescope read` process median {_ms(cli_t)} ms (start-up and model loading included)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
