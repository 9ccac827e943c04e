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

from .boxes import doubled_boxes, split_halves, straddling_boxes
from .declared import DECLARED_TYPES, NO_TILE, apply_fixes, check_declared, declare_groups
from .grouping import NOT_IN_RIICHI, Grouped, group, parse_layout, reparse_fixed
from .groups import LOW_CONFIDENCE, Group, LayoutWarning
from .melds import tail_set
from .request import RequestMeld, TileRequest, win_candidates
from .result import Layout, tiles_add_up
from .sets import closed_kan_shown, set_shape

__all__ = ["DECLARED_TYPES", "LOW_CONFIDENCE", "NOT_IN_RIICHI", "NO_TILE", "Group", "Grouped",
           "Layout", "LayoutWarning", "RequestMeld", "TileRequest", "apply_fixes", "check_declared",
           "closed_kan_shown", "declare_groups", "group", "parse_layout", "reparse_fixed", "set_shape",
           "tiles_add_up", "win_candidates"]

# the names tests/test_layout.py reaches inside for
_doubled, _straddling, _split_halves, _tail_set = doubled_boxes, straddling_boxes, split_halves, tail_set
