"""Exact-geometry detections of hands laid out on a table, for layout tests.

A hand is laid out in table units (an upright tile is 1 wide along the row and DEPTH deep; the
row's near edge, towards the player, is v = 0, v grows towards the player), then mapped into
the image by a similarity (scale, rotation, shift) and optionally a homography (perspective).
Each tile's box is the axis-aligned bounding box of its four mapped corners, as a detector
would draw it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from scoring.tiles import parse_tiles
from vision.read.detections import Detection, Detections

DEPTH = 1.35        # a riichi tile is about 26 x 35 mm
TOUCH = 0.03        # tiles in a row nearly touch
APART = 0.7         # the gap before the winning tile and between melds


@dataclass
class Placed:
    tile: str
    u0: float
    v0: float
    u1: float
    v1: float
    sideways: bool = False


def codes(mpsz: str) -> list[str]:
    return [str(t) for t in parse_tiles(mpsz)] if mpsz else []


class Table:
    """Builds one hand left to right along the near row (v in [-DEPTH, 0])."""

    def __init__(self) -> None:
        self.tiles: list[Placed] = []
        self.u = 0.0

    def row(self, mpsz_or_codes, gap: float = 0.0) -> "Table":
        self.u += gap
        seq = codes(mpsz_or_codes) if isinstance(mpsz_or_codes, str) else mpsz_or_codes
        for c in seq:
            self.tiles.append(Placed(c, self.u, -DEPTH, self.u + 1, 0.0))
            self.u += 1 + TOUCH
        return self

    def meld(self, tiles: list[str], sideways_at: int | None, stacked: bool = False,
             gap: float = APART) -> "Table":
        """``tiles`` left to right; ``sideways_at``: index of the turned tile; ``stacked``:
        the next tile of ``tiles`` lies on top of (beyond) the sideways one (kakan)."""
        self.u += gap
        i = 0
        while i < len(tiles):
            if i == sideways_at:
                self.tiles.append(Placed(tiles[i], self.u, -1.0, self.u + DEPTH, 0.0, True))
                if stacked:
                    i += 1
                    self.tiles.append(Placed(tiles[i], self.u, -2.0 - TOUCH, self.u + DEPTH, -1.0 - TOUCH, True))
                self.u += DEPTH + TOUCH
            else:
                self.tiles.append(Placed(tiles[i], self.u, -DEPTH, self.u + 1, 0.0))
                self.u += 1 + TOUCH
            i += 1
        return self

    def other_row(self, mpsz_or_codes, u: float, v_far: float) -> "Table":
        """A separate row whose near edge lies at ``v_far`` (negative: beyond the hand)."""
        seq = codes(mpsz_or_codes) if isinstance(mpsz_or_codes, str) else mpsz_or_codes
        for c in seq:
            self.tiles.append(Placed(c, u, v_far - DEPTH, u + 1, v_far))
            u += 1 + TOUCH
        return self


def to_detections(table: Table, *, scale: float = 40.0, angle_deg: float = 0.0,
                  shift: tuple[float, float] = (400.0, 400.0),
                  homography: list[list[float]] | None = None,
                  confidence: dict[int, tuple[float, tuple]] | None = None,
                  shuffle_seed: int | None = 0) -> Detections:
    """Map the table into an image. ``angle_deg``: the row direction in the image (180 = a photo
    taken from across the table). ``confidence``: {placement index: (conf, alternatives)}.
    Detections are shuffled (a detector gives no order) unless ``shuffle_seed`` is None."""
    a = math.radians(angle_deg)
    ca, sa = math.cos(a), math.sin(a)
    cu = sum((p.u0 + p.u1) / 2 for p in table.tiles) / len(table.tiles)

    def xy(u: float, v: float) -> tuple[float, float]:
        u -= cu
        x = scale * (u * ca - v * sa) + shift[0]
        y = scale * (u * sa + v * ca) + shift[1]
        if homography is not None:
            h = homography
            w = h[2][0] * x + h[2][1] * y + h[2][2]
            x, y = ((h[0][0] * x + h[0][1] * y + h[0][2]) / w,
                    (h[1][0] * x + h[1][1] * y + h[1][2]) / w)
        return x, y

    dets = []
    for i, p in enumerate(table.tiles):
        pts = [xy(p.u0, p.v0), xy(p.u1, p.v0), xy(p.u0, p.v1), xy(p.u1, p.v1)]
        xs, ys = [q[0] for q in pts], [q[1] for q in pts]
        conf, alts = (confidence or {}).get(i, (0.97, ()))
        dets.append(Detection(p.tile, (min(xs), min(ys), max(xs), max(ys)), conf, p.sideways, alts))
    if shuffle_seed is not None:
        import random
        random.Random(shuffle_seed).shuffle(dets)
    return Detections(1600, 1600, dets)
