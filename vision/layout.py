"""Layout parser: detected tiles → the groups of a mahjong hand → the tile part of a request.

Pure geometry and counting on :class:`vision.detections.Detections`; no image, no model.

How a hand lies on the table (what this parser assumes, the common convention at riichi and
MCR tables): the concealed tiles stand or lie in a row; the winning tile is set a little apart
at the row's right end (seen from the player); exposed melds lie further right (or in a row of
their own), the called tile turned sideways (its position tells who discarded it: leftmost =
player on the left, middle = across, rightmost = right); an added kan (kakan) is a sideways
tile with the fourth tile stacked on/beside it; a closed kan (ankan) shows two backs and two
faces. Riichi dora indicators lie in a separate, shorter row; flowers are set aside.

Steps:

1. flowers are set aside (any ``1f``..``8f`` detection);
2. geometry (:mod:`vision.rows`): the row direction, which tiles lie sideways, the rows and
   their segments (cut at gaps);
3. the photo's orientation (upright, or taken from across the table so the rows read
   right-to-left in the image) is decided by votes: melds lie right of the concealed part,
   the lone winning tile just right of it, a dora row beyond the hand;
4. marked melds (a sideways or face-down tile) are cut into chi/pon/kan by their tiles (a small
   DP, tolerant of gaps it cannot see between melds);
5. rows get roles by counting — the hand row, rows of melds whose turned tile was not seen,
   the dora row, loose tiles — so that the hand holds 14 + kans tiles;
6. the hand row is cut into concealed part | winning tile | melds without a seen sideways
   tile, scored by the count (13 - 3 x melds concealed tiles) and the gaps seen.

Everything uncertain becomes a :class:`LayoutWarning` with the best guess and the fix to pass.
"""
from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass, field, replace
from typing import Callable, Sequence

from scoring.tiles import Tile, TileError, parse_tile, to_mpsz

from .detections import Detection, Detections
from .fixspec import parse_fixes, parse_melds
from .rows import BACK, Row, Slot, find_rows, refine_sideways, row_direction, tile_extents

LOW_CONFIDENCE = 0.6        # below this a tile is reported with its alternatives



@dataclass(frozen=True, slots=True)
class LayoutWarning:
    """One uncertain step of the parse.

    ``code``: a stable identifier (``low_confidence``, ``win_tile_not_shown``,
    ``tile_count``, ``ambiguous_grouping``, ``meld_without_sideways``, ``illegal_meld``,
    ``loose_tiles``, ``beside_flowers``, ``flowers_in_riichi``, ``back_tile``, ``hand_invalid``;
    the pipeline adds ``corrected``, ``not_flowers``, ``not_backs``, ``unsorted_row``,
    ``small_tiles``, ``unsure_photo``, ``reflections``, ``recounted``, ``no_colour`` and
    ``too_many_boxes``). ``message``: one sentence a player can read, with the best guess that
    was used. ``fix``: the command-line option(s) that correct it (``--fix 3=5p``,
    ``--win-tile 7m``), or ``""`` when there is nothing to pass (:attr:`arguments`: the same
    for the Python API). ``tiles``: the 1-based reading-order numbers of the tiles concerned.
    """

    code: str
    message: str
    fix: str = ""
    tiles: tuple[int, ...] = ()

    def to_json(self) -> dict:
        return {"code": self.code, "message": self.message, "fix": self.fix,
                "tiles": list(self.tiles)}

    @property
    def arguments(self) -> dict:
        """``fix`` as the keyword arguments of :func:`vision.score_photo`: ``{"fixes": {3:
        "5p"}, "melds": {(12, 14): "concealed"}, "win_tile": "7m"}``, each key only when
        ``fix`` names it (``{}`` when there is nothing to pass)."""
        out: dict = {}
        words = self.fix.split()
        for flag, value in zip(words, words[1:]):
            if flag == "--fix":
                out.setdefault("fixes", {}).update(parse_fixes([value]))
            elif flag == "--meld":
                out.setdefault("melds", {}).update(parse_melds([value]))
            elif flag == "--win-tile":
                out["win_tile"] = value
        return out


@dataclass(slots=True)
class Group:
    """Tiles that belong together.

    ``kind``: ``concealed``, ``win``, ``meld``, ``dora``, ``flower`` or ``loose`` (seen but not
    part of the hand). ``detections``: in reading order (for a kakan the stacked pair is
    adjacent, the lower one first). ``meld_type``: ``chi pon daiminkan kakan ankan`` for melds.
    ``called``: the sideways tile's code; ``from_``: ``left``/``across``/``right`` or None
    when the photo does not show it. ``repairs``: for a meld whose tiles as read are no legal
    set, the unsure tile and the next guess of the reader's that make it one (see
    :attr:`Layout.meld_repairs`).
    """

    kind: str
    detections: list[Detection]
    meld_type: str | None = None
    called: str | None = None
    from_: str | None = None
    repairs: tuple[tuple[Detection, str], ...] = ()   # (tile, next guess) that make the meld legal

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
    ``declared``: the groups the user declared (``--meld``, :func:`declare_groups`), kept
    through every re-reading (:func:`reparse_fixed`).
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
    row_numbers: list[list[int]] = field(default_factory=list)
    meld_repairs: dict[int, str] = field(default_factory=dict)
    declared: dict[tuple[int, int], str] = field(default_factory=dict)

    def request_for_win(self, win: str, shown: bool = True) -> dict:
        """The tile request with ``win`` as the winning tile (``--win-tile``): that tile is
        taken out of the concealed part (plus the tile set apart, if any). ``shown`` False adds
        MCR's ``win_tile_shown: false``. Raises ValueError if the hand holds no such tile."""
        req = _tile_request(self.groups, self.ruleset, win)
        if not shown and self.ruleset == "mcr":
            req["win_tile_shown"] = False
        return req

    def number(self, det: Detection) -> int:
        """1-based reading-order number of ``det``; KeyError when it is not in this layout."""
        for i, d in enumerate(self.order):
            if d is det:
                return i + 1
        raise KeyError("detection not in this layout")

    def group_of(self, kind: str) -> list[Group]:
        """The groups of one kind ("concealed", "win", "meld", "dora", "flower", "loose")."""
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
            "row_tiles": [[self.order[n - 1].tile for n in row] for row in self.row_numbers],
        }


