"""Stream cost: frames/s and CPU seconds per second of video that ``tilescope stream`` takes.

Runs the stream engine (reader, tracker, stabiliser, scoring of each new stable hand) over a
30 fps clip, reading every frame in full (``--full-reads``, as before issue #42) and reading
only what changed (``vision.stream.read_plan``, the default), each with 1 and 2 threads
(onnxruntime's intra-op threads and OpenCV's), and prints one row per run:

- frames/s: frames taken per second of wall-clock time (a live 30 fps source needs >= 30);
- CPU s per video s: user + system CPU seconds of the run (all threads) per second of video,
  the model loading left out (``tilescope stream`` adds about 1.3 s once); what a streamer's
  PC gives up, and less sensitive than wall time to other work on a shared machine;
- full reads: frames the models read (the others held the tracked tiles);
- latency: from the first frame showing the hand to the message with its value, in frames
  of video, and the wall time the run took over those frames.

Then it compares the two ways frame by frame: the tracked hand (tiles and sideways flags) and
the hand on the overlay (tiles and value) of every frame, and prints each frame that differs.

Without ``--video`` it makes the clip: a photo (default ``tests/data/riichi_broadcast.jpg``, a
1280x720 hand-camera frame with 22x30 px tiles; ``--photo tests/data/riichi_open_red.jpg``,
the sample) on a 1280x720 table, shaken a few pixels a frame, 10 s at 30 fps; ``--lead S``
seconds of empty table first (the latency is then measured from a hand appearing); several
photos take turns (a hand changing in view: the latency is the first hand's); ``--write
CLIP.mp4`` only writes it, for ``tilescope stream``. Run from the repo root, by hand (not a
test):

    python -m benchmarks.stream [--photo FILE] [--seconds 10] [--lead 1] [--threads 1 2]
                                [--ways full changes] [--context JSON] [--video FILE]
    python -m benchmarks.stream --write hand.mp4 && tilescope stream hand.mp4 --win ron --seat W --dora 3s
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BROADCAST = ROOT / "tests" / "data" / "riichi_broadcast.jpg"
SAMPLE = ROOT / "tests" / "data" / "riichi_open_red.jpg"
FPS = 30.0
# the table facts of each bundled photo (README's samples table), by file name
CONTEXTS = {
    "riichi_broadcast.jpg": {"win": "ron", "seat_wind": "W", "dora_indicators": "3s"},
    "riichi_open_red.jpg": {"win": "ron", "seat_wind": "S", "dora_indicators": "1p"},
}


def shake(i: int) -> tuple[float, float]:
    """The clip's camera shake at frame ``i``: up to 3 px across and 2 px up and down."""
    import numpy as np

    return 3 * np.sin(i / 7.0), 2 * np.cos(i / 11.0)


