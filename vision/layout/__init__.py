"""Layout parser: detected tiles → the groups of a mahjong hand → the tile part of a request.

Pure geometry and counting on :class:`vision.read.detections.Detections`; no image, no model.

How a hand lies on the table (what this parser assumes, the common convention at riichi and
MCR tables): the concealed tiles stand or lie in a row; the winning tile is set a little apart
at the row's right end (seen from the player); exposed melds lie further right (or in a row of
their own), the called tile turned sideways (its position tells who discarded it: leftmost =
player on the left, middle = across, rightmost = right); an added kan (kakan) is a sideways
tile with the fourth tile stacked on/beside it; a closed kan (ankan) shows two backs and two
faces. Riichi dora indicators lie in a separate, shorter row; flowers are set aside.

:func:`parse_layout` runs these steps, one module each:

1. ``recount``: leave out second boxes on a tile; when the count is off, read again without
   the doubtful boxes (``boxes``: which boxes are doubtful);
2. ``parse``: one reading of the boxes — flowers set aside, rows and segments
   (:mod:`vision.read.rows`), then
3. ``orientation``: upright or from across the table, both tried, the count decides;
4. ``roles``: which row is the hand, which are melds laid straight, dora indicators or loose
   tiles, and the hand row cut into concealed part | winning tile | melds;
5. ``melds``: which tiles form a meld, everywhere it is decided (``sets``: is it a set;
   ``repairs``: the one unsure tile's next guess that makes it one);
6. ``finish``: numbering, a :class:`LayoutWarning` for everything uncertain, the
   :class:`TileRequest` (``request``), the winning tile guessed when not set apart;
7. ``declared``: the user's ``--meld`` groups and ``--fix`` tiles laid over it
   (:func:`reparse_fixed`).

The pipeline's layout stage is :func:`group` (``grouping``): the names a laid-out hand rules out
replaced, then :func:`parse_layout`. ``rows`` (rows, sideways, segments) is the reader's
(:mod:`vision.read.rows`: reflections and set sheets use it too); ``fixspec`` parses ``--fix`` and
``--meld``.

Values: :class:`Layout` (``result``), :class:`Group` and :class:`LayoutWarning` (``groups``),
:class:`Grouped` (``grouping``).
"""
from __future__ import annotations

from vision.read.detections import Detections
from .boxes import doubled_boxes, split_halves, straddling_boxes
from .declared import (DECLARED_TYPES, NO_TILE, apply_fixes, check_declared, declare_groups,
                       renumbered)
from .groups import LOW_CONFIDENCE, Group, LayoutWarning
from .melds import tail_set
from .recount import parse_counted
from .request import RequestMeld, TileRequest, win_candidates
from .result import Layout, tiles_add_up
from .sets import closed_kan_shown, set_shape

__all__ = ["DECLARED_TYPES", "LOW_CONFIDENCE", "NOT_IN_RIICHI", "NO_TILE", "Group", "Grouped",
           "Layout", "LayoutWarning", "group",
           "RequestMeld", "TileRequest", "apply_fixes", "check_declared", "closed_kan_shown",
           "declare_groups", "parse_layout", "reparse_fixed", "set_shape", "tiles_add_up",
           "win_candidates"]

# the names tests/test_layout.py reaches inside for
_doubled, _straddling, _split_halves, _tail_set = doubled_boxes, straddling_boxes, split_halves, tail_set


def parse_layout(detections: Detections, ruleset: str = "riichi", *,
                 gap_ratio: float = 0.17, max_row_gap: float = 2.5,
                 low_confidence: float = LOW_CONFIDENCE,
                 numbering: list[int] | None = None,
                 declared: dict[tuple[int, int], str] | None = None) -> Layout:
    """Group the tiles of one photo into a hand.

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


# the stage the photo pipeline calls; last, as it builds on parse_layout above
from .grouping import NOT_IN_RIICHI, Grouped, group  # noqa: E402
