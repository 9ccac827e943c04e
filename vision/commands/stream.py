"""``tilescope stream SOURCE``: live hand value on video, an annotated copy, an OBS overlay."""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from vision.commands.setflag import add_set_argument, with_set

HELP = ("read a webcam (index), video file or stream URL; report each hand once it has held "
        "still; write an annotated video (--out) and/or serve an OBS overlay (--overlay PORT)")


# the colours of vision/annotate.py (and the banner of vision/stream.py), in words
EPILOG = """\
The annotated video (--out):
  tile boxes   green: read surely; orange: read unsure (confidence under 0.5); grey: face
               down. Each box is labelled with its tile (mpsz: 0m 0p 0s red fives, 1z..7z
               E S W N White Green Red); * marks a sideways (turned) tile. A label goes above
               its tile, else below it, else is left out (small tiles side by side).
  outlines     yellow "meld": an exposed meld; magenta "win": the winning tile; pink
               "dora": the dora indicators; orange "guessed X?": a tile re-read from the
               reader's next guess, X the tile it was taken for. Drawn while the hand scored
               is the one on the table, not over the next hand being laid down.
  banner       the stable hand's value along the bottom (as the overlay's summary); amber
               with "(unsure: tiles N, ...)" when the value rests on tiles the reader was
               unsure of. The overlay page marks such a hand "? unsure reading".

Messages (--json, --overlay): docs/overlay-json.md.

Examples:
  tilescope stream game.mp4 --out annotated.mp4 --win ron --seat S --dora 3s
  tilescope stream 0 --overlay 8765 --ruleset mcr
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = EPILOG
    parser.add_argument("source", help="webcam index (0), video file, or stream URL (rtsp://, http://)")
    parser.add_argument("--out", metavar="VIDEO.mp4",
                        help="write the video with boxes, meld outlines and score banner (from a live "
                             "source, each analysed frame held until the next: it plays in real time)")
    parser.add_argument("--overlay", metavar="PORT", type=int,
                        help="serve an overlay page for an OBS browser source at http://HOST:PORT/ "
                             "(updated over the WebSocket /ws)")
    parser.add_argument("--host", default="127.0.0.1", help="overlay bind address (default 127.0.0.1)")
    parser.add_argument("--weights", help="folder with detector.onnx (+ classifier.onnx) (default: the bundled vision/weights)")
    add_set_argument(parser)
    parser.add_argument("--context", metavar="JSON-or-FILE",
                        help="hand-request keys other than the tiles (ruleset, win, seat_wind, ...) "
                             "as a JSON object or a file holding one")
    parser.add_argument("--stable", type=int, default=8,
                        help="detected frames a hand must hold still before it is shown (default 8)")
    parser.add_argument("--every", type=int, default=1,
                        help="video files: detect every k-th frame (default 1); live sources "
                             "always take the newest frame and drop the rest")
    parser.add_argument("--json", action="store_true",
                        help="print each new stable hand as one JSON line on stdout")
    parser.add_argument("--turns", type=int, choices=(1, 2, 4), default=4,
                        help="quarter turns each tile crop is classified under (default 4, as "
                             "tilescope score); 2 is faster on a hand camera's small tiles (the "
                             "tracker votes over frames, but a shaky camera flickered), 1 made "
                             "the stable hand flicker")
    from vision.commands.score import add_context_arguments

    add_context_arguments(parser)     # what the video cannot show, as in tilescope score


def _load_context(args) -> dict:
    """``--context`` overlaid with the flags given, as ``tilescope score`` builds it; the
    defaults assumed are kept in ``args.assumed``, to print."""
    from vision.commands.score import context_from_args

    ctx, notes = context_from_args(args)
    args.assumed = notes
    return ctx


def _quiet_video_libraries() -> None:
    """OpenCV and FFmpeg print their own lines for a missing camera or a broken file
    ("[ERROR:0@0.031] … Camera index out of range", "moov atom not found") before this
    command's one-line message: keep the message alone."""
    os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")      # AV_LOG_QUIET
    import cv2

    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)