# ------------------------------------------------------------------------------ melds

@functools.lru_cache(maxsize=None)
def _kind(code: str) -> int | None:
    try:
        return parse_tile(code).kind
    except TileError:
        return None


def set_shape(codes: list[str]) -> str | None:
    """'pon', 'chi', 'kan' if the tile codes form that set, else None."""
    # the grouping search asks about the same few tiles hundreds of times per photo
    return _set_shape(tuple(codes))


@functools.lru_cache(maxsize=65536)
def _set_shape(codes: tuple[str, ...]) -> str | None:
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


def _meld_from_slots(slots: list[Slot]) -> tuple[Group, int]:
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
    misread = (_misread_back(dets, faces) if backs == 1 and (side_pos or len(slots) == 4)
               else None)
    if misread is not None:
        repairs = ((misread, faces[0]),)
        shape = set_shape(faces + faces[:1])
        penalty += REPAIR_PENALTY
    elif backs:
        shape = set_shape(faces + faces[:1] * (4 - len(faces))) if faces else None
        penalty += 0 if (len(slots) == 4 and closed_kan_shown(dets)) else 3
        return Group("meld", dets, "ankan"), penalty
    else:
        shape = set_shape(faces)
    if shape is None:
        repairs, shape = _repair(dets)
        penalty += REPAIR_PENALTY if shape else 0
    called = from_ = None
    if len(slots) == 4 and len(side_pos) == 2 and side_pos[1] == side_pos[0] + 1:
        # added kan with the added tile laid beside the called one instead of on it
        pos = side_pos[0]
        return (Group("meld", dets, "kakan", _read(slots[pos].dets[0], repairs), _FROM_3[min(pos, 2)],
                      repairs), penalty + (0 if shape == "kan" else 3))
    if len(side_pos) == 1:
        pos = side_pos[0]
        called = _read(slots[pos].dets[0], repairs)
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
    return Group("meld", dets, mtype, called, from_, repairs), penalty


REPAIR_PENALTY = 1.0     # a meld made legal by one unsure tile's next guess (legal: 0, none: 3)
REPAIR_MIN = 0.02        # a next guess less likely than this does not repair a meld
TAIL_REPAIR_SHARE = 0.25  # ... nor one of a set apart without a turned tile under this x the reading


def _read(d: Detection, repairs: tuple[tuple[Detection, str], ...]) -> str:
    """The tile's code, or the next guess a meld repair gives it."""
    return next((code for k, code in repairs if k is d), d.tile)


def _misread_back(dets: list[Detection], faces: list[str]) -> Detection | None:
    """The one face-down tile of ``dets`` when it is unsure (below ``LOW_CONFIDENCE``) and the
    other tiles, at least two, are one tile: read as that tile they make a pon or a kan."""
    back = next(d for d in dets if d.tile == BACK)
    if back.confidence >= LOW_CONFIDENCE or len(faces) < 2 or len(set(faces)) != 1:
        return None
    return back


def _blank_ends(dets: list[Detection]) -> tuple[tuple[Detection, str], ...]:
    """A closed kan whose face-down ends were read as white dragons (blank faces, as a back
    looks at a distance): four tiles, the middle two one face, each end a back or a white
    dragon whose next guesses hold a back. Returns the repairs (each such end read as a back),
    or ``()`` when ``dets`` is not that."""
    if len(dets) != 4:
        return ()
    a, b, c, d = dets
    if b.tile != c.tile or b.tile in (BACK, "5z") or _kind(b.tile) is None:
        return ()
    ends = []
    for e in (a, d):
        if e.tile == BACK:
            continue
        if e.tile != "5z" or BACK not in (code for code, _ in e.alternatives):
            return ()
        ends.append((e, BACK))
    return tuple(ends)


def _repair(dets: list[Detection], share: float = 0.0) -> tuple[tuple[tuple[Detection, str], ...], str | None]:
    """The most likely single change of an unsure tile (below ``LOW_CONFIDENCE``) to one of its
    next guesses (at least ``REPAIR_MIN``, and ``share`` × the tile's reading) that makes
    ``dets`` a legal set: ``(((tile, code),), shape)``, or ``((), None)``. A misread tile of an
    exposed meld would otherwise hide the meld: the parser would fold its tiles into the
    concealed part."""
    best = None
    codes = [d.tile for d in dets]
    for i, d in enumerate(dets):
        if d.confidence >= LOW_CONFIDENCE:
            continue
        for code, conf in d.alternatives:
            if conf < max(REPAIR_MIN, share * d.confidence) or (best is not None and conf <= best[0]):
                continue
            shape = set_shape(codes[:i] + [code] + codes[i + 1:])
            if shape is not None:
                best = (conf, d, code, shape)
    if best is None:
        return (), None
    return ((best[1], best[2]),), best[3]


def _cut_into_sets(n: int, piece) -> tuple[float, list[Group]] | None:
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


def _split_melds(slots: list[Slot], breaks: frozenset[int] = frozenset(),
                 memo: dict | None = None) -> tuple[list[Group], float]:
    """Split a run of meld slots into melds of 3 or 4 slots, least total penalty (DP).

    ``breaks``: slot indices that follow a gap in the row. Melds are told apart by their tiles
    and their one sideways tile; the gaps between melds are often too small to see, so a gap
    inside a meld costs only a little. ``memo``: :func:`_meld_from_slots` results by the slots'
    ids, shared by the calls of one parse whose slots are alive (the row's spans overlap).
    """
    memo = {} if memo is None else memo

    def piece(i: int, j: int) -> tuple[float, Group]:
        key = tuple(map(id, slots[i:j]))
        found = memo.get(key)
        if found is None:
            found = memo[key] = _meld_from_slots(slots[i:j])
        group, pen = found
        return pen + 0.3 * sum(1 for k in range(i + 1, j) if k in breaks), group

    best = _cut_into_sets(len(slots), piece)
    if best is not None:
        return best[1], best[0]
    # cannot be cut into 3s and 4s: one illegal group, reported by validation
    dets = [d for s in slots for d in s.dets]
    return [Group("meld", dets, "pon" if len(dets) == 3 else "daiminkan")], 10.0


