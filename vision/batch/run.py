"""Batch scoring: folders of photos and hours of video → one JSON line per photo or stable hand.

The engine of ``tilescope batch``. Stages, each a plain value in and out:

1. :func:`expand` turns the paths given (files, folders, globs) into files, sorted.
2. :func:`plan` turns files into tasks, the unit of work: one :class:`PhotoTask` per photo, one
   :class:`SegmentTask` per :data:`SEGMENT_S` seconds of a video (a video is cut so that an
   archive's hours spread over every core; each segment starts :func:`warmup_s` early, so that
   its stabiliser holds the hand already on the table when the segment's own time begins).
3. :class:`Worker` (one per process: the models are loaded once) runs a task into its lines:
   ``score_photo`` for a photo; for a segment, frames sampled at ``fps`` through the stream's
   :class:`vision.stream.live.StreamRunner` (tracker, :class:`vision.stream.live.HandStabiliser`,
   scorer), one line per stable hand with its time stamp, then a line saying the segment is done.
4. :class:`Output` writes each task's lines as it completes (one write, flushed) and on a rerun
   knows which tasks the file already holds (resume); :func:`summary` counts the file.

The runners (:func:`run_local`, :func:`run_ray`) only move tasks to workers and lines back.
"""
from __future__ import annotations

import glob
import json
import math
import os
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator

from vision.common.filekind import PHOTO_SUFFIXES

VIDEO_SUFFIXES = (".mp4", ".avi", ".mkv", ".mov", ".webm", ".m4v", ".ts", ".mpg", ".mpeg", ".wmv")

# seconds of video per task: a 3-hour broadcast is 36 tasks, enough to keep 16 cores busy,
# while the warm-up each segment re-reads (warmup_s: 8.5 s at 2 frames/s) stays under 3 %
SEGMENT_S = 300.0

# the output's first line: what the results were made with (a rerun must use the same)
FORMAT = 1


class BatchError(RuntimeError):
    """The batch cannot go on: a worker could not load the models, or the output file is
    another batch's (the message says which)."""


# ---------------------------------------------------------------- tasks

@dataclass(frozen=True)
class Settings:
    """What every task is run with (sent once to each worker process): the request
    ``context`` (as ``tilescope score`` builds it), the ``weights`` folder and ``tile_set``
    (``--set``), video sampling ``fps`` and ``stable`` (sampled frames a hand must hold
    still), and onnxruntime ``threads`` per worker."""

    context: dict = field(default_factory=dict)
    weights: str | None = None
    tile_set: str | None = None
    fps: float = 2.0
    stable: int = 3
    threads: int = 1

    def header(self) -> dict:
        """The output's first line: the settings a result depends on."""
        return {"kind": "batch", "format": FORMAT, "context": self.context, "set": self.tile_set,
                "weights": self.weights, "fps": self.fps, "stable": self.stable}


@dataclass(frozen=True)
class PhotoTask:
    path: str

    @property
    def key(self) -> tuple:
        return ("photo", os.path.abspath(self.path))

    @property
    def cost(self) -> int:
        """Work in photos (the progress bar's unit)."""
        return 1


@dataclass(frozen=True)
class SegmentTask:
    """Seconds ``start_s`` to ``end_s`` of video ``path`` (``end_s`` inf: to its end), read
    at ``fps`` frames per second."""

    path: str
    start_s: float
    end_s: float
    fps: float
    length_s: float | None = None       # the video's length by its header (the last segment's cost)

    @property
    def key(self) -> tuple:
        return ("segment", os.path.abspath(self.path), round(self.start_s, 3))

    @property
    def cost(self) -> int:
        """Work in photos: the frames detected (one costs about a photo)."""
        span = min(self.end_s, self.length_s or math.inf) - self.start_s
        return max(1, round(span * self.fps)) if math.isfinite(span) else 1


def is_video(path: str) -> bool:
    return os.path.splitext(path)[1].lower() in VIDEO_SUFFIXES


