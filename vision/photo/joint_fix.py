"""The most likely *complete* hand among the reader's guesses: a photographed winning hand is
four sets and a pair (or seven pairs, thirteen orphans, or an MCR special shape), so when the
tiles as read make no such hand, the unsure tiles are re-read jointly from their alternatives.

Search (pure, no I/O): the hand's unsure tiles (confidence below ``LOW_CONFIDENCE``, at most
``max_tiles`` of them, lowest first; a tile read face down or as a flower always, since neither
belongs in the concealed part) each offer their reading plus up to three alternatives.
Assignments are visited best first by the product of their confidences (a k-best walk over
the options sorted per tile), and the most probable whose concealed tiles form a complete hand
with the layout's melds is returned, preferring a *sorted* row: players lay a winning hand
down sorted (each suit together, in order), so among complete hands at most
``SORTED_PREFERENCE`` times less probable than the best one, the first whose concealed row is
sorted wins (:func:`is_sorted_row`); with none, the most probable stays. Only the concealed
part and the winning tile change here: a meld's tiles are checked by the layout parser, and a
wrong meld tile is left to ``--fix``.

The caller (``vision.photo.pipeline``) scores the corrected hand and says which tiles it changed,
with the ``--fix`` that restores the reading: nothing is corrected silently.
"""
from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Sequence

from scoring.decompose import is_complete as riichi_complete
from scoring.mcr.shapes import is_complete as mcr_complete
from scoring.tiles import TileError, kind_of, tile

from vision.read.detections import Detection
from vision.layout import LOW_CONFIDENCE, Layout

HAND_KINDS = ("concealed", "win")
# Alternatives under this confidence are noise (the reader lists its top four classes).
MIN_ALTERNATIVE = 0.01
# A sorted complete hand this many times less probable than the best complete one still wins
# (benchmarks/pipeline.py, models/README.md).
SORTED_PREFERENCE = 20.0


def is_sorted_row(kinds: Sequence[int]) -> bool:
    """True when a row of tile kinds (0..33, red fives as fives) is laid out sorted: the tiles of
    each suit (characters, dots, bamboo, honours) side by side, the number suits in any order,
    the honours at either end (players keep them apart from the numbers: an honour between
    two number suits is most often a misread tile — 1s taken for a green dragon at broadcast
    size), numbers ascending within each suit, or all descending (the row read from the other
    end)."""
    for step in (1, -1):
        suits: list[int] = []
        prev = None
        for k in kinds:
            suit = k // 9
            if prev is None or suit != prev // 9:
                if suit in suits:
                    break
                suits.append(suit)
            elif (k - prev) * step < 0:
                break
            prev = k
        else:
            return HONOURS not in suits[1:-1]
    return False


HONOURS = 3     # kind // 9 of the winds and dragons


def playing_kind(code: str) -> int | None:
    """Kind 0..33 of a playing tile; None for a back or a flower (no part of a concealed hand)."""
    try:
        kind = kind_of(code)
    except TileError:
        return None
    return kind if kind < 34 else None


def concealed_row_sorted(layout: Layout) -> bool:
    """True when the layout's concealed row, as read, is sorted (:func:`is_sorted_row`); a row
    with a face-down tile or a flower in it counts as not sorted. A layout whose winning tile
    was not set apart counts as sorted: the drawn tile may sit anywhere in its row."""
    if not any(g.kind == "win" for g in layout.groups):
        return True
    kinds = [playing_kind(d.tile) for g in layout.groups if g.kind == "concealed" for d in g.detections]
    return None not in kinds and is_sorted_row(kinds)


NEIGHBOUR_SPAN = 2      # kinds between a tile's sure neighbours offered when they are this close