def _meld_region(segments: list[list[Slot]], memo: dict | None = None) -> tuple[int, int]:
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
            cost = _region_melds(segments[s0:e0 + 1], memo)[1]
            width = (first - s0) + (e0 - last)
            key = (cost, width)
            if best is None or key < best[0]:
                best = (key, s0, e0)
    return best[1], best[2]


def _region_melds(segments: list[list[Slot]], memo: dict | None = None) -> tuple[list[Group], float]:
    slots: list[Slot] = []
    breaks = set()
    for seg in segments:
        if slots:
            breaks.add(len(slots))
        slots.extend(seg)
    return _split_melds(slots, frozenset(breaks), memo)


# ------------------------------------------------------------------------------ the parse

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
    layout = _parse_counted(detections, ruleset, gap_ratio, max_row_gap, low_confidence, numbering)
    return declare_groups(layout, declared, low_confidence) if declared else layout


def _parse_counted(detections: Detections, ruleset: str, gap_ratio: float, max_row_gap: float,
                   low_confidence: float, numbering: list[int] | None) -> Layout:
    """:func:`parse_layout` before any declared group."""
    if ruleset not in ("riichi", "mcr"):
        raise ValueError(f"unknown ruleset {ruleset!r} (use riichi or mcr)")
    dets = list(detections.tiles)
    doubled = _doubled(dets)
    args = (ruleset, gap_ratio, max_row_gap, low_confidence, numbering)
    layout = _parse(dets, doubled, set(), "", *args)
    if tiles_add_up(layout):
        # an open kan of four boxes, one of them astride its neighbours, is a pon seen with a
        # box on the joint (the count adds up either way: one tile and one kan fewer)
        original = {id(d): dets[src] for d, src in zip(layout.order, layout.source)}
        in_kan = [original[id(d)] for g in layout.groups
                  if g.kind == "meld" and g.meld_type == "daiminkan" for d in g.detections
                  if id(d) in original]
        in_kan = _straddling(dets, doubled, among=in_kan) if in_kan else set()
        if in_kan:
            second = _parse(dets, doubled, in_kan, ASTRIDE, *args)
            if tiles_add_up(second):
                return second
    else:
        # Doubtful boxes are dropped, or kept, only when the tiles add up that way alone: in a
        # tightly packed, foreshortened row real tiles overlap their neighbours as much.
        backs = {id(d) for d in dets if d.tile == BACK and d.confidence < low_confidence} - doubled
        for inside, extra, why in ((doubled, _straddling(dets, doubled), ASTRIDE),
                                   (set(), set(), ""), (doubled, backs, SHADOW)):
            if inside == doubled and not extra:
                continue                        # the first reading again
            second = _parse(dets, inside, extra, why, *args)
            if tiles_add_up(second):
                return second
        halves = _split_halves(dets, doubled, low_confidence)
        if halves:
            # a tile seen as two unsure boxes, each part of it: one box, their union
            merged, dropped = list(dets), set()
            for keep, drop in halves:
                at = next(k for k, d in enumerate(merged) if d is keep)
                merged[at] = _union(keep, drop, dets)
                dropped.add(id(drop))
            second = _parse(merged, doubled, dropped, HALVES, *args)
            if tiles_add_up(second):
                return second
    return layout


