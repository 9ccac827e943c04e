"""``tilescope batch PATH… --out results.jsonl``: score folders of photos and hours of video.

Every photo is one line of the output, every stable hand of a video one line with its time
stamp (the engine: ``vision/batch/run.py``; the scale: ``docs/scale.md``). Exit codes: 0 the batch
ran through (a bad file is its error line, not a stop); 2 bad usage, models that cannot be
loaded, or an output made with other settings; 130 interrupted (a rerun goes on from there).
"""
from __future__ import annotations

import argparse
import glob
import os
import sys

from .setflag import add_set_argument
from vision.common.progress import Progress

HELP = "score folders of photos and hours of video (all cores, or a Ray cluster)"

EPILOG = """\
Inputs: photos (JPEG, PNG, WebP, BMP, TIFF) and videos (MP4, AVI, MKV, MOV, WebM, ...), as
files, folders (all their photos and videos, subfolders too) or globs ('tables/*/round*.jpg').
Every input is scored with the same context: the flags of tilescope score or --context.

Output (JSON Lines, one object a line, written as each input completes):
  {"kind": "batch", ...}              first line: the context and settings of the batch
  {"kind": "photo", "input", "status", "summary", ...}   a photo: tilescope score --json's
                                      object (tiles, layout, request, result, warnings)
  {"kind": "hand", "input", "time_s", "frame", "status", "summary", "tiles", "request",
   "result", "warnings", ...}         a stable hand of a video, at its time stamp
  {"kind": "segment", "input", "segment": [start_s, end_s], "frames", "hands"}
                                      a stretch of video read to its end (--segment)
  status: scored (no warning), warnings (scored; look at the warnings), not_scored (no
  winning hand: the result's error says why), error (a file that cannot be read: "error").

Resume: a rerun with the same --out skips the photos and video segments it already holds
(Ctrl-C, a crash or a reboot loses at most the inputs being read); a file that could not be
read (status error) is skipped too, unless --retry-failed: then it is read again (replaced by
a good photo, say). Ctrl-C says what the file holds and exits 130; the workers end with the
batch, even when it is killed.

Examples:
  tilescope batch photos/ --out results.jsonl --win ron
  tilescope batch 'season/*.mp4' --out hands.jsonl --fps 2 --workers 8
  tilescope batch archive/ --out hands.jsonl --ray ray://head:10001
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = EPILOG
    parser.add_argument("paths", nargs="+", metavar="PATH", help="photos, videos, folders or globs")
    parser.add_argument("--out", required=True, metavar="RESULTS.jsonl",
                        help="the JSON Lines results (a rerun skips what it holds)")
    parser.add_argument("--workers", type=int, metavar="N",
                        help="local processes, each loading the models once (default: all cores)")
    parser.add_argument("--ray", nargs="?", const="", metavar="ADDRESS",
                        help="run on Ray (pip install 'tilescope[cluster]'): the cluster at ADDRESS "
                             "(ray://head:10001, or 'auto'), or without one a local Ray")
    parser.add_argument("--fps", type=float, default=2.0,
                        help="videos: frames read per second of video (default 2)")
    parser.add_argument("--stable", type=int, default=3,
                        help="videos: read frames a hand must hold still to count (default 3: "
                             "1.5 s at --fps 2)")
    parser.add_argument("--segment", type=float, default=None, metavar="SECONDS",
                        help="videos: seconds of video per task (default 300)")
    parser.add_argument("--weights", metavar="DIR", help="model folder (default: the bundled vision/weights)")
    parser.add_argument("--retry-failed", action="store_true",
                        help="on a rerun, read again the files the output holds as errors "
                             "(unreadable before; by default a rerun skips them too)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar or progress lines")
    add_set_argument(parser)
    from .score import add_context_arguments

    add_context_arguments(parser)


class _Refused(Exception):
    """What stops the batch before or while it runs: its message is the one line printed."""


def run(args: argparse.Namespace, reader=None) -> int:
    """The command; ``reader`` is a stand-in reader for tests (this process only)."""
    from vision.batch import run as batch
    from .stream import _quiet_video_libraries

    _quiet_video_libraries()
    output = None
    try:
        settings, workers, notes = _settings(args)
        files, missing = batch.expand(args.paths)
        _refuse_missing(missing)
        out_path = os.path.abspath(args.out)
        files = [f for f in files if os.path.abspath(f) != out_path]
        tasks = batch.plan(files, args.fps, args.segment or batch.SEGMENT_S)
        output = _output(args, settings)
        if notes:
            print("tilescope batch: assumed " + "; ".join(notes), file=sys.stderr)
        try:
            _read_all(args, tasks, missing, output, settings, workers, reader)
        finally:
            output.close()
    except _Refused as exc:
        print(f"tilescope batch: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(interrupted_text(output, args.out), file=sys.stderr)
        return 130
    print(summary_text(batch.summary(output.lines), args.out), file=sys.stderr)
    return 0


def interrupted_text(output, out: str) -> str:
    """The one line Ctrl-C gets: what the output holds (kept: a rerun goes on from there)."""
    from vision.batch import run as batch

    if output is None:
        return "tilescope batch: interrupted before any input was read; nothing written"
    counts = batch.summary(output.lines)
    what = _what(counts)
    return (f"tilescope batch: interrupted; {', '.join(what)} kept in {out} (the inputs being "
            "read were dropped); the same command goes on from there")


def _refuse_missing(missing: list[dict]) -> None:
    """A path typed on the command line that names nothing (no file, folder or glob) is a typo
    to fix before hours of work, not a line in the results; a glob that matches nothing stays
    an error line (a folder of the night's photos may be empty)."""
    typed = [m["input"] for m in missing if not glob.has_magic(m["input"])]
    if typed:
        more = f" (and {len(typed) - 1} more)" if len(typed) > 1 else ""
        raise _Refused(f"{typed[0]}: no such file or folder{more}")


def _settings(args: argparse.Namespace):
    """The options checked: ``(batch.Settings, worker processes, notes on what was assumed)``."""
    from vision.batch import run as batch
    from .score import UsageError, context_from_args, in_flag_words
    from vision.photo.pipeline import PhotoError, validate_context

    if args.fps <= 0 or args.stable < 1 or (args.segment is not None and args.segment <= 0):
        raise _Refused("--fps and --segment must be above 0, --stable at least 1")
    cores = _cores()
    workers = args.workers if args.workers is not None else cores
    if workers < 1:
        raise _Refused("--workers must be at least 1")
    try:
        ctx, notes = context_from_args(args)
        ctx = validate_context(ctx)
    except UsageError as exc:
        raise _Refused(str(exc)) from None
    except PhotoError as exc:
        raise _Refused(in_flag_words(str(exc), args)) from None
    if args.ray is not None:
        try:
            import ray  # noqa: F401
        except ImportError:
            raise _Refused("--ray needs Ray: pip install 'tilescope[cluster]' (or '.[cluster]' "
                           "in a clone)") from None
    settings = batch.Settings(ctx, args.weights, args.set, args.fps, args.stable,
                              threads=max(1, cores // workers) if args.ray is None else 1)
    return settings, workers, notes


def _output(args: argparse.Namespace, settings):
    """The ``--out`` file, opened to append (what it holds already is skipped)."""
    from vision.batch import run as batch

    try:
        return batch.Output(args.out, settings.header(), retry_failed=args.retry_failed)
    except batch.BatchError as exc:
        raise _Refused(str(exc)) from None
    except OSError as exc:
        raise _Refused(f"--out {args.out}: {exc.strerror or exc}") from None


def _read_all(args, tasks, missing, output, settings, workers: int, reader) -> None:
    """Every task not yet in ``output`` read (on this machine or with Ray), each task's lines
    written as it ends; files that are missing get their line too."""
    from vision.batch import run as batch

    missing = [line for line in missing if ("photo", os.path.abspath(line["input"])) not in output.done]
    pending = list(batch.iter_pending(tasks, output))
    skipped = len(tasks) - len(pending)
    if skipped:
        failed = (f" ({output.failed} of them could not be read: --retry-failed reads them again)"
                  if output.failed and not output.retry_failed else "")
        print(f"tilescope batch: {skipped} of {len(tasks)} photos and video segments already "
              f"in {args.out}, skipped{failed}",
              file=sys.stderr)
    if output.retry_failed and output.failed:
        print(f"tilescope batch: {output.failed} input{'' if output.failed == 1 else 's'} that "
              "could not be read before, read again (--retry-failed)", file=sys.stderr)
    # a glob that matched nothing is one photo line, as the closing summary counts it
    unit = "photos and video frames" if any(isinstance(t, batch.SegmentTask) for t in pending) else "photos"
    progress = Progress("batch", sum(t.cost for t in pending) + len(missing), enabled=not args.no_progress,
                        unit=unit, tqdm_unit="photo")
    for line in missing:
        output.write([line])
        progress.update(1)

    def done(task, lines) -> None:
        output.write(lines)
        progress.update(task.cost)

    try:
        if args.ray is not None:
            batch.run_ray(pending, settings, args.ray, args.workers, done)
        else:
            batch.run_local(pending, settings, min(workers, max(1, len(pending))), done, reader)
    except batch.BatchError as exc:
        raise _Refused(str(exc)) from None
    finally:
        progress.close()


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:          # not Linux
        return os.cpu_count() or 1


def _what(counts) -> list[str]:
    return [f"{n} {word}{'' if n == 1 else 's'}" for n, word in
            ((counts["photo"], "photo"), (counts["hand"], "video hand"), (counts["video"], "unread video segment"))
            if n or word == "photo"]


def summary_text(counts, out: str) -> str:
    """The closing line: the photos and the hands of videos in ``out`` (a photo line each, as
    the progress line counts photos), how many were read right with no warning, with
    warnings, not scored, and files that could not be read."""
    what = _what(counts)
    return (f"tilescope batch: {', '.join(what)} in {out}: {counts['scored']} scored with no "
            f"warning, {counts['warnings']} scored with warnings, {counts['not_scored']} not scored, "
            f"{counts['error']} unreadable")
