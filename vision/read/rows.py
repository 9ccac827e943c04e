"""Rows of tiles in a photo: pure geometry on detection boxes, no tile identities.

The first half of the layout parser (:mod:`vision.layout` does the counting):

1. the dominant row direction is the doubled-angle mean of nearest-neighbour vectors (tiles
   touch their row neighbours, rows lie further apart), so any photo rotation works;
2. each tile's extent along / across the row is recovered from its axis-aligned box;
3. which tiles lie turned sideways is checked against that geometry (:func:`refine_sideways`);
4. rows are the connected components of row-neighbour and kakan-stack links, each refined by
   its own line (perspective);
5. tiles are ordered along the row and cut into segments at gaps of more than ``gap_ratio``
   local tile pitches (centre to centre, which stays right where boxes are parallelograms').
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from .detections import Detection

BACK = "back"


@dataclass(slots=True, eq=False)
class _Tile:
    """A detection with its row coordinates (u along the row, v across it, towards the player)."""

    det: Detection
    u: float = 0.0
    v: float = 0.0
    along: float = 0.0      # extent along the row, pixels
    across: float = 0.0     # extent across the row, pixels
    partner: "_Tile | None" = None      # the other sideways tile of a kakan's stacked pair

    @property
    def sideways(self) -> bool:
        return self.det.sideways

    @property
    def width(self) -> float:
        """The tile's short side as seen in the row (what a gap is measured in)."""
        return self.across if self.sideways else self.along