def expand(paths: Iterable[str]) -> tuple[list[str], list[dict]]:
    """The files ``paths`` name: a file as given, a folder's photos and videos (by their
    extension, all its subfolders, sorted), a glob's matches (a folder among them as a folder).
    Returns the files (each once, in the order given) and an error line for each path that
    names nothing."""
    from vision.common.safe_files import check_regular

    files: list[str] = []
    errors: list[dict] = []
    seen: set[str] = set()

    def add(path: str) -> None:
        key = os.path.abspath(path)
        if key in seen:
            return
        seen.add(key)
        try:            # a FIFO named like a photo would block its worker for ever
            check_regular(path)
        except OSError as exc:
            errors.append(error_line(path, "photo", str(exc)))
            return
        files.append(path)

    def walk(folder: str) -> None:
        for root, dirs, names in os.walk(folder):
            dirs.sort()
            for name in sorted(names):
                if os.path.splitext(name)[1].lower() in PHOTO_SUFFIXES + VIDEO_SUFFIXES:
                    add(os.path.join(root, name))

    for path in paths:
        if os.path.isdir(path):
            walk(path)
        elif os.path.exists(path):
            add(path)
        elif glob.has_magic(path) and (matches := sorted(glob.glob(path, recursive=True))):
            for m in matches:
                walk(m) if os.path.isdir(m) else add(m)
        else:
            errors.append(error_line(path, "photo", "no such file, folder or glob match"))
    return files, errors


def video_length(path: str) -> float | None:
    """Seconds of video in ``path`` from its header (None when OpenCV cannot tell)."""
    import cv2

    cap = cv2.VideoCapture(path)
    try:
        if not cap.isOpened():
            return None
        fps = cap.get(cv2.CAP_PROP_FPS) or 0
        frames = cap.get(cv2.CAP_PROP_FRAME_COUNT) or 0
        return frames / fps if fps > 0 and frames > 0 else None
    finally:
        cap.release()


def plan(files: Iterable[str], fps: float, segment_s: float = SEGMENT_S) -> list[PhotoTask | SegmentTask]:
    """One task per photo, one per ``segment_s`` of each video (a video whose length cannot
    be told is one task: read to its end, or its error line)."""
    tasks: list[PhotoTask | SegmentTask] = []
    for path in files:
        if not is_video(path):
            tasks.append(PhotoTask(path))
            continue
        length = video_length(path)
        if length is None:
            tasks.append(SegmentTask(path, 0.0, math.inf, fps))
            continue
        n = max(1, math.ceil(length / segment_s - 1e-9))
        for i in range(n):
            end = math.inf if i == n - 1 else (i + 1) * segment_s   # the last runs to the end
            tasks.append(SegmentTask(path, i * segment_s, end, fps, length))
    return tasks


def warmup_s(fps: float, stable: int) -> float:
    """Seconds a segment starts reading before its own time: enough sampled frames for the
    tracker to take in the tiles on the table (its window and label votes) and for the
    stabiliser to hold them ``stable`` frames, so the hand on the table at the cut is known
    (and not reported again) when the segment's time begins."""
    from vision.stream.live import TileTracker

    tracker = TileTracker()
    return (tracker.window + tracker.votes + stable) / fps


# ---------------------------------------------------------------- lines

def error_line(path: str, kind: str, message: str, segment: SegmentTask | None = None) -> dict:
    line = {"input": path, "kind": kind, "status": "error", "error": message}
    if segment is not None:
        line["segment"] = _span(segment)
    return line


def _span(task: SegmentTask) -> list:
    return [task.start_s, task.end_s if math.isfinite(task.end_s) else None]


def status_of(request: dict | None, result: dict | None, warnings: list) -> str:
    """``scored`` (no warning), ``warnings`` (scored, with warnings to look at) or
    ``not_scored`` (no winning hand could be scored: the result's error says why)."""
    if request is None or not result or result.get("error"):
        return "not_scored"
    return "warnings" if warnings else "scored"


def photo_line(path: str, scored: dict) -> dict:
    """A photo's line: its ``tilescope score --json`` object with the input, status and the
    one-line summary (``3 han 40 fu · 5200``)."""
    from vision.photo.banner import summarize

    return {"input": path, "kind": "photo",
            "status": status_of(scored["request"], scored["result"], scored["warnings"]),
            "summary": summarize(scored["result"], scored["request"]), **scored}


def hand_line(task: SegmentTask, message: dict) -> dict:
    """A stable hand's line from the stream's overlay message (``docs/overlay-json.md``)."""
    hand = message["hand"]
    return {"input": task.path, "kind": "hand", "segment": _span(task), "time_s": message["time_s"],
            "frame": message["frame"],
            "status": status_of(hand["request"], hand["result"], hand["warnings"]),
            "summary": hand["summary"], "unsure": hand["unsure"], "tiles": hand["tiles"],
            "request": hand["request"], "result": hand["result"], "warnings": hand["warnings"]}


# ---------------------------------------------------------------- the worker

