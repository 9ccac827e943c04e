"""Which tiles form a meld: every decision of the parse that cuts tiles into chi, pon and kans.

- :func:`row_parts`: a row's *marked* melds (a sideways or face-down tile), cut by their tiles
  (:func:`split_melds`, a small dynamic programme) within the span :func:`meld_region` finds;
- :func:`unmarked_sets`: a whole row of sets whose turned tiles were not seen;
- :func:`tail_sets`: sets laid straight at the end of the hand row, after the winning tile;
- :func:`infer_called`: who a meld laid straight came from, from the tiles' shapes;
- :func:`declared_meld`: a meld the user declares with ``--meld``.

All of them cut with one DP (:func:`cut_into_sets`), test a set with
:func:`vision.layout.sets.set_shape`, and name the discarder with :func:`called_from`.
"""
from __future__ import annotations

import math

from vision.read.detections import Detection
from vision.read.rows import BACK, Row, Slot, tile_extents
from .groups import Group
from .repairs import (REPAIR_PENALTY, TAIL_REPAIR_SHARE, blank_ends, misread_back, read_as,
                      repair_by_guess)
from .sets import closed_kan_shown, set_shape

# who discarded the called tile, by the turned tile's place (leftmost: the player on the left)
FROM_3 = ("left", "across", "right")
FROM_4 = ("left", "across", "across", "right")


def called_from(pos: int, places: int) -> str:
    """Who discarded a meld's called tile, from the turned tile's place ``pos`` among
    ``places`` (3, or 4 for an open kan; an added kan's pair counts as one place): leftmost the
    player on the left, rightmost the player on the right, between them across."""
    return (FROM_4 if places == 4 else FROM_3)[min(pos, places - 1)]


def meld_from_slots(slots: list[Slot]) -> tuple[Group, int]:
    """A meld group from 3 or 4 slots, and a penalty (0 = a legal, clearly marked meld)."""
    dets = [d for s in slots for d in s.dets]
    faces = [d.tile for d in dets if d.tile != BACK]
    backs = len(dets) - len(faces)
    side_pos = [i for i, s in enumerate(slots) if s.sideways]
    penalty = 0
    repairs: tuple[tuple[Detection, str], ...] = ()
    # a closed kan shows two face-down tiles and an open meld (a turned tile) none: one
    # unsure "back" among tiles of one kind is a face, most often a white dragon, blank as a
    # back is (a back read as a face is rarer: backs are coloured)
    misread = (misread_back(dets, faces) if backs == 1 and (side_pos or len(slots) == 4)
               else None)
    if misread is not None:
        repairs = ((misread, faces[0]),)
        shape = set_shape(faces + faces[:1])
        penalty += REPAIR_PENALTY
    elif backs:
        penalty += 0 if (len(slots) == 4 and closed_kan_shown(dets)) else 3
        return Group("meld", dets, "ankan"), penalty
    else:
        shape = set_shape(faces)
    if shape is None:
        repairs, shape = repair_by_guess(dets)
        penalty += REPAIR_PENALTY if shape else 0
    called = from_ = None
    if len(slots) == 4 and len(side_pos) == 2 and side_pos[1] == side_pos[0] + 1:
        # added kan with the added tile laid beside the called one instead of on it
        pos = side_pos[0]
        return (Group("meld", dets, "kakan", read_as(slots[pos].dets[0], repairs), called_from(pos, 3),
                      repairs), penalty + (0 if shape == "kan" else 3))
    if len(side_pos) == 1:
        pos = side_pos[0]
        called = read_as(slots[pos].dets[0], repairs)
        from_ = called_from(pos, len(slots))
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
    return Group("meld", dets, mtype, called, from_, repairs), penalty


def cut_into_sets(n: int, piece) -> tuple[float, list[Group]] | None:
    """Cheapest cut of ``n`` slots into consecutive pieces of 3 or 4 (dynamic programming).

    ``piece(i, j)`` → ``(cost, group)`` for slots ``i..j-1``, or None where they cannot be one
    set. Returns ``(total cost, groups)``, or None if no cut exists.
    """
    best: list[tuple[float, list[Group]] | None] = [None] * (n + 1)
    best[0] = (0.0, [])
    for i in range(n):
        if best[i] is None:
            continue
        for j in (i + 3, i + 4):
            if j > n:
                continue
            found = piece(i, j)
            if found is None:
                continue
            cost = best[i][0] + found[0]
            if best[j] is None or cost < best[j][0]:
                best[j] = (cost, best[i][1] + [found[1]])
    return best[n]