def nearest_vectors(centers: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """The vector (dx, dy) from each point to its nearest other point (none for a lone point)."""
    out = []
    for i, (x, y) in enumerate(centers):
        best, vec = math.inf, None
        for j, (x2, y2) in enumerate(centers):
            if i != j:
                d = (x2 - x) ** 2 + (y2 - y) ** 2
                if d < best:
                    best, vec = d, (x2 - x, y2 - y)
        if vec is not None:
            out.append(vec)
    return out


def row_direction(dets: list[Detection]) -> float:
    """Dominant row direction in radians, in (-pi/2, pi/2], image coordinates (y down).

    The doubled-angle mean of nearest-neighbour vectors: tiles in a row touch, so most
    nearest neighbours lie along the row whatever the photo's rotation. 0 for fewer than 2 tiles.
    """
    vecs = nearest_vectors([d.center for d in dets])
    if not vecs:
        return 0.0
    doubled = [2.0 * math.atan2(vy, vx) for vx, vy in vecs]
    keep = doubled
    theta = 0.0
    for _ in range(3):
        # re-estimate from the vectors near the current estimate: the few links between
        # rows (a dora tile's nearest neighbour in the hand, a kakan's stacked tile) are outliers
        sx = sum(math.cos(a) for a in keep)
        sy = sum(math.sin(a) for a in keep)
        theta = 0.5 * math.atan2(sy, sx)
        keep = [a for a in doubled if math.cos(a - 2.0 * theta) > 0.5] or doubled
    if theta <= -math.pi / 2:
        theta += math.pi
    return theta


def tile_extents(det: Detection, theta: float, ratio: float) -> tuple[float, float]:
    """Extent (along, across) the row of a tile rectangle whose axis-aligned box is ``det.box``.

    A rectangle a x b turned by theta has box W = a|cos| + b|sin|, H = a|sin| + b|cos|.
    Solved directly when well conditioned; near 45 degrees only a + b is known and it is split
    by ``ratio`` (across / along of an upright tile, measured on the same photo).
    """
    w, h = det.width, det.height
    c, s = abs(math.cos(theta)), abs(math.sin(theta))
    det_ = c * c - s * s
    floor = 0.15 * max(w, h)
    if abs(det_) > 0.35:
        a = (w * c - h * s) / det_
        b = (h * c - w * s) / det_
        return max(a, floor), max(b, floor)
    total = (w + h) / (c + s)
    r = 1.0 / ratio if det.sideways else ratio
    return total / (1.0 + r), total * r / (1.0 + r)


def _project(tiles: list[_Tile], theta: float) -> None:
    ex, ey = math.cos(theta), math.sin(theta)
    nx, ny = -ey, ex          # normal, pointing "down" when theta = 0 (towards the player)
    for t in tiles:
        x, y = t.det.center
        t.u = x * ex + y * ey
        t.v = x * nx + y * ny


SIDEWAYS_CLEAR = 1.5       # a turned tile's along/across aspect over its neighbours' median


def refine_sideways(dets: list[Detection], theta: float) -> list[bool]:
    """Which tiles lie turned 90 degrees in their row: geometry in the row's own frame where it
    can be measured, the detector's flags where it cannot.

    A tile a x b (b/a about 4/3) turned sideways shows an along/across aspect (b/a)^2, about
    1.8 times an upright one's, whatever the camera's foreshortening (boxes that include the
    tile's thickness shrink the factor). Each tile is compared with its six nearest neighbours
    along the row of the same pose (across it within 1.1 tile depths: the same row, and a
    kakan's stacked tile; box area within x0.75..1.33, so standing concealed tiles are not
    compared with lying melds); above ``SIDEWAYS_CLEAR`` times their median it is turned,
    otherwise not. The detector's flags come from axis-aligned box shapes, which say nothing
    true about a slanted row, so they only stand where geometry cannot tell: a tile with fewer
    than two such neighbours, or a row near 45 degrees, where an axis-aligned box shows no
    orientation. A run of three or more "turned" tiles is then checked on its own
    (:func:`_turned_runs_rechecked`: a meld lying beside a standing hand). A turned tile missed
    here is no great loss: melds are also found by counting, and flags that make no legal meld
    are dropped later.

    ``SIDEWAYS_CLEAR`` = 1.5 was measured on 300 rendered hands (``benchmarks/pipeline.py
    --style riichi-regular --seed 7 --truth --box-sideways``): groups right 91.6% with the
    detector's flags deciding between 0.8 and 1.45, 95.1% with geometry deciding at 1.5
    (1.2: 90.7%, 1.36: 94.2%, 1.6: 95.1%, 1.75: 94.7%), 96.4% with the run check; with the
    classifier of the time, hands scored right 68.0% -> 70.7%.
    """
    c, s = abs(math.cos(theta)), abs(math.sin(theta))
    if len(dets) < 3 or abs(c * c - s * s) <= 0.35:
        return [d.sideways for d in dets]
    ext = [tile_extents(d, theta, 1.0) for d in dets]
    q = [a / max(b, 1e-6) for a, b in ext]
    area = [max(d.width * d.height, 1e-6) for d in dets]
    ex, ey = math.cos(theta), math.sin(theta)
    uv = [(x * ex + y * ey, -x * ey + y * ex) for x, y in (d.center for d in dets)]
    out = []
    for i, d in enumerate(dets):
        # same row (or a kakan's stacked tile), same pose: a lying tile turned or not covers
        # the same area; a standing one shows its whole face and covers more
        band = [j for j in range(len(dets)) if j != i
                and abs(uv[j][1] - uv[i][1]) <= 1.1 * max(ext[i][1], ext[j][1])
                and 0.75 < area[j] / area[i] < 1.33]
        near = sorted(band, key=lambda j: abs(uv[j][0] - uv[i][0]))[:6]
        if len(near) < 2:
            out.append(d.sideways)
            continue
        ratio = q[i] / max(median([q[j] for j in near]), 1e-6)
        out.append(ratio > SIDEWAYS_CLEAR)
    return _turned_runs_rechecked(out, q, ext, uv)


RUN_CLEAR = 1.2     # within a lying group, a turned tile's aspect over the group's median


def _turned_runs_rechecked(turned: list[bool], q: list[float], ext: list[tuple[float, float]],
                           uv: list[tuple[float, float]]) -> list[bool]:
    """Undo turns that only mean "lying among standing tiles".

    A meld beside a standing concealed hand lies flat, so all its tiles look turned next to the
    standing ones. But a meld has one turned tile (a kakan two, side by side or stacked), so a
    run of three or more turned tiles with no touching upright tile of their row on either side
    is one lying group: within it a tile is turned only if its aspect is ``RUN_CLEAR`` times the
    group's median, otherwise the melds are left to counting.
    """
    def touches(a: int, b: int) -> bool:
        return abs(uv[a][0] - uv[b][0]) <= 0.6 * (ext[a][0] + ext[b][0])

    out = list(turned)
    n = len(turned)
    for i in range(n):
        if not turned[i]:
            continue
        # the tile's own row (a stacked kakan tile sits a tile depth across: not a row-mate)
        mates = sorted((j for j in range(n) if abs(uv[j][1] - uv[i][1]) <= 0.6 * ext[i][1]),
                       key=lambda j: uv[j][0])
        k = mates.index(i)
        lo, hi = k, k
        while lo > 0 and turned[mates[lo - 1]]:
            lo -= 1
        while hi < len(mates) - 1 and turned[mates[hi + 1]]:
            hi += 1
        if hi - lo < 2:
            continue
        if (lo > 0 and touches(mates[lo - 1], mates[lo])) or \
                (hi < len(mates) - 1 and touches(mates[hi], mates[hi + 1])):
            continue
        run = mates[lo:hi + 1]
        mid = median([q[j] for j in run])
        out[i] = q[i] > RUN_CLEAR * mid
    return out


def _shape_ratio(dets: list[Detection], theta: float) -> float:
    """Across / along extent of an upright tile, from the well-conditioned cases or the pitch."""
    c, s = abs(math.cos(theta)), abs(math.sin(theta))
    upright = [d for d in dets if not d.sideways and d.tile != BACK] or dets
    if abs(c * c - s * s) > 0.35:
        vals = []
        for d in upright:
            a, b = tile_extents(d, theta, 1.0)
            vals.append(b / a)
        return min(max(median(vals), 0.3), 3.0)
    # near 45 degrees: the pitch between touching row neighbours is the along extent
    vecs = nearest_vectors([d.center for d in dets])
    pitch = median([math.hypot(*v) for v in vecs]) if vecs else 1.0
    total = median([(d.width + d.height) / (c + s) for d in upright])
    return min(max(total / max(pitch, 1e-6) - 1.0, 0.3), 3.0)


def median(vals: list[float]) -> float:
    if not vals:
        return 0.0
    s = sorted(vals)
    n = len(s)
    return s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])


