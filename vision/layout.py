"""Layout parser: detected tiles → the groups of a mahjong hand → the tile part of a request.

Pure geometry and counting on :class:`vision.detections.Detections`; no image, no model.

How a hand lies on the table (what this parser assumes, the common convention at riichi and
MCR tables): the concealed tiles stand or lie in a row; the winning tile is set a little apart
at the row's right end (seen from the player); exposed melds lie further right (or in a row of
their own), the called tile turned sideways (its position tells who discarded it: leftmost =
player on the left, middle = across, rightmost = right); an added kan (kakan) is a sideways
tile with the fourth tile stacked on/beside it; a closed kan (ankan) shows two backs and two
faces. Riichi dora indicators lie in a separate, shorter row; flowers are set aside.

Steps (each a small function below):

1. flowers are set aside (any ``1f``..``8f`` detection);
2. the dominant row direction is the doubled-angle mean of nearest-neighbour vectors (tiles
   touch their row neighbours, rows are further apart), so it works at any photo rotation;
3. each tile's extent along / across the row is recovered from its axis-aligned box;
4. rows are the connected components of "row neighbour" links (small offset across the row,
   a gap along it of at most ``max_row_gap`` tile widths) and "stack" links (two sideways tiles
   of a kakan); each row's direction is then refined by a least-squares line through its upright
   tiles, which copes with perspective (rows stay straight lines, but need not be parallel);
5. tiles are ordered along the row and split into segments at gaps wider than ``gap_ratio``
   tile widths;
6. the photo's orientation (upright or seen from across the table, i.e. the rows read
   right-to-left in image coordinates) is decided by votes: melds lie right of the concealed
   part, the lone winning tile at the right end, the dora row above the hand;
7. segments become groups by counting: a hand is 13 - 3 x melds concealed tiles plus the
   winning tile (kans add one tile each).

Everything uncertain becomes a :class:`LayoutWarning` with the best guess and the fix to pass.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field, replace

from scoring.tiles import Tile, TileError, parse_tile, to_mpsz

from .detections import Detection, Detections

BACK = "back"
LOW_CONFIDENCE = 0.6        # below this a tile is reported with its alternatives

GROUP_KINDS = ("concealed", "win", "meld", "dora", "flower", "loose")


@dataclass(frozen=True, slots=True)
class LayoutWarning:
    """One uncertain step of the parse.

    ``code``: a stable identifier (``low_confidence``, ``win_tile_not_shown``,
    ``tile_count``, ``ambiguous_grouping``, ``meld_without_sideways``, ``illegal_meld``,
    ``loose_tiles``, ``flowers_in_riichi``, ``back_tile``, ``hand_invalid``).
    ``message``: one sentence a player can read, with the best guess that was used.
    ``fix``: the command-line option(s) that correct it (``--fix 3=5p``, ``--win-tile 7m``),
    or ``""`` when there is nothing to pass. ``tiles``: the 1-based reading-order numbers of
    the tiles concerned.
    """

    code: str
    message: str
    fix: str = ""
    tiles: tuple[int, ...] = ()

    def to_json(self) -> dict:
        return {"code": self.code, "message": self.message, "fix": self.fix,
                "tiles": list(self.tiles)}


@dataclass(slots=True)
class Group:
    """Tiles that belong together.

    ``kind``: ``concealed``, ``win``, ``meld``, ``dora``, ``flower`` or ``loose`` (seen but not
    part of the hand). ``detections``: in reading order (for a kakan the stacked pair is
    adjacent, the lower one first). ``meld_type``: ``chi pon daiminkan kakan ankan`` for melds.
    ``called``: the sideways tile's code; ``from_``: ``left``/``across``/``right`` or None
    when the photo does not show it.
    """

    kind: str
    detections: list[Detection]
    meld_type: str | None = None
    called: str | None = None
    from_: str | None = None

    @property
    def tiles(self) -> list[str]:
        return [d.tile for d in self.detections]

    def mpsz(self) -> str:
        faces = [d.tile for d in self.detections if d.tile != BACK]
        try:
            text = to_mpsz([parse_tile(t) for t in faces], sort=False)
        except TileError:
            text = " ".join(faces)
        backs = len(self.detections) - len(faces)
        return text + ("+" + "?" * backs if backs else "")


@dataclass(slots=True)
class Layout:
    """The parsed hand.

    ``groups``: concealed, win, melds, dora, flower and loose groups (in that order).
    ``order``: every detection in reading order; ``--fix N=TILE`` refers to ``order[N-1]``.
    ``tile_request``: the tile keys of a hand request (``concealed``, ``melds``,
    ``win_tile`` when known, ``win_tile_shown`` false when it was not set apart,
    ``dora_indicators`` when a dora row was seen (riichi), ``flowers`` count (MCR)).
    ``win_candidates``: tiles that could be the winning tile when it was not set apart.
    ``upside_down``: the rows were read right-to-left in image coordinates (a photo taken
    from across the table). ``direction``: the reading direction in degrees, -180..180
    (image coordinates, x right, y down: 0 = left to right, 90 = top to bottom).
    """

    groups: list[Group]
    order: list[Detection]
    tile_request: dict
    warnings: list[LayoutWarning] = field(default_factory=list)
    win_candidates: list[str] = field(default_factory=list)
    upside_down: bool = False
    direction: float = 0.0
    rows: int = 0
    ruleset: str = "riichi"
    source: list[int] = field(default_factory=list)

    def request_for_win(self, win: str, shown: bool = True) -> dict:
        """The tile request with ``win`` as the winning tile (``--win-tile``): that tile is
        taken out of the concealed part (plus the tile set apart, if any). ``shown`` False adds
        MCR's ``win_tile_shown: false``. Raises ValueError if the hand holds no such tile."""
        req = _tile_request(self.groups, self.ruleset, win)
        if not shown and self.ruleset == "mcr":
            req["win_tile_shown"] = False
        return req

    def number(self, det: Detection) -> int:
        """1-based reading-order number of ``det``."""
        for i, d in enumerate(self.order):
            if d is det:
                return i + 1
        raise KeyError("detection not in this layout")

    def group_of(self, kind: str) -> list[Group]:
        return [g for g in self.groups if g.kind == kind]

    def to_json(self) -> dict:
        groups = []
        for g in self.groups:
            entry = {"kind": g.kind, "tiles": [self.number(d) for d in g.detections],
                     "mpsz": g.mpsz()}
            if g.kind == "meld":
                entry.update({"type": g.meld_type, "called": g.called, "from": g.from_})
            groups.append(entry)
        return {
            "groups": groups,
            "order": [d.tile for d in self.order],
            "win_tile_shown": self.tile_request.get("win_tile_shown", True)
            and "win_tile" in self.tile_request,
            "win_candidates": list(self.win_candidates),
            "upside_down": self.upside_down,
            "direction_deg": round(self.direction, 1),
            "rows": self.rows,
        }


