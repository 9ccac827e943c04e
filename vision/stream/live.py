"""Live video → stable hand → value: the engine of ``tilescope stream``.

Stages, each a plain value in and out:

1. ``FrameSource`` turns a webcam index, video file or stream URL into ``Frame`` values. A live
   source is read by a thread that keeps only the newest frame, so detection skips frames
   rather than falls behind; a file is read in order and every ``every``-th frame is detected.
2. ``vision.stream.read_plan.ReadPlanner`` (when the runner has one, as ``tilescope stream`` does)
   has a frame read by the models only when it changed since the last read, beyond the
   camera's shake (``vision.stream.frame_change``), and for a few frames after; every other frame is
   *held*: the tracked tiles stay, moved with the shake, and no model runs.
3. ``TileTracker`` matches each frame's detections to the previous frame's by box overlap (IoU)
   and gives each tracked tile the majority label of its last few readings, so a single misread
   frame does not change the hand.
4. ``HandStabiliser`` (pure: detections in, events out) reports a hand only after it has stayed
   the same for ``stable_frames`` detected frames, and again only when it changes: no flicker.
5. ``StreamRunner`` scores each new stable hand (layout + scoring via ``vision.photo.pipeline``; a
   13-tile hand in play: its waits, ``vision.photo.inplay``) and hands the result to its sinks: the
   annotated-video writer and the overlay hub (``vision.stream.overlay``). When the context changes
   while it runs (the control page, ``vision.stream.livecontext``), the hand on screen is scored again.
"""
from __future__ import annotations

import threading
import time
from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Protocol

import numpy as np

from vision.read.detections import Detection, Detections
from vision.photo.banner import summarize
from vision.common.jsontext import small_int

# detected frames between two full reads of the frame; in between, the tiles are read through
# the previous frame's zoom windows (a hand camera's small tiles, TileReader.read)
REFRESH_FRAMES = 15

# ---------------------------------------------------------------- tracking and stability