def _pitch(tiles: list[_Tile]) -> float:
    """Median centre distance of upright tiles to their nearest upright neighbour: the pitch of
    touching row neighbours, a tile width that box extents cannot give on oblique views."""
    upright = [t for t in tiles if not t.sideways] or tiles
    vecs = nearest_vectors([t.det.center for t in upright])
    return median([math.hypot(*v) for v in vecs]) if vecs else 0.0


def _rows(tiles: list[_Tile], max_row_gap: float) -> list[list[_Tile]]:
    """Connected components of row-neighbour and kakan-stack links."""
    pitch = _pitch(tiles)
    n = len(tiles)
    parent = list(range(n))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i in range(n):
        for j in range(i + 1, n):
            a, b = tiles[i], tiles[j]
            du, dv = abs(a.u - b.u), abs(a.v - b.v)
            gap = du - 0.5 * (a.along + b.along)
            width = max(a.width, b.width, 0.8 * pitch)
            # the across extent of an upright tile: the row's "height"; a sideways tile is
            # about 3/4 of it across, so two sideways tiles stand for 4/3 of theirs
            upright = [x.across for x in (a, b) if not x.sideways]
            row_height = max(upright) if upright else 1.33 * max(a.across, b.across)
            linked = dv < 0.42 * row_height and gap < max_row_gap * width
            if linked or a.partner is b:
                parent[find(i)] = find(j)
    comps: dict[int, list[_Tile]] = {}
    for i in range(n):
        comps.setdefault(find(i), []).append(tiles[i])
    return list(comps.values())