# ------------------------------------------------------------------------------ geometry

@dataclass(slots=True)
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


def _nearest_vectors(centers: list[tuple[float, float]]) -> list[tuple[float, float]]:
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
    vecs = _nearest_vectors([d.center for d in dets])
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


def _extents(det: Detection, theta: float, ratio: float) -> tuple[float, float]:
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


SIDEWAYS_CLEAR = 1.45      # a turned tile's along/across aspect over its neighbours' median


def refine_sideways(dets: list[Detection], theta: float) -> list[bool]:
    """Which tiles lie turned 90 degrees in their row: the detector's flags, checked against
    geometry in the row's own frame.

    A tile a x b (b/a about 4/3) turned sideways shows an along/across aspect (b/a)^2, about
    1.8 times an upright one's, whatever the camera's foreshortening. Each tile is compared with
    its six nearest neighbours along the row of the same pose (across it within 1.1 tile
    depths: the same row, and a kakan's stacked tile; box area within x0.75..1.33, so standing
    concealed tiles are not compared with lying melds). Above ``SIDEWAYS_CLEAR`` times their
    median it is turned, below 0.8 times it is not (a low camera can hide a turned tile's
    shape, so geometry only overrules the detector when it is clear); in between, and where
    geometry cannot tell (a
    tile with fewer than two such neighbours; rows near 45 degrees, where an axis-aligned box
    shows no orientation), the detector's flag stands. Flags that still make no legal meld are
    dropped later and the melds found by counting.
    """
    c, s = abs(math.cos(theta)), abs(math.sin(theta))
    if len(dets) < 3 or abs(c * c - s * s) <= 0.35:
        return [d.sideways for d in dets]
    ext = [_extents(d, theta, 1.0) for d in dets]
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
        ratio = q[i] / max(_median([q[j] for j in near]), 1e-6)
        # clear either way: geometry decides; in between: the detector's word
        out.append(True if ratio > SIDEWAYS_CLEAR else False if ratio < 0.8 else d.sideways)
    return out


def _shape_ratio(dets: list[Detection], theta: float) -> float:
    """Across / along extent of an upright tile, from the well-conditioned cases or the pitch."""
    c, s = abs(math.cos(theta)), abs(math.sin(theta))
    upright = [d for d in dets if not d.sideways and d.tile != BACK] or dets
    if abs(c * c - s * s) > 0.35:
        vals = []
        for d in upright:
            a, b = _extents(d, theta, 1.0)
            vals.append(b / a)
        return min(max(_median(vals), 0.3), 3.0)
    # near 45 degrees: the pitch between touching row neighbours is the along extent
    vecs = _nearest_vectors([d.center for d in dets])
    pitch = _median([math.hypot(*v) for v in vecs]) if vecs else 1.0
    total = _median([(d.width + d.height) / (c + s) for d in upright])
    return min(max(total / max(pitch, 1e-6) - 1.0, 0.3), 3.0)


def _median(vals: list[float]) -> float:
    if not vals:
        return 0.0
    s = sorted(vals)
    n = len(s)
    return s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])