def split_melds(slots: list[Slot], breaks: frozenset[int] = frozenset(),
                 memo: dict | None = None) -> tuple[list[Group], float]:
    """Split a run of meld slots into melds of 3 or 4 slots, least total penalty (DP).

    ``breaks``: slot indices that follow a gap in the row. Melds are told apart by their tiles
    and their one sideways tile; the gaps between melds are often too small to see, so a gap
    inside a meld costs only a little. ``memo``: :func:`meld_from_slots` results by the slots'
    ids, shared by the calls of one parse whose slots are alive (the row's spans overlap).
    """
    memo = {} if memo is None else memo

    def piece(i: int, j: int) -> tuple[float, Group]:
        key = tuple(map(id, slots[i:j]))
        found = memo.get(key)
        if found is None:
            found = memo[key] = meld_from_slots(slots[i:j])
        group, pen = found
        return pen + 0.3 * sum(1 for k in range(i + 1, j) if k in breaks), group

    best = cut_into_sets(len(slots), piece)
    if best is not None:
        return best[1], best[0]
    # cannot be cut into 3s and 4s: one illegal group, reported by validation
    dets = [d for s in slots for d in s.dets]
    return [Group("meld", dets, "pon" if len(dets) == 3 else "daiminkan")], 10.0


def meld_region(segments: list[list[Slot]], memo: dict | None = None) -> tuple[int, int]:
    """Segment indices [first, last] of the melds, or (-1, -1).

    From the first to the last marked segment (a sideways or face-down tile), widened over
    small unmarked neighbours when that makes the melds legal: a gap inside a meld (a
    perspective artefact) splits off its outer tiles. Of equally good spans the narrowest wins,
    so a winning tile set just before the melds stays out.
    """
    marked = [i for i, seg in enumerate(segments) if segment_is_marked(seg)]
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
            cost = region_melds(segments[s0:e0 + 1], memo)[1]
            width = (first - s0) + (e0 - last)
            key = (cost, width)
            if best is None or key < best[0]:
                best = (key, s0, e0)
    return best[1], best[2]


def region_melds(segments: list[list[Slot]], memo: dict | None = None) -> tuple[list[Group], float]:
    """:func:`split_melds` over consecutive segments, a gap between each two."""
    slots: list[Slot] = []
    breaks = set()
    for seg in segments:
        if slots:
            breaks.add(len(slots))
        slots.extend(seg)
    return split_melds(slots, frozenset(breaks), memo)


def segment_is_marked(seg: list[Slot]) -> bool:
    """A segment that is (or contains) a meld: a sideways tile or a face-down tile."""
    return any(s.sideways or any(d.tile == BACK for d in s.dets) for s in seg)


def is_meld_row(row: Row) -> bool:
    """A row of exposed melds: a sideways tile, or nothing but well-formed closed kans
    (back, face, face, back). A dead wall's backs beside dora indicators are not a meld."""
    if any(s.sideways for s in row.slots):
        return True
    if not all(segment_is_marked(seg) for seg in row.segments):
        return False
    return region_melds(row.segments)[1] < 1


def row_parts(row: Row, memo: dict | None = None) -> tuple[list[Group], float, list[list[Slot]]]:
    """A row's melds (with their DP penalty) and its other segments, in reading order
    (``memo``: as for :func:`split_melds`)."""
    memo = {} if memo is None else memo
    first, last = meld_region(row.segments, memo)
    if first < 0:
        return [], 0.0, list(row.segments)
    region = row.segments[first:last + 1]
    melds, pen = region_melds(region, memo)
    head: list[Slot] = []
    if pen >= 1:
        # tiles swallowed at the start of the meld run (no gap seen before the melds): the
        # winning tile, or the concealed part, split off where the melds come out legal
        seg = region[0]
        for k in range(1, len(seg)):
            if segment_is_marked(seg[:k]):
                break
            m2, pen2 = region_melds([seg[k:]] + region[1:], memo)
            if pen2 + 0.5 < pen:
                melds, pen, head = m2, pen2 + 0.5, seg[:k]
    if pen >= 3 or (pen >= 1 and not any(s.sideways for s in row.slots)
                    and not any(m.meld_type == "ankan" and closed_kan_shown(m.detections) for m in melds)):
        # marks that make no legal meld: a tile wrongly seen as turned, or a dead wall's
        # face-down tiles beside the dora indicators; the counting decides instead
        return [], 0.0, list(row.segments)
    return melds, pen, row.segments[:first] + ([head] if head else []) + row.segments[last + 1:]


def unmarked_sets(segments: list[list[Slot]], memo: dict | None = None) -> list[Group] | None:
    """The row's tiles as legal sets of 3 or 4 (melds whose sideways tile was not seen), or None
    (``memo``: as for :func:`split_melds`)."""
    if not segments or sum(len(seg) for seg in segments) < 3:
        return None
    groups, _ = region_melds(segments, memo)
    for g in groups:
        if len(g.detections) not in (3, 4) or set_shape([d.tile for d in g.detections]) is None:
            return None
    return groups