def _union(keep: Detection, drop: Detection, dets: list[Detection]) -> Detection:
    """``keep`` with the box spanning it and ``drop``, turned (sideways) when that box is
    wider for its height than the photo's tiles are (as :func:`vision.detector.mark_sideways`)."""
    a, b = keep.box, drop.box
    box = (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))
    aspects = sorted((d.box[2] - d.box[0]) / max(d.box[3] - d.box[1], 1e-6) for d in dets)
    typical = aspects[len(aspects) // 2]
    aspect = (box[2] - box[0]) / max(box[3] - box[1], 1e-6)
    return replace(keep, box=box, sideways=aspect > 1.25 * typical or aspect < typical / 1.25)


def _split_halves(dets: list[Detection], skip: set[int], low_confidence: float
                  ) -> list[tuple[Detection, Detection]]:
    """Pairs ``(surer, other)`` of unsure boxes that are two parts of one tile (a sideways
    tile is read as two narrow boxes): they touch or overlap, neither covers more than
    ``HALVES_PART`` of the pair's span, and that span is at most ``HALVES_SPAN`` typical tile
    boxes (the median area). Disjoint pairs, the best fitting first."""
    live = [d for d in dets if id(d) not in skip]
    if len(live) < 3:
        return []
    areas = sorted(_area(d.box) for d in live)
    typical = areas[len(areas) // 2]
    found = []
    unsure = [d for d in live if d.confidence < low_confidence]
    for i, a in enumerate(unsure):
        for b in unsure[i + 1:]:
            ua, ub = a.box, b.box
            span = (min(ua[0], ub[0]), min(ua[1], ub[1]), max(ua[2], ub[2]), max(ua[3], ub[3]))
            whole = _area(span)
            if not whole <= HALVES_SPAN * typical:
                continue
            if max(_area(ua), _area(ub)) > HALVES_PART * whole:
                continue
            # they touch or overlap: their areas and the gap between them fill the span
            if _area(ua) + _area(ub) - _overlap(ua, ub) < HALVES_FILL * whole:
                continue
            found.append((abs(whole - typical) / typical, a, b))
    out, used = [], set()
    for _, a, b in sorted(found, key=lambda f: f[0]):
        if id(a) in used or id(b) in used:
            continue
        used |= {id(a), id(b)}
        out.append((a, b) if a.confidence >= b.confidence else (b, a))
    return out


def _area(box: tuple) -> float:
    return max(box[2] - box[0], 0.0) * max(box[3] - box[1], 0.0)


HALVES_SPAN = 1.3       # two parts of one tile span at most this many typical tile boxes
HALVES_PART = 0.75      # and neither part is more than this share of their span
HALVES_FILL = 0.8       # their boxes fill at least this share of the span (no gap between)


# why a box was dropped so that the tiles add up (_parse's ``why``)
ASTRIDE = ("{n} detection(s) lying astride two surer tiles were taken as a pattern across "
           "their joint and dropped: the tiles add up without them")
HALVES = ("{n} pair(s) of unsure boxes, each part of one tile, were taken as one tile: the "
          "tiles add up so")
SHADOW = ("{n} unsure face-down tile(s) were taken as the side or shadow of a tile and dropped: "
          "the tiles add up without them")


def tiles_add_up(layout: Layout) -> bool:
    """No ``tile_count`` warning: the tiles seen make as many as a winning hand has."""
    return not any(w.code == "tile_count" for w in layout.warnings)


def _parse(dets: list[Detection], doubled: set[int], extra: set[int], why: str, ruleset: str,
           gap_ratio: float, max_row_gap: float, low_confidence: float,
           numbering: list[int] | None) -> Layout:
    """:func:`parse_layout` without the detections (ids) in ``doubled`` (inside another,
    :func:`_doubled`) and ``extra`` (dropped only so that the tiles add up; ``why``: the
    warning's text, ``{n}`` their number)."""
    dropped = doubled | extra
    flowers = [d for d in dets if d.tile.endswith("f") and id(d) not in dropped]
    rest = [d for d in dets if not d.tile.endswith("f") and id(d) not in dropped]

    theta = row_direction(rest)
    source = {id(d): i for i, d in enumerate(dets)}
    turned = refine_sideways(rest, theta)
    for k, (d, side) in enumerate(zip(rest, turned)):
        if side != d.sideways:
            rest[k] = replace(d, sideways=side)
            source[id(rest[k])] = source[id(d)]
    rows = find_rows(rest, theta, gap_ratio, max_row_gap)

    # Both readings are tried: the orientation cues (melds right of the concealed part, the
    # lone winning tile, the dora row beyond) are a prior, the counting decides. Rows are
    # ordered from the one nearest the player outwards.
    votes = _orientation_votes(rows)
    trials = []
    for flipped, candidate in ((False, rows), (True, _flip(rows))):
        candidate = sorted(candidate, key=lambda r: -r.v)
        trial_warnings: list[LayoutWarning] = []
        groups, cost = _assign(candidate, ruleset, trial_warnings)
        cost += 0.4 * max(0.0, votes if flipped else -votes)
        trials.append((cost, flipped, groups, trial_warnings, candidate))
    _, flipped, groups, warnings, rows = min(trials, key=lambda t: t[0])
    if not rest:
        warnings.append(LayoutWarning("tile_count", "no tiles were found in the photo"))
    if doubled:
        warnings.append(LayoutWarning(
            "doubled", f"{len(doubled)} detection(s) lying inside a more confident one were taken "
            "as the same tile and dropped"))
    if extra:
        warnings.append(LayoutWarning("doubled", why.format(n=len(extra))))
    if flowers:
        centre = [d.center for d in flowers]
        # flowers in reading order: along the photo's row direction
        ex, ey = math.cos(theta), math.sin(theta)
        sign = -1 if flipped else 1
        flowers = [d for _, d in sorted(zip(centre, flowers), key=lambda p: sign * (p[0][0] * ex + p[0][1] * ey))]
        groups.append(Group("flower", flowers))

    for g in groups:
        if g.kind == "meld" and g.from_ is None and g.meld_type != "ankan":
            _infer_called(g, theta, ruleset)
    rank = {src: n for n, src in enumerate(numbering)} if numbering is not None else None
    # A tile the earlier layout had no number for (a fix can make the inner box of a doubled
    # pair the surer one, so the other is dropped instead) goes after the numbered ones.
    position = (lambda d: rank.get(source[id(d)], len(rank) + source[id(d)])) if rank is not None else None
    layout = _finish(groups, ruleset, warnings, low_confidence, position)
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
    return layout


def _overlap(a: tuple, b: tuple) -> float:
    """Area (px²) shared by two boxes x1, y1, x2, y2; 0.0 when they do not overlap."""
    ix = min(a[2], b[2]) - max(a[0], b[0])
    iy = min(a[3], b[3]) - max(a[1], b[1])
    return ix * iy if ix > 0 and iy > 0 else 0.0


def _doubled(dets: list[Detection], inside: float = 0.6) -> set[int]:
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
            shared = _overlap(d.box, k.box)
            if shared > 0 and shared > inside * min(area, k.width * k.height):
                out.add(id(d))
                break
    return out


STRADDLE_COVER = 0.8       # share of a box two surer neighbours cover between them ...
STRADDLE_EACH = 0.25       # ... each at least this much: a box astride two tiles


def _straddling(dets: list[Detection], skip: set[int], among: list[Detection] | None = None
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
            shared = _overlap(d.box, k.box)
            if shared > 0 and shared >= STRADDLE_EACH * area:
                covers.append((shared / area, k))
        covers.sort(key=lambda c: -c[0])
        if len(covers) < 2 or covers[0][0] + covers[1][0] < STRADDLE_COVER:
            continue
        (_, a), (_, b) = covers[:2]
        if _overlap(a.box, b.box) / area < min(covers[0][0], covers[1][0]):
            out.add(id(d))
    return out


def _segment_is_marked(seg: list[Slot]) -> bool:
    """A segment that is (or contains) a meld: a sideways tile or a face-down tile."""
    return any(s.sideways or any(d.tile == BACK for d in s.dets) for s in seg)


def _orientation_votes(rows: list[Row]) -> float:
    """Evidence that the photo was taken from across the table (negative: it was; 0: none).

    Melds lie right of the concealed part (2); the lone winning tile just right of it (1); a
    row that is not melds (dora indicators) lies beyond the hand, away from the player (0.5
    each). Positive votes favour reading the rows left to right in the image.
    """
    if not rows:
        return 0.0
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
    return votes


def _flip(rows: list[Row]) -> list[Row]:
    """The rows as seen from across the table: every row reversed, near and far swapped."""
    out = []
    for r in rows:
        new = {id(s): Slot(list(reversed(s.tiles))) for s in r.slots}
        row = Row([new[id(s)] for s in reversed(r.slots)],
                  [[new[id(s)] for s in reversed(seg)] for seg in reversed(r.segments)])
        row.v = -r.v
        out.append(row)
    return out


def _is_meld_row(row: Row) -> bool:
    """A row of exposed melds: a sideways tile, or nothing but well-formed closed kans
    (back, face, face, back). A dead wall's backs beside dora indicators are not a meld."""
    if any(s.sideways for s in row.slots):
        return True
    if not all(_segment_is_marked(seg) for seg in row.segments):
        return False
    return _region_melds(row.segments)[1] < 1


def closed_kan_shown(dets: Sequence[Detection]) -> bool:
    """Four tiles laid as a closed kan is: the two outer ones face down, the inner two one face.
    Two blank faces side by side after a pair (``5z 5z`` read as backs beside ``2z 2z``) are
    not one: a closed kan's backs are its ends."""
    if len(dets) != 4 or dets[0].tile != BACK or dets[3].tile != BACK:
        return False
    inner = _kind(dets[1].tile)
    return inner is not None and inner == _kind(dets[2].tile)


def _row_parts(row: Row, memo: dict | None = None) -> tuple[list[Group], float, list[list[Slot]]]:
    """A row's melds (with their DP penalty) and its other segments, in reading order
    (``memo``: as for :func:`_split_melds`)."""
    memo = {} if memo is None else memo
    first, last = _meld_region(row.segments, memo)
    if first < 0:
        return [], 0.0, list(row.segments)
    region = row.segments[first:last + 1]
    melds, pen = _region_melds(region, memo)
    head: list[Slot] = []
    if pen >= 1:
        # tiles swallowed at the start of the meld run (no gap seen before the melds): the
        # winning tile, or the concealed part, split off where the melds come out legal
        seg = region[0]
        for k in range(1, len(seg)):
            if _segment_is_marked(seg[:k]):
                break
            m2, pen2 = _region_melds([seg[k:]] + region[1:], memo)
            if pen2 + 0.5 < pen:
                melds, pen, head = m2, pen2 + 0.5, seg[:k]
    if pen >= 3 or (pen >= 1 and not any(s.sideways for s in row.slots)
                    and not any(m.meld_type == "ankan" and closed_kan_shown(m.detections) for m in melds)):
        # marks that make no legal meld: a tile wrongly seen as turned, or a dead wall's
        # face-down tiles beside the dora indicators; the counting decides instead
        return [], 0.0, list(row.segments)
    return melds, pen, row.segments[:first] + ([head] if head else []) + row.segments[last + 1:]


def _unmarked_sets(segments: list[list[Slot]], memo: dict | None = None) -> list[Group] | None:
    """The row's tiles as legal sets of 3 or 4 (melds whose sideways tile was not seen), or None
    (``memo``: as for :func:`_split_melds`)."""
    if not segments or sum(len(seg) for seg in segments) < 3:
        return None
    groups, _ = _region_melds(segments, memo)
    for g in groups:
        if len(g.detections) not in (3, 4) or set_shape([d.tile for d in g.detections]) is None:
            return None
    return groups


def _assign(rows: list[Row], ruleset: str, warnings: list[LayoutWarning]) -> tuple[list[Group], float]:
    """Turn rows of segments into concealed / win / meld / dora / loose groups by counting.

    Marked melds (a sideways or face-down tile) come from every row: players and the renderer
    put them beside the hand or in a row of their own. Then every choice of hand row, and of a
    role for each other row (unmarked melds, the dora indicators — riichi, at most 5 faces,
    beyond the hand —, the rest of the hand, or loose tiles), is scored by whether the count
    works: 14 + kans tiles in all, the hand row holding the rest (sets in it after the winning
    tile are carved out later by :func:`_split_plain`; only kans among them change the count).
    """
    if not rows:
        return [], 0.0
    melds: list[Group] = []
    parts = []
    meld_cost = 0.0
    memo: dict = {}
    for r in rows:
        ms, pen, plain_segs = _row_parts(r, memo)
        melds.extend(ms)
        meld_cost += pen
        n = sum(len(s.tiles) for seg in plain_segs for s in seg)
        if n:
            parts.append((r, plain_segs, n))

    def is_kan(m: Group) -> bool:
        return m.meld_type in ("daiminkan", "kakan", "ankan")

    unmarked: dict[int, list[Group] | None] = {}      # a row's sets, whatever the hand row

    def options(o, h):
        opts = [("loose", 2.0, None)]
        if id(o) not in unmarked:
            unmarked[id(o)] = _unmarked_sets(o[1], memo)
        sets = unmarked[id(o)]
        if sets is not None:
            opts.append(("meld", 0.3 * len(sets), sets))
        faces = sum(1 for seg in o[1] for s in seg for d in s.dets if d.tile != BACK)
        if ruleset == "riichi" and faces <= 5 and o[0].v < h[0].v:
            opts.append(("dora", 0.0, None))
        opts.append(("hand", 1.5, None))
        return opts

    best = None
    # the hand row is among the four largest; other rows beyond the three nearest it can
    # only be loose tiles (keeps a photo of a whole set, dozens of rows, fast)
    for h in sorted(parts, key=lambda p: -p[2])[:4]:
        others = sorted((o for o in parts if o is not h), key=lambda o: abs(o[0].v - h[0].v))
        choices = [options(o, h) if k < 3 else [("loose", 2.0, None)] for k, o in enumerate(others)]
        for roles in itertools.product(*choices):
            if sum(1 for r in roles if r[0] == "dora") > 1:
                continue
            extra = [g for r in roles if r[0] == "meld" for g in r[2]]
            all_melds = melds + extra
            need = 14 + sum(1 for m in all_melds if is_kan(m)) - sum(len(m.detections) for m in all_melds)
            have = h[2] + sum(o[2] for o, r in zip(others, roles) if r[0] == "hand")
            # sets carved out of the hand row later keep the balance (3 tiles, 3 fewer
            # concealed); only a kan among them adds one: the excess is the unmarked kans
            excess = have - need
            pen = sum(r[1] for r in roles)
            pen += 0.5 * excess if 0 <= excess <= 4 - len(all_melds) else 100 + abs(excess)
            key = (pen, -h[2])
            if best is None or key < best[0]:
                best = (key, h, others, roles)
    plain: list[list[Slot]] = []
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

    concealed, win, extra_melds, cut_cost = _split_plain(plain, melds, ruleset, warnings)
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
    role_cost = best[0][0] if best is not None else 0.0
    return groups, meld_cost + role_cost + cut_cost


def _tail_sets(slots: list[Slot], gaps: list[bool], sets: dict | None = None, repair: bool = False
               ) -> tuple[float, list[Group]] | None:
    """Cut ``slots`` (the end of the hand row) into legal sets of 3 or 4, least cost, or None.

    ``gaps[i]``: a gap was seen before ``slots[i]``. A cut where no gap was seen costs 0.2
    (gaps between melds are small); a gap inside a set costs 0.5. ``sets``: a dict kept
    across calls on tails of one row (their slots are the same objects), so that each run of
    slots is made a set once. ``repair``: a run set apart (a gap seen before it) that one
    unsure tile's next guess makes legal is a set too (:func:`_repair`, costing
    ``REPAIR_PENALTY``): MCR players often lay their melds straight, so a misread tile in one
    otherwise hides the meld.
    """
    sets = {} if sets is None else sets

    def piece(i: int, j: int) -> tuple[float, Group] | None:
        key = (id(slots[i]), j - i)
        found = sets.get(key, _UNSEEN)
        if found is _UNSEEN:
            found = sets[key] = _tail_set([d for sl in slots[i:j] for d in sl.dets], repair)
        if found is None or (found[2] and not gaps[i]):
            return None     # a set repaired by a next guess must be set apart: a gap before it
        return 0.3 + 0.5 * sum(gaps[i + 1:j]) + (0 if i == 0 or gaps[i] else 0.2) + found[0], found[1]

    return _cut_into_sets(len(slots), piece)


_UNSEEN = object()


def _tail_set(dets: list[Detection], repair: bool = False) -> tuple[float, Group, bool] | None:
    """The meld ``dets`` make at the end of the hand row, its repair cost and whether it was
    repaired by a next guess (then it counts only when set apart), or None (``repair``: as
    for :func:`_tail_sets`)."""
    shape = set_shape([d.tile for d in dets])
    repairs: tuple[tuple[Detection, str], ...] = ()
    if shape is None:
        blank = _blank_ends(dets)
        if blank:
            return REPAIR_PENALTY, Group("meld", dets, "ankan", repairs=blank), False
        if repair:
            # a set apart at the row's end is a weaker sign of a meld than a turned tile:
            # the next guess must be a close second (4 gaps in a concealed 444p66s99s111z777z
            # had made 66s + 9s read as 6s a pon)
            repairs, shape = _repair(dets, TAIL_REPAIR_SHARE)
        if shape is None:
            return None
    return (REPAIR_PENALTY if repairs else 0.0,
            Group("meld", dets, {"kan": "daiminkan", "pon": "pon", "chi": "chi"}[shape], repairs=repairs),
            bool(repairs))


def _split_plain(plain: list[list[Slot]], melds: list[Group], ruleset: str,
                 warnings: list[LayoutWarning]) -> tuple[list[Detection], Detection | None, list[Group], float]:
    """Cut the hand's unmarked tiles into the concealed part, the winning tile and melds.

    The hand lies as [concealed][winning tile][melds…] in reading order; melds whose turned
    tile was not seen are legal sets of 3 or 4 at the end. Every cut is tried and scored: the
    tile count must work (13 - 3 x melds concealed tiles besides the winning tile), cuts should
    fall on the gaps that were seen and gaps should not fall inside a group; a winning tile not
    set apart costs most (it must then be guessed). Returns the concealed tiles, the winning
    tile (None when not set apart), the unmarked melds and the cut's cost.
    """
    if not plain:
        return [], None, [], 0.0
    slots = [sl for seg in plain for sl in seg]
    gaps = [False] * len(slots)
    k = 0
    for seg in plain:
        gaps[k] = k > 0
        k += len(seg)
    n = len(slots)
    marked = len(melds)
    options = []
    tails: dict[int, tuple[float, list[Group]] | None] = {}     # by the tail's first slot
    sets: dict = {}
    for c in range(1, n + 1):                         # concealed = slots[:c]
        inner = 0.9 * sum(gaps[1:c])          # a concealed part is rarely split by a gap
        for has_win in (True, False):
            w_end = c + 1 if has_win else c
            if w_end > n or (has_win and any(d.tile == BACK for d in slots[c].dets)):
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
                if w_end not in tails:
                    tails[w_end] = _tail_sets(tail, gaps[w_end:], sets, repair=ruleset == "mcr")
                cut = tails[w_end]
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
            "the winning tile at the right end. If tiles N to M are an exposed meld, pass "
            "--meld N-M=TYPE (chi, pon, daiminkan, kakan, ankan), or --meld N-M=concealed"))
    concealed = [d for sl in slots[:c] for d in sl.dets]
    win = slots[c].dets[0] if has_win else None
    if cost >= 100:
        got = sum(len(sl.tiles) for sl in slots) + sum(len(m.detections) for m in melds)
        warnings.append(_count_warning(got, melds, "the hand shows",
                                       "a tile may be missing, hidden or doubled"))
    return concealed, win, extra, cost


def _count_warning(got: int, melds: list[Group], shows: str, hint: str) -> LayoutWarning:
    """The ``tile_count`` warning: ``got`` tiles where ``melds`` make a winning hand of 14 plus
    one per kan."""
    kans = sum(1 for m in melds if m.meld_type in ("daiminkan", "kakan", "ankan"))
    return LayoutWarning(
        "tile_count", f"{shows} {got} tiles; a winning hand with {len(melds)} exposed meld(s) "
        f"and {kans} kan(s) has {14 + kans} — {hint}")


def _infer_called(g: Group, theta: float, ruleset: str) -> None:
    """Who a meld whose turned tile was not seen came from.

    A chi is always called from the player on the left, its called tile laid leftmost. For a
    pon or open kan, each position is scored by two weak cues, relative to this meld only: the
    turned tile's along/across aspect stands out (see :func:`vision.rows.refine_sideways`), and
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
        positions = _FROM_4 if n == 4 else _FROM_3
        g.from_, g.called = positions[top], dets[top].tile


def _finish(groups: list[Group], ruleset: str, warnings: list[LayoutWarning],
            low_confidence: float, position: Callable[[Detection], int] | None = None) -> Layout:
    """The :class:`Layout` of ``groups``, with the warnings about them; ``position`` gives each
    tile's place in the numbering (default: the groups' reading order)."""
    order = [d for g in groups for d in g.detections]
    if position is not None:
        order.sort(key=position)
    layout = Layout(groups, order, {}, warnings)
    num = layout.number

    for g in groups:
        if g.kind == "meld" and g.meld_type != "ankan" and not any(d.sideways for d in g.detections):
            nums = tuple(num(d) for d in g.detections)
            # numbered by an earlier reading, a meld's tiles may run backwards or apart, and
            # --meld takes a first-last span of consecutive numbers only
            lo, hi = min(nums), max(nums)
            span = f"{lo}-{hi}" if hi - lo + 1 == len(nums) else ", ".join(map(str, sorted(nums)))
            fix = f"--meld {span}=concealed" if "-" in span else ""
            warnings.append(LayoutWarning(
                "meld_without_sideways",
                f"tiles {span} ({g.mpsz()}) are set apart like an exposed {g.meld_type} but no "
                f"turned (sideways) tile was seen in it; scored as an exposed {g.meld_type}. If "
                f"they are part of the concealed hand, "
                + (f"pass {fix}" if fix else "type the hand with tilescope hand --text"),
                fix, nums,
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
            warnings.extend(_beside_flowers(g, groups, ruleset, num))
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
                + (f"; next guesses {alt}" if alt else "")
                # the reading may well be right: the fix is for the user who sees otherwise
                + (f". Look at it; if it is {best_alt}, pass --fix {num(d)}={best_alt}"
                   if d.alternatives else ". Look at it; if it is another tile, pass "
                                          f"--fix {num(d)}=TILE"),
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


def _beside_flowers(loose: Group, groups: list[Group], ruleset: str, num) -> list[LayoutWarning]:
    """MCR: a loose tile touching a flower is most likely a flower misread (flowers are set
    aside together); say so with the fix, since each flower is a point (Green Book: Flower
    Tiles, 1 point each). Touching: centres less than 1.5 tile widths apart."""
    if ruleset != "mcr":
        return []
    flowers = [d for g in groups if g.kind == "flower" for d in g.detections]
    free = [f"{n}f" for n in range(1, 9) if f"{n}f" not in {d.tile for d in flowers}]
    out = []
    for d in loose.detections:
        near = any(math.dist(d.center, f.center) < 1.5 * min(f.width, f.height) for f in flowers)
        if near and free:
            out.append(LayoutWarning(
                "beside_flowers",
                f"tile {num(d)} ({d.tile}) lies beside the flowers and was not counted; if it is a "
                f"flower, pass --fix {num(d)}={free[0]} (any flower code counts the same)",
                f"--fix {num(d)}={free[0]}", (num(d),)))
    return out


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
    """The tile keys of a hand request (``docs/hand-json.md``) from the groups.

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
        try:
            parse_tile(win)
        except TileError as exc:
            raise ValueError(f"--win-tile {win}: {exc}") from None
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


