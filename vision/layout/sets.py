"""Whether tiles make a set: a chi, a pon or a kan, and a closed kan as it is laid.

The one test of "these tiles are a legal set" that every part of the parse asks (melds cut
from a row, sets carved out of the hand row, a repair by a next guess).
"""
from __future__ import annotations

import functools
from typing import Sequence

from scoring.tiles import TileError, parse_tile

from vision.read.detections import Detection
from vision.read.rows import BACK


@functools.lru_cache(maxsize=None)
def tile_kind(code: str) -> int | None:
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
    kinds = [tile_kind(c) for c in codes]
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


def closed_kan_shown(dets: Sequence[Detection]) -> bool:
    """Four tiles laid as a closed kan is: the two outer ones face down, the inner two one face.
    Two blank faces side by side after a pair (``5z 5z`` read as backs beside ``2z 2z``) are
    not one: a closed kan's backs are its ends."""
    if len(dets) != 4 or dets[0].tile != BACK or dets[3].tile != BACK:
        return False
    inner = tile_kind(dets[1].tile)
    return inner is not None and inner == tile_kind(dets[2].tile)
