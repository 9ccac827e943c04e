"""One reading of the boxes as a hand: the parse's steps in order, on a given set of boxes.

:func:`parse_once` runs the steps below; which boxes to leave out (a second box on a tile, a
box astride two tiles) is decided around it by :mod:`vision.layout.recount`.

1. flowers are set aside (any ``1f``..``8f`` detection);
2. geometry (:mod:`vision.read.rows`): the row direction, which tiles lie sideways, the rows and
   their segments (cut at gaps);
3. the photo's orientation and the rows' roles (:mod:`vision.layout.orientation`,
   :mod:`vision.layout.roles`, melds by :mod:`vision.layout.melds`);
4. who each meld laid straight was called from (:func:`vision.layout.melds.infer_called`);
5. numbering and warnings (:func:`vision.layout.finish.finish`), and where the tiles lie.
"""
from __future__ import annotations

import math
from dataclasses import replace
from typing import Callable

from vision.read.detections import Detection
from vision.read.rows import Row, find_rows, refine_sideways, row_direction
from .finish import finish
from .groups import Group, LayoutWarning
from .melds import infer_called
from .orientation import best_reading
from .result import Layout


def parse_once(dets: list[Detection], doubled: set[int], extra: set[int], why: str, ruleset: str,
               gap_ratio: float, max_row_gap: float, low_confidence: float,
               numbering: list[int] | None) -> Layout:
    """:func:`vision.layout.parse_layout` without the detections (ids) in ``doubled`` (inside
    another, :func:`vision.layout.boxes.doubled_boxes`) and ``extra`` (dropped only so that the
    tiles add up; ``why``: the warning's text, ``{n}`` their number)."""
    dropped = doubled | extra
    flowers = [d for d in dets if d.tile.endswith("f") and id(d) not in dropped]
    rest = [d for d in dets if not d.tile.endswith("f") and id(d) not in dropped]
    source = {id(d): i for i, d in enumerate(dets)}      # each tile's index in ``dets``
    theta = row_direction(rest)
    rest = _turned(rest, theta, source)
    rows = find_rows(rest, theta, gap_ratio, max_row_gap)
    flipped, groups, warnings, rows = best_reading(rows, ruleset)
    warnings.extend(_dropped_warnings(bool(rest), doubled, extra, why))
    if flowers:
        groups.append(Group("flower", _in_reading_order(flowers, theta, flipped)))
    for g in groups:
        if g.kind == "meld" and g.from_ is None and g.meld_type != "ankan":
            infer_called(g, theta, ruleset)
    layout = finish(groups, ruleset, warnings, low_confidence, _position(numbering, source))
    _place(layout, source, theta, flipped, rows)
    return layout


def _turned(rest: list[Detection], theta: float, source: dict[int, int]) -> list[Detection]:
    """``rest`` with each tile's sideways flag decided in the row's own frame
    (:func:`vision.read.rows.refine_sideways`); a changed tile is a new value with its source kept."""
    rest = list(rest)
    for k, (d, side) in enumerate(zip(rest, refine_sideways(rest, theta))):
        if side != d.sideways:
            rest[k] = replace(d, sideways=side)
            source[id(rest[k])] = source[id(d)]
    return rest


def _dropped_warnings(any_tiles: bool, doubled: set[int], extra: set[int], why: str) -> list[LayoutWarning]:
    """No tile at all, or boxes left out: a warning each."""
    out = []
    if not any_tiles:
        out.append(LayoutWarning("tile_count", "no tiles were found in the photo"))
    if doubled:
        out.append(LayoutWarning(
            "doubled", f"{len(doubled)} detection(s) lying inside a more confident one were taken "
            "as the same tile and dropped"))
    if extra:
        out.append(LayoutWarning("doubled", why.format(n=len(extra))))
    return out


def _in_reading_order(tiles: list[Detection], theta: float, flipped: bool) -> list[Detection]:
    """Tiles set aside (flowers) in reading order: along the photo's row direction."""
    ex, ey = math.cos(theta), math.sin(theta)
    sign = -1 if flipped else 1
    return [d for _, d in sorted(zip([d.center for d in tiles], tiles),
                                 key=lambda p: sign * (p[0][0] * ex + p[0][1] * ey))]


def _position(numbering: list[int] | None, source: dict[int, int]) -> Callable[[Detection], int] | None:
    """Each tile's place in the numbering of an earlier layout (its ``source`` list), or None:
    this layout's reading order."""
    if numbering is None:
        return None
    rank = {src: n for n, src in enumerate(numbering)}
    # A tile the earlier layout had no number for (a fix can make the inner box of a doubled
    # pair the surer one, so the other is dropped instead) goes after the numbered ones.
    return lambda d: rank.get(source[id(d)], len(rank) + source[id(d)])


def _place(layout: Layout, source: dict[int, int], theta: float, flipped: bool, rows: list[Row]) -> None:
    """Record on ``layout`` where its tiles came from and lie: sources, reading direction, rows,
    and the meld repairs by tile number."""
    layout.source = [source[id(d)] for d in layout.order]
    reading = theta + (math.pi if flipped else 0.0)
    layout.upside_down = math.cos(reading) < 0      # read right to left in the image
    layout.direction = math.degrees(math.atan2(math.sin(reading), math.cos(reading)))
    layout.rows = len(rows)
    index = {id(d): n for n, d in enumerate(layout.order, start=1)}
    layout.row_numbers = [[index[id(t.det)] for sl in r.slots for t in sl.tiles if id(t.det) in index]
                          for r in rows]
    layout.meld_repairs = {layout.number(d): code for g in layout.groups if g.kind == "meld"
                           for d, code in g.repairs}