# `--fix N=none`: the box is no tile at all.
NO_TILE = "none"


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
    gone = sorted(n for n, code in fixes.items() if code == NO_TILE)
    dropped = sorted(layout.source[n - 1] for n in gone)
    numbering = [src - sum(1 for k in dropped if k < src) for src in layout.source if src not in dropped]
    declared = layout.declared if declared is None else declared
    if declared and gone:
        check_declared(declared, len(layout.order))
        for (first, last), kind in declared.items():
            inside = [n for n in gone if first <= n <= last]
            if inside:
                raise ValueError(f"--meld {first}-{last}={kind}: tile {inside[0]} was dropped "
                                 f"with --fix {inside[0]}={NO_TILE}")
        declared = {(a - sum(1 for n in gone if n < a), b - sum(1 for n in gone if n < b)): kind
                    for (a, b), kind in declared.items()}
    return fixed, parse_layout(fixed, layout.ruleset, numbering=numbering, declared=declared or None)


# `--meld N-M=TYPE`: the user says what tiles N..M are, where the photo cannot (a meld whose
# turned tile is hidden or was laid straight, a set of the hand laid a little apart). The
# number of tiles each type holds; "concealed" puts the tiles in the concealed part.
DECLARED_TYPES: dict[str, int | None] = {"chi": 3, "pon": 3, "daiminkan": 4, "kakan": 4,
                                         "ankan": 4, "concealed": None}