def tail_sets(slots: list[Slot], gaps: list[bool], sets: dict | None = None, repair: bool = False
               ) -> tuple[float, list[Group]] | None:
    """Cut ``slots`` (the end of the hand row) into legal sets of 3 or 4, least cost, or None.

    ``gaps[i]``: a gap was seen before ``slots[i]``. A cut where no gap was seen costs 0.2
    (gaps between melds are small); a gap inside a set costs 0.5. ``sets``: a dict kept
    across calls on tails of one row (their slots are the same objects), so that each run of
    slots is made a set once. ``repair``: a run set apart (a gap seen before it) that one
    unsure tile's next guess makes legal is a set too (:func:`vision.layout.repairs.repair_by_guess`, costing
    ``REPAIR_PENALTY``): MCR players often lay their melds straight, so a misread tile in one
    otherwise hides the meld.
    """
    sets = {} if sets is None else sets

    def piece(i: int, j: int) -> tuple[float, Group] | None:
        key = (id(slots[i]), j - i)
        found = sets.get(key, _UNSEEN)
        if found is _UNSEEN:
            found = sets[key] = tail_set([d for sl in slots[i:j] for d in sl.dets], repair)
        if found is None or (found[2] and not gaps[i]):
            return None     # a set repaired by a next guess must be set apart: a gap before it
        return 0.3 + 0.5 * sum(gaps[i + 1:j]) + (0 if i == 0 or gaps[i] else 0.2) + found[0], found[1]

    return cut_into_sets(len(slots), piece)


_UNSEEN = object()      # a run of slots not yet tried as a set (None: tried, no set)


def tail_set(dets: list[Detection], repair: bool = False) -> tuple[float, Group, bool] | None:
    """The meld ``dets`` make at the end of the hand row, its repair cost and whether it was
    repaired by a next guess (then it counts only when set apart), or None (``repair``: as
    for :func:`tail_sets`)."""
    shape = set_shape([d.tile for d in dets])
    repairs: tuple[tuple[Detection, str], ...] = ()
    if shape is None:
        blank = blank_ends(dets)
        if blank:
            return REPAIR_PENALTY, Group("meld", dets, "ankan", repairs=blank), False
        if repair:
            # a set apart at the row's end is a weaker sign of a meld than a turned tile:
            # the next guess must be a close second (4 gaps in a concealed 444p66s99s111z777z
            # had made 66s + 9s read as 6s a pon)
            repairs, shape = repair_by_guess(dets, TAIL_REPAIR_SHARE)
        if shape is None:
            return None
    return (REPAIR_PENALTY if repairs else 0.0,
            Group("meld", dets, {"kan": "daiminkan", "pon": "pon", "chi": "chi"}[shape], repairs=repairs),
            bool(repairs))


def infer_called(g: Group, theta: float, ruleset: str) -> None:
    """Who a meld whose turned tile was not seen came from.

    A chi is always called from the player on the left, its called tile laid leftmost. For a
    pon or open kan, each position is scored by two weak cues, relative to this meld only: the
    turned tile's along/across aspect stands out (see :func:`vision.read.rows.refine_sideways`), and
    it is 4/3 as long along the row, so the centre-to-centre steps beside it are longer. The
    best position is taken when it clearly beats the others; else ``from`` stays unknown.
    Riichi melds always have a turned tile; MCR players often lay them straight, so there the
    aspect cue must agree (steps alone cannot tell a middle turned tile from none).
    """
    if g.meld_type == "chi":
        g.from_, g.called = "left", g.detections[0].tile
        return
    dets = g.detections
    n = len(dets)
    c, s = abs(math.cos(theta)), abs(math.sin(theta))
    if abs(c * c - s * s) <= 0.35 or n not in (3, 4):
        return
    z = []
    for d in dets:
        along, across = tile_extents(d, theta, 1.0)
        z.append(math.log(max(along, 1e-6) / max(across, 1e-6)))
    base = sorted(z)[(n - 1) // 2]
    ex, ey = math.cos(theta), math.sin(theta)
    u = sorted(d.center[0] * ex + d.center[1] * ey for d in dets)
    steps = [b - a for a, b in zip(u, u[1:])]
    if min(steps) <= 0:
        return
    scores = []
    for pos in range(n):
        # expected steps with the turned tile at pos: 7/6 of a pitch beside it, 1 elsewhere
        want = [7 / 6 if pos in (k, k + 1) else 1.0 for k in range(n - 1)]
        scale = sum(steps) / sum(want)
        fit = sum(abs(math.log(st / (w * scale))) for st, w in zip(steps, want))
        scores.append((z[pos] - base) - 2.0 * fit)
    order = sorted(range(n), key=lambda p: -scores[p])
    top = order[0]
    if scores[top] - scores[order[1]] > 0.12 and (ruleset == "riichi" or z[top] - base > 0.1):
        g.from_, g.called = called_from(top, n), dets[top].tile


def declared_meld(dets: list[Detection], kind: str) -> Group:
    """A meld the user declares: tiles ``dets`` in reading order, of type ``kind``. The turned
    tile, when one was seen, names the called tile and where it came from (leftmost: the player
    on the left, middle: across, rightmost: right; an added kan's stacked or side-by-side pair
    counts as one place); a chi is always called from the left."""
    g = Group("meld", list(dets), kind)
    if kind == "ankan":
        return g
    side = [i for i, d in enumerate(dets) if d.sideways]
    if kind == "chi":
        g.called, g.from_ = (dets[side[0]].tile if side else dets[0].tile), "left"
    elif side:
        pos = side[0]
        g.called, g.from_ = dets[pos].tile, called_from(pos, 3 if kind == "kakan" else len(dets))
    return g
