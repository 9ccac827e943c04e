"""Batch speed: photos per second that ``tilescope batch`` scores on 1 and 2 local processes
(and on a local Ray, when ``ray`` is installed), and frames per second of video.

Photos: ``--copies`` copies of three sample photos (vision/samples: riichi_open_red,
riichi_upside_down_dora at 960x720, riichi_broadcast at 1280x720). Video: a 1280x720 clip at
30 frames/s of hands laid down and taken away (the open-red and upside-down samples,
``--video-s`` seconds), read at 2 frames/s in 60-second segments. Each figure is wall-clock
time from the first task given to the last line written, the workers' start and model loading
included (the "start" column: that part alone, timed with one empty task). The numbers of
``docs/scale.md`` come from here. Run from the repo root, by hand (not a test):

    nice .venv/bin/python -m benchmarks.batch [--copies 8] [--video-s 120] [--no-ray]
"""
from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

from vision.batch import run as batch

SAMPLES = Path(__file__).resolve().parents[1] / "vision" / "samples"
PHOTOS = ("riichi_open_red.jpg", "riichi_upside_down_dora.jpg", "riichi_broadcast.jpg")
CONTEXT = {"win": "ron", "seat_wind": "S", "dora_indicators": "1p"}


def make_photos(folder: Path, copies: int) -> list[str]:
    paths = []
    for i in range(copies):
        for name in PHOTOS:
            path = folder / f"{i:03d}_{name}"
            shutil.copy(SAMPLES / name, path)
            paths.append(str(path))
    return paths


def make_video(path: Path, seconds: float) -> None:
    """Hands on a 1280x720 table: 5 s empty, 10 s hand, repeated (30 frames/s, MJPG)."""
    import cv2
    import numpy as np

    hands = [cv2.imread(str(SAMPLES / n)) for n in PHOTOS[:2]]
    table = np.full((720, 1280, 3), 40, np.uint8)
    frames = []
    for hand in hands:
        img = table.copy()
        img[:, 160:1120] = hand
        frames.append(img)
    out = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 30.0, (1280, 720))
    for i in range(round(seconds * 30)):
        t = (i / 30) % 15
        out.write(table if t < 5 else frames[int(i / 30 // 15) % 2])
    out.release()


def timed(run, tasks, settings, **kw) -> tuple[float, int]:
    """Seconds to run ``tasks`` and the video frames they read."""
    lines = []
    t0 = time.perf_counter()
    run(tasks, settings, done=lambda task, out: lines.extend(out), **kw)
    return time.perf_counter() - t0, sum(x.get("frames", 0) for x in lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--copies", type=int, default=8, help="copies of each of the 3 sample photos (default 8)")
    ap.add_argument("--video-s", type=float, default=120.0, help="seconds of rendered video (default 120)")
    ap.add_argument("--no-ray", action="store_true", help="skip the local Ray run")
    args = ap.parse_args()
    cores = len(os.sched_getaffinity(0))
    print(f"batch benchmark: {cores} cores, {args.copies * len(PHOTOS)} photos, "
          f"{args.video_s:.0f} s of 1280x720 video read at 2 frames/s")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        photos = batch.plan(make_photos(folder, args.copies), fps=2.0)
        make_video(folder / "table.avi", args.video_s)
        video = batch.plan([str(folder / "table.avi")], fps=2.0, segment_s=60.0)
        bad = folder / "empty.jpg"
        bad.write_bytes(b"")
        empty = batch.plan([str(bad)], fps=2.0)
        runs = [("local", 1), ("local", 2)]
        try:
            if not args.no_ray:
                import ray  # noqa: F401
                runs.append(("ray", 2))
        except ImportError:
            print("(ray not installed: no Ray row)")
        print(f"{'runner':<8}{'workers':>8}{'start s':>9}{'photos':>8}{'photos/s':>10}"
              f"{'frames':>8}{'frames/s':>10}")
        for kind, n in runs:
            threads = max(1, cores // n)
            settings = batch.Settings(CONTEXT, fps=2.0, stable=3, threads=threads)
            if kind == "local":
                def run(tasks, settings, done, n=n):
                    batch.run_local(tasks, settings, n, done)
            else:
                import ray

                # Ray itself is started once (a cluster is up before a batch); its actors,
                # which load the models, are started by each run, as tilescope batch --ray does
                ray.init(num_cpus=n, include_dashboard=False, log_to_driver=False,
                         runtime_env={"env_vars": {"PYTHONPATH": os.pathsep.join(
                             [os.getcwd(), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)}})

                def run(tasks, settings, done, n=n):
                    batch.run_ray(tasks, settings, None, n, done)
            try:
                start, _ = timed(run, empty, settings)
                photo_s, _ = timed(run, photos, settings)
                video_s, frames = timed(run, video, settings)
            finally:
                if kind == "ray":
                    ray.shutdown()
            print(f"{kind:<8}{n:>8}{start:>9.1f}{len(photos):>8}{len(photos) / photo_s:>10.2f}"
                  f"{frames:>8}{frames / video_s:>10.2f}")


if __name__ == "__main__":
    main()