def _pitch(tiles: list[_Tile]) -> float:
    """Median centre distance of upright tiles to their nearest upright neighbour: the pitch of
    touching row neighbours, a tile width that box extents cannot give on oblique views."""
    upright = [t for t in tiles if not t.sideways] or tiles
    vecs = _nearest_vectors([t.det.center for t in upright])
    return _median([math.hypot(*v) for v in vecs]) if vecs else 0.0


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
class _Slot:
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
        return any(t.sideways for t in self.tiles)

    @property
    def stacked(self) -> bool:
        return len(self.tiles) > 1

    @property
    def dets(self) -> list[Detection]:
        return [t.det for t in self.tiles]


@dataclass(slots=True)
class _Row:
    slots: list[_Slot]
    segments: list[list[_Slot]] = field(default_factory=list)
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


def _slots(row: list[_Tile]) -> list[_Slot]:
    """Tiles of one row in order along it; a kakan's two sideways tiles share a slot."""
    slots: list[_Slot] = []
    seen: set[int] = set()
    for t in row:
        if id(t) in seen:
            continue
        members = [t] + ([t.partner] if t.partner is not None and t.partner in row else [])
        seen.update(id(m) for m in members)
        members.sort(key=lambda m: -m.v)       # the tile nearest the player first
        slots.append(_Slot(members))
    slots.sort(key=lambda s: s.u)
    return slots


SIDEWAYS_ALONG = 1.33       # a sideways tile's length along the row, in upright tile widths


def _segments(slots: list[_Slot], gap_ratio: float) -> list[list[_Slot]]:
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
        steps = [(0, _median(pitch_all))]
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


# ------------------------------------------------------------------------------ melds

def _kind(code: str) -> int | None:
    try:
        return parse_tile(code).kind
    except TileError:
        return None


def _is_set(codes: list[str]) -> str | None:
    """'pon', 'chi', 'kan' if the tile codes form that set, else None."""
    kinds = [_kind(c) for c in codes]
    if any(k is None or k >= 34 for k in kinds):
        return None
    ks = sorted(kinds)
    if len(ks) == 4 and len(set(ks)) == 1:
        return "kan"
    if len(ks) == 3 and len(set(ks)) == 1:
        return "pon"
    if len(ks) == 3 and ks[0] < 27 and ks == [ks[0], ks[0] + 1, ks[0] + 2] and ks[0] // 9 == ks[2] // 9:
        return "chi"
    return None


_FROM_3 = ("left", "across", "right")
_FROM_4 = ("left", "across", "across", "right")


def _meld_from_slots(slots: list[_Slot]) -> tuple[Group, int]:
    """A meld group from 3 or 4 slots, and a penalty (0 = a legal, clearly marked meld)."""
    dets = [d for s in slots for d in s.dets]
    faces = [d.tile for d in dets if d.tile != BACK]
    backs = len(dets) - len(faces)
    side_pos = [i for i, s in enumerate(slots) if s.sideways]
    penalty = 0
    if backs:
        shape = _is_set(faces + faces[:1] * (4 - len(faces))) if faces else None
        penalty += 0 if (backs == 2 and len(slots) == 4 and shape == "kan") else 3
        return Group("meld", dets, "ankan"), penalty
    shape = _is_set(faces)
    called = from_ = None
    if len(slots) == 4 and len(side_pos) == 2 and side_pos[1] == side_pos[0] + 1:
        # added kan with the added tile laid beside the called one instead of on it
        pos = side_pos[0]
        return (Group("meld", dets, "kakan", slots[pos].dets[0].tile, _FROM_3[min(pos, 2)]),
                0 if shape == "kan" else 3)
    if len(side_pos) == 1:
        pos = side_pos[0]
        called = slots[pos].dets[0].tile
        from_ = (_FROM_4 if len(slots) == 4 else _FROM_3)[min(pos, len(slots) - 1)]
    else:
        penalty += 2
    if len(slots) == 3 and any(s.stacked for s in slots):
        mtype = "kakan"
        penalty += 0 if shape == "kan" else 3
    elif len(slots) == 4:
        mtype = "daiminkan"
        penalty += 0 if shape == "kan" else 3
    elif shape == "chi":
        mtype = "chi"
        if from_ not in (None, "left"):
            penalty += 1          # a chi is always called from the left
            from_ = "left"
    else:
        mtype = "pon"
        penalty += 0 if shape == "pon" else 3
    return Group("meld", dets, mtype, called, from_), penalty


def _split_melds(slots: list[_Slot], breaks: frozenset[int] = frozenset()) -> tuple[list[Group], float]:
    """Split a run of meld slots into melds of 3 or 4 slots, least total penalty (DP).

    ``breaks``: slot indices that follow a gap in the row. Melds are told apart by their tiles
    and their one sideways tile; the gaps between melds are often too small to see, so a gap
    inside a meld costs only a little.
    """
    n = len(slots)
    best: list[tuple[float, list[Group]] | None] = [None] * (n + 1)
    best[0] = (0.0, [])
    for i in range(n):
        if best[i] is None:
            continue
        for size in (3, 4):
            if i + size > n:
                continue
            group, pen = _meld_from_slots(slots[i:i + size])
            inner = sum(1 for k in range(i + 1, i + size) if k in breaks)
            cost = best[i][0] + pen + 0.3 * inner
            if best[i + size] is None or cost < best[i + size][0]:
                best[i + size] = (cost, best[i][1] + [group])
    if best[n] is not None:
        return best[n][1], best[n][0]
    # cannot be cut into 3s and 4s: one illegal group, reported by validation
    dets = [d for s in slots for d in s.dets]
    return [Group("meld", dets, "pon" if len(dets) == 3 else "daiminkan")], 10.0