def run(args: argparse.Namespace) -> int:
    from vision.stream import (NETWORK_TIMEOUT_S, FrameSource, HandStabiliser, SourceError,
                               StreamRunner, parse_source, pipeline_scorer, writer_rate)

    _quiet_video_libraries()

    def fail(msg: str) -> int:
        print(f"tilescope stream: {msg}", file=sys.stderr)
        return 2

    if args.stable < 1 or args.every < 1:
        return fail("--stable and --every must be at least 1")
    if not args.out and args.overlay is None and not args.json:
        args.json = True  # nothing else asked for: at least print the hands
    try:
        context = _load_context(args)
        scorer = pipeline_scorer(context)  # checks the context as `tilescope hand` would
    except ValueError as exc:
        from vision.commands.score import in_flag_words
        msg = in_flag_words(str(exc), args)      # a bad --dora is named as the flag
        if msg.startswith("context: "):
            msg = ("--context: " if args.context else "") + msg.removeprefix("context: ")
        return fail(msg)
    if args.out and Path(args.out).suffix.lower() not in (".mp4", ".avi"):
        return fail(f"--out {args.out!r}: give a .mp4 or .avi file name")
    if args.overlay is not None and not 0 < args.overlay < 65536:
        return fail(f"--overlay {args.overlay} is not a TCP port (1..65535)")
    if args.overlay is not None:
        try:
            import uvicorn  # noqa: F401
            import vision.overlay  # noqa: F401  (FastAPI)
        except ImportError as exc:
            return fail(f"--overlay needs the 'serve' extra (pip install '.[serve]' in a clone, or "
                        f"'tilescope[serve]'): {exc}")
    source_id = parse_source(args.source)
    if isinstance(source_id, str) and "://" not in source_id and not Path(source_id).exists():
        return fail(f"no such video file: {source_id}")
    from vision.commands.score import is_photo
    if isinstance(source_id, str) and "://" not in source_id and is_photo(source_id):
        # one still never "holds still" for --stable frames
        return fail(f"{source_id} is a photo, not a video: score it with `tilescope score "
                    f"{source_id}` (or `tilescope check` for a verdict)")
    from vision.commands.score import overwrite_problem
    if args.out and isinstance(source_id, str):
        problem = overwrite_problem("--out", args.out, source_id, "source video")
        if problem:
            return fail(problem)
    try:
        from vision.pipeline import get_reader

        reader = get_reader(args.weights)
        if getattr(reader, "turns", args.turns) != args.turns:
            reader.turns = args.turns       # this process's only reader: set for the stream
        from vision.tileset import SetError
        try:
            reader = with_set(reader, args.set)
        except SetError as exc:
            return fail(str(exc))
    except (ImportError, OSError, RuntimeError) as exc:  # ModelError is a RuntimeError
        return fail(f"cannot load the tile detector: {exc}")

    # a live source is opened last: frames that come while the model loads are lost
    try:
        source = FrameSource(source_id, every=args.every)
    except SourceError as exc:
        return fail(str(exc))
    if args.assumed:
        print("tilescope stream: assumed " + "; ".join(args.assumed), file=sys.stderr)

    writer = None
    if args.out:
        import cv2

        w = int(source.cap.get(cv2.CAP_PROP_FRAME_WIDTH) or 0)
        h = int(source.cap.get(cv2.CAP_PROP_FRAME_HEIGHT) or 0)
        if w <= 0 or h <= 0:
            source.close()
            return fail(f"cannot tell the frame size of {args.source!r}")
        # mp4v plays everywhere without extra codecs; .avi gets Motion JPEG.
        fourcc = "MJPG" if args.out.lower().endswith(".avi") else "mp4v"
        writer = cv2.VideoWriter(args.out, cv2.VideoWriter_fourcc(*fourcc), source.fps, (w, h))
        if not writer.isOpened():
            source.close()
            return fail(f"cannot write video {args.out!r}")

    hub = server = None
    if args.overlay is not None:
        from vision.overlay import OverlayHub, OverlayServer

        hub = OverlayHub()
        server = OverlayServer(hub, args.overlay, args.host)
        try:
            server.start()
        except RuntimeError as exc:
            source.close()
            return fail(f"--overlay {args.overlay}: {exc}")
        print(f"tilescope: overlay at http://{args.host}:{args.overlay}/ (OBS browser source)",
              file=sys.stderr)

    def on_hand(message: dict) -> None:
        if hub is not None:
            hub.publish(message)
        if args.json:
            print(json.dumps(message, ensure_ascii=False), flush=True)

    runner = StreamRunner(reader, HandStabiliser(args.stable), scorer, on_hand, writer,
                          writer_rate(source.fps) if writer is not None else None)

    def stop(*_):            # `kill` as Ctrl-C: the annotated video is closed and playable
        raise KeyboardInterrupt

    import signal
    import threading

    main_thread = threading.current_thread() is threading.main_thread()   # signals need it
    before = signal.signal(signal.SIGTERM, stop) if main_thread else None
    interrupted = False
    try:
        stats = runner.run(source, progress=bool(args.out) and not source.live)
    except KeyboardInterrupt:
        stats, interrupted = runner.stats, True
    finally:
        if main_thread:
            signal.signal(signal.SIGTERM, before)
        source.close()
        if writer is not None:
            writer.release()
    # the stream stopped (the file ended, the live source stopped, or Ctrl-C / kill): every
    # sink is told, as docs/overlay-json.md says (--json printed no end before)
    on_hand({"type": "end"})
    print(f"tilescope stream: {stats.frames} frames, {stats.detected} detected "
          f"({stats.detect_fps:.1f}/s), {stats.dropped} dropped, {stats.events} hand changes",
          file=sys.stderr)
    if server is not None:
        server.stop()
    if stats.frames == 0:
        return fail(f"no frame could be read from {args.source!r}: not a video, or a camera "
                    "that gives no picture")
    if source.live and not interrupted:
        print("tilescope stream: the live source stopped giving frames (it ended, or sent "
              f"nothing for {NETWORK_TIMEOUT_S:.0f} s)", file=sys.stderr)
    if stats.events == 0:
        print("tilescope stream: no hand was shown: none held still long enough (--stable "
              f"{args.stable}), the table was empty, or the reader found no tiles", file=sys.stderr)
    return 0
