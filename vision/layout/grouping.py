"""The layout stage the pipeline calls, the layout package's entry: the reader's tiles grouped as
a winning hand lies on the table (:func:`parse_layout`, :func:`reparse_fixed` after ``--fix``),
with the names a laid-out winning hand rules out replaced by the reader's next guesses: flowers in riichi (:data:`NOT_IN_RIICHI`), a face-down
tile in the concealed part, a flower inside an MCR hand's row. Each renamed tile is listed in a
warning (:func:`renamed_warning`) naming the ``--fix`` that overrules it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

from vision.read.detections import Detection, Detections
from vision.read.rows import BACK, row_direction

from .declared import apply_fixes, declare_groups, renumbered
from .groups import LOW_CONFIDENCE, LayoutWarning
from .recount import parse_counted
from .result import Layout
from .sets import closed_kan_shown

# Riichi is played without flowers and seasons (they are taken out of the set), so a tile the
# reader thinks looks most like one is another tile of the hand read poorly.
NOT_IN_RIICHI = frozenset(f"{n}f" for n in range(1, 9))


@dataclass(frozen=True, slots=True)
class Grouped:
    """The layout stage's output: the tiles (renamed), their layout, the tiles renamed for the
    set in play or the row (``renamed``) and those read face down taken as faces (``faces``)."""

    detections: Detections
    layout: Layout
    renamed: list[Detection]
    faces: list[Detection]

    def warnings(self) -> list[LayoutWarning]:
        """The ``not_flowers`` and ``not_backs`` warnings listing the renamed tiles."""
        ruleset = self.layout.ruleset
        not_flowers = renamed_warning(self.layout, self.renamed, "not_flowers", (
            "riichi is played without flowers, but some tiles looked most like one" if ruleset == "riichi"
            else "flowers are set aside, but some tiles inside the hand's row looked most like one"))
        not_backs = renamed_warning(self.layout, self.faces, "not_backs",
                                    "a winning hand is shown face up, but some of its tiles looked face down")
        return [w for w in (not_flowers, not_backs) if w is not None]


def parse_layout(detections: Detections, ruleset: str = "riichi", *,
                 gap_ratio: float = 0.17, max_row_gap: float = 2.5,
                 low_confidence: float = LOW_CONFIDENCE,
                 numbering: list[int] | None = None,
                 declared: dict[tuple[int, int], str] | None = None) -> Layout:
    """Group the tiles of one photo into a hand (the steps: :mod:`vision.layout`).

    ``detections``: the detector's output (boxes in image pixels). ``ruleset``: ``riichi``
    (a separate short row is the dora indicators) or ``mcr`` (flowers are counted; exposed sets
    need not have a sideways tile). ``gap_ratio``: a gap wider than this many tile widths
    splits a row (the winning tile and melds are set apart). ``max_row_gap``: tiles further
    apart along a row than this many tile widths belong to different rows.
    ``low_confidence``: tiles below it get a warning with the detector's alternatives.
    ``numbering``: number the tiles as an earlier layout of the same detections did (its
    ``source``), so that a ``--fix N`` read off one report names the same tile in the next
    even when re-read tiles turned the reading direction (tiles it did not number come last);
    default: this layout's reading order.
    ``declared``: groups the user declares, ``{(first, last): type}`` in this layout's
    numbering (``--meld 9-11=chi``; see :func:`declare_groups`), laid over the parse.

    Returns a :class:`Layout`; never raises for odd input — an empty photo gives an empty
    layout with a ``tile_count`` warning. Raises ValueError for an unknown ruleset, or a
    ``declared`` group that does not fit the tiles (:func:`check_declared`).
    """
    if ruleset not in ("riichi", "mcr"):
        raise ValueError(f"unknown ruleset {ruleset!r} (use riichi or mcr)")
    layout = parse_counted(detections, ruleset, gap_ratio, max_row_gap, low_confidence, numbering)
    return declare_groups(layout, declared, low_confidence) if declared else layout


def reparse_fixed(layout: Layout, detections: Detections, fixes: dict[int, str],
                  declared: dict[tuple[int, int], str] | None = None) -> tuple[Detections, Layout]:
    """Apply ``fixes`` (see :func:`apply_fixes`) and parse again, numbering the tiles as
    ``layout`` did: a ``--fix N`` read off one report names the same tile in the next, even when
    the fixed tiles turn the reading direction or move a tile into the flowers. A box dropped
    with ``none`` frees its number; the tiles after it move up by one. ``declared``: groups
    the user declares (``--meld``, :func:`declare_groups`), numbered as ``layout`` was; default
    ``layout.declared`` (kept through every later re-reading). Raises ValueError as
    :func:`apply_fixes` and :func:`check_declared`, and for a declared group holding a box
    dropped with ``none``."""
    fixed = apply_fixes(layout, detections, fixes)
    numbering, declared = renumbered(layout, fixes, layout.declared if declared is None else declared)
    return fixed, parse_layout(fixed, layout.ruleset, numbering=numbering, declared=declared or None)


def group(detections: Detections, ruleset: str) -> Grouped:
    """The reader's tiles grouped as a winning hand is laid out: names the set in play lacks
    replaced (riichi: no flowers), then :func:`parse_layout`, :func:`faces_for_backs` and
    :func:`flowers_in_row`."""
    renamed: list[Detection] = []
    if ruleset == "riichi":
        detections, renamed = without_names(detections, NOT_IN_RIICHI)
    layout = parse_layout(detections, ruleset)
    detections, layout, faces = faces_for_backs(detections, layout)
    detections, layout, in_row = flowers_in_row(detections, layout)
    return Grouped(detections, layout, renamed + in_row, faces)


def without_names(detections: Detections, absent: frozenset[str],
                  only: list[Detection] | None = None) -> tuple[Detections, list[Detection]]:
    """``detections`` with each tile named in ``absent`` (names the set in play lacks, e.g.
    :data:`NOT_IN_RIICHI`) renamed to its likeliest alternative that is not, with that
    alternative's confidence; names in ``absent`` are also dropped from every tile's
    alternatives. ``only``: look at these tiles (the objects of ``detections.tiles``) alone.
    A tile with no other alternative keeps its name. Returns the new detections and the
    renamed tiles (objects of the new list), in reading order."""
    tiles, renamed = [], []
    for d in detections.tiles:
        if only is not None and not any(d is o for o in only):
            tiles.append(d)
            continue
        alts = tuple((t, c) for t, c in d.alternatives if t not in absent)
        if d.tile in absent and alts:
            d = replace(d, tile=alts[0][0], confidence=alts[0][1], alternatives=alts[1:])
            renamed.append(d)
        elif len(alts) != len(d.alternatives):
            d = replace(d, alternatives=alts)
        tiles.append(d)
    return replace(detections, tiles=tiles), renamed


def faces_for_backs(detections: Detections, layout: Layout) -> tuple[Detections, Layout, list[Detection]]:
    """A winning hand is laid face up: a tile of the concealed part or the winning tile read
    as face down (``back``) is a face the reader took for a back — a blank white dragon or a
    set with dark faces — so it takes its likeliest face name (:func:`without_names`) and the
    photo is parsed again. A closed kan's backs are a meld, not these, also when the parser
    left the kan (back, face, face, back) in the hand row: they stay, and the parse without
    the other backs can set the kan apart (rendered riichi-black hand no. 115: three white
    dragons read as backs hid the closed kan beside them)."""
    hand = [d for g in layout.groups if g.kind in ("concealed", "win") for d in g.detections]
    kan_ends = {id(hand[i + k]) for i in range(len(hand) - 3) if closed_kan_shown(hand[i:i + 4])
                for k in (0, 3)}
    backs = [d for d in hand if d.tile == BACK and id(d) not in kan_ends]
    if not backs:
        return detections, layout, []
    absent = frozenset({BACK}) | (NOT_IN_RIICHI if layout.ruleset == "riichi" else frozenset())
    detections, renamed = without_names(detections, absent, only=backs)
    if not renamed:
        return detections, layout, []
    return detections, parse_layout(detections, layout.ruleset), renamed


def flowers_in_row(detections: Detections, layout: Layout) -> tuple[Detections, Layout, list[Detection]]:
    """MCR: flowers are set aside, away from the hand, so a tile read as a flower that lies in
    the concealed row between two of its tiles (across the row within half a tile of the
    line through them; along it, more than a third of a tile inside both ends) is a tile of
    the hand read poorly: it takes its likeliest non-flower name (:func:`without_names`) and
    the photo is parsed again. A flower in line beyond the row's end is left alone."""
    flowers = [d for g in layout.groups if g.kind == "flower" for d in g.detections]
    row = [d for g in layout.groups if g.kind == "concealed" for d in g.detections]
    if layout.ruleset != "mcr" or not flowers or len(row) < 2:
        return detections, layout, []
    cx = [d.center[0] for d in row]
    cy = [d.center[1] for d in row]
    mx, my = sum(cx) / len(cx), sum(cy) / len(cy)
    angle = row_direction(row)
    ux, uy = math.cos(angle), math.sin(angle)
    along = [(x - mx) * ux + (y - my) * uy for x, y in zip(cx, cy)]
    side = sorted(max(d.width, d.height) for d in row)[len(row) // 2]
    inside = []
    for f in flowers:
        fx, fy = f.center[0] - mx, f.center[1] - my
        t, off = fx * ux + fy * uy, abs(-fx * uy + fy * ux)
        if off < side / 2 and min(along) + side / 3 < t < max(along) - side / 3:
            inside.append(f)
    if not inside:
        return detections, layout, []
    detections, renamed = without_names(detections, NOT_IN_RIICHI, only=inside)
    if not renamed:
        return detections, layout, []
    return detections, parse_layout(detections, layout.ruleset), renamed


def renamed_warning(layout: Layout, renamed: list[Detection], code: str, why: str) -> LayoutWarning | None:
    """A warning ``code`` listing the tiles that :func:`without_names` renamed (numbered in
    ``layout``; a renamed box the layout dropped as doubled is not listed) and ``why``."""
    kept = [(n, d) for n, d in enumerate(layout.order, start=1) if any(d is r for r in renamed)]
    if not kept:
        return None
    listed = ", ".join(f"{n} as {d.tile}" for n, d in kept)
    return LayoutWarning(code, f"{why}: read tile {listed}, the reader's next guess",
                         " ".join(f"--fix {n}=TILE" for n, _ in kept), tuple(n for n, _ in kept))
