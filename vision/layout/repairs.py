"""Repairs of a meld by its unsure tiles: the one next guess that makes a set legal.

A meld seen as no legal set would fold its tiles into the concealed part; when one unsure tile's
next guess (at least ``REPAIR_MIN``) makes it legal, that guess is kept as a repair
(:attr:`vision.layout.Layout.meld_repairs`). Also the two misreadings of face-down tiles in a
meld: an unsure back among tiles of one kind (a white dragon), and a closed kan's blank ends
read as white dragons.
"""
from __future__ import annotations

from vision.read.detections import Detection
from vision.read.rows import BACK
from .groups import LOW_CONFIDENCE
from .sets import set_shape, tile_kind


REPAIR_PENALTY = 1.0     # a meld made legal by one unsure tile's next guess (legal: 0, none: 3)
REPAIR_MIN = 0.02        # a next guess less likely than this does not repair a meld
TAIL_REPAIR_SHARE = 0.25  # ... nor one of a set apart without a turned tile under this x the reading


def read_as(d: Detection, repairs: tuple[tuple[Detection, str], ...]) -> str:
    """The tile's code, or the next guess a meld repair gives it."""
    return next((code for k, code in repairs if k is d), d.tile)


def misread_back(dets: list[Detection], faces: list[str]) -> Detection | None:
    """The one face-down tile of ``dets`` when it is unsure (below ``LOW_CONFIDENCE``) and the
    other tiles, at least two, are one tile: read as that tile they make a pon or a kan."""
    back = next(d for d in dets if d.tile == BACK)
    if back.confidence >= LOW_CONFIDENCE or len(faces) < 2 or len(set(faces)) != 1:
        return None
    return back


def blank_ends(dets: list[Detection]) -> tuple[tuple[Detection, str], ...]:
    """A closed kan whose face-down ends were read as white dragons (blank faces, as a back
    looks at a distance): four tiles, the middle two one face, each end a back or a white
    dragon whose next guesses hold a back. Returns the repairs (each such end read as a back),
    or ``()`` when ``dets`` is not that."""
    if len(dets) != 4:
        return ()
    a, b, c, d = dets
    if b.tile != c.tile or b.tile in (BACK, "5z") or tile_kind(b.tile) is None:
        return ()
    ends = []
    for e in (a, d):
        if e.tile == BACK:
            continue
        if e.tile != "5z" or BACK not in (code for code, _ in e.alternatives):
            return ()
        ends.append((e, BACK))
    return tuple(ends)


def repair_by_guess(dets: list[Detection], share: float = 0.0) -> tuple[tuple[tuple[Detection, str], ...], str | None]:
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