def make_video(path: str, frames: int, photo_path: Path | list[Path] = BROADCAST, lead: int = 0) -> None:
    """A 1280x720 30 fps clip (mp4v) of a photo scaled to 720 px high on a grey table, shaken
    by :func:`shake`; the first ``lead`` frames show the empty table. Several photos (a list)
    take turns, each an equal share of the frames after the lead: a hand changing in view.
    Deterministic. Raises SystemExit when a photo cannot be read."""
    import cv2
    import numpy as np

    photos = photo_path if isinstance(photo_path, (list, tuple)) else [photo_path]
    table = np.full((720, 1280, 3), 40, np.uint8)
    scenes = [_on_table(p, table) for p in photos]
    share = max(1, -(-(frames - lead) // len(scenes)))
    out = cv2.VideoWriter(path, cv2.VideoWriter_fourcc(*"mp4v"), FPS, (1280, 720))
    for i in range(frames):
        dx, dy = shake(i)
        m = np.float32([[1, 0, dx], [0, 1, dy]])
        img = table if i < lead else scenes[min(len(scenes) - 1, (i - lead) // share)]
        out.write(cv2.warpAffine(img, m, (1280, 720), borderMode=cv2.BORDER_REPLICATE))
    out.release()


def _on_table(photo_path: Path, table):
    """The photo scaled to the table's height, centred on (a copy of) it."""
    import cv2

    photo = cv2.imread(str(photo_path)) if Path(photo_path).is_file() else None
    if photo is None:
        raise SystemExit(f"benchmarks.stream: cannot read {photo_path}")
    th, tw = table.shape[:2]
    ph, pw = photo.shape[:2]
    photo = cv2.resize(photo, (min(tw, round(pw * th / ph)), th), interpolation=cv2.INTER_AREA)
    img = table.copy()
    x0 = (tw - photo.shape[1]) // 2
    img[:, x0:x0 + photo.shape[1]] = photo
    return img


@dataclass
class Run:
    """One pass over the clip: per frame the tracked hand and the hand on the overlay."""

    way: str
    threads: int
    frames: int = 0
    full_reads: int = 0
    cpu_s: float = 0.0
    wall_s: float = 0.0
    tracked: list = field(default_factory=list)     # per frame: the stabiliser's key
    shown: list = field(default_factory=list)       # per frame: (tiles, summary) on the overlay
    messages: list = field(default_factory=list)
    frame_wall: list = field(default_factory=list)  # per frame: wall seconds of its step


def run_once(video: str, way: str, threads: int, context: dict, weights=None) -> Run:
    """The clip through a StreamRunner reading every frame (``way`` "full") or only what
    changed ("changes"), the reader and OpenCV on ``threads`` threads."""
    import cv2

    from vision.read.detector import TileReader
    from vision.stream.read_plan import ReadPlanner
    from vision.stream.live import FrameSource, HandStabiliser, StreamRunner, pipeline_scorer

    cv2.setNumThreads(threads)
    reader = TileReader(weights, threads=threads)
    run = Run(way, threads)
    runner = StreamRunner(reader, HandStabiliser(), pipeline_scorer(context),
                          on_hand=run.messages.append,
                          planner=ReadPlanner() if way == "changes" else None)
    source = FrameSource(video)
    shown = (None, None)
    r0, t0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    for frame, detect in source.frames():
        t = time.perf_counter()
        message = runner.step(frame, detect)
        run.frame_wall.append(time.perf_counter() - t)
        if message is not None:
            hand = message["hand"]
            shown = (tuple(hand["tiles"]), hand["summary"]) if hand else (None, None)
        run.tracked.append(runner.stabiliser.key)
        run.shown.append(shown)
    run.wall_s = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    source.close()
    run.cpu_s = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    run.frames, run.full_reads = runner.stats.frames, runner.stats.full_reads
    return run


def latency(run: Run, lead: int) -> tuple[int | None, float | None, str]:
    """Frames from the hand's first frame (``lead``) to the first message with a hand, the
    wall seconds the run spent over them, and that message's summary."""
    for m in run.messages:
        if m["hand"] is not None and m["frame"] is not None and m["frame"] >= lead:
            n = m["frame"] - lead + 1
            return n, sum(run.frame_wall[lead:m["frame"] + 1]), m["hand"]["summary"]
    return None, None, "no hand shown"


def differences(a: Run, b: Run) -> list[str]:
    """Where the two runs differ, frame ranges in words: the hand on the overlay (its tiles and
    value), else the note on its doubts (the "(unsure: tiles …)" of the summary: the
    confidences of the one reading the hand was shown from), else the tracked hand."""
    out: list[str] = []
    last, start = None, 0
    rows = [_difference(a, b, i) for i in range(min(len(a.tracked), len(b.tracked)))] + [None]
    for i, row in enumerate(rows):
        if row != last:
            if last is not None:
                out.append(f"frames {start}-{i - 1}: {last}" if i - 1 > start else f"frame {start}: {last}")
            last, start = row, i
    return out


def _difference(a: Run, b: Run, i: int) -> str | None:
    (ta, sa), (tb, sb) = (a.tracked[i], a.shown[i]), (b.tracked[i], b.shown[i])
    (hand_a, note_a), (hand_b, note_b) = _split(sa), _split(sb)
    if hand_a != hand_b:
        return f"shown {a.way}: {hand_a} | {b.way}: {hand_b}"
    if note_a != note_b:
        return f"same hand and value; its note {a.way}: {note_a or 'none'} | {b.way}: {note_b or 'none'}"
    if ta != tb:
        return f"tracked {a.way}: {_tiles(ta)} | {b.way}: {_tiles(tb)}"
    return None


def _split(shown) -> tuple[str, str]:
    """The overlay's hand as (tiles and value, the summary's note in brackets)."""
    tiles, summary = shown
    if tiles is None:
        return "none", ""
    value, note = summary, ""
    if summary.endswith(")") and " (" in summary:
        value, note = summary.rsplit(" (", 1)
        note = note[:-1]
    return f"{' '.join(tiles)} {value}", note


def _tiles(key) -> str:
    return " ".join(t + ("*" if side else "") for t, side in key) or "none"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--video", help="a 30 fps video file to read (default: make the clip)")
    p.add_argument("--photo", type=Path, nargs="+", default=[BROADCAST],
                   help="photo the clip is made of (default tests/data/riichi_broadcast.jpg; "
                        "tests/data/riichi_open_red.jpg: the sample); several take turns")
    p.add_argument("--seconds", type=float, default=10.0, help="clip length (default 10 s)")
    p.add_argument("--lead", type=float, default=0.0,
                   help="seconds of empty table before the hand (default 0)")
    p.add_argument("--threads", type=int, nargs="+", default=[1, 2], help="thread counts (default 1 2)")
    p.add_argument("--ways", nargs="+", choices=("full", "changes"), default=["full", "changes"],
                   help="full: every frame read (--full-reads); changes: only what changed")
    p.add_argument("--context", help="the hand's table facts as JSON (default: the photo's, "
                                     "README's samples table)")
    p.add_argument("--weights", help="weights folder (default: the bundled model)")
    p.add_argument("--write", metavar="CLIP.mp4",
                   help="only write the clip there (for `tilescope stream CLIP.mp4 ...`) and stop")
    args = p.parse_args(argv)
    if any(t < 1 for t in args.threads) or args.seconds <= 0 or args.lead < 0:
        print("benchmarks.stream: --threads, --seconds must be positive, --lead not negative",
              file=sys.stderr)
        return 2
    try:
        context = json.loads(args.context) if args.context else dict(CONTEXTS.get(args.photo[0].name, {}))
    except json.JSONDecodeError as exc:
        print(f"benchmarks.stream: --context is not JSON: {exc}", file=sys.stderr)
        return 2
    context.setdefault("ruleset", "riichi")
    lead = round(args.lead * FPS)
    if args.write:
        make_video(args.write, round(args.seconds * FPS) + lead, args.photo, lead)
        print(f"benchmarks.stream: wrote {args.write}")
        return 0
    video, tmp = args.video, None
    if video is None:
        tmp = tempfile.NamedTemporaryFile(suffix=".mp4", delete=False)
        tmp.close()
        video = tmp.name
        make_video(video, round(args.seconds * FPS) + lead, args.photo, lead)
    try:
        runs = [run_once(video, way, t, context, args.weights) for t in args.threads for way in args.ways]
    except RuntimeError as exc:      # ModelError, SourceError
        print(f"benchmarks.stream: {exc}", file=sys.stderr)
        return 2
    finally:
        if tmp is not None:
            os.unlink(tmp.name)
    name = args.video or f"{' then '.join(p.name for p in args.photo)} shaken on 1280x720, {args.seconds:g} s at 30 fps" + (
        f" after {args.lead:g} s of empty table" if lead else "")
    load = os.getloadavg()[0]
    print(f"clip: {name}; context {json.dumps(context)}; load average {load:.1f} on "
          f"{os.cpu_count()} cores")
    print(f"{'way':8} {'threads':>7} {'frames':>6} {'full reads':>10} {'frames/s':>8} "
          f"{'CPU s':>6} {'CPU s/video s':>13}  latency")
    for r in runs:
        video_s = r.frames / FPS
        n, wall, summary = latency(r, lead)
        when = "none" if n is None else f"{n} frames ({n / FPS:.2f} s of video, {wall:.2f} s wall)"
        print(f"{r.way:8} {r.threads:>7} {r.frames:>6} {r.full_reads:>10} {r.frames / r.wall_s:>8.1f} "
              f"{r.cpu_s:>6.1f} {r.cpu_s / video_s:>13.2f}  {when}: {summary}")
    for t in args.threads:
        pair = [r for r in runs if r.threads == t]
        if len(pair) == 2:
            diff = differences(*pair)
            print(f"{t} thread{'s' if t > 1 else ''}, full reads against changes: "
                  + ("the same on every frame" if not diff else "they differ on"))
            for line in diff:
                print("  " + line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
