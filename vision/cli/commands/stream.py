"""``tilescope stream SOURCE``: live hand value on video, an annotated copy, an OBS overlay."""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from .setflag import add_set_argument, with_set

HELP = ("read a webcam (index), video file or stream URL; report each hand once it has held "
        "still; write an annotated video (--out) and/or serve an OBS overlay (--overlay PORT)")


# the colours of vision/photo/annotate.py (and the banner of vision/stream/live.py), in words
EPILOG = """\
The annotated video (--out):
  tile boxes   green: read surely; orange: read unsure (confidence under 0.5); grey: face
               down. Each box is labelled with its tile (mpsz: 0m 0p 0s red fives, 1z..7z
               E S W N White Green Red); * marks a sideways (turned) tile. A label goes above
               its tile, else below it; a row too small for that gets its labels in one
               line above it, each joined to its tile by a line.
  outlines     yellow "meld": an exposed meld; magenta "win": the winning tile; pink
               "dora": the dora indicators; orange "guessed X?": a tile re-read from the
               reader's next guess, X the tile it was taken for. Drawn while the hand scored
               is the one on the table, not over the next hand being laid down.
  banner       the stable hand's value along the bottom (as the overlay's summary); amber
               with "(unsure: tiles N, ...)" when the value rests on tiles the reader was
               unsure of. The overlay page marks such a hand "? unsure reading".

The overlay (--overlay PORT): http://HOST:PORT/ for OBS; http://HOST:PORT/control sets the
  hand in play's context without a restart (win, seat, round, riichi, honba, dora indicators
  typed or the camera's row; keys t r c a n) and, with --game FILE, shows the game, confirms
  the proposed payment of each scored hand (Enter), takes riichi, draws and abortive draws,
  and undoes the last event (u). A change rescores the hand on screen. A stable 13-tile hand
  shows its waits and what each would pay by ron and by tsumo.

Stdout: one line per hand change (time, tiles, value); --json: the messages as JSON lines.
Messages (--json, --overlay): docs/overlay-json.md. With --overlay, a video file that ends
leaves the overlay up, showing the last hand, until Ctrl-C (--exit-at-end: stop there).

Examples:
  tilescope stream game.mp4 --out annotated.mp4 --win ron --seat S --dora 3s
  tilescope stream 0 --overlay 8765 --ruleset mcr
  tilescope stream 0 --overlay 8765 --game table.jsonl   (tilescope game table.jsonl --new ...)
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
    parser.add_argument("--game", metavar="FILE",
                        help="with --overlay: keep this riichi game (the JSON Lines of `tilescope "
                             "game`): the overlay shows the scoreboard, the control page confirms "
                             "each hand's payment and appends it to FILE")
    parser.add_argument("--host", default="127.0.0.1", help="overlay bind address (default 127.0.0.1)")
    parser.add_argument("--weights", help="folder with detector.onnx (+ classifier.onnx) (default: the bundled vision/weights)")
    add_set_argument(parser)
    parser.add_argument("--stable", type=int, default=8,
                        help="detected frames a hand must hold still before it is shown (default 8)")
    parser.add_argument("--every", type=int, default=1,
                        help="video files: detect every k-th frame (default 1); live sources "
                             "always take the newest frame and drop the rest")
    parser.add_argument("--json", action="store_true",
                        help="print each message as one JSON line on stdout (docs/overlay-json.md) "
                             "instead of one line per hand change (time, tiles, value)")
    parser.add_argument("--exit-at-end", action="store_true",
                        help="with --overlay and a video file: stop when the file ends (by "
                             "default the overlay and control page stay up, showing the last "
                             "hand, until Ctrl-C)")
    parser.add_argument("--turns", type=int, choices=(1, 2, 4), default=4,
                        help="quarter turns each tile crop is classified under (default 4, as "
                             "tilescope score); 2 is faster on a hand camera's small tiles (the "
                             "tracker votes over frames, but a shaky camera flickered), 1 made "
                             "the stable hand flicker")
    parser.add_argument("--full-reads", action="store_true",
                        help="read every detected frame with the models (by default a frame is "
                             "read only when the picture changed since the last read, and the "
                             "tracked tiles are held, moved with the camera's shake, in between: "
                             "the same hands for a fraction of the CPU)")
    parser.add_argument("--threads", type=int, metavar="N",
                        help="CPU threads for the models and OpenCV (default: the cores, at most 4); "
                             "1 leaves the other cores to OBS and the encoder")
    from .score import add_context_arguments

    add_context_arguments(parser)     # what the video cannot show, as in tilescope score


def _load_context(args) -> dict:
    """``--context`` overlaid with the flags given, as ``tilescope score`` builds it; the
    defaults assumed are kept in ``args.assumed``, to print."""
    from .score import context_from_args

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


class StreamFailure(Exception):
    """A reason the stream cannot run, in one line (printed after ``tilescope stream: ``)."""


def _fail(msg: str) -> int:
    print(f"tilescope stream: {msg}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    """The stream's steps in order: check the flags, the context and the source, load the
    reader, open the source and the annotated copy, start the overlay (and its control page
    and ledger), run until the source ends or is stopped, report."""
    _quiet_video_libraries()
    source = writer = None
    try:
        context, source_id, ledger = _checked(args)
        reader = _reader(args)
        # a live source is opened last: frames that come while the model loads are lost
        source = _source(source_id, args)
        if args.assumed:
            print("tilescope stream: assumed " + "; ".join(args.assumed), file=sys.stderr)
        writer = _writer(args, source)
        hub, control, server = _overlay(args, context, ledger)
    except StreamFailure as exc:
        if source is not None:
            source.close()
        if writer is not None:
            writer.release()
        return _fail(str(exc))
    on_hand = _sinks(args, hub, control)
    from vision.stream.live import HandStabiliser, StreamRunner, pipeline_scorer, writer_rate

    from vision.stream.read_plan import ReadPlanner

    runner = StreamRunner(reader, HandStabiliser(args.stable), pipeline_scorer(context), on_hand,
                          writer, writer_rate(source.fps) if writer is not None else None,
                          context=context,
                          planner=None if args.full_reads else ReadPlanner(settle=args.stable))
    stats, interrupted = _play(runner, source, writer, args)
    # the stream stopped (the file ended, the live source stopped, or Ctrl-C / kill): every
    # sink is told, as docs/overlay-json.md says (--json printed no end before)
    on_hand({"type": "end"})
    if server is not None:
        server.stop()
    return _report(stats, source, interrupted, args)


def _checked(args):
    """The flags checked: ``(LiveContext, source id, LedgerSession or None)``; StreamFailure
    naming the problem."""
    from .score import in_flag_words, is_photo, overwrite_problem
    from vision.stream.livecontext import LiveContext
    from vision.stream.live import parse_source

    if args.stable < 1 or args.every < 1:
        raise StreamFailure("--stable and --every must be at least 1")
    if args.threads is not None and not 1 <= args.threads <= 64:
        raise StreamFailure(f"--threads {args.threads}: give 1 to 64 threads")
    if args.game and args.overlay is None:
        raise StreamFailure("--game needs --overlay PORT: the game is kept on its control page")
    try:
        context = LiveContext(_load_context(args))   # checked as `tilescope hand` would
    except ValueError as exc:
        msg = in_flag_words(str(exc), args)      # a bad --dora is named as the flag
        if msg.startswith("context: "):
            msg = ("--context: " if args.context else "") + msg.removeprefix("context: ")
        raise StreamFailure(msg) from None
    if args.game:
        if context.base.get("ruleset", "riichi") != "riichi":
            raise StreamFailure("--game keeps a riichi game: it cannot go with --ruleset mcr")
        # the ledger gives the seats and the round: nothing of them is assumed
        args.assumed = [n for n in args.assumed if not n.startswith(("seat", "round"))]
    if args.out and Path(args.out).suffix.lower() not in (".mp4", ".avi"):
        raise StreamFailure(f"--out {args.out!r}: give a .mp4 or .avi file name")
    if args.overlay is not None:
        _check_overlay(args)
    source_id = parse_source(args.source)
    if isinstance(source_id, str) and "://" not in source_id:
        if not Path(source_id).exists():
            raise StreamFailure(f"no such video file: {source_id}")
        if is_photo(source_id):      # one still never "holds still" for --stable frames
            raise StreamFailure(f"{source_id} is a photo, not a video: score it with `tilescope "
                                f"score {source_id}` (or `tilescope check` for a verdict)")
        problem = args.out and overwrite_problem("--out", args.out, source_id, "source video")
        if problem:
            raise StreamFailure(problem)
    return context, source_id, _ledger(args, context)


def _ledger(args, context):
    """The game kept (--game), read and checked now, before the model loads; it gives the
    context the seats, round and counters."""
    if not args.game:
        return None
    from vision.server.ledger import LedgerError, LedgerSession

    try:
        ledger = LedgerSession(args.game)
    except LedgerError as exc:
        raise StreamFailure(f"--game: {exc}") from None
    context.table = ledger.context_for
    return ledger


def _check_overlay(args) -> None:
    if not 0 < args.overlay < 65536:
        raise StreamFailure(f"--overlay {args.overlay} is not a TCP port (1..65535)")
    try:
        import uvicorn  # noqa: F401
        import vision.stream.overlay  # noqa: F401  (FastAPI)
    except ImportError as exc:
        raise StreamFailure(f"--overlay needs the 'serve' extra (pip install '.[serve]' in a clone, "
                            f"or 'tilescope[serve]'): {exc}") from None


def _reader(args):
    """The tile reader, with the stream's quarter turns and tile set."""
    try:
        from vision.photo.pipeline import get_reader
        from vision.read.tileset import SetError

        if args.threads:
            import cv2

            from vision.read.detector import TileReader

            cv2.setNumThreads(args.threads)
            reader = TileReader(args.weights, threads=args.threads)
        else:
            reader = get_reader(args.weights)
        if getattr(reader, "turns", args.turns) != args.turns:
            reader.turns = args.turns       # this process's only reader: set for the stream
        try:
            return with_set(reader, args.set)
        except SetError as exc:
            raise StreamFailure(str(exc)) from None
    except (ImportError, OSError, RuntimeError) as exc:  # ModelError is a RuntimeError
        raise StreamFailure(f"cannot load the tile detector: {exc}") from None