def _refine_row(row: list[_Tile], theta: float) -> float:
    """Least-squares direction through the row's upright tile centres (perspective makes rows
    non-parallel), kept within 25 degrees of the photo's direction and pointing the same way."""
    pts = [t.det.center for t in row if not t.sideways] or [t.det.center for t in row]
    if len(pts) < 3:
        return theta
    mx = sum(p[0] for p in pts) / len(pts)
    my = sum(p[1] for p in pts) / len(pts)
    sxx = sum((p[0] - mx) ** 2 for p in pts)
    syy = sum((p[1] - my) ** 2 for p in pts)
    sxy = sum((p[0] - mx) * (p[1] - my) for p in pts)
    phi = 0.5 * math.atan2(2 * sxy, sxx - syy)
    if math.cos(phi - theta) < 0:
        phi += math.pi
    diff = math.atan2(math.sin(phi - theta), math.cos(phi - theta))
    return phi if abs(diff) < math.radians(25) else theta


@dataclass(slots=True)
class Slot:
    """One position along a row: one tile, or a kakan's stacked pair (lower one first)."""

    tiles: list[_Tile]

    @property
    def u(self) -> float:
        return sum(t.u for t in self.tiles) / len(self.tiles)

    @property
    def along(self) -> float:
        return max(t.along for t in self.tiles)

    @property
    def sideways(self) -> bool:
        """A turned tile, or a kakan's stacked pair (turned by definition)."""
        return self.stacked or any(t.sideways for t in self.tiles)

    @property
    def stacked(self) -> bool:
        return len(self.tiles) > 1

    @property
    def dets(self) -> list[Detection]:
        return [t.det for t in self.tiles]


@dataclass(slots=True)
class Row:
    slots: list[Slot]
    segments: list[list[Slot]] = field(default_factory=list)
    v: float = 0.0

    @property
    def count(self) -> int:
        return sum(len(s.tiles) for s in self.slots)


def _pair_stacks(tiles: list[_Tile]) -> None:
    """Mark kakan stacks: two sideways tiles closer, centre to centre, than 1.1 upright pitches.

    Side by side, two sideways tiles are at least 4/3 of a pitch apart (their long sides lie
    along the row); stacked, only a tile's short side (foreshortened) apart. The pitch is the
    median nearest-neighbour distance of upright tiles (touching row neighbours).
    """
    pitch = _pitch(tiles)
    side = [t for t in tiles if t.sideways]
    cands = []
    for i, a in enumerate(side):
        for b in side[i + 1:]:
            d = math.dist(a.det.center, b.det.center)
            if d < 1.1 * pitch:
                cands.append((d, id(a), id(b), a, b))
    cands.sort(key=lambda c: c[0])
    for _, _, _, a, b in cands:
        if a.partner is None and b.partner is None:
            a.partner, b.partner = b, a


def _slots(row: list[_Tile]) -> list[Slot]:
    """Tiles of one row in order along it; a kakan's two sideways tiles share a slot."""
    slots: list[Slot] = []
    seen: set[int] = set()
    for t in row:
        if id(t) in seen:
            continue
        members = [t] + ([t.partner] if t.partner is not None and any(m is t.partner for m in row) else [])
        seen.update(id(m) for m in members)
        members.sort(key=lambda m: -m.v)       # the tile nearest the player first
        slots.append(Slot(members))
    slots.sort(key=lambda s: s.u)
    return slots


SIDEWAYS_ALONG = 1.33       # a sideways tile's length along the row, in upright tile widths


