"""Learning a set profile: from a photo of the set's tiles, and from a corrected tile.

``photo + the tiles it shows, in reading order -> detections -> one reference per tile``. The
reader finds the tiles; the user's ``--tiles`` text names them (rows top to bottom, each left
to right: :func:`sheet_order`, the layout parser's rows, which stay apart when a row is
tilted). Three checks keep a wrong sheet from being learned silently: the count must match; a
sheet whose tiles mostly read as other kinds than named is refused (rows out of order); two
tiles that each read surely as the other's kind (swapped on the table?) are learned as named
but said first, since an unfamiliar set can confuse two kinds both ways (3z and 2z on some
real sets), and a refusal would leave such a set unlearnable.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, replace

import numpy as np

from scoring.tiles import TileError, parse_tiles
from .classes import CLASS_INDEX, TILE_CLASSES
from .detections import Detection, Detections
from .rows import find_rows, row_direction
from .tile_crops import crop_boxes
from .tileset import SetError, TileSet, calibrate, empty

# A tile "reads as" another kind when the classifier gives that kind at least SURE_OTHER and
# the given kind under GIVEN_UNLIKELY (a swap is two such tiles, each read as the other's
# kind). On rendered sheets of the 13 training styles a correctly laid tile was never that far
# from its kind; a set's systematic misreads (a haku as a back) are named, not refused.
SURE_OTHER = 0.9
GIVEN_UNLIKELY = 0.02
# More than this share of a sheet's tiles read surely as other kinds: the order is wrong (two
# rows run together, a row read backwards), not the set's look (a rendered sheet whose sou and
# honour rows touched read 14 of 37 so; an unfamiliar set, jade, at most 5).
MOSTLY_OTHER = 0.25
# Detector thresholds tried, in this order, when the tiles found at the reader's own are not as
# many as --tiles names (rendered sheets of riichi-black: seed 101 found 36 of 37 at 0.25).
SHEET_THRESHOLDS = (0.15, 0.35, 0.1, 0.45)


@dataclass(frozen=True)
class Disagreement:
    """Tile ``index`` (0-based, reading order) given as ``given`` reads surely as ``read``."""

    index: int
    given: str
    read: str
    confidence: float

    def __str__(self) -> str:
        return (f"tile {self.index + 1} was given as {self.given}, the reader names it "
                f"{self.read} ({self.confidence:.2f})")


@dataclass(frozen=True)
class Learned:
    """What :func:`learn_sheet` did: the new profile, the tiles it found (reading order), each
    tile's given kind, the tiles whose reading disagreed with their kind (learned as given) and
    the pairs of them that look swapped (each read as the other's kind)."""

    tileset: TileSet
    detections: Detections
    kinds: tuple[str, ...]
    disagreements: tuple[Disagreement, ...]
    swaps: tuple[tuple[Disagreement, Disagreement], ...] = ()
    sheet_probs: np.ndarray | None = None    # (N, 46): the classifier's reading of each tile


class SheetRefused(SetError):
    """A sheet not learned: the tiles found (``detections``, reading order) are not as many as
    ``named``, or ``misread`` (tiles that read surely as other kinds than named) are most of
    them. :meth:`words` says it with the caller's names for the tiles given and for learning
    anyway (the command line's flags by default, the server's fields, or the sheet assumed)."""

    def __init__(self, detections: Detections, named: int, misread: tuple[Disagreement, ...] = ()):
        self.detections, self.named, self.misread = detections, named, misread
        super().__init__(self.words())

    @property
    def found(self) -> int:
        return len(self.detections.tiles)

    def words(self, count: str = "--tiles names {n}", named: str = "--tiles names them",
              anyway: str = "pass --trust-order if the --tiles text is right") -> str:
        """The refusal; ``count`` says how many tiles were given (``{n}``), ``named`` who named
        them, ``anyway`` how to learn the sheet all the same."""
        if not self.misread:
            return (f"found {self.found} tiles in the photo, but {count.format(n=self.named)}: lay "
                    "the tiles apart on a plain surface, in rows, and name each once")
        return (f"{len(self.misread)} of the {self.named} tiles read surely as other kinds than "
                f"{named} (the first: {self.misread[0]}): the rows may run in another order "
                f"than named, or touch; lay them apart in rows, top to bottom, or {anyway}")


def parse_sheet(text: str) -> list[str]:
    """The kinds a ``--tiles`` text names, in order: mpsz groups (``123m 0p 1234f``) and the
    word ``back`` for a face-down tile; spaces only separate. Raises ``SetError``."""
    kinds: list[str] = []
    for word in text.split():
        if word.lower() in ("back", "backs"):
            kinds.append("back")
            continue
        try:
            kinds += [str(t) for t in parse_tiles(word)]
        except TileError as exc:
            raise SetError(f"--tiles: {exc}") from None
    if not kinds:
        raise SetError("--tiles names no tile")
    return kinds


def sheet_rows(text: str) -> list[int]:
    """How many tiles each row of a ``--tiles`` text holds as the sheet is laid: each mpsz group
    a row, a ``back`` word at the end of the row before it (the default sheet's last row is the
    red fives and the face-down tile)."""
    rows: list[int] = []
    for word in text.split():
        n = len(parse_sheet(word))
        if word.lower() in ("back", "backs") and rows:
            rows[-1] += n
        else:
            rows.append(n)
    return rows


def sheet_order(tiles: list[Detection]) -> list[Detection]:
    """The tiles of a sheet in reading order: rows (:func:`vision.read.rows.find_rows`, each
    refined along its own line) top to bottom, each left to right. A chain of centre heights
    (:func:`vision.read.detector.reading_order`) merges two rows that a tilt or perspective brings
    close: on rendered sheets it read the pins and bamboos of two such rows alternately."""
    if len(tiles) < 2:
        return list(tiles)
    upright = [replace(d, sideways=False) for d in tiles]   # a sheet lies upright; no kakan pairs
    rows = sorted(find_rows(upright, row_direction(upright), max_row_gap=4.0), key=lambda r: r.v)
    back = {id(u): d for u, d in zip(upright, tiles)}
    return [back[id(t.det)] for row in rows for slot in row.slots for t in slot.tiles]


def disagreements(probs: np.ndarray, kinds: list[str]) -> list[Disagreement]:
    """Tiles (rows of ``probs`` ``(K, 46)``) whose given kind the reader finds unlikely while
    it is sure of another."""
    out = []
    for i, kind in enumerate(kinds):
        best = int(probs[i].argmax())
        if (TILE_CLASSES[best] != kind and probs[i, best] >= SURE_OTHER
                and probs[i, CLASS_INDEX[kind]] < GIVEN_UNLIKELY):
            out.append(Disagreement(i, kind, TILE_CLASSES[best], float(probs[i, best])))
    return out


def swapped(found: list[Disagreement]) -> list[tuple[Disagreement, Disagreement]]:
    """Pairs of disagreeing tiles each read as the other's given kind: tiles swapped on the table."""
    by_given = {}
    for d in found:
        by_given.setdefault(d.given, []).append(d)
    pairs = []
    for d in found:
        for e in by_given.get(d.read, ()):
            if e.read == d.given and d.index < e.index:
                pairs.append((d, e))
    return pairs


def reference_crops(image_bgr: np.ndarray, boxes: np.ndarray, size: int) -> np.ndarray:
    """The boxes cut as the classifier sees them, kept as a profile keeps them:
    ``(N, size, size, 3) uint8`` BGR (:func:`vision.read.tile_crops.crop_boxes`, back to bytes)."""
    tensors = crop_boxes(image_bgr, boxes, size)
    return np.ascontiguousarray((tensors * 255.0 + 0.5).astype(np.uint8).transpose(0, 2, 3, 1))


def learn_sheet(reader, image_bgr: np.ndarray, kinds: list[str], *, into: TileSet | None = None,
                name: str = "set", source: str = "photo", trust_order: bool = False) -> Learned:
    """Add one reference per tile of a photo of a set to ``into`` (a new profile when None).

    ``reader``: a :class:`vision.read.detector.TileReader` (its profile, if any, is not used: the
    sheet is judged by the classifier alone). ``kinds``: the tiles the photo shows in reading
    order (:func:`parse_sheet`). Raises ``SetError`` when the tiles found are not as many as
    given (``.detections`` on the error holds them, for a picture) or most of them read as other
    kinds than given (``trust_order`` learns them all the same).
    """
    plain = reader.with_set(None)
    dets = plain.read(image_bgr)
    for conf in SHEET_THRESHOLDS:
        if len(dets.tiles) == len(kinds):
            break
        # the user said how many tiles there are: a tile just under the detector's threshold
        # (or a shadow just over it) is found at another one
        other = copy.copy(plain)
        other.conf = conf
        again = other.read(image_bgr)
        if len(again.tiles) == len(kinds):
            dets = again
    dets = replace(dets, tiles=sheet_order(dets.tiles))
    if len(dets.tiles) != len(kinds):
        raise SheetRefused(dets, len(kinds))
    boxes = np.array([d.box for d in dets.tiles], np.float64)
    probs = plain.classify(image_bgr, boxes)
    found = disagreements(probs, kinds)
    if len(found) > MOSTLY_OTHER * len(kinds) and not trust_order:
        raise SheetRefused(dets, len(kinds), tuple(found))
    crops = reference_crops(image_bgr, boxes, reader.crop_size)
    base = into if into is not None else empty(name, reader.model_id)
    if base.model != reader.model_id and len(base):
        base = reader.with_set(base).tileset          # embedded anew by this classifier
    base = TileSet(base.name, base.kinds, base.crops, base.embeddings, reader.model_id, base.sources)
    sources = [f"{source} #{i + 1}" for i in range(len(kinds))]
    added = base.added(kinds, crops, reader.embed(crops), sources)
    sheet_probs = reader.reference_probs(added.crops)
    learned = replace(added, calibration=calibrate(added.kinds, sheet_probs, added.crops, added.embeddings))
    return Learned(learned, dets, tuple(kinds), tuple(found), tuple(swapped(found)), sheet_probs)


def learn_tile(reader, image_bgr: np.ndarray, tile: Detection, kind: str, into: TileSet,
               source: str) -> TileSet:
    """``into`` with the crop of one corrected tile added as a reference of ``kind``."""
    if kind not in CLASS_INDEX:
        raise SetError(f"unknown tile kind {kind!r}")
    crops = reference_crops(image_bgr, np.array([tile.box], np.float64), reader.crop_size)
    base = into
    if base.model != reader.model_id:
        base = reader.with_set(base).tileset if len(base) else empty(base.name, reader.model_id)
    return calibrated(reader, base.added([kind], crops, reader.embed(crops), [source]))


def calibrated(reader, tileset: TileSet) -> TileSet:
    """``tileset`` with its weight against the classifier decided from all its references
    (:func:`vision.read.tileset.calibrate`), as the profile file keeps it."""
    probs = reader.reference_probs(tileset.crops)
    return replace(tileset, calibration=calibrate(tileset.kinds, probs, tileset.crops, tileset.embeddings))