def between_neighbours(row: Sequence[Detection], d: Detection, unsure_ids: set[int]) -> list[int]:
    """Kinds a row laid sorted allows for ``d`` between its nearest sure neighbours: both of
    one suit and at most ``NEIGHBOUR_SPAN`` apart (between two 7p only a 7p fits). The reader
    may not list such a kind among its guesses at all (a real set's 7p read as 8p, 3f, 1s);
    they are offered as its least likely options, and the preference for a sorted row
    (:data:`SORTED_PREFERENCE`) takes one when the hand is complete so. ``[]`` for a tile
    not in ``row`` or without a sure neighbour on each side."""
    at = next((i for i, t in enumerate(row) if t is d), None)
    if at is None:
        return []

    def sure(tiles) -> int | None:
        return next((playing_kind(t.tile) for t in tiles if id(t) not in unsure_ids), None)

    left, right = sure(reversed(row[:at])), sure(row[at + 1:])
    if left is None or right is None or left // 9 != right // 9 or abs(left - right) > NEIGHBOUR_SPAN:
        return []
    if left // 9 == HONOURS and left != right:      # honours have no order between them
        return []
    return list(range(min(left, right), max(left, right) + 1))


def complete_checker(ruleset: str) -> Callable[[Sequence[int], int], bool]:
    """``(counts34, n_melds) -> bool`` for the ruleset's complete shapes."""
    return mcr_complete if ruleset == "mcr" else riichi_complete


def joint_correction(layout: Layout, *, max_tiles: int = 8, max_visits: int = 2000,
                     low_confidence: float = LOW_CONFIDENCE) -> dict[int, str] | None:
    """Fixes ``{reading-order number: tile}`` that turn the layout's concealed tiles (plus the
    winning tile) into a complete hand, choosing the most probable such assignment; ``{}`` when
    the hand as read is already complete; None when no assignment within ``max_visits`` does.

    ``layout``: a parsed layout whose detections carry ``confidence`` and ``alternatives``.
    Probabilities are the reader's (detector score × classifier probability), compared as a
    product over the changed tiles. Raises nothing; a hand with faces it cannot count
    (backs, flowers in the hand part) returns None.

    In three parts: the tiles to re-read (:func:`_unsure_tiles`), each one's options
    (:func:`_options`), and the best-first walk over their assignments (:func:`_walk`).
    """
    hand: list[Detection] = [d for g in layout.groups if g.kind in HAND_KINDS for d in g.detections]
    n_melds = sum(1 for g in layout.groups if g.kind == "meld")
    if not hand or (len(hand) + 3 * n_melds) != 14:
        return None
    unsure = _unsure_tiles(hand, max_tiles, low_confidence)
    unsure_ids = {id(d) for d in unsure}
    base = [0] * 34
    for d in hand:
        if id(d) in unsure_ids:
            continue
        k = playing_kind(d.tile)
        if k is None:
            return None
        base[k] += 1
    row = [d for g in layout.groups if g.kind == "concealed" for d in g.detections]
    options = _options(unsure, row, unsure_ids)
    if options is None:
        return None
    # with the winning tile still in the row, the row need not be sorted: no preference
    prefer_sorted = any(g.kind == "win" for g in layout.groups)
    sorted_row = _sorted_row_test(row, unsure, options) if prefer_sorted else None
    idx = _walk(options, base, n_melds, complete_checker(layout.ruleset), sorted_row, max_visits)
    if idx is None:
        return None
    return {layout.number(d): options[i][j][0]
            for i, (d, j) in enumerate(zip(unsure, idx)) if options[i][j][0] != d.tile}


def _unsure_tiles(hand: list[Detection], max_tiles: int, low_confidence: float) -> list[Detection]:
    """The hand's tiles to re-read: those that cannot be in a concealed part (a face-down tile
    or a flower, however sure the reader was: a blank white dragon (haku) is read as a back),
    then the least sure under ``low_confidence``, ``max_tiles`` in all."""
    uncountable = [d for d in hand if playing_kind(d.tile) is None and d.alternatives]
    return uncountable + sorted((d for d in hand if d.confidence < low_confidence and d.alternatives
                                 and playing_kind(d.tile) is not None),
                                key=lambda d: d.confidence)[:max(0, max_tiles - len(uncountable))]


Option = tuple[str, int, float]         # (tile code, kind 0..33, cost = -log(confidence))


