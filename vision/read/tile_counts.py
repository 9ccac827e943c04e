"""Name the tiles of one photo so that no name is used more often than one set holds.

A photo shows tiles of one set: at most four of each tile (a red five counts as its five), one
of each flower and season, and at most one red five per suit (the riichi set's usual one; the
scoring core allows no more, ``scoring/riichi/RULES.md``). The classifier names each crop on its
own, so it may call eight red dragons of an American set "red 5m" or two different flowers the
same. :func:`assign_within_counts` lets the surest tiles keep their names and moves the surplus
to each tile's next likely name that still has a copy left. A photo with more tiles than one set
holds counts as several sets.

On the 14 real photos (``benchmarks/real_photos.py``, never trained on) this lifted per-tile F1
from 0.899 to 0.955 with the same classifier (models/README.md). A search for the best total
(pairs of tiles swapping names) was tried and gave the same F1, so the greedy pass stays.

Pure numpy.
"""
from __future__ import annotations

import math

import numpy as np

from .classes import CLASS_INDEX, TILE_CLASSES

SET_TILES = 160       # more tiles than the largest set (American, 152): several sets in the photo
COPIES = 4            # of each playing tile in a set
RED_FIVES = 1         # per suit in a set
MIN_PROB = 0.001      # a name less likely than this is never given to make room
BACK_MIN_PROB = 0.1   # nor is "face down" to a tile the classifier sees face up


def _kind(name: str) -> str:
    """The physical kind a class counts against: a red five against its five."""
    return "5" + name[1] if name[0] == "0" else name


_KINDS = sorted({_kind(c) for c in TILE_CLASSES})
_KIND_OF = np.array([_KINDS.index(_kind(c)) for c in TILE_CLASSES])
# copies of each kind in one set; backs are not counted
_KIND_LIMIT = np.array([np.inf if k == "back" else 1 if k.endswith("f") else COPIES for k in _KINDS])
_RED = np.isin(np.arange(len(TILE_CLASSES)), [CLASS_INDEX[c] for c in ("0m", "0p", "0s")])
_FLOOR = np.where(np.arange(len(TILE_CLASSES)) == CLASS_INDEX["back"], BACK_MIN_PROB, MIN_PROB)


def assign_within_counts(probs: np.ndarray) -> np.ndarray:
    """Class ids ``(K,)`` for class probabilities ``(K, 46)`` (``TILE_CLASSES`` order) such that
    no kind is named more often than ``ceil(K / SET_TILES)`` sets hold.

    Greedy, surest tile first (by its best probability): each tile takes its most probable
    class that has a copy left and is its best or likely enough (``MIN_PROB``;
    ``BACK_MIN_PROB`` for ``back``); a tile with no such class keeps the classifier's best, so the limit is then
    broken and the hand's validation says so. A photo that breaks no limit reads exactly as
    the classifier said. Raises ValueError when ``probs`` is not ``(K, 46)``.
    """
    p = np.asarray(probs, np.float64)
    if p.ndim != 2 or p.shape[1] != len(TILE_CLASSES):
        raise ValueError(f"expected probabilities (K, {len(TILE_CLASSES)}), got {p.shape}")
    sets = max(1, math.ceil(len(p) / SET_TILES))
    kind_left = _KIND_LIMIT * sets
    red_left = np.where(_RED, RED_FIVES * sets, np.inf)
    out = p.argmax(axis=1).astype(np.int64)
    for i in np.argsort(-p.max(axis=1), kind="stable"):
        likely = p[i] >= _FLOOR
        likely[out[i]] = True             # its own best name, however unsure, if it fits
        fits = (kind_left[_KIND_OF] > 0) & (red_left > 0) & likely
        if fits.any():
            out[i] = int(np.argmax(np.where(fits, p[i], -1.0)))
        c = out[i]
        kind_left[_KIND_OF[c]] -= 1
        red_left[c] -= 1
    return out