def _meld_region(segments: list[list[_Slot]]) -> tuple[int, int]:
    """Segment indices [first, last] of the melds, or (-1, -1).

    From the first to the last marked segment (a sideways or face-down tile), widened over
    small unmarked neighbours when that makes the melds legal: a gap inside a meld (a
    perspective artefact) splits off its outer tiles. Of equally good spans the narrowest wins,
    so a winning tile set just before the melds stays out.
    """
    marked = [i for i, seg in enumerate(segments) if _segment_is_marked(seg)]
    if not marked:
        return -1, -1
    first, last = marked[0], marked[-1]
    starts = [first]
    size = 0
    for i in range(first - 1, -1, -1):
        size += len(segments[i])
        if size > 3:
            break
        starts.append(i)
    ends = list(range(last, len(segments)))
    best = None
    for s0 in starts:
        for e0 in ends:
            cost = _region_melds(segments[s0:e0 + 1])[1]
            width = (first - s0) + (e0 - last)
            key = (cost, width)
            if best is None or key < best[0]:
                best = (key, s0, e0)
    return best[1], best[2]


def _region_melds(segments: list[list[_Slot]]) -> tuple[list[Group], float]:
    slots: list[_Slot] = []
    breaks = set()
    for seg in segments:
        if slots:
            breaks.add(len(slots))
        slots.extend(seg)
    return _split_melds(slots, frozenset(breaks))


# ------------------------------------------------------------------------------ the parse

def parse_layout(detections: Detections, ruleset: str = "riichi", *,
                 gap_ratio: float = 0.17, max_row_gap: float = 2.5,
                 low_confidence: float = LOW_CONFIDENCE) -> Layout:
    """Group the tiles of one photo into a hand.

    ``detections``: the detector's output (boxes in image pixels). ``ruleset``: ``riichi``
    (a separate short row is the dora indicators) or ``mcr`` (flowers are counted; exposed sets
    need not have a sideways tile). ``gap_ratio``: a gap wider than this many tile widths
    splits a row (the winning tile and melds are set apart). ``max_row_gap``: tiles further
    apart along a row than this many tile widths belong to different rows.
    ``low_confidence``: tiles below it get a warning with the detector's alternatives.

    Returns a :class:`Layout`; never raises for odd input — an empty photo gives an empty
    layout with a ``tile_count`` warning. Raises ValueError for an unknown ruleset.
    """
    if ruleset not in ("riichi", "mcr"):
        raise ValueError(f"unknown ruleset {ruleset!r} (use riichi or mcr)")
    dets = list(detections.tiles)
    flowers = [d for d in dets if d.tile.endswith("f")]
    rest = [d for d in dets if not d.tile.endswith("f")]
    warnings: list[LayoutWarning] = []

    theta = row_direction(rest)
    source = {id(d): i for i, d in enumerate(dets)}
    turned = refine_sideways(rest, theta)
    for k, (d, side) in enumerate(zip(rest, turned)):
        if side != d.sideways:
            rest[k] = replace(d, sideways=side)
            source[id(rest[k])] = source[id(d)]
    ratio = _shape_ratio(rest, theta) if rest else 1.33
    tiles = [_Tile(d) for d in rest]
    for t in tiles:
        t.along, t.across = _extents(t.det, theta, ratio)
    _project(tiles, theta)
    _pair_stacks(tiles)
    comps = _rows(tiles, max_row_gap)

    rows: list[_Row] = []
    for comp in comps:
        phi = _refine_row(comp, theta)
        for t in comp:
            t.along, t.across = _extents(t.det, phi, ratio)
        _project(comp, phi)
        slots = _slots(comp)
        row = _Row(slots, _segments(slots, gap_ratio))
        _project(comp, theta)           # a common frame to compare rows
        row.v = _median([t.v for t in comp])
        rows.append(row)

    flipped = _decide_orientation(rows, ruleset)
    if flipped:
        for row in rows:
            row.slots.reverse()
            row.segments = [list(reversed(seg)) for seg in reversed(row.segments)]
            row.v = -row.v
            for s in row.slots:
                s.tiles.reverse()       # nearest the player first, seen from the other side
    # rows from the one nearest the player (the hand) outwards
    rows.sort(key=lambda r: -r.v)

    groups = _assign(rows, ruleset, warnings)
    if flowers:
        centre = [d.center for d in flowers]
        # flowers in reading order: along the photo's row direction
        ex, ey = math.cos(theta), math.sin(theta)
        sign = -1 if flipped else 1
        flowers = [d for _, d in sorted(zip(centre, flowers), key=lambda p: sign * (p[0][0] * ex + p[0][1] * ey))]
        groups.append(Group("flower", flowers))

    layout = _finish(groups, ruleset, warnings, low_confidence)
    layout.source = [source[id(d)] for d in layout.order]
    reading = theta + (math.pi if flipped else 0.0)
    layout.upside_down = math.cos(reading) < 0      # read right to left in the image
    layout.direction = math.degrees(math.atan2(math.sin(reading), math.cos(reading)))
    layout.rows = len(rows)
    return layout