class Worker:
    """Runs tasks with the models loaded once (one per process). ``reader``: a stand-in
    reader (tests); default the ``TileReader`` of ``settings.weights`` with ``settings.threads``
    onnxruntime threads, reading with ``settings.tile_set``. Raises ``ModelError`` /
    ``SetError`` / ``PhotoError`` when the models, set or context cannot be used."""

    def __init__(self, settings: Settings, reader=None):
        from vision.photo.pipeline import validate_context

        self.settings = settings
        self.context = validate_context(settings.context)
        if reader is None:
            from vision.read.detector import TileReader

            reader = TileReader(settings.weights, threads=settings.threads)
        if settings.tile_set:
            from vision.read.tileset import load

            reader = reader.with_set(load(settings.tile_set))
        self.reader = reader

    def run(self, task: PhotoTask | SegmentTask) -> list[dict]:
        """The task's lines; a file that cannot be read or scored is one error line."""
        if isinstance(task, PhotoTask):
            return [self._photo(task)]
        return self._segment(task)

    def _photo(self, task: PhotoTask) -> dict:
        from vision.read.imageio import load_image
        from vision.photo.pipeline import score_photo

        try:
            image = load_image(task.path)
            scored = score_photo(image, self.context, reader=self.reader).to_json()
        except Exception as exc:        # noqa: BLE001 - a bad file is its line, never the batch's end
            return error_line(task.path, "photo", _words(exc))
        return photo_line(task.path, scored)

    def _segment(self, task: SegmentTask) -> list[dict]:
        from vision.stream.live import SourceError

        try:
            messages, frames = self._stable_hands(task)
        except (SourceError, OSError, ValueError) as exc:
            return [error_line(task.path, "video", _words(exc), task)]
        hands = [hand_line(task, m) for m in messages
                 if m["hand"] is not None and task.start_s <= m["time_s"] < task.end_s]
        return hands + [{"input": task.path, "kind": "segment", "segment": _span(task),
                         "frames": frames, "hands": len(hands)}]

    def _stable_hands(self, task: SegmentTask) -> tuple[list[dict], int]:
        """The stream's messages for the segment's frames (its warm-up included), and the
        frames detected in the segment's own time."""
        import cv2

        from vision.stream.live import Frame, HandStabiliser, SourceError, StreamRunner, pipeline_scorer

        cap = cv2.VideoCapture(task.path)
        if not cap.isOpened():
            raise SourceError("cannot open it as a video")
        try:
            rate = cap.get(cv2.CAP_PROP_FPS) or 0
            if not 0 < rate <= 1000:
                rate = 30.0
            step = max(1.0, rate / task.fps)             # source frames per sampled frame
            first = max(0.0, task.start_s - warmup_s(task.fps, self.settings.stable))
            k = math.ceil(first * rate / step - 1e-9)    # sampled frame k is source frame round(k * step)
            index = round(k * step)
            if index:
                cap.set(cv2.CAP_PROP_POS_FRAMES, index)
                index = int(cap.get(cv2.CAP_PROP_POS_FRAMES))
            messages: list[dict] = []
            runner = StreamRunner(self.reader, HandStabiliser(self.settings.stable),
                                  pipeline_scorer(self.context), messages.append)
            own = 0
            while True:
                want = round(k * step)
                while index < want:
                    if not cap.grab():
                        return messages, own
                    index += 1
                ok, image = cap.read()
                if not ok:
                    if runner.stats.frames == 0:
                        raise SourceError("no frame could be read: not a video, or a broken file")
                    return messages, own
                index += 1
                time_s = want / rate
                if time_s >= task.end_s:
                    return messages, own
                own += time_s >= task.start_s
                runner.step(Frame(want, image, time_s))
                k += 1
        finally:
            cap.release()


def _words(exc: BaseException) -> str:
    return str(exc) or type(exc).__name__


# one Worker per process of the local pool (ProcessPoolExecutor's initializer fills it)
_WORKER: Worker | None = None
_WORKER_ERROR: str | None = None


# how often a worker looks whether the batch that started it is still there (seconds)
PARENT_POLL_S = 0.5


def end_with_parent(parent: int | None = None, every_s: float = PARENT_POLL_S) -> None:
    """End this process when ``parent`` (default: the process that started it) is gone: a
    batch killed outright (SIGKILL, the OOM killer) never leaves its workers, each holding the
    models (about 300 MB), running on their own. A daemon thread polls the parent's id (it
    changes when the parent dies; portable, and it works for the executor's processes, which
    are started from another thread than the one PR_SET_PDEATHSIG would watch)."""
    import threading
    import time

    parent = os.getppid() if parent is None else parent

    def watch() -> None:
        while True:
            time.sleep(every_s)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="end-with-parent", daemon=True).start()


