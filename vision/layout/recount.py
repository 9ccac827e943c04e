"""When the count is off: read the boxes again without the doubtful ones.

A box lying 60% inside a surer one is a second box on one tile and is always left out. Then,
only if the tiles add up that way alone, a weak box astride two surer tiles is dropped, a box
taken for a second box is kept, an unsure face-down box (a tile's side or shadow) is dropped, or
two unsure boxes that are halves of one tile are merged; an open kan with one box astride its
neighbours is read as a pon when that adds up too. Each is a ``doubled`` warning.
"""
from __future__ import annotations

from functools import partial

from vision.read.detections import Detection, Detections
from vision.read.rows import BACK
from .boxes import doubled_boxes, merged_box, split_halves, straddling_boxes
from .parse import parse_once
from .result import Layout, tiles_add_up

# why a box was dropped so that the tiles add up (parse_once's ``why``)
ASTRIDE = ("{n} detection(s) lying astride two surer tiles were taken as a pattern across "
           "their joint and dropped: the tiles add up without them")
HALVES = ("{n} pair(s) of unsure boxes, each part of one tile, were taken as one tile: the "
          "tiles add up so")
SHADOW = ("{n} unsure face-down tile(s) were taken as the side or shadow of a tile and dropped: "
          "the tiles add up without them")


def parse_counted(detections: Detections, ruleset: str, gap_ratio: float, max_row_gap: float,
                  low_confidence: float, numbering: list[int] | None) -> Layout:
    """:func:`vision.layout.parse_layout` before any declared group: the first reading, or
    the first reading without doubtful boxes whose tiles add up when the first one's do not."""
    dets = list(detections.tiles)
    doubled = doubled_boxes(dets)
    parse = partial(parse_once, ruleset=ruleset, gap_ratio=gap_ratio, max_row_gap=max_row_gap,
                    low_confidence=low_confidence, numbering=numbering)
    layout = parse(dets, doubled, set(), "")
    if tiles_add_up(layout):
        second = _kan_astride(layout, dets, doubled, parse)
    else:
        second = (_without_doubtful(dets, doubled, low_confidence, parse)
                  or _halves_merged(dets, doubled, low_confidence, parse))
    return second or layout


def _kan_astride(layout: Layout, dets: list[Detection], doubled: set[int], parse) -> Layout | None:
    """An open kan of four boxes, one of them astride its neighbours, is a pon seen with a box
    on the joint (the count adds up either way: one tile and one kan fewer): the reading
    without that box when it adds up too, else None."""
    original = {id(d): dets[src] for d, src in zip(layout.order, layout.source)}
    in_kan = [original[id(d)] for g in layout.groups
              if g.kind == "meld" and g.meld_type == "daiminkan" for d in g.detections
              if id(d) in original]
    in_kan = straddling_boxes(dets, doubled, among=in_kan) if in_kan else set()
    if in_kan:
        second = parse(dets, doubled, in_kan, ASTRIDE)
        if tiles_add_up(second):
            return second
    return None


def _without_doubtful(dets: list[Detection], doubled: set[int], low_confidence: float,
                      parse) -> Layout | None:
    """The first reading that adds up of: without boxes astride two surer tiles, with the
    second boxes kept, without unsure face-down boxes; else None. Doubtful boxes are dropped,
    or kept, only when the tiles add up that way alone: in a tightly packed, foreshortened row
    real tiles overlap their neighbours as much."""
    backs = {id(d) for d in dets if d.tile == BACK and d.confidence < low_confidence} - doubled
    for inside, extra, why in ((doubled, straddling_boxes(dets, doubled), ASTRIDE),
                               (set(), set(), ""), (doubled, backs, SHADOW)):
        if inside == doubled and not extra:
            continue                        # the first reading again
        second = parse(dets, inside, extra, why)
        if tiles_add_up(second):
            return second
    return None


def _halves_merged(dets: list[Detection], doubled: set[int], low_confidence: float,
                   parse) -> Layout | None:
    """The reading with each pair of unsure boxes that are parts of one tile taken as one box
    (their union), when its tiles add up; else None."""
    halves = split_halves(dets, doubled, low_confidence)
    if not halves:
        return None
    merged, dropped = list(dets), set()
    for keep, drop in halves:
        at = next(k for k, d in enumerate(merged) if d is keep)
        merged[at] = merged_box(keep, drop, dets)
        dropped.add(id(drop))
    second = parse(merged, doubled, dropped, HALVES)
    return second if tiles_add_up(second) else None