def _segment_is_marked(seg: list[_Slot]) -> bool:
    """A segment that is (or contains) a meld: a sideways tile or a face-down tile."""
    return any(s.sideways or any(d.tile == BACK for d in s.dets) for s in seg)


def _decide_orientation(rows: list[_Row], ruleset: str) -> bool:
    """True if the photo was taken from across the table (rows read right-to-left).

    Votes: melds lie right of the concealed part (2); the lone winning tile just right of it
    (1); a row that is not melds (dora indicators) lies beyond the hand, away from the player
    (0.5 each). No evidence: read left to right in the image.
    """
    if not rows:
        return False
    main = max(rows, key=lambda r: r.count)
    votes = 0.0
    segs = main.segments
    plain = [i for i, s in enumerate(segs) if not _segment_is_marked(s)]
    marked = [i for i, s in enumerate(segs) if _segment_is_marked(s)]
    if plain:
        big = max(plain, key=lambda i: sum(len(s.tiles) for s in segs[i]))
        if marked:
            side = sum(1 if i > big else -1 for i in marked)
            votes += 2 if side > 0 else -2 if side < 0 else 0

        def lone(i: int) -> bool:
            return 0 <= i < len(segs) and i in plain and sum(len(s.tiles) for s in segs[i]) == 1

        if lone(big + 1) and not lone(big - 1):
            votes += 1
        elif lone(big - 1) and not lone(big + 1):
            votes -= 1
    for r in rows:
        if r is not main and not _is_meld_row(r):
            votes += 0.5 if r.v < main.v else -0.5
    return votes < 0


def _is_meld_row(row: _Row) -> bool:
    """A row of exposed melds: a sideways tile, or nothing but well-formed closed kans
    (back, face, face, back). A dead wall's backs beside dora indicators are not a meld."""
    if any(s.sideways for s in row.slots):
        return True
    if not all(_segment_is_marked(seg) for seg in row.segments):
        return False
    return _region_melds(row.segments)[1] < 1


def _meld_penalty_free(m: Group) -> bool:
    """A closed kan shown as back, face, face, back (or two backs and two equal faces)."""
    faces = [d.tile for d in m.detections if d.tile != BACK]
    return len(m.detections) == 4 and len(faces) == 2 and _kind(faces[0]) == _kind(faces[1])


def _row_parts(row: _Row) -> tuple[list[Group], float, list[list[_Slot]]]:
    """A row's melds (with their DP penalty) and its other segments, in reading order."""
    first, last = _meld_region(row.segments)
    if first < 0:
        return [], 0.0, list(row.segments)
    region = row.segments[first:last + 1]
    melds, pen = _region_melds(region)
    head: list[_Slot] = []
    if pen >= 1:
        # tiles swallowed at the start of the meld run (no gap seen before the melds): the
        # winning tile, or the concealed part, split off where the melds come out legal
        seg = region[0]
        for k in range(1, len(seg)):
            if _segment_is_marked(seg[:k]):
                break
            m2, pen2 = _region_melds([seg[k:]] + region[1:])
            if pen2 + 0.5 < pen:
                melds, pen, head = m2, pen2 + 0.5, seg[:k]
    if pen >= 3 or (pen >= 1 and not any(s.sideways for s in row.slots)
                    and not any(m.meld_type == "ankan" and _meld_penalty_free(m) for m in melds)):
        # marks that make no legal meld: a tile wrongly seen as turned, or a dead wall's
        # face-down tiles beside the dora indicators; the counting decides instead
        return [], 0.0, list(row.segments)
    return melds, pen, row.segments[:first] + ([head] if head else []) + row.segments[last + 1:]


def _unmarked_sets(segments: list[list[_Slot]]) -> list[Group] | None:
    """The row's tiles as legal sets of 3 or 4 (melds whose sideways tile was not seen), or None."""
    if not segments or sum(len(seg) for seg in segments) < 3:
        return None
    groups, _ = _region_melds(segments)
    for g in groups:
        if len(g.detections) not in (3, 4) or _is_set([d.tile for d in g.detections]) is None:
            return None
    return groups


