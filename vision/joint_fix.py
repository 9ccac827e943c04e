"""The most likely *complete* hand among the reader's guesses: a photographed winning hand is
four sets and a pair (or seven pairs, thirteen orphans, or an MCR special shape), so when the
tiles as read make no such hand, the unsure tiles are re-read jointly from their alternatives.

Search (pure, no I/O): the hand's unsure tiles (confidence below ``LOW_CONFIDENCE``, at most
``max_tiles`` of them, lowest first) each offer their reading plus up to three alternatives.
Assignments are visited best first by the product of their confidences (a k-best walk over
the options sorted per tile), and the first whose concealed tiles form a complete hand with the
layout's melds is returned. Only the concealed part and the winning tile change here: a meld's
tiles are checked by the layout parser, and a wrong meld tile is left to ``--fix``.

The caller (``vision.pipeline``) scores the corrected hand and says which tiles it changed,
with the ``--fix`` that restores the reading: nothing is corrected silently.
"""
from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Sequence

from scoring.decompose import is_complete as riichi_complete
from scoring.mcr.shapes import is_complete as mcr_complete
from scoring.tiles import TileError, kind_of

from .detections import Detection
from .layout import LOW_CONFIDENCE, Layout

HAND_KINDS = ("concealed", "win")
# Alternatives under this confidence are noise (the reader lists its top four classes).
MIN_ALTERNATIVE = 0.01


def _kind(code: str) -> int | None:
    """Kind 0..33 of a playing tile; None for a back or a flower (no part of a concealed hand)."""
    try:
        kind = kind_of(code)
    except TileError:
        return None
    return kind if kind < 34 else None


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
    """
    hand: list[Detection] = [d for g in layout.groups if g.kind in HAND_KINDS for d in g.detections]
    n_melds = sum(1 for g in layout.groups if g.kind == "meld")
    if not hand or (len(hand) + 3 * n_melds) != 14:
        return None
    complete = complete_checker(layout.ruleset)
    unsure = sorted((d for d in hand if d.confidence < low_confidence and d.alternatives),
                    key=lambda d: d.confidence)[:max_tiles]
    unsure_ids = {id(d) for d in unsure}
    base = [0] * 34
    for d in hand:
        if id(d) in unsure_ids:
            continue
        k = _kind(d.tile)
        if k is None:
            return None
        base[k] += 1
    # per unsure tile: (code, kind, cost) sorted by cost = -log(confidence), the reading first
    options: list[list[tuple[str, int, float]]] = []
    for d in unsure:
        opts = []
        for code, conf in ((d.tile, d.confidence), *d.alternatives[:3]):
            k = _kind(code)
            if k is not None and conf >= MIN_ALTERNATIVE:
                opts.append((code, k, -math.log(max(conf, 1e-9))))
        if not opts:
            return None
        options.append(sorted(opts, key=lambda o: o[2]))

    def cost(idx: tuple[int, ...]) -> float:
        return sum(options[i][j][2] for i, j in enumerate(idx))

    start = (0,) * len(options)
    heap = [(cost(start), start)]
    seen = {start}
    visits = 0
    while heap and visits < max_visits:
        _, idx = heapq.heappop(heap)
        visits += 1
        counts = base[:]
        for i, j in enumerate(idx):
            counts[options[i][j][1]] += 1
        if max(counts) <= 4 and complete(counts, n_melds):
            return {layout.number(d): options[i][j][0]
                    for i, (d, j) in enumerate(zip(unsure, idx)) if options[i][j][0] != d.tile}
        for i in range(len(idx)):
            if idx[i] + 1 < len(options[i]):
                nxt = idx[:i] + (idx[i] + 1,) + idx[i + 1:]
                if nxt not in seen:
                    seen.add(nxt)
                    heapq.heappush(heap, (cost(nxt), nxt))
    return None