def init_process(settings: Settings, parent: int | None = None) -> None:
    """The pool's initializer: end with the batch (``parent``: its process id), leave Ctrl-C
    to it (it stops the workers and says what was kept), and load the models once for this
    process. A failure to load is kept and raised by each task (as BatchError), so the batch
    stops with its reason."""
    import signal

    global _WORKER, _WORKER_ERROR
    end_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        _WORKER = Worker(settings)
    except Exception as exc:            # noqa: BLE001 - reported by run_in_process
        _WORKER_ERROR = _words(exc)


def run_in_process(task: PhotoTask | SegmentTask) -> tuple[PhotoTask | SegmentTask, list[dict]]:
    if _WORKER is None:
        raise BatchError(f"a worker could not load the tile reader: {_WORKER_ERROR}")
    return task, _WORKER.run(task)


# ---------------------------------------------------------------- runners

Done = Callable[[PhotoTask | SegmentTask, list[dict]], None]


def run_local(tasks: list, settings: Settings, workers: int, done: Done, reader=None) -> None:
    """Run ``tasks`` on ``workers`` local processes (1: in this process), calling ``done``
    with each task's lines in the order they complete. ``reader``: a stand-in reader, in
    this process only (``workers`` 1). Raises BatchError when the models cannot be loaded."""
    if not tasks:
        return
    if workers <= 1 or reader is not None:
        try:
            worker = Worker(settings, reader)
        except Exception as exc:        # noqa: BLE001 - ModelError, SetError, PhotoError
            raise BatchError(f"cannot load the tile reader: {_words(exc)}") from None
        for task in tasks:
            done(task, worker.run(task))
        return
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    # spawn, not fork: a parent that already runs onnxruntime's threads must not be copied
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(workers, mp_context=context, initializer=init_process,
                             initargs=(settings, os.getpid())) as pool:
        pending = set()
        queue = iter(tasks)
        try:
            # a few tasks ahead of the workers, not the whole archive's futures at once
            for task in queue:
                pending.add(pool.submit(run_in_process, task))
                if len(pending) >= 4 * workers:
                    break
            while pending:
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in finished:
                    done(*future.result())
                    nxt = next(queue, None)
                    if nxt is not None:
                        pending.add(pool.submit(run_in_process, nxt))
        except BaseException:
            # Ctrl-C or a failure: the tasks in flight are dropped (a rerun reads them again),
            # the workers stopped now rather than after their current photo or segment
            processes = list((getattr(pool, "_processes", None) or {}).values())
            pool.shutdown(wait=False, cancel_futures=True)
            for process in processes:
                process.terminate()
            raise


def run_ray(tasks: list, settings: Settings, address: str | None, workers: int | None,
            done: Done) -> None:
    """Run ``tasks`` as calls to a pool of Ray actors, each loading the models once; ``done``
    gets each task's lines as it completes (``ray.wait``). ``address``: the cluster's (None
    or "": a Ray already started in this process, ``RAY_ADDRESS``, or a local one). ``workers``:
    actors (default one per CPU of the cluster). Raises ImportError without ``ray``."""
    import ray

    started = not ray.is_initialized()
    if started:
        ray.init(address=address or None, **_ray_code(address))
    n = workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
    n = min(n, len(tasks)) or 1
    actor_class = ray.remote(num_cpus=1)(RayWorker)
    actors = [actor_class.remote(settings) for _ in range(n)]
    queue = iter(tasks)
    in_flight: dict = {}                # object ref -> (actor, task)

    def give(actor) -> None:
        task = next(queue, None)
        if task is not None:
            in_flight[actor.run.remote(task)] = (actor, task)

    try:
        for actor in actors:            # two calls each: an actor never waits on the driver
            give(actor)
            give(actor)
        while in_flight:
            ready, _ = ray.wait(list(in_flight), num_returns=1)
            actor, task = in_flight.pop(ready[0])
            try:
                lines = ray.get(ready[0])
            except (ray.exceptions.RayActorError, ray.exceptions.ActorUnschedulableError) as exc:
                raise BatchError(f"a Ray worker could not load the tile reader: {exc}") from None
            done(task, lines)
            give(actor)
    finally:
        for ref in in_flight:
            try:
                ray.cancel(ref)         # an actor's task: force=True is refused (ValueError)
            except Exception:           # noqa: BLE001 - the actors are killed next anyway
                pass
        for actor in actors:
            ray.kill(actor)
        if started:
            ray.shutdown()


