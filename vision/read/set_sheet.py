"""A set's reference sheet, without numpy (the offline page runs it in Pyodide): the tiles a
``--tiles`` text names, the sheet's tiles in reading order, and the checks that keep a wrong
sheet from being learned silently (:mod:`vision.read.set_learning` learns it; see its doc).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace

from scoring.tiles import TileError, parse_tiles
from .classes import CLASS_INDEX, TILE_CLASSES
from .detections import Detection, Detections
from .rows import find_rows, row_direction

# The reference sheet the README pictures: the 34 kinds and the three red fives, one each, and
# one tile face down, in rows top to bottom, each left to right (38 tiles).
DEFAULT_SHEET = "123456789m 123456789p 123456789s 1234567z 0m0p0s back"
# An MCR set's sheet: the same and the eight flowers and seasons as a sixth row.
FLOWER_SHEET = DEFAULT_SHEET + " 12345678f"
# A set's name (kept as NAME.npz in the user's data folder; the offline page keeps it in the
# browser): letters, digits, '_', '-' or '.', at most 40
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}")


def is_name(text: str) -> bool:
    """A profile name (kept in ``vision.read.tileset.data_dir``) rather than a file path."""
    return bool(NAME_PATTERN.fullmatch(text)) and not text.endswith(".npz")


class SetError(ValueError):
    """A profile that cannot be read, written or learned; the message names the problem."""


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


def disagreements(probs, kinds: list[str]) -> list[Disagreement]:
    """Tiles (rows of ``probs``, ``(K, 46)``: an array or lists, the offline page's) whose given
    kind the reader finds unlikely while it is sure of another."""
    out = []
    for i, kind in enumerate(kinds):
        row = [float(p) for p in probs[i]]
        best = max(range(len(row)), key=row.__getitem__)      # the first of equals, as argmax
        if (TILE_CLASSES[best] != kind and row[best] >= SURE_OTHER
                and row[CLASS_INDEX[kind]] < GIVEN_UNLIKELY):
            out.append(Disagreement(i, kind, TILE_CLASSES[best], row[best]))
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