def iou(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> float:
    """Intersection over union of two (x1, y1, x2, y2) boxes, 0..1 (0 for empty boxes)."""
    ix = min(a[2], b[2]) - max(a[0], b[0])
    iy = min(a[3], b[3]) - max(a[1], b[1])
    if ix <= 0 or iy <= 0:
        return 0.0
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


@dataclass
class Track:
    """One physical tile followed across frames.

    ``labels``: its last readings ((tile, sideways), confidence), newest last. ``seen``: for each of the last
    ``window`` detected frames, whether it was detected. ``present``: whether it counts as part
    of the hand (see ``TileTracker``). ``hits``: frames it was seen in.
    """

    id: int
    detection: Detection
    labels: deque
    seen: deque
    present: bool = False
    hits: int = 1

    @property
    def label(self) -> tuple[str, bool]:
        """The (tile, sideways) with the most confidence summed over the recent readings;
        ties go to the newest reading."""
        votes: Counter = Counter()
        for lab, conf in self.labels:
            votes[lab] += conf
        best = max(votes.values())
        for lab, _ in reversed(self.labels):
            if votes[lab] >= best - 1e-9:
                return lab
        raise AssertionError("track without labels")


class TileTracker:
    """Greedy IoU matching of detections to tracks, one detected frame at a time.

    A track joins the hand once it was seen in ``enter`` of the last ``window`` frames and
    leaves it when seen in ``leave`` or fewer (hysteresis: a box that a detector finds every
    other frame neither flickers in nor out); a track unseen for ``window`` frames ends. A
    track covered by an older one (``overlap`` of its area: a second box on the same tile)
    is left out of the hand. ``iou_threshold``: least overlap to count as the same tile.
    ``votes``: readings a track's label is voted over, weighted by confidence (a detector that
    wavers between two similar tiles settles on the one it backs more, instead of flipping).
    Raises ValueError unless ``0 <= leave < enter <= window``.
    """

    def __init__(self, iou_threshold: float = 0.3, window: int = 5, enter: int = 3,
                 leave: int = 1, overlap: float = 0.6, votes: int = 9):
        if not 0 <= leave < enter <= window:
            raise ValueError("need 0 <= leave < enter <= window")
        self.iou_threshold = iou_threshold
        self.window = window
        self.votes = votes
        self.enter = enter
        self.leave = leave
        self.overlap = overlap
        self.tracks: list[Track] = []
        self._next_id = 0

    def update(self, detections: Detections) -> list[Track]:
        """Add one frame's detections; returns the tracks in the hand, in reading order."""
        dets = detections.tiles
        pairs = []
        for ti, tr in enumerate(self.tracks):
            for di, d in enumerate(dets):
                o = iou(tr.detection.box, d.box)
                if o >= self.iou_threshold:
                    pairs.append((o, ti, di))
        pairs.sort(reverse=True)
        used_t, used_d = set(), set()
        for _, ti, di in pairs:
            if ti in used_t or di in used_d:
                continue
            used_t.add(ti)
            used_d.add(di)
            tr = self.tracks[ti]
            tr.detection = dets[di]
            tr.labels.append(((dets[di].tile, dets[di].sideways), dets[di].confidence))
            tr.hits += 1
        for ti, tr in enumerate(self.tracks):
            tr.seen.append(ti in used_t)
        for di, d in enumerate(dets):
            if di not in used_d:
                self.tracks.append(Track(self._next_id, d,
                                         deque([((d.tile, d.sideways), d.confidence)], maxlen=self.votes),
                                         deque([True], maxlen=self.window)))
                self._next_id += 1
        return self._hand()

    def hold(self, dx: float, dy: float) -> list[Track]:
        """A frame that shows what the last one showed, the camera moved by (dx, dy) px
        (``vision.stream.read_plan``: nothing else changed): each track's box moves with it, the
        tiles in the hand count as seen, the others as not (a tile leaving goes on leaving),
        and no label gets a vote (the tiles were not read again). Returns the hand as
        :meth:`update` does."""
        for tr in self.tracks:
            tr.detection = _moved(tr.detection, dx, dy)
            tr.seen.append(tr.present)
        return self._hand()

    def _hand(self) -> list[Track]:
        """Tracks in or out of the hand after this frame's sightings; the hand in reading order."""
        for tr in self.tracks:
            n = sum(tr.seen)
            if not tr.present and n >= self.enter:
                tr.present = True
            elif tr.present and n <= self.leave:
                tr.present = False
        self.tracks = [t for t in self.tracks if any(t.seen) or len(t.seen) < self.window]
        hand: list[Track] = []
        for tr in sorted((t for t in self.tracks if t.present), key=lambda t: t.id):
            if not any(_covers(h.detection.box, tr.detection.box, self.overlap) for h in hand):
                hand.append(tr)
        return [hand[i] for i in reading_order([t.detection for t in hand])]


def _moved(d: Detection, dx: float, dy: float) -> Detection:
    """``d`` with its box moved by (dx, dy) px."""
    x1, y1, x2, y2 = d.box
    return Detection(d.tile, (x1 + dx, y1 + dy, x2 + dx, y2 + dy), d.confidence, d.sideways,
                     d.alternatives)


def _covers(a: tuple[float, float, float, float], b: tuple[float, float, float, float],
            share: float) -> bool:
    """Whether box ``a`` covers at least ``share`` of box ``b``'s area."""
    ix = min(a[2], b[2]) - max(a[0], b[0])
    iy = min(a[3], b[3]) - max(a[1], b[1])
    area = (b[2] - b[0]) * (b[3] - b[1])
    return ix > 0 and iy > 0 and area > 0 and ix * iy >= share * area


def reading_order(dets: list[Detection]) -> list[int]:
    """Indices of ``dets`` in reading order: rows top to bottom, left to right within a row.

    A box joins a row when it overlaps the row's vertical span by at least half its own height,
    so jitter of a few pixels never reorders a hand (unlike rounding y to a grid).
    """
    rows: list[list] = []  # [top, bottom, [indices]]
    for i in sorted(range(len(dets)), key=lambda i: dets[i].center[1]):
        _, y1, _, y2 = dets[i].box
        for row in rows:
            if min(row[1], y2) - max(row[0], y1) >= 0.5 * (y2 - y1):
                row[0], row[1] = min(row[0], y1), max(row[1], y2)
                row[2].append(i)
                break
        else:
            rows.append([y1, y2, [i]])
    rows.sort(key=lambda r: r[0])
    return [i for r in rows for i in sorted(r[2], key=lambda i: dets[i].center[0])]


@dataclass(frozen=True)
class HandEvent:
    """The stable hand changed. ``detections``: the smoothed tiles (majority labels, latest
    boxes), empty when the hand left the picture. ``frame``: index of the frame where it became
    stable. ``key``: the tiles and sideways flags it is compared by."""

    frame: int
    detections: Detections
    key: tuple[tuple[str, bool], ...]

    @property
    def tiles(self) -> list[str]:
        return [d.tile for d in self.detections.tiles]


def _as_voted(d: Detection, tile: str, sideways: bool) -> Detection:
    """The latest frame's detection of a tracked tile, named as the frames voted. When the
    vote differs from this frame's reading, the confidence and next guesses are made to agree
    with the name (the voted tile's probability in this frame; this frame's reading first among
    the next guesses): a correction must never work from "read as 2m, next guess 2m"."""
    if d.tile == tile:
        return Detection(tile, d.box, d.confidence, sideways, d.alternatives)
    guesses = dict(d.alternatives)
    others = tuple((t, c) for t, c in d.alternatives if t != tile)
    return Detection(tile, d.box, guesses.get(tile, 0.0), sideways, ((d.tile, d.confidence),) + others)


# a tracked tile is drawn while seen in one of this many last detected frames: one frame's
# dropped detection does not make its box flicker; a tile taken away is gone a frame later
SHOWN_FRAMES = 2


class HandStabiliser:
    """Detections per frame in, ``HandEvent`` out only when a new hand has held still.

    A hand is the sequence of tracked tiles' (tile, sideways) labels in reading order. It is
    reported once it has been the same for ``stable_frames`` consecutive detected frames and
    differs from the last reported hand; an empty table is reported only after a hand was.
    Raises ValueError when ``stable_frames`` < 1.
    """

    def __init__(self, stable_frames: int = 8, tracker: TileTracker | None = None):
        if stable_frames < 1:
            raise ValueError("stable_frames must be >= 1")
        self.stable_frames = stable_frames
        self.tracker = tracker or TileTracker()
        self.reported: tuple = ()
        self.current = Detections(0, 0)  # the tracked tiles now (smoothed)
        # the tracked tiles seen in one of the last SHOWN_FRAMES detected frames, for drawing:
        # a tile swept off the table stays in the hand a few frames (the tracker's
        # hysteresis), and its box was drawn over the next hand being laid down
        self.shown = Detections(0, 0)
        self.shown_key: tuple = ()       # their (tile, sideways) labels, as an event's key
        self._candidate: tuple | None = None
        self._count = 0
        self._key: tuple = ()
        self._size = (0, 0)            # the frames' (width, height)

    def update(self, detections: Detections, frame: int) -> HandEvent | None:
        """Feed one detected frame; returns an event when the stable hand changes, else None."""
        self._size = (detections.width, detections.height)
        return self._after(self.tracker.update(detections), frame)

    def hold(self, shift: tuple[float, float], frame: int) -> HandEvent | None:
        """Feed one frame that shows what the last one did, moved by ``shift`` (dx, dy) px
        (:meth:`TileTracker.hold`); it counts towards a hand's stability as a read frame
        does. Returns an event as :meth:`update` does."""
        return self._after(self.tracker.hold(*shift), frame)

    @property
    def key(self) -> tuple:
        """The tracked hand's (tile, sideways) labels in reading order, as a ``HandEvent.key``."""
        return self._key

    def _after(self, tracks: list[Track], frame: int) -> HandEvent | None:
        """The tracked hand after one frame: smoothed, shown, and reported once stable."""
        width, height = self._size
        key = tuple(t.label for t in tracks)
        self._key = key
        smoothed = [_as_voted(t.detection, *t.label) for t in tracks]
        self.current = Detections(width, height, smoothed)
        seen = [i for i, t in enumerate(tracks) if any(list(t.seen)[-SHOWN_FRAMES:])]
        self.shown = Detections(width, height, [smoothed[i] for i in seen])
        self.shown_key = tuple(key[i] for i in seen)
        if key == self._candidate:
            self._count += 1
        else:
            self._candidate, self._count = key, 1
        if self._count < self.stable_frames or key == self.reported:
            return None
        self.reported = key
        return HandEvent(frame, self.current, key)


# ---------------------------------------------------------------- frames

@dataclass(frozen=True)
class Frame:
    """One video frame: ``image`` BGR (H, W, 3) uint8, ``index`` in the source, ``time_s``."""

    index: int
    image: np.ndarray
    time_s: float


class SourceError(RuntimeError):
    """The video source cannot be opened or read."""


def parse_source(text: str) -> int | str:
    """'0' → webcam 0; anything else is a file path or URL, passed to OpenCV as is."""
    index = small_int(text, 3)
    return text if index is None else index


NETWORK_TIMEOUT_S = 10.0     # a network feed that sends nothing for this long has stopped


def writer_rate(fps: float) -> float | None:
    """The frame rate to pace an annotated copy at (``StreamRunner(writer_fps=...)``): the
    source's, when it is a camera's or a video's (1..120 frames/s); None (each frame written
    once) for a rate OpenCV made up (some streams report 90000)."""
    return fps if 1 <= fps <= 120 else None


def is_live(source: int | str) -> bool:
    """Webcams and network streams are live (drop frames); files are read in full."""
    return isinstance(source, int) or "://" in str(source)


class _Capture(Protocol):  # the part of cv2.VideoCapture used here
    def read(self) -> tuple[bool, Any]: ...
    def get(self, prop: int) -> float: ...
    def release(self) -> None: ...


class LatestFrameReader:
    """Reads a live capture on its own thread and keeps only the newest frame.

    ``latest(after)`` blocks until a frame newer than index ``after`` exists (or the source
    ended: returns None). Frames that arrive while detection is busy are dropped, which is how
    a slow CPU stays live instead of falling behind.
    """

    def __init__(self, capture: _Capture):
        self._cap = capture
        self._taken = -1  # index of the newest frame handed out
        self._cond = threading.Condition()
        self._frame: Frame | None = None
        self._done = False
        self.dropped = 0
        self._thread = threading.Thread(target=self._run, name="frame-reader", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        index = 0
        t0 = time.monotonic()
        while True:
            ok, img = self._cap.read()
            with self._cond:
                if not ok or self._done:
                    self._done = True
                    self._cond.notify_all()
                    return
                if self._frame is not None and self._frame.index > self._taken:
                    self.dropped += 1
                self._frame = Frame(index, img, time.monotonic() - t0)
                index += 1
                self._cond.notify_all()

    def latest(self, after: int = -1) -> Frame | None:
        with self._cond:
            while not self._done and (self._frame is None or self._frame.index <= after):
                self._cond.wait(0.5)
            if self._frame is None or self._frame.index <= after:
                return None
            self._taken = self._frame.index
            return self._frame

    def close(self) -> None:
        with self._cond:
            self._done = True
            self._cond.notify_all()
        self._thread.join(timeout=2)


def _why_not_opened(source: int | str) -> str:
    """Why OpenCV could not open a webcam index or a local path, in words: ``""`` when there is
    nothing more to say."""
    import os

    if isinstance(source, int):
        return f" (no camera at index {source}, or another program holds it)"
    if os.path.isdir(source):
        return " (a folder, not a video file)"
    try:
        if os.path.getsize(source) == 0:
            return " (the file is empty)"
    except OSError:
        return ""
    return " (not a video OpenCV can read, as MP4, AVI, MKV, MOV or WebM are)"


class FrameSource:
    """Frames to detect from a webcam index, file or URL (OpenCV ``VideoCapture``).

    ``every``: for files, detect every k-th frame (the others are still yielded with
    ``detect=False`` so an annotated copy keeps every frame). Live sources always give the
    newest frame. Raises SourceError when the source cannot be opened, ValueError when
    ``every`` < 1.
    """

    def __init__(self, source: int | str, every: int = 1, capture: _Capture | None = None):
        import cv2

        if every < 1:
            raise ValueError("every must be >= 1")
        self.source = source
        self.every = every
        self.live = is_live(source)
        if capture is not None:
            self.cap = capture
        elif isinstance(source, str) and "://" in source:
            # a network feed that answers nothing would hold OpenCV 30 s at every open and read
            ms = int(NETWORK_TIMEOUT_S * 1000)
            self.cap = cv2.VideoCapture(source, cv2.CAP_ANY, [cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, ms,
                                                              cv2.CAP_PROP_READ_TIMEOUT_MSEC, ms])
        else:
            self.cap = cv2.VideoCapture(source)
        if capture is None and not self.cap.isOpened():
            if isinstance(source, str) and "://" in source:
                raise SourceError(f"cannot open video source {source!r} (nothing there answered "
                                  f"as a video feed within {NETWORK_TIMEOUT_S:.0f} s)")
            raise SourceError(f"cannot open video source {source!r}{_why_not_opened(source)}")
        self.fps = float(self.cap.get(cv2.CAP_PROP_FPS) or 0) or 30.0
        n = int(self.cap.get(cv2.CAP_PROP_FRAME_COUNT) or 0)
        self.frame_count = n if n > 0 and not self.live else None
        self._latest: LatestFrameReader | None = None

    def frames(self) -> Iterator[tuple[Frame, bool]]:
        """Yields (frame, detect) pairs until the source ends."""
        if self.live:
            self._latest = LatestFrameReader(self.cap)
            last = -1
            while True:
                f = self._latest.latest(last)
                if f is None:
                    return
                last = f.index
                yield f, True
        index = 0
        while True:
            ok, img = self.cap.read()
            if not ok:
                return
            yield Frame(index, img, index / self.fps), index % self.every == 0
            index += 1

    @property
    def dropped(self) -> int:
        """Live frames never detected because detection was busy."""
        return self._latest.dropped if self._latest else 0

    def close(self) -> None:
        if self._latest is not None:
            self._latest.close()
        self.cap.release()


# ---------------------------------------------------------------- scoring and sinks

def pipeline_scorer(context=None) -> Callable[[np.ndarray, Detections], dict]:
    """A scorer for ``StreamRunner``: (frame, smoothed detections) → ``tilescope score --json``
    dict, via ``vision.photo.pipeline.score_photo`` (layout parser + scoring) with ``context`` (a
    dict, or a ``vision.stream.livecontext.LiveContext`` read at each hand); when
    no winning hand is formed, ``"waits"``: the hand in play's (``vision.photo.inplay.stream_waits``).
    Raises ``vision.photo.pipeline.PhotoError`` now for a bad context, not at the first hand."""
    from vision.photo.inplay import stream_waits
    from vision.photo.pipeline import WIN_ONLY_WARNINGS, score_photo, validate_context

    live = context if hasattr(context, "current") else None
    fixed = None if live is not None else validate_context(context)

    def score(image: np.ndarray, detections: Detections) -> dict:
        ctx = live.current() if live is not None else fixed
        scored = score_photo(detections, ctx).to_json()
        if scored.get("request") is None:     # no win: a hand in play shows its waits
            scored["waits"] = stream_waits(detections, ctx)
            if scored["waits"] is not None:   # "13 tiles: no winning hand" is no news then
                scored["warnings"] = [w for w in scored.get("warnings", [])
                                      if w.get("code") not in WIN_ONLY_WARNINGS]
        return scored

    return score


def hand_message(event: HandEvent | None, scored: dict | None, time_s: float) -> dict:
    """The overlay's WebSocket message for a stable hand (``hand`` is None when none is shown).
    ``hand.tiles`` are the scored tiles in the scorer's reading order (the order its warnings
    number them), or the stable tiles as tracked when nothing was scored; ``hand.lines`` every
    line of the value (:func:`value_lines`); ``hand.unsure`` whether the reading is in doubt
    (:func:`unsure_tiles`), with the tiles in doubt in ``hand.unsure_tiles``; ``hand.waits``
    a 13-tile hand in play's shanten and waits (``vision.photo.inplay.waits_json``), else None."""
    from vision.photo.inplay import waits_summary

    if event is None or not event.tiles:
        return {"type": "hand", "frame": event.frame if event else None,
                "time_s": round(time_s, 2), "hand": None}
    scored = scored or {}
    warnings = scored.get("warnings", [])
    # tiles the pipeline re-read from the reader's next guesses: the value is a guess, and the
    # banner says so (a viewer sees no warnings)
    guessed = _guessed_numbers(warnings)
    unsure, doubted = unsure_tiles(warnings)
    waits = scored.get("waits")
    summary = waits_summary(waits) if waits else summarize(scored.get("result"), scored.get("request"))
    if unsure and (waits or scored.get("result") and not scored["result"].get("error")):
        summary += f" ({_doubt_words(guessed, [n for n in doubted if n not in guessed])})"
    return {
        "type": "hand",
        "frame": event.frame,
        "time_s": round(time_s, 2),
        "hand": {
            # numbered as the scorer numbered them, so a warning's "tile 12" is tiles[11]
            "tiles": [t["tile"] for t in scored["tiles"]] if scored.get("tiles") else event.tiles,
            "request": scored.get("request"),
            "result": scored.get("result"),
            "summary": summary,
            "lines": value_lines(scored.get("result")),
            "guessed": bool(guessed),
            "unsure": unsure,
            "unsure_tiles": doubted,
            "warnings": warnings,
            "waits": waits,
        },
    }


# Warnings that put the name of the tiles they list in doubt: read below the reader's
# confidence threshold, re-read from its next guesses (corrected, not_flowers, not_backs), or
# fives of a photo without colour, any of which may be red. A broadcast clip showed a plain
# value over five "tile read as … (confidence 0.49)" warnings: a viewer sees no warnings.
UNSURE_TILE_CODES = frozenset({"low_confidence", "corrected", "not_flowers", "not_backs", "no_colour"})
# Warnings that put the whole reading in doubt, whichever tiles: most tiles read unsurely, or
# tiles smaller than the reader was trained on ("its names are guesses there")
UNSURE_PHOTO_CODES = frozenset({"unsure_photo", "small_tiles"})


def unsure_tiles(warnings) -> tuple[bool, list[int]]:
    """Whether a hand's reading is in doubt after its ``warnings`` (``tilescope score --json``
    dicts), and the tiles in doubt (1-based, scorer order): those listed by a warning of
    :data:`UNSURE_TILE_CODES`; a warning of :data:`UNSURE_PHOTO_CODES` doubts the reading as
    a whole (``(True, [])`` when it is alone)."""
    tiles: set[int] = set()
    whole = False
    for w in warnings or ():
        if not isinstance(w, dict):
            continue
        if w.get("code") in UNSURE_TILE_CODES:
            tiles.update(w.get("tiles", ()))
        whole = whole or w.get("code") in UNSURE_PHOTO_CODES
    return whole or bool(tiles), sorted(tiles)


def _doubt_words(guessed: list[int], doubted: list[int]) -> str:
    """The banner's note: 'guessed: tiles 3, 5 unsure; unsure: tile 9', or 'unsure reading'
    when only the photo as a whole is in doubt."""
    def tiles(ns: list[int]) -> str:
        return f"tile{'s' if len(ns) > 1 else ''} {', '.join(map(str, ns))}"

    parts = ([f"guessed: {tiles(guessed)} unsure"] if guessed else []) + (
        [f"unsure: {tiles(doubted)}"] if doubted else [])
    return "; ".join(parts) or "unsure reading"


# the dora of a riichi result (``result["dora"]``) as lines of the value, in the order
# `tilescope hand` prints them
DORA_LINES = (("dora", "dora"), ("aka", "aka dora"), ("ura", "ura dora"))


def value_lines(result: dict | None) -> list[dict]:
    """Every line the value is the sum of, for the overlay: riichi yaku ``{"name", "han"}``
    then dora, aka dora (red fives) and ura dora with their han (a kind that adds nothing is
    left out, as yaku are), so that the lines' han add up to the hand's han (an overlay that
    left dora out showed "2 han" over one 1-han line); MCR fans ``{"name", "points",
    "count"}`` (flowers are a fan). Empty for a result with an error or none."""
    if not result or result.get("error"):
        return []
    if "fans" in result:
        return [{"name": f["name"], "points": f["points"], "count": f.get("count", 1)}
                for f in result["fans"]]
    dora = result.get("dora") or {}
    return ([{"name": y["name"], "han": y["han"]} for y in result.get("yaku", [])]
            + [{"name": name, "han": dora[key]} for key, name in DORA_LINES if dora.get(key)])


@dataclass(frozen=True)
class LayoutGroup:
    """A group of the current hand to outline (``vision.photo.annotate.GroupLike``): ``kind`` is
    ``meld``, ``win`` or ``dora``; ``detections`` its tiles."""

    kind: str
    detections: tuple[Detection, ...]
    label: str | None = None           # the outline's label when not the kind


def _guessed_numbers(warnings) -> list[int]:
    """Tiles (1-based, scorer order) that the pipeline re-read from the reader's next guesses."""
    return sorted({n for w in warnings or () if isinstance(w, dict) and w.get("code") == "corrected"
                   for n in w.get("tiles", ())})


def layout_groups(scored: dict | None) -> list[LayoutGroup]:
    """The melds, winning tile and dora row of a ``tilescope score --json`` dict, as groups
    of detections (group ``tiles`` are 1-based numbers into the dict's ``tiles`` list), and
    each tile re-read from the reader's next guesses as a ``guessed`` group labelled with the
    tile it was taken for (the banner says "guessed"; the video shows which)."""
    if not scored or not scored.get("layout"):
        return []
    tiles = scored.get("tiles") or []
    out = []
    for n in _guessed_numbers(scored.get("warnings")):
        if 1 <= n <= len(tiles):
            tile = tiles[n - 1]["tile"]
            out.append(LayoutGroup("guessed", (Detection(tile, tuple(tiles[n - 1]["box"]), 1.0),),
                                   f"guessed {tile}?"))
    for g in scored["layout"].get("groups", []):
        if g.get("kind") not in ("meld", "win", "dora"):
            continue
        dets = tuple(Detection(tiles[n - 1]["tile"], tuple(tiles[n - 1]["box"]), 1.0)
                     for n in g.get("tiles", []) if 1 <= n <= len(tiles))
        if dets:
            out.append(LayoutGroup(g["kind"], dets))
    return out


# the banner's text for a value read from unsure tiles (hand_message's "unsure"): amber, the
# overlay page's mark, where a sure value is white
UNSURE_BANNER = (36, 191, 251)


def draw_frame(image: np.ndarray, detections: Detections | None, banner: str | None,
               groups: list[LayoutGroup] = (), unsure: bool = False) -> np.ndarray:
    """A copy of ``image`` ``(H, W, 3) uint8`` BGR (returned the same shape) with tile boxes
    and codes, the current hand's melds / winning tile / dora row outlined
    (``vision.photo.annotate.draw``) and a score banner along the bottom, amber when ``unsure``."""
    import cv2

    from vision.photo.annotate import draw

    out = draw(image, detections.tiles if detections is not None else (), groups=groups)
    h, w = out.shape[:2]
    scale = max(0.4, min(w, h) / 900)
    if banner:
        bh = int(48 * scale) + 10
        out[h - bh:h] = (out[h - bh:h].astype(np.float32) * 0.35).astype(np.uint8)
        font, thick = cv2.FONT_HERSHEY_SIMPLEX, max(1, int(2.5 * scale))
        margin = int(12 * scale)
        size = 1.1 * scale
        width = cv2.getTextSize(banner, font, size, thick)[0][0]
        if width > w - 2 * margin:          # a long line is set smaller, down to 60%, then cut
            size *= max(0.6, (w - 2 * margin) / width)
            text = banner
            while text and cv2.getTextSize(banner, font, size, thick)[0][0] > w - 2 * margin:
                text = text[:-1]
                banner = text.rstrip() + "..."
        cv2.putText(out, banner, (margin, h - int(16 * scale) - 4), font, size,
                    UNSURE_BANNER if unsure else (255, 255, 255), thick, cv2.LINE_AA)
    return out


@dataclass
class StreamStats:
    """What a run did: frames read, frames detected (taken into the tracked hand), live
    frames dropped, hands reported, seconds spent (wall clock), and how many of the detected
    frames the models read (with a ``ReadPlanner``, the rest were held)."""

    frames: int = 0
    detected: int = 0
    dropped: int = 0
    events: int = 0
    seconds: float = 0.0
    full_reads: int = 0     # detected frames read by the models (the others held: read_plan)

    @property
    def detect_fps(self) -> float:
        """Detected frames per second of wall-clock time."""
        return self.detected / self.seconds if self.seconds > 0 else 0.0


def _makes_a_hand(scored: dict | None) -> bool:
    """Whether a scorer's dict is a hand: scored, or a hand in play with its waits."""
    return bool(scored) and (not (scored.get("result") or {}).get("error") or bool(scored.get("waits")))


class StreamRunner:
    """Frames → detections → stable hands → scores → sinks.

    ``reader``: ``read(image) -> Detections``; when its detections name zoom windows
    (:attr:`Detections.windows`), the next frames are read ``read(image, windows=...)``
    through them, with a full read every :data:`REFRESH_FRAMES`. ``scorer``: (frame,
    detections) → score dict (``pipeline_scorer``); None reports tiles only. ``on_hand``: called with each overlay
    message (``hand_message``). ``writer``: a ``cv2.VideoWriter``-like object given every
    frame annotated with the latest boxes and the current hand's banner. ``writer_fps``: the
    writer's frame rate; given, each frame is written as often as keeps the video in step with
    the frames' times (a live source's frames are only those the reader had time for: written
    once each, a 10-minute session would play in a minute), and a frame whose time was already
    written is left out. ``context``: the ``vision.stream.livecontext.LiveContext`` the scorer reads;
    when its ``version`` moves, the hand on screen is scored again and sent anew.
    ``planner``: a :class:`vision.stream.read_plan.ReadPlanner`; given, a frame is read only when it
    changed since the last read (or to settle or audit), and the others hold the tracked
    tiles, moved by the camera's shake; None reads every detected frame.
    """

    def __init__(self, reader, stabiliser: HandStabiliser | None = None,
                 scorer: Callable[[np.ndarray, Detections], dict] | None = None,
                 on_hand: Callable[[dict], None] | None = None, writer=None,
                 writer_fps: float | None = None, context=None, planner=None):
        self.reader = reader
        self.planner = planner          # a ReadPlanner: only frames that changed are read
        self.context = context          # a LiveContext: a change rescores the hand on screen
        self._version = context.version if context is not None else 0
        self._event: HandEvent | None = None    # the hand on screen
        self.stabiliser = stabiliser or HandStabiliser()
        self.scorer = scorer
        self.on_hand = on_hand
        self.writer, self.writer_fps = writer, writer_fps
        self.written = 0                                    # frames given to the writer
        self._out_size: tuple[int, int] | None = None      # (width, height) written first
        self.banner: str | None = None
        self.unsure = False     # the banner's value was read from unsure tiles
        self.groups: list = []  # meld / win outlines of the current hand
        self._groups_key: tuple = ()    # the tracked hand they belong to (HandEvent.key)
        self._boxes: Detections | None = None
        self._windows: tuple = ()
        self._shown: tuple[int, bool] = (0, False)   # tiles of the hand on screen, and scored?
        self._last: Frame | None = None     # the last frame stepped: rescored after the end
        self.stats = StreamStats()

    def step(self, frame: Frame, detect: bool = True) -> dict | None:
        """Process one frame; returns the overlay message when the stable hand changed, or
        when the hand on screen was rescored under a changed context."""
        self.stats.frames += 1
        self._last = frame
        message = self._detect(frame) if detect else None
        if message is None and self.context is not None and self.context.version != self._version:
            message = self._rescore(frame)
        if self.writer is not None:
            self._write(frame)
        return message

    def refresh(self) -> dict | None:
        """After the source ended (the overlay kept up): the hand on screen rescored when the
        context changed since, as :meth:`step` would; None otherwise."""
        if self._last is None or self.context is None or self.context.version == self._version:
            return None
        return self._rescore(self._last)

    def _detect(self, frame: Frame) -> dict | None:
        """Read one frame's tiles into the stabiliser (or, with a planner, hold the tracked
        tiles when nothing changed); score and publish a new stable hand."""
        plan = self.planner.plan(frame.image) if self.planner is not None else None
        self.stats.detected += 1
        if plan is not None and not plan.full:
            event = self.stabiliser.hold(plan.shift, frame.index)
        else:
            dets = self._read(frame.image, whole=plan is not None and plan.whole)
            # a frame of grain read as hundreds of boxes (Detections.crowded) says nothing of
            # the hand: the tracked tiles and the value on screen stay as they were
            crowded = getattr(dets, "crowded", 0)
            if self.planner is not None:
                agrees = not crowded and sorted((d.tile, d.sideways) for d in dets.tiles) == sorted(
                    self.stabiliser.key)
                self.planner.read(frame.image, dets, agrees)
            event = None if crowded else self.stabiliser.update(dets, frame.index)
        self._boxes = self.stabiliser.shown  # tracked tiles: no box flickers in the video
        if event is None:
            return None
        scored = self._score(frame.image, event) if (self.scorer and event.tiles) else None
        if self._covered(event, scored):
            # fewer tiles that make no hand, where a scored hand was shown: the hand is
            # partly covered (an arm over it), and its value stays on screen
            return None
        self.stats.events += 1
        return self._publish(event, scored, frame)

    def _read(self, image: np.ndarray, whole: bool = False) -> Detections:
        """One full read of ``image`` by the reader."""
        # the last read's zoom windows, while fresh: a hand camera's small tiles are read
        # without a pass over the whole frame first (a full read every REFRESH_FRAMES, or
        # one the planner asks to be ``whole``, finds tiles that came into view elsewhere)
        hint = () if whole or self.stats.full_reads % REFRESH_FRAMES == 0 else self._windows
        self.stats.full_reads += 1
        dets = self.reader.read(image, windows=hint) if hint else self.reader.read(image)
        self._windows = getattr(dets, "windows", ())
        return dets

    def _rescore(self, frame: Frame) -> dict | None:
        """The hand on screen scored again under the context as it is now (the control page
        changed it); None when no hand is on screen."""
        self._version = self.context.version
        event = self._event
        if event is None or not event.tiles or self.scorer is None:
            return None
        return self._publish(event, self._score(frame.image, event), frame)

    def _publish(self, event: HandEvent, scored: dict | None, frame: Frame) -> dict:
        """The hand's message, to the banner, the outlines and ``on_hand``."""
        if self.context is not None:
            self._version = self.context.version
        message = hand_message(event, scored, frame.time_s)
        self._event = event
        self._shown = (len(event.tiles), _makes_a_hand(scored))
        hand = message["hand"]
        self.banner = None if hand is None else (
            " ".join(hand["tiles"]) if self.scorer is None else hand["summary"])
        self.unsure = hand is not None and hand["unsure"]
        self.groups, self._groups_key = layout_groups(scored), event.key
        if self.on_hand is not None:
            self.on_hand(message)
        return message

    def _write(self, frame: Frame) -> None:
        """The frame, annotated, to the writer (as often as its time asks)."""
        # the outlines are the scored hand's: drawn while the tiles shown are that hand,
        # never over the next one being laid down (they stayed until it held still)
        groups = self.groups if self.stabiliser.shown_key == self._groups_key else []
        drawn = draw_frame(frame.image, self._boxes, self.banner, groups, self.unsure)
        if self._out_size is None:
            self._out_size = drawn.shape[1::-1]
        elif drawn.shape[1::-1] != self._out_size:
            # a webcam that changes resolution: a video file keeps its first frame size
            # (OpenCV drops every frame of another size without a word)
            import cv2

            drawn = cv2.resize(drawn, self._out_size, interpolation=cv2.INTER_AREA)
        due = self.written + 1 if self.writer_fps is None else round(frame.time_s * self.writer_fps) + 1
        # a stall's frames, at most 10 s of them: a frame time far ahead is no reason to
        # write minutes of copies, and the video goes on from there (not catching up)
        copies = min(due - self.written, max(1, int(10 * (self.writer_fps or 0))))
        for _ in range(copies):
            self.writer.write(drawn)
        self.written = max(self.written, due)

    def _covered(self, event: HandEvent, scored: dict | None) -> bool:
        """``event`` is a scored hand's tiles partly hidden: fewer than the hand on screen,
        which was scored, and making no hand themselves (an empty table is no such thing)."""
        shown_tiles, shown_scored = self._shown
        return (bool(event.tiles) and scored is not None and shown_scored
                and not _makes_a_hand(scored) and len(event.tiles) < shown_tiles)

    def _score(self, image: np.ndarray, event: HandEvent) -> dict:
        try:
            return self.scorer(image, event.detections)
        except ValueError as exc:  # a hand the pipeline refuses is shown, not fatal
            return {"request": None, "result": {"valid": False, "error": str(exc)}, "warnings": []}

    def run(self, source: FrameSource, progress: bool = False,
            stop: threading.Event | None = None) -> StreamStats:
        """Process ``source`` until it ends (or ``stop`` is set); returns the stats."""
        bar = None
        if progress and not source.live:
            from vision.common.progress import Progress

            bar = Progress("stream", source.frame_count, unit="frames", tqdm_unit="frame")
        t0 = time.monotonic()
        try:
            for frame, detect in source.frames():
                if stop is not None and stop.is_set():
                    break
                self.step(frame, detect)
                if bar is not None:
                    bar.update(1)
        finally:
            if bar is not None:
                bar.close()
            self.stats.seconds = time.monotonic() - t0
            self.stats.dropped = source.dropped
        return self.stats