def _source(source_id, args):
    from vision.stream.live import FrameSource, SourceError

    try:
        return FrameSource(source_id, every=args.every)
    except SourceError as exc:
        raise StreamFailure(str(exc)) from None


def _writer(args, source):
    """The annotated copy's writer (--out), or None."""
    if not args.out:
        return None
    import cv2

    w = int(source.cap.get(cv2.CAP_PROP_FRAME_WIDTH) or 0)
    h = int(source.cap.get(cv2.CAP_PROP_FRAME_HEIGHT) or 0)
    if w <= 0 or h <= 0:
        raise StreamFailure(f"cannot tell the frame size of {args.source!r}")
    # mp4v plays everywhere without extra codecs; .avi gets Motion JPEG.
    fourcc = "MJPG" if args.out.lower().endswith(".avi") else "mp4v"
    writer = cv2.VideoWriter(args.out, cv2.VideoWriter_fourcc(*fourcc), source.fps, (w, h))
    if not writer.isOpened():
        raise StreamFailure(f"cannot write video {args.out!r}")
    return writer


def _overlay(args, context, ledger):
    """``(hub, control, server)`` of the overlay (--overlay), the server started, its
    control page holding the context and the game's ledger (--game); Nones without."""
    if args.overlay is None:
        return None, None, None
    from vision.stream.control import Control
    from vision.stream.overlay import OverlayHub, OverlayServer

    hub = OverlayHub()
    control = Control(context, ledger, publish=None)
    server = OverlayServer(hub, args.overlay, args.host, control=control)
    try:
        server.start()
    except RuntimeError as exc:
        raise StreamFailure(f"--overlay {args.overlay}: {exc}") from None
    print(f"tilescope: overlay at http://{args.host}:{args.overlay}/ (OBS browser source), "
          f"control page at http://{args.host}:{args.overlay}/control", file=sys.stderr)
    if server.pairing is not None:
        from vision.server.routes.origin import pairing_words

        print(f"tilescope: pairing code {server.pairing.code}: the control page asks for it "
              "once (the overlay page needs none)", file=sys.stderr)
        print(pairing_words(server.pairing, args.host, args.overlay, "/control"), end="",
              file=sys.stderr, flush=True)
    return hub, control, server


