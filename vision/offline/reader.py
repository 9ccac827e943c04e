"""The browser's reader, as the Python pipeline sees it.

In the offline page the photo is decoded and read in JavaScript (``web/src/reader``:
onnxruntime-web), because the reader's numpy and OpenCV do not run in Pyodide; everything
after the reader is this package's Python. JavaScript cannot be awaited from the pipeline's
plain calls, so the page reads first and hands the readings in: ``reads["read"]`` is the
first look, ``reads["x"]``/``reads["y"]`` the second looks (:data:`vision.read.detections.SECOND_LOOKS`)
once taken. A second look the pipeline asks for and the page has not taken stops the run with
:class:`LookNeeded`; the page takes that look and runs the request again (the steps are
deterministic, so the run repeats itself up to the new look).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from vision.read.classes import TILE_CLASSES
from vision.read.detections import MAX_BOXES, Detection, Detections

_TILES = frozenset(TILE_CLASSES)


class LookNeeded(Exception):
    """The pipeline asked for a second look (``how``: ``x`` or ``y``) the page has not taken."""

    def __init__(self, how: str):
        super().__init__(how)
        self.how = how


class ReaderOutputError(ValueError):
    """The browser's reader gave something that is not a reading (a bug in the page)."""


@dataclass(frozen=True)
class BrowserPhoto:
    """The photo as the browser decoded it: its size, and ``pixels``, the page's object that
    measures its colour (``colouredShare()``, ``offTintShare(x1, y1, x2, y2)``: what
    :class:`vision.photo.photo_warnings.PhotoColour` measures of an array), or None."""

    width: int
    height: int
    pixels: Any = None

    @property
    def size(self) -> tuple[int, int]:
        return self.width, self.height

    def coloured_share(self) -> float | None:
        """None (no ``no_colour`` judgement) when the page measured nothing."""
        return None if self.pixels is None else float(self.pixels.colouredShare())

    def off_tint_share(self, x1: int, y1: int, x2: int, y2: int) -> float:
        return float(self.pixels.offTintShare(x1, y1, x2, y2))


class BrowserReader:
    """A reader (``read``, ``look_again``, ``take_photo``: see :func:`vision.photo.pipeline.score_photo`)
    that answers from the readings the page took (``reads``: ``{"read": …, "x": …}``, each the
    JavaScript reader's output, :func:`detections_of`)."""

    def __init__(self, reads: dict):
        self.reads = dict(reads or {})

    def take_photo(self, photo: BrowserPhoto) -> BrowserPhoto:
        return photo

    def read(self, photo: BrowserPhoto) -> Detections:
        if "read" not in self.reads:
            raise LookNeeded("read")
        return detections_of(self.reads["read"])

    def look_again(self, photo: BrowserPhoto, how: str) -> Detections:
        if how not in self.reads:
            raise LookNeeded(how)
        return detections_of(self.reads[how])


def _number(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ReaderOutputError(f"{what} is not a finite number")
    return float(value)


def _box(value: Any, what: str) -> tuple[float, float, float, float]:
    if not isinstance(value, (list, tuple)) or len(value) != 4:
        raise ReaderOutputError(f"{what} is not four numbers")
    x1, y1, x2, y2 = (_number(v, what) for v in value)
    return x1, y1, x2, y2


def _tile(obj: Any, n: int) -> Detection:
    what = f"tile {n}"
    if not isinstance(obj, dict) or obj.get("tile") not in _TILES:
        raise ReaderOutputError(f"{what} names no tile class")
    alternatives = []
    for alt in obj.get("alternatives") or ():
        if not isinstance(alt, (list, tuple)) or len(alt) != 2 or alt[0] not in _TILES:
            raise ReaderOutputError(f"{what}: an alternative is not [tile, confidence]")
        alternatives.append((alt[0], _number(alt[1], f"{what}'s alternative")))
    return Detection(tile=obj["tile"], box=_box(obj.get("box"), f"{what}'s box"),
                     confidence=_number(obj.get("confidence"), f"{what}'s confidence"),
                     sideways=bool(obj.get("sideways", False)), alternatives=tuple(alternatives[:3]))


def detections_of(obj: Any) -> Detections:
    """The JavaScript reader's output ``{width, height, tiles: [{tile, box, confidence,
    sideways, alternatives}], windows, reflections, crowded}`` (full-precision numbers) as the
    :class:`Detections` the Python reader would have given. Raises ReaderOutputError."""
    if not isinstance(obj, dict):
        raise ReaderOutputError("the reading is not an object")
    width, height = obj.get("width"), obj.get("height")
    if not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in (width, height)):
        raise ReaderOutputError("the reading has no image size")
    tiles = obj.get("tiles") or []
    if not isinstance(tiles, list) or len(tiles) > MAX_BOXES:
        raise ReaderOutputError(f"the reading's tiles are not a list of at most {MAX_BOXES}")
    windows = tuple(tuple(int(v) for v in _box(w, "a window")) for w in obj.get("windows") or ())
    mirrored = tuple(_box(b, "a reflection") for b in obj.get("reflections") or ())
    crowded = obj.get("crowded") or 0
    if not isinstance(crowded, int) or isinstance(crowded, bool) or crowded < 0:
        raise ReaderOutputError("crowded is not a count")
    return Detections(width=width, height=height, tiles=[_tile(t, n) for n, t in enumerate(tiles, 1)],
                      windows=windows, reflections=mirrored, crowded=crowded)