def _assign(rows: list[_Row], ruleset: str, warnings: list[LayoutWarning]) -> list[Group]:
    """Turn rows of segments into concealed / win / meld / dora / loose groups by counting.

    Marked melds (a sideways or face-down tile) come from every row: players and the renderer
    put them beside the hand or in a row of their own. Then every choice of hand row, and of a
    role for each other row (unmarked melds, the dora indicators — riichi, at most 5 faces,
    beyond the hand —, the rest of the hand, or loose tiles), is scored by whether the count
    works: 14 + kans tiles in all, the hand row holding the rest (sets in it after the winning
    tile are carved out later by :func:`_split_plain`).
    """
    if not rows:
        return []
    melds: list[Group] = []
    parts = []
    for r in rows:
        ms, _, plain_segs = _row_parts(r)
        melds.extend(ms)
        n = sum(len(s.tiles) for seg in plain_segs for s in seg)
        if n:
            parts.append((r, plain_segs, n))

    def is_kan(m: Group) -> bool:
        return m.meld_type in ("daiminkan", "kakan", "ankan")

    def options(o, h):
        opts = [("loose", 2.0, None)]
        sets = _unmarked_sets(o[1])
        if sets is not None:
            opts.append(("meld", 0.8 * len(sets), sets))
        faces = sum(1 for seg in o[1] for s in seg for d in s.dets if d.tile != BACK)
        if ruleset == "riichi" and faces <= 5 and o[0].v < h[0].v:
            opts.append(("dora", 0.0, None))
        opts.append(("hand", 1.5, None))
        return opts

    best = None
    for h in parts:
        others = [o for o in parts if o is not h]
        for roles in itertools.product(*[options(o, h) for o in others]):
            if sum(1 for r in roles if r[0] == "dora") > 1:
                continue
            extra = [g for r in roles if r[0] == "meld" for g in r[2]]
            all_melds = melds + extra
            need = 14 + sum(1 for m in all_melds if is_kan(m)) - sum(len(m.detections) for m in all_melds)
            have = h[2] + sum(o[2] for o, r in zip(others, roles) if r[0] == "hand")
            excess = have - need
            pen = sum(r[1] for r in roles)
            pen += excess / 3 if excess >= 0 and excess % 3 == 0 else 100 + abs(excess)
            key = (pen, -h[2])
            if best is None or key < best[0]:
                best = (key, h, others, roles)
    plain: list[list[_Slot]] = []
    dora: list[Detection] = []
    loose: list[Detection] = []
    if best is not None:
        _, h, others, roles = best
        plain = list(h[1])
        for o, (role, _, sets) in zip(others, roles):
            dets = [d for seg in o[1] for s in seg for d in s.dets]
            if role == "meld":
                melds.extend(sets)
            elif role == "dora":
                dora.extend(dets)
            elif role == "hand":
                plain.extend(o[1])
            else:
                loose.extend(dets)

    concealed, win, extra_melds = _split_plain(plain, melds, ruleset, warnings)
    groups: list[Group] = []
    if concealed:
        groups.append(Group("concealed", concealed))
    if win is not None:
        groups.append(Group("win", [win]))
    for m in extra_melds + melds:
        groups.append(m)
    if dora:
        groups.append(Group("dora", dora))
    if loose:
        groups.append(Group("loose", loose))
    return groups


def _tail_sets(slots: list[_Slot], gaps: list[bool]) -> tuple[float, list[Group]] | None:
    """Cut ``slots`` (the end of the hand row) into legal sets of 3 or 4, least cost, or None.

    ``gaps[i]``: a gap was seen before ``slots[i]``. A cut where no gap was seen costs 0.2
    (gaps between melds are small); a gap inside a set costs 0.5.
    """
    n = len(slots)
    best: list[tuple[float, list[Group]] | None] = [None] * (n + 1)
    best[0] = (0.0, [])
    for i in range(n):
        if best[i] is None:
            continue
        for size in (3, 4):
            j = i + size
            if j > n:
                continue
            dets = [d for sl in slots[i:j] for d in sl.dets]
            shape = _is_set([d.tile for d in dets])
            if shape is None:
                continue
            cost = best[i][0] + 0.3 + 0.5 * sum(gaps[i + 1:j]) + (0 if i == 0 or gaps[i] else 0.2)
            if best[j] is None or cost < best[j][0]:
                group = Group("meld", dets, {"kan": "daiminkan", "pon": "pon", "chi": "chi"}[shape])
                best[j] = (cost, best[i][1] + [group])
    return best[n]