def _sinks(args, hub, control):
    """The function each message goes to: the overlay, --json's stdout, the ledger."""
    def publish(message: dict) -> None:
        if hub is not None:
            hub.publish(message)
        if args.json:
            print(json.dumps(message, ensure_ascii=False), flush=True)
        elif message.get("type") == "hand":
            print(hand_line(message), flush=True)

    def on_hand(message: dict) -> None:
        publish(message)
        if control is not None:
            control.on_hand(message)        # the ledger's proposal follows the hand

    if control is not None:
        control.publish = publish
        if control.ledger is not None:
            publish(control.ledger.table_message())     # the scoreboard from the start
    return on_hand


def hand_line(message: dict) -> str:
    """A ``hand`` message as one line for the terminal: time, tiles, value
    (``12.40 s  1m 2m 3m …  3 han 40 fu · 5200``)."""
    hand = message.get("hand")
    when = f"{message.get('time_s') or 0:.2f} s"
    if hand is None:
        return f"{when}  no hand on the table"
    return f"{when}  {' '.join(hand['tiles'])}  {hand['summary']}"


def _holds(args, source) -> bool:
    """Whether the overlay stays up after the source ends: a video file with --overlay (a
    30-frame clip ended before its pages could be opened), unless --exit-at-end."""
    return args.overlay is not None and not source.live and not args.exit_at_end