class RayWorker:
    """A Ray actor: a :class:`Worker` whose models are loaded once, when the actor starts."""

    def __init__(self, settings: Settings):
        self.worker = Worker(settings)

    def run(self, task) -> list[dict]:
        return self.worker.run(task)


def _ray_code(address: str | None) -> dict:
    """``ray.init`` keywords: for a cluster (an address given), this checkout's packages go
    with the job (``py_modules``), so its nodes need only ``pip install "tilescope[cluster]"``'s
    dependencies; a local Ray's workers import them from here."""
    if not address or address in ("local",):
        return {}
    import scoring
    import vision

    return {"runtime_env": {"py_modules": [os.path.dirname(vision.__file__),
                                           os.path.dirname(scoring.__file__)]}}


# ---------------------------------------------------------------- the output file

class Output:
    """The JSON Lines file of results. Opening it reads what it already holds (a rerun skips
    those tasks): a line cut short by a crash is dropped, as are the hands of a video segment
    whose end line is missing (the segment runs again). ``retry_failed``: the error lines of
    files that could not be read are dropped too, so those files are read again (``failed``
    counts them). Raises BatchError when the file was made with other settings (its first
    line) or is not this command's output."""

    def __init__(self, path: str, header: dict, retry_failed: bool = False):
        self.path = path
        self.lines: list[dict] = []
        self.done: set[tuple] = set()
        self.retry_failed = retry_failed
        self.failed = 0                 # error lines held (dropped, with retry_failed)
        kept, changed = self._read(header)
        mode = "w" if changed or not kept else "a"
        self._fh = open(path, mode, encoding="utf-8")
        if mode == "w":
            for line in (kept or [header]):
                self._fh.write(json.dumps(line, ensure_ascii=False) + "\n")
            self._fh.flush()

    def _read(self, header: dict) -> tuple[list[dict], bool]:
        if not os.path.exists(self.path) or os.path.getsize(self.path) == 0:
            return [], False
        with open(self.path, encoding="utf-8") as fh:
            text = fh.read()
        raw = text.split("\n")
        changed = raw[-1] != ""                       # a last line without its newline: cut short
        lines = []
        for row in raw[:-1]:
            try:
                lines.append(json.loads(row))
            except ValueError:
                changed = True
        if not lines or not isinstance(lines[0], dict) or lines[0].get("kind") != "batch":
            raise BatchError(f"{self.path} is not a tilescope batch output: give another --out")
        if lines[0] != header:
            raise BatchError(f"{self.path} holds results made with other settings "
                             f"({json.dumps(lines[0], ensure_ascii=False)}): give another --out, "
                             "or the same context, --set, --fps and --stable")
        ended = {_key(x) for x in lines if x.get("kind") == "segment"}
        kept = [lines[0]]
        for x in lines[1:]:
            if x.get("kind") == "hand" and _key(x) not in ended:
                changed = True
                continue
            if x.get("status") == "error" and x.get("kind") in ("photo", "video"):
                self.failed += 1
                if self.retry_failed:
                    changed = True
                    continue
            kept.append(x)
            if x.get("kind") == "photo":
                self.done.add(("photo", os.path.abspath(x["input"])))
            elif x.get("kind") in ("segment", "video"):     # a segment read, or its error line
                self.done.add(_key(x))
        self.lines = kept[1:]
        return kept, changed

    def write(self, lines: list[dict]) -> None:
        """One task's lines, in one write, flushed: a crash never leaves half a task."""
        self._fh.write("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines))
        self._fh.flush()
        self.lines.extend(lines)

    def close(self) -> None:
        self._fh.close()


def _key(line: dict) -> tuple:
    return ("segment", os.path.abspath(line["input"]), round(line["segment"][0], 3))


# ---------------------------------------------------------------- the summary

def summary(lines: Iterable[dict]) -> Counter:
    """Photos and video hands by status (``scored``, ``warnings``, ``not_scored``,
    ``error``) and by kind (``photo``, ``hand``, ``video``: a video that could not be read),
    and ``segments`` of video read."""
    counts: Counter = Counter()
    for x in lines:
        if x.get("kind") in ("photo", "hand", "video"):
            counts[x["status"]] += 1
            counts[x["kind"]] += 1
        elif x.get("kind") == "segment":
            counts["segments"] += 1
    return counts


def iter_pending(tasks: list, output: Output) -> Iterator:
    """The tasks the output does not hold yet."""
    return (t for t in tasks if t.key not in output.done)