def _options(unsure: list[Detection], row: list[Detection], unsure_ids: set[int]) -> list[list[Option]] | None:
    """Per unsure tile, its options sorted by cost: its reading and up to three next guesses
    (at least ``MIN_ALTERNATIVE``), then the kinds its sure neighbours in a sorted row allow
    (:func:`between_neighbours`) at the cost of ``MIN_ALTERNATIVE``. None when a tile has no
    playing option at all."""
    options: list[list[Option]] = []
    for d in unsure:
        opts = []
        for code, conf in ((d.tile, d.confidence), *d.alternatives[:3]):
            k = playing_kind(code)
            if k is not None and conf >= MIN_ALTERNATIVE:
                opts.append((code, k, -math.log(max(conf, 1e-9))))
        seen = {o[1] for o in opts}
        opts += [(str(tile(k)), k, -math.log(MIN_ALTERNATIVE))
                 for k in between_neighbours(row, d, unsure_ids) if k not in seen]
        if not opts:
            return None
        options.append(sorted(opts, key=lambda o: o[2]))
    return options


def _sorted_row_test(row: list[Detection], unsure: list[Detection],
                     options: list[list[Option]]) -> Callable[[tuple[int, ...]], bool]:
    """``idx -> bool``: whether the concealed row with the unsure tiles read as assignment
    ``idx`` (an option index per unsure tile) is sorted (:func:`is_sorted_row`)."""
    row_slot = {id(d): i for i, d in enumerate(row)}
    row_base = [playing_kind(d.tile) for d in row]
    unsure_slot = [row_slot.get(id(d)) for d in unsure]

    def sorted_row(idx: tuple[int, ...]) -> bool:
        kinds = row_base[:]
        for i, j in enumerate(idx):
            if unsure_slot[i] is not None:
                kinds[unsure_slot[i]] = options[i][j][1]
        return is_sorted_row(kinds)

    return sorted_row


def _walk(options: list[list[Option]], base: list[int], n_melds: int,
          complete: Callable[[Sequence[int], int], bool],
          sorted_row: Callable[[tuple[int, ...]], bool] | None, max_visits: int) -> tuple[int, ...] | None:
    """The most probable assignment (an option index per unsure tile) whose tiles, with the
    sure ones (``base``: counts of the 34 kinds), make a complete hand — the first sorted one
    (``sorted_row``; None: any row) within ``SORTED_PREFERENCE`` of the best — or None
    within ``max_visits``.

    The walk pops assignments in (cost, idx) order. Each is pushed once, by its parent (itself
    with its last raised tile lowered: ``last``), which costs no more and comes first, so no
    set of those seen is needed; and assignments that make the same multiset of kinds share
    one completeness check (``marks``: a multiset as one number, each kind a digit in base
    ``len(options) + 1``). The same hands come out as a walk pushing every neighbour, 2-3x
    faster. (Long: the search's hot loop, kept in one body so its lookups stay local.)
    """
    costs = [[o[2] for o in opts] for opts in options]
    kinds = [[o[1] for o in opts] for opts in options]
    pick = list.__getitem__         # map(pick, table, idx): table[i][idx[i]] for each i, in C
    n = len(options)
    sizes = [len(opts) for opts in options]
    marks = [[(n + 1) ** k for k in ks] for ks in kinds]
    checked: dict[int, bool] = {}
    slack = math.log(SORTED_PREFERENCE)
    start = (0,) * n
    heap = [(sum(map(pick, costs, start)), start, 0)]
    visits = 0
    best = None                 # (cost, idx) of the most probable complete assignment
    while heap and visits < max_visits:
        c, idx, last = heapq.heappop(heap)
        if best is not None and c > best[0] + slack:
            break
        visits += 1
        key = sum(map(pick, marks, idx))
        ok = checked.get(key)
        if ok is None:
            counts = base[:]
            for k in map(pick, kinds, idx):
                counts[k] += 1
            ok = checked[key] = max(counts) <= 4 and complete(counts, n_melds)
        if ok:
            if sorted_row is None or sorted_row(idx):
                best = (c, idx)
                break
            if best is None:
                best = (c, idx)
        for i in range(last, n):
            j = idx[i] + 1
            if j < sizes[i]:
                nxt = idx[:i] + (j,) + idx[i + 1:]
                heapq.heappush(heap, (sum(map(pick, costs, nxt)), nxt, i))
    return None if best is None else best[1]