def check_declared(declared: dict[tuple[int, int], str], n_tiles: int) -> None:
    """Raise ValueError naming the first declared group that cannot be: an unknown type,
    numbers outside ``1..n_tiles`` or in the wrong order, a meld of the wrong size (a chi or
    pon is 3 tiles, a kan 4: the face-down tiles of a closed kan and both tiles of an added
    kan's stacked pair count), or groups that share a tile."""
    seen: dict[int, tuple[int, int]] = {}
    for (first, last), kind in sorted(declared.items()):
        name = f"--meld {first}-{last}={kind}"
        if kind not in DECLARED_TYPES:
            raise ValueError(f"{name}: unknown group type {kind!r} (use "
                             f"{', '.join(DECLARED_TYPES)})")
        if not 1 <= first <= last <= n_tiles:
            raise ValueError(f"{name}: the photo has tiles 1..{n_tiles}, first to last")
        size = DECLARED_TYPES[kind]
        if size is not None and last - first + 1 != size:
            article = "an" if kind[0] in "aeiou" else "a"
            raise ValueError(f"{name}: {article} {kind} is {size} tiles, not {last - first + 1}")
        for n in range(first, last + 1):
            if n in seen:
                a, b = seen[n]
                raise ValueError(f"{name}: tile {n} is also in --meld {a}-{b}")
            seen[n] = (first, last)