def _segments(slots: list[Slot], gap_ratio: float) -> list[list[Slot]]:
    """Split a row where the gap between neighbours exceeds ``gap_ratio`` tile widths.

    The tile width is the local pitch of touching upright neighbours (centre to centre), which,
    unlike box extents, stays right under perspective, where a tile's box is a parallelogram's.
    """
    if not slots:
        return []
    steps = []          # (index, pitch) of upright-upright neighbours
    for i, (a, b) in enumerate(zip(slots, slots[1:])):
        if not a.sideways and not b.sideways:
            steps.append((i, b.u - a.u))
    if not steps:
        pitch_all = [t.across for s in slots for t in s.tiles]
        steps = [(0, median(pitch_all))]
    segs = [[slots[0]]]
    for i, (prev, cur) in enumerate(zip(slots, slots[1:])):
        # local pitch: the smallest steps near here (most neighbours touch) — perspective
        # changes the pitch along the row
        near = sorted(steps, key=lambda st: abs(st[0] - i))[:4]
        pitch = sorted(p for _, p in near)[min(1, len(near) - 1)]
        expected = pitch * (0.5 * (SIDEWAYS_ALONG if prev.sideways else 1.0)
                            + 0.5 * (SIDEWAYS_ALONG if cur.sideways else 1.0))
        if (cur.u - prev.u) - expected > gap_ratio * pitch:
            segs.append([cur])
        else:
            segs[-1].append(cur)
    return segs


def _same_kind(a: str, b: str) -> bool:
    return a != BACK and a.replace("0", "5") == b.replace("0", "5")


def _stack_lone_tiles(comps: list[list[_Tile]]) -> list[list[_Tile]]:
    """Tiles lying on top of tiles of the same kind in another row are kakans' added tiles
    whose turn was not seen: join each to its tile as a stacked pair (both then count as
    turned). A small row (at most 4 tiles: two kakans side by side) is joined only if every
    tile in it has such a partner. On top: centre within 1.25 pitches, across the row rather
    than along it."""
    pitch = _pitch([t for comp in comps for t in comp])
    if not pitch:
        return comps
    big = [c for c in comps if len(c) > 4]
    out = list(big)
    for comp in sorted((c for c in comps if len(c) <= 4), key=len, reverse=True):
        hosts = []
        for lone in comp:
            host = None
            for other in out:
                if other is comp:
                    continue
                for t in other:
                    d = math.dist(lone.det.center, t.det.center)
                    if (d < 1.25 * pitch and abs(lone.u - t.u) < 0.6 * pitch and t.partner is None
                            and _same_kind(lone.det.tile, t.det.tile)
                            and all(h is None or h[1] is not t for h in hosts)):
                        if host is None or d < host[0]:
                            host = (d, t, other)
            hosts.append(host)
        if all(h is not None for h in hosts):
            for lone, (_, t, other) in zip(comp, hosts):
                t.partner, lone.partner = lone, t
                other.append(lone)
        else:
            out.append(comp)
    return out


def find_rows(dets: list[Detection], theta: float, gap_ratio: float = 0.17,
              max_row_gap: float = 2.5) -> list[Row]:
    """The rows of tiles in a photo, each cut into segments at its gaps.

    ``dets``: the tiles (flowers already set aside), ``sideways`` as the layout decided;
    ``theta``: the photo's row direction (:func:`row_direction`). Rows are the connected
    components of row-neighbour links (small offset across the row, a gap along it of at
    most ``max_row_gap`` tile widths) and kakan-stack links; each row's direction is then
    refined by a line through its upright tiles (perspective: rows stay straight but need not
    be parallel). Tiles are ordered along the row (left to right as seen in the image along
    ``theta``) and split where the gap exceeds ``gap_ratio`` tile widths. ``Row.v`` is the
    row's offset across ``theta`` (larger = nearer the bottom edge for an upright photo).
    """
    if not dets:
        return []
    ratio = _shape_ratio(dets, theta)
    tiles = [_Tile(d) for d in dets]
    for t in tiles:
        t.along, t.across = tile_extents(t.det, theta, ratio)
    _project(tiles, theta)
    _pair_stacks(tiles)
    rows: list[Row] = []
    for comp in _stack_lone_tiles(_rows(tiles, max_row_gap)):
        phi = _refine_row(comp, theta)
        for t in comp:
            t.along, t.across = tile_extents(t.det, phi, ratio)
        _project(comp, phi)
        slots = _slots(comp)
        row = Row(slots, _segments(slots, gap_ratio))
        _project(comp, theta)           # a common frame to compare rows
        row.v = median([t.v for t in comp])
        rows.append(row)
    return rows
