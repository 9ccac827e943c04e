"""Boxes that are no tile of their own: pure geometry on the detector's boxes.

A second box on a tile already seen (:func:`doubled_boxes`), a box astride two surer tiles (a
pattern across their joint, :func:`straddling_boxes`), and two unsure boxes that are halves of
one tile (:func:`split_halves`, joined by :func:`merged_box`). Which of them are left out is
decided by the count (:mod:`vision.layout.recount`).
"""
from __future__ import annotations

from dataclasses import replace

from vision.read.detections import Detection


def box_overlap(a: tuple, b: tuple) -> float:
    """Area (px²) shared by two boxes x1, y1, x2, y2; 0.0 when they do not overlap."""
    ix = min(a[2], b[2]) - max(a[0], b[0])
    iy = min(a[3], b[3]) - max(a[1], b[1])
    return ix * iy if ix > 0 and iy > 0 else 0.0


def box_area(box: tuple) -> float:
    """Area (px²) of a box x1, y1, x2, y2."""
    return max(box[2] - box[0], 0.0) * max(box[3] - box[1], 0.0)


def doubled_boxes(dets: list[Detection], inside: float = 0.6) -> set[int]:
    """Detections (by id) that are a second box on a tile already seen: at least ``inside`` of
    the box lies within a more confident detection's box. Touching or stacked tiles overlap
    far less, even on oblique photos."""
    out: set[int] = set()
    ranked = sorted(dets, key=lambda d: -d.confidence)
    for i, d in enumerate(ranked):
        x1, y1, x2, y2 = d.box
        area = max((x2 - x1) * (y2 - y1), 1e-6)
        for k in ranked[:i]:
            if id(k) in out:
                continue
            shared = box_overlap(d.box, k.box)
            if shared > 0 and shared > inside * min(area, k.width * k.height):
                out.add(id(d))
                break
    return out


STRADDLE_COVER = 0.8       # share of a box two surer neighbours cover between them ...
STRADDLE_EACH = 0.25       # ... each at least this much: a box astride two tiles


def straddling_boxes(dets: list[Detection], skip: set[int], among: list[Detection] | None = None
                ) -> set[int]:
    """Detections (by id) that sit astride two surer tiles: two more confident boxes each cover
    at least ``STRADDLE_EACH`` of the box and together ``STRADDLE_COVER``, and the two overlap
    each other less than they overlap it (two neighbours, not one tile seen twice). A tile
    pattern that runs across the joint of two tiles (bamboo sticks) reads as a tile there.
    ``among``: test only these detections (default: all but ``skip``)."""
    out: set[int] = set()
    live = [d for d in dets if id(d) not in skip]
    for d in (live if among is None else [d for d in among if id(d) not in skip]):
        x1, y1, x2, y2 = d.box
        area = max((x2 - x1) * (y2 - y1), 1e-6)
        covers = []
        for k in live:
            if k is d or k.confidence <= d.confidence or id(k) in out:
                continue
            shared = box_overlap(d.box, k.box)
            if shared > 0 and shared >= STRADDLE_EACH * area:
                covers.append((shared / area, k))
        covers.sort(key=lambda c: -c[0])
        if len(covers) < 2 or covers[0][0] + covers[1][0] < STRADDLE_COVER:
            continue
        (_, a), (_, b) = covers[:2]
        if box_overlap(a.box, b.box) / area < min(covers[0][0], covers[1][0]):
            out.add(id(d))
    return out


HALVES_SPAN = 1.3       # two parts of one tile span at most this many typical tile boxes
HALVES_PART = 0.75      # and neither part is more than this share of their span
HALVES_FILL = 0.8       # their boxes fill at least this share of the span (no gap between)


def split_halves(dets: list[Detection], skip: set[int], low_confidence: float
                  ) -> list[tuple[Detection, Detection]]:
    """Pairs ``(surer, other)`` of unsure boxes that are two parts of one tile (a sideways
    tile is read as two narrow boxes): they touch or overlap, neither covers more than
    ``HALVES_PART`` of the pair's span, and that span is at most ``HALVES_SPAN`` typical tile
    boxes (the median area). Disjoint pairs, the best fitting first."""
    live = [d for d in dets if id(d) not in skip]
    if len(live) < 3:
        return []
    areas = sorted(box_area(d.box) for d in live)
    typical = areas[len(areas) // 2]
    found = []
    unsure = [d for d in live if d.confidence < low_confidence]
    for i, a in enumerate(unsure):
        for b in unsure[i + 1:]:
            ua, ub = a.box, b.box
            span = (min(ua[0], ub[0]), min(ua[1], ub[1]), max(ua[2], ub[2]), max(ua[3], ub[3]))
            whole = box_area(span)
            if not whole <= HALVES_SPAN * typical:
                continue
            if max(box_area(ua), box_area(ub)) > HALVES_PART * whole:
                continue
            # they touch or overlap: their areas and the gap between them fill the span
            if box_area(ua) + box_area(ub) - box_overlap(ua, ub) < HALVES_FILL * whole:
                continue
            found.append((abs(whole - typical) / typical, a, b))
    out, used = [], set()
    for _, a, b in sorted(found, key=lambda f: f[0]):
        if id(a) in used or id(b) in used:
            continue
        used |= {id(a), id(b)}
        out.append((a, b) if a.confidence >= b.confidence else (b, a))
    return out


def merged_box(keep: Detection, drop: Detection, dets: list[Detection]) -> Detection:
    """``keep`` with the box spanning it and ``drop``, turned (sideways) when that box is
    wider for its height than the photo's tiles are (as :func:`vision.read.detector.mark_sideways`)."""
    a, b = keep.box, drop.box
    box = (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))
    aspects = sorted((d.box[2] - d.box[0]) / max(d.box[3] - d.box[1], 1e-6) for d in dets)
    typical = aspects[len(aspects) // 2]
    aspect = (box[2] - box[0]) / max(box[3] - box[1], 1e-6)
    return replace(keep, box=box, sideways=aspect > 1.25 * typical or aspect < typical / 1.25)