def _split_plain(plain: list[list[_Slot]], melds: list[Group], ruleset: str,
                 warnings: list[LayoutWarning]) -> tuple[list[Detection], Detection | None, list[Group]]:
    """Cut the hand's unmarked tiles into the concealed part, the winning tile and melds.

    The hand lies as [concealed][winning tile][melds…] in reading order; melds whose turned
    tile was not seen are legal sets of 3 or 4 at the end. Every cut is tried and scored: the
    tile count must work (13 - 3 x melds concealed tiles besides the winning tile), cuts should
    fall on the gaps that were seen and gaps should not fall inside a group; a winning tile not
    set apart costs most (it must then be guessed).
    """
    if not plain:
        return [], None, []
    slots = [sl for seg in plain for sl in seg]
    gaps = [False] * len(slots)
    k = 0
    for seg in plain:
        gaps[k] = k > 0
        k += len(seg)
    n = len(slots)
    marked = len(melds)
    options = []
    for c in range(1, n + 1):                         # concealed = slots[:c]
        inner = 0.5 * sum(gaps[1:c])
        for has_win in (True, False):
            w_end = c + 1 if has_win else c
            if w_end > n:
                continue
            cost = inner
            if has_win:
                # the winning tile set apart; without a gap it is a guess, worse than
                # saying it was not shown (then the best candidate is scored, with a warning)
                cost += 0 if gaps[c] else 2.5
            else:
                cost += 2.0
            tail = slots[w_end:]
            if tail:
                cut = _tail_sets(tail, gaps[w_end:])
                if cut is None:
                    continue
                cost += cut[0] + (0 if gaps[w_end] else 0.7)
                extra = cut[1]
            else:
                extra = []
            concealed = sum(len(sl.tiles) for sl in slots[:c])
            want = (13 if has_win else 14) - 3 * (marked + len(extra))
            if concealed != want or marked + len(extra) > 4:
                cost += 100 + abs(concealed - want)
            options.append((cost, c, has_win, extra))
    options.sort(key=lambda o: o[0])
    cost, c, has_win, extra = options[0]
    rivals = [o for o in options[1:] if o[0] - cost < 0.25 and o[0] < 100]
    if rivals:
        warnings.append(LayoutWarning(
            "ambiguous_grouping",
            "the gaps in the hand row can be read in more than one way; used the reading with "
            "the winning tile at the right end"))
    concealed = [d for sl in slots[:c] for d in sl.dets]
    win = slots[c].dets[0] if has_win else None
    if cost >= 100:
        got = sum(len(sl.tiles) for sl in slots) + sum(len(m.detections) for m in melds)
        kans = sum(1 for m in melds if m.meld_type in ("daiminkan", "kakan", "ankan"))
        warnings.append(LayoutWarning(
            "tile_count",
            f"the hand shows {got} tiles; a winning hand with {len(melds)} exposed meld(s) "
            f"and {kans} kan(s) has {14 + kans} — a tile may be missing, hidden or doubled",
        ))
    return concealed, win, extra


def _finish(groups: list[Group], ruleset: str, warnings: list[LayoutWarning],
            low_confidence: float) -> Layout:
    order = [d for g in groups for d in g.detections]
    layout = Layout(groups, order, {}, warnings)
    num = layout.number

    for g in groups:
        if g.kind == "meld" and g.meld_type != "ankan" and g.from_ is None:
            nums = tuple(num(d) for d in g.detections)
            warnings.append(LayoutWarning(
                "meld_without_sideways",
                f"tiles {nums[0]}-{nums[-1]} ({g.mpsz()}) are set apart like an exposed "
                f"{g.meld_type} but no tile is turned sideways; scored as an exposed {g.meld_type}",
                tiles=nums,
            ))
        if g.kind in ("concealed", "win"):
            for d in g.detections:
                if d.tile == BACK:
                    warnings.append(LayoutWarning(
                        "back_tile", f"tile {num(d)} is face down; pass its face",
                        f"--fix {num(d)}=TILE", (num(d),)))
        if g.kind == "loose":
            nums = tuple(num(d) for d in g.detections)
            warnings.append(LayoutWarning(
                "loose_tiles", f"{len(nums)} tile(s) away from the hand were not counted",
                tiles=nums))
        if g.kind == "flower" and ruleset == "riichi":
            warnings.append(LayoutWarning(
                "flowers_in_riichi", "flower tiles are not used in riichi; ignored",
                tiles=tuple(num(d) for d in g.detections)))

    for d in order:
        if d.tile != BACK and d.confidence < low_confidence:
            alt = ", ".join(f"{t} ({c:.2f})" for t, c in d.alternatives[:2])
            best_alt = d.alternatives[0][0] if d.alternatives else "TILE"
            warnings.append(LayoutWarning(
                "low_confidence",
                f"tile {num(d)} read as {d.tile} (confidence {d.confidence:.2f})"
                + (f"; next guesses {alt}" if alt else ""),
                f"--fix {num(d)}={best_alt}", (num(d),)))

    layout.ruleset = ruleset
    layout.tile_request = _tile_request(groups, ruleset)
    req = layout.tile_request
    n_concealed = len(parse_tiles_safe(req["concealed"]))
    if "win_tile" not in req and req["concealed"] and n_concealed == 14 - 3 * len(req["melds"]):
        layout.win_candidates = win_candidates(req)
        guess = layout.win_candidates[0]
        layout.tile_request = layout.request_for_win(guess, shown=False)
        others = ", ".join(layout.win_candidates[1:])
        if ruleset == "mcr":
            text = ("the winning tile is not set apart: scored with it not shown (no wait fans, "
                    f"Last Tile or Nine Gates, seed rules 1.9), taking {guess}"
                    + (f" (could also be {others})" if others else ""))
        else:
            text = (f"the winning tile is not set apart: scored with {guess} as the winning tile"
                    + (f" (could also be {others})" if others else ""))
        warnings.append(LayoutWarning("win_tile_not_shown", text, f"--win-tile {guess}"))
    return layout


def parse_tiles_safe(text: str) -> list[Tile]:
    """Parse mpsz, [] on a bad code (the layout's own strings are always well formed)."""
    from scoring.tiles import parse_tiles

    try:
        return parse_tiles(text)
    except TileError:
        return []


def _codes(dets: list[Detection], ruleset: str) -> list[str]:
    out = []
    for d in dets:
        code = d.tile
        if ruleset == "mcr" and code.startswith("0"):
            code = "5" + code[1]          # MCR sets have no red fives
        out.append(code)
    return out