def declare_groups(layout: Layout, declared: dict[tuple[int, int], str],
                   low_confidence: float = LOW_CONFIDENCE) -> Layout:
    """``layout`` with the groups the user declares laid over it (``--meld 9-11=chi``).

    ``declared``: ``{(first, last): type}``, reading-order numbers of ``layout`` (both ends
    included) and a type of :data:`DECLARED_TYPES`. Each declared meld becomes an exposed meld
    of that type: who it was called from is taken from its turned tile when one was seen (a
    chi always from the left); its tiles leave the groups they were in, and the rest of a meld
    it breaks up goes into the concealed part. ``concealed`` moves the tiles into the concealed
    part. The numbering and the reading stay as they were; the warnings about the grouping
    (``ambiguous_grouping``, ``tile_count``, ``meld_without_sideways``) are made again for the
    declared grouping. Whether a declared meld is a legal set is the scorer's check (the
    request names it). Raises ValueError as :func:`check_declared`, and for a face-down tile in
    a declared chi, pon or open kan (its face must be passed with ``--fix``).
    """
    check_declared(declared, len(layout.order))
    number = {id(d): n for n, d in enumerate(layout.order, start=1)}
    span_of = {n: span for span in declared for n in range(span[0], span[1] + 1)}
    kept: list[Group] = []
    hand: list[Detection] = []          # concealed tiles: kept, declared, or left by a broken meld
    for g in layout.groups:
        rest = [d for d in g.detections if number[id(d)] not in span_of]
        if g.kind == "concealed" or (g.kind == "meld" and len(rest) < len(g.detections)):
            hand.extend(rest)
        elif rest:
            kept.append(g if len(rest) == len(g.detections) else replace(g, detections=rest))
    melds = [g for g in kept if g.kind == "meld"]
    said: set[int] = set()              # the tiles of declared melds
    for (first, last), kind in sorted(declared.items()):
        dets = layout.order[first - 1:last]
        if kind == "concealed":
            hand.extend(dets)
            continue
        if kind != "ankan":
            back = next((n for n, d in enumerate(dets, start=first) if d.tile == BACK), None)
            if back is not None:
                raise ValueError(f"--meld {first}-{last}={kind}: tile {back} was read face down; "
                                 f"pass its face with --fix {back}=TILE")
        melds.append(_declared_meld(dets, kind))
        said.update(id(d) for d in dets)
    melds.sort(key=lambda g: number[id(g.detections[0])])
    groups = ([Group("concealed", sorted(hand, key=lambda d: number[id(d)]))] if hand else [])
    groups += [g for g in kept if g.kind == "win"] + melds
    groups += [g for g in kept if g.kind not in ("win", "meld")]
    warnings = [w for w in layout.warnings if w.code not in _REGROUPED_CODES]
    out = _finish(groups, layout.ruleset, warnings, low_confidence, lambda d: number[id(d)])
    # a declared meld is what the user says it is, turned tile seen or not
    out.warnings = [w for w in out.warnings if not (
        w.code == "meld_without_sideways" and all(id(out.order[n - 1]) in said for n in w.tiles))]
    hand_tiles = sum(len(g.detections) for g in groups if g.kind in ("concealed", "win"))
    if hand_tiles + 3 * len(melds) != 14:
        out.warnings.append(_count_warning(
            hand_tiles + sum(len(g.detections) for g in melds), melds,
            "with the groups as declared the hand shows", "check the --meld numbers against the report"))
    out.source, out.upside_down, out.direction = layout.source, layout.upside_down, layout.direction
    out.rows, out.row_numbers = layout.rows, layout.row_numbers
    out.meld_repairs = {n: code for n, code in layout.meld_repairs.items() if n not in span_of}
    out.declared = dict(declared)
    return out


