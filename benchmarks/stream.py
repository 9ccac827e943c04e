"""Stream speed: frames per second that ``tilescope stream`` detects on this CPU.

Runs the stream engine (detector + tracker + stabiliser + scoring of each new stable hand) on
a video at the default settings and prints frames detected per second of wall-clock time. The
issue's target is >= 15 on 2 cores.

Without ``--video`` it makes one: the bundled sample photo (``tests/data/riichi_open_red.jpg``,
or ``--photo``) on a 1280x720 frame (a webcam's usual size), moved a few pixels per frame like a
hand-held camera. Run from the repo root, by hand (not a test):

    nice .venv/bin/python -m benchmarks.stream [--video FILE] [--photo FILE] [--frames 150] [--threads 2]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path


SAMPLE = Path(__file__).resolve().parents[1] / "tests" / "data" / "riichi_open_red.jpg"


def make_video(path: str, frames: int, photo_path: Path = SAMPLE) -> None:
    """A 1280x720 30 fps clip of a photo (default the bundled sample) scaled to 720 px high,
    shaken a few pixels per frame."""
    import cv2
    import numpy as np

    photo = cv2.imread(str(photo_path))
    if photo is None:
        raise SystemExit(f"benchmarks.stream: cannot read {photo_path}")
    ph, pw = photo.shape[:2]
    scale = 720 / ph
    photo = cv2.resize(photo, (round(pw * scale), 720), interpolation=cv2.INTER_AREA)
    img = np.full((720, 1280, 3), 40, np.uint8)
    x0 = (1280 - photo.shape[1]) // 2
    img[:, x0:x0 + photo.shape[1]] = photo
    out = cv2.VideoWriter(path, cv2.VideoWriter_fourcc(*"mp4v"), 30.0, (1280, 720))
    for i in range(frames):
        dx, dy = 3 * np.sin(i / 7.0), 2 * np.cos(i / 11.0)
        m = np.float32([[1, 0, dx], [0, 1, dy]])
        out.write(cv2.warpAffine(img, m, (1280, 720), borderMode=cv2.BORDER_REPLICATE))
    out.release()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--video", help="video file to read (default: render one)")
    p.add_argument("--frames", type=int, default=150, help="frames to render (default 150)")
    p.add_argument("--photo", type=Path, default=SAMPLE,
                   help="photo the clip is made of (default the sample; "
                        "tests/data/riichi_broadcast.jpg: a 1280x720 hand camera, tiles ~22x30 px)")
    p.add_argument("--threads", type=int, default=2, help="onnxruntime threads (default 2)")
    p.add_argument("--weights", help="weights folder (default: the bundled model)")
    p.add_argument("--turns", type=int, default=4, choices=(1, 2, 4),
                   help="quarter turns each crop is classified under (default 4, as tilescope stream)")
    args = p.parse_args(argv)

    from vision.detector import TileReader
    from vision.stream import FrameSource, HandStabiliser, StreamRunner, pipeline_scorer

    try:
        reader = TileReader(args.weights, threads=args.threads, turns=args.turns)
    except RuntimeError as exc:
        print(f"benchmarks.stream: no detector: {exc}", file=sys.stderr)
        return 2
    video = args.video
    tmp = None
    if video is None:
        tmp = tempfile.NamedTemporaryFile(suffix=".mp4", delete=False)
        tmp.close()
        video = tmp.name
        make_video(video, args.frames, args.photo)

    class TimedReader:
        """Wall and CPU seconds per read (CPU time tells what an idle machine would do when
        other jobs share the cores: wall time then mostly measures waiting)."""

        def __init__(self, inner):
            self.inner, self.times, self.cpu = inner, [], []

        def read(self, img, **kw):
            t, c = time.perf_counter(), time.process_time()
            d = self.inner.read(img, **kw)
            self.times.append(time.perf_counter() - t)
            self.cpu.append(time.process_time() - c)
            return d

    timed = TimedReader(reader)
    source = FrameSource(video)
    runner = StreamRunner(timed, HandStabiliser(), pipeline_scorer({"ruleset": "riichi"}))
    seen = []
    runner.on_hand = seen.append
    stats = runner.run(source)
    source.close()
    if tmp is not None:
        os.unlink(tmp.name)
    first = next((m for m in seen if m["hand"]), None)
    print(f"video: {video if args.video else f'{args.photo.name} shaken, 1280x720'}, {stats.frames} frames; "
          f"detector input {reader.imgsz} px, {args.threads} threads, {args.turns} turns, "
          f"{'two-stage' if reader.classifier is not None and not reader.single_stage else 'single-stage'}")
    print(f"frames detected per second: {stats.detect_fps:.1f}  (target >= 15)")
    print(f"read() per frame: median {1000 * statistics.median(timed.times):.1f} ms, "
          f"p90 {1000 * sorted(timed.times)[int(0.9 * len(timed.times))]:.1f} ms")
    cpu = statistics.median(timed.cpu)
    load = os.getloadavg()[0]
    print(f"CPU time per read: median {1000 * cpu:.1f} ms -> on {args.threads} idle cores "
          f"between {1 / cpu:.1f} (no parallel speed-up) and {args.threads / cpu:.1f} frames/s; "
          f"load average during the run {load:.1f} on {os.cpu_count()} cores")
    print(f"stable-hand changes: {stats.events}; first hand: "
          f"{' '.join(first['hand']['tiles']) if first else 'none'} -> "
          f"{first['hand']['summary'] if first else ''}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