def _mpsz(codes: list[str]) -> str:
    try:
        return to_mpsz([parse_tile(c) for c in codes], sort=False)
    except TileError:
        return "".join(codes)


def _tile_request(groups: list[Group], ruleset: str, win: str | None = None) -> dict:
    """The tile keys of a hand request (``shared/spec/hand-json.md``) from the groups.

    ``win``: the winning tile to use instead of the one set apart (taken out of the concealed
    tiles plus the shown winning tile); raises ValueError if the hand holds no such tile.
    Without a shown winning tile and without ``win`` there is no ``win_tile`` key.
    """
    req: dict = {"concealed": "", "melds": []}
    hand: list[str] = []
    shown: str | None = None
    for g in groups:
        if g.kind == "concealed":
            hand.extend(_codes([d for d in g.detections if d.tile != BACK], ruleset))
        elif g.kind == "win":
            shown = _codes(g.detections, ruleset)[0]
        elif g.kind == "meld":
            req["melds"].append(_meld_json(g, ruleset))
        elif g.kind == "dora" and ruleset == "riichi":
            faces = [d.tile for d in g.detections if d.tile != BACK]
            if faces:
                req["dora_indicators"] = _mpsz(faces)
        elif g.kind == "flower" and ruleset == "mcr":
            req["flowers"] = min(len(g.detections), 8)
    if win is not None:
        if ruleset == "mcr" and win.startswith("0"):
            win = "5" + win[1]
        pool = hand + ([shown] if shown else [])
        match = win if win in pool else next(
            (c for c in pool if _kind(c) == _kind(win)), None)
        if match is None:
            raise ValueError(f"--win-tile {win}: the hand in the photo has no {win}")
        pool.remove(match)
        hand, shown = pool, match
    req["concealed"] = _mpsz(hand)
    if shown is not None:
        req["win_tile"] = shown
    return req


def win_candidates(tile_request: dict) -> list[str]:
    """Tiles of the concealed part that could be the winning tile (the hand minus that tile
    waits on it), in the order they appear; used when the photo does not set the winning tile
    apart. Falls back to every distinct tile when none completes a standard, seven-pairs or
    thirteen-orphans hand (MCR knitted shapes, or a misread tile)."""
    from types import SimpleNamespace

    from scoring.decompose import waits
    from scoring.tiles import parse_tiles

    try:
        tiles = parse_tiles(tile_request.get("concealed", ""))
        melds = [SimpleNamespace(tiles=parse_tiles(m["tiles"])) for m in tile_request.get("melds", [])]
    except TileError:
        return []
    # the rightmost tile first: a winning tile not set apart usually still ends the row
    distinct = list(dict.fromkeys(str(t) for t in reversed(tiles)))
    out = []
    for code in distinct:
        rest = list(tiles)
        rest.remove(next(t for t in rest if str(t) == code))
        if len(rest) == 13 - 3 * len(melds) and parse_tile(code).kind in waits(rest, melds):
            out.append(code)
    return out or distinct


def _meld_json(g: Group, ruleset: str) -> dict:
    codes = _codes([d for d in g.detections if d.tile != BACK], ruleset)
    if g.meld_type == "ankan":
        # the face-down tiles are the same kind as the faces; with red fives in play (riichi),
        # a closed kan of fives holds the suit's red five, face down if it is not shown
        if codes:
            base = codes[0][0].replace("0", "5") + codes[0][1]
            while len(codes) < 4:
                red = "0" + base[1]
                missing_red = (ruleset == "riichi" and base[0] == "5" and base[1] in "mps"
                               and red not in codes)
                codes.append(red if missing_red else base)
        return {"type": "ankan", "tiles": _mpsz(codes)}
    out = {"type": g.meld_type, "tiles": _mpsz(codes)}
    if g.called is not None:
        called = g.called
        if ruleset == "mcr" and called.startswith("0"):
            called = "5" + called[1]
        out["called"] = called
    if g.from_ is not None:
        out["from"] = g.from_
    return out


def apply_fixes(layout: Layout, detections: Detections, fixes: dict[int, str]) -> Detections:
    """A copy of ``detections`` with the tiles numbered in ``layout``'s reading order replaced.

    ``fixes``: ``{number: tile code}`` (1-based, as ``--fix 3=5p``). A fixed tile gets
    confidence 1 (the user said so). Raises ValueError naming a number out of range or an
    unknown tile code.
    """
    from .classes import CLASS_INDEX

    index = {src: i for i, src in enumerate(layout.source)}
    new = {}
    for n, code in fixes.items():
        if not 1 <= n <= len(layout.order):
            raise ValueError(f"--fix {n}={code}: the photo has tiles 1..{len(layout.order)}")
        if code not in CLASS_INDEX:
            raise ValueError(f"--fix {n}={code}: unknown tile code {code!r} (mpsz such as 5p, 0m, 7z, 3f, or back)")
        new[n - 1] = code
    tiles = []
    for k, d in enumerate(detections.tiles):
        i = index.get(k)
        if i is not None and i in new:
            d = replace(d, tile=new[i], confidence=1.0, alternatives=())
        tiles.append(d)
    return Detections(detections.width, detections.height, tiles)