# the warnings made again when the groups change: _finish's, and the count's
_REGROUPED_CODES = frozenset({"meld_without_sideways", "back_tile", "loose_tiles", "beside_flowers",
                              "flowers_in_riichi", "low_confidence", "win_tile_not_shown",
                              "ambiguous_grouping", "tile_count"})


def _declared_meld(dets: list[Detection], kind: str) -> Group:
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
        if kind == "kakan":
            places = _FROM_3[min(pos, 2)]
        else:
            places = (_FROM_4 if len(dets) == 4 else _FROM_3)[pos]
        g.called, g.from_ = dets[pos].tile, places
    return g


def apply_fixes(layout: Layout, detections: Detections, fixes: dict[int, str]) -> Detections:
    """A copy of ``detections`` with the tiles numbered in ``layout``'s reading order replaced.

    ``fixes``: ``{number: tile code}`` (1-based, as ``--fix 3=5p``). A fixed tile gets
    confidence 1 (the user said so), the reading it replaces first among its alternatives.
    The code ``none`` removes a box that is no tile (a duplicate box on one tile, a shadow). Raises ValueError naming a number out of range or an
    unknown tile code.
    """
    from .classes import CLASS_INDEX

    index = {src: i for i, src in enumerate(layout.source)}
    new = {}
    for n, code in fixes.items():
        if not 1 <= n <= len(layout.order):
            raise ValueError(f"--fix {n}={code}: the photo has tiles 1..{len(layout.order)}")
        if code not in CLASS_INDEX and code != NO_TILE:
            raise ValueError(f"--fix {n}={code}: unknown tile code {code!r} "
                             f"(mpsz such as 5p, 0m, 7z, 3f, back, or {NO_TILE} to drop the box)")
        new[n - 1] = code
    tiles = []
    for k, d in enumerate(detections.tiles):
        i = index.get(k)
        if i is not None and i in new:
            if new[i] == NO_TILE:
                continue
            # the reading it replaces stays first among the alternatives: what to undo
            was = ((d.tile, d.confidence),) if d.tile != new[i] else ()
            d = replace(d, tile=new[i], confidence=1.0,
                        alternatives=(was + tuple(a for a in d.alternatives if a[0] != new[i]))[:3])
        tiles.append(d)
    return replace(detections, tiles=tiles)      # what else was seen (windows, reflections) stays