def _hold(runner) -> None:
    """Keep the overlay and control page serving the last hand until Ctrl-C / kill; a context
    set on the control page meanwhile rescores it."""
    import time

    print("tilescope stream: clip ended; the overlay stays up — Ctrl-C to stop",
          file=sys.stderr, flush=True)
    while True:
        time.sleep(0.2)
        runner.refresh()


def _play(runner, source, writer, args):
    """Run until the source ends (then, with an overlay on a file, until Ctrl-C: ``_hold``)
    or Ctrl-C / kill; ``(stats, interrupted)``."""
    import signal
    import threading

    def stop(*_):            # `kill` as Ctrl-C: the annotated video is closed and playable
        raise KeyboardInterrupt

    main_thread = threading.current_thread() is threading.main_thread()   # signals need it
    before = signal.signal(signal.SIGTERM, stop) if main_thread else None
    stats = None
    try:
        stats = runner.run(source, progress=bool(args.out) and not source.live)
        source.close()
        if writer is not None:
            writer.release()        # the annotated copy is whole before the wait
            writer = None
        if _holds(args, source):
            _hold(runner)
        return stats, False
    except KeyboardInterrupt:
        return runner.stats, stats is None      # Ctrl-C after the file ended: not cut short
    finally:
        if main_thread:
            signal.signal(signal.SIGTERM, before)
        source.close()
        if writer is not None:
            writer.release()


def _report(stats, source, interrupted: bool, args) -> int:
    """The run's summary on stderr, and the exit code."""
    from vision.stream.live import NETWORK_TIMEOUT_S

    if interrupted:
        kept = f"; {args.out} holds the frames up to there (playable)" if args.out else ""
        print(f"tilescope stream: interrupted (Ctrl-C or kill) after {stats.frames} frames{kept}",
              file=sys.stderr)
    print(f"tilescope stream: {stats.frames} frames, {stats.detected} detected "
          f"({stats.detect_fps:.1f}/s, {stats.full_reads} read in full), {stats.dropped} dropped, "
          f"{stats.events} hand "
          f"change{'' if stats.events == 1 else 's'}",
          file=sys.stderr)
    if stats.frames == 0 and not interrupted:
        return _fail(f"no frame could be read from {args.source!r}: not a video, or a camera "
                     "that gives no picture")
    if source.live and not interrupted:
        print("tilescope stream: the live source stopped giving frames (it ended, or sent "
              f"nothing for {NETWORK_TIMEOUT_S:.0f} s)", file=sys.stderr)
    if stats.events == 0 and interrupted:
        # stopped before a hand could hold still: not an empty table nor a reader that found nothing
        print("tilescope stream: no hand was shown before the interruption", file=sys.stderr)
    elif stats.events == 0:
        print("tilescope stream: no hand was shown: none held still long enough (--stable "
              f"{args.stable}), the table was empty, or the reader found no tiles", file=sys.stderr)
    return 0
