"""Tiles mirrored in a glass table top: boxes that are reflections, not tiles.

On a glass (or polished) table a standing tile shows its face a second time, turned over and
dimmer, just beyond its foot. The detector, trained on tables that do not reflect, takes that
mirror image for one more tile: on rendered hands on glass of reflectance 0.3, per-tile
precision fell from 0.95 to 0.90 (models/README.md). A box is taken for a reflection when

- it hangs from another box's foot (across the row, on either side: a photo taken from across
  the table has the feet on top);
- its ink is faint beside that tile's (contrast at most ``DIM_RATIO`` of it: a reflection
  gives back only part of the light, while a real tile beside another is as crisp);
- it is that tile's mirror image: turned over across the row, the classifier names it as the
  tile it hangs from, or its fine detail matches the tile's mirrored in the line between them
  (normalised cross-correlation over ``MIRROR_NCC``, when it is at most ``MIRROR_DIM`` as crisp:
  a faded reflection the classifier cannot name). No real tile laid in a row is a mirror image
  (a tile of a grid below another of its kind is upright, and as crisp).
"""
from __future__ import annotations

import math
from collections.abc import Callable

import cv2
import numpy as np

from .classes import TILE_CLASSES
from .detections import Detection
from .rows import nearest_vectors, row_direction

DIM_RATIO = 0.7          # a reflection's ink contrast is at most this share of its tile's
DETAIL_SIGMA = 2.0       # pixels: shading broader than this is not ink (contrast is measured on the rest)
HANG = (-0.35, 0.4)      # its near edge lies within these shares of the tile's height of the foot
MIRROR_NCC = 0.3         # fine detail matching the tile's mirrored at least this well ...
MIRROR_DIM = 0.3         # ... in a box at most this crisp is a reflection without the classifier
TURNED_ALONG = 1.2       # a box this much longer along the row than its tile is a turned tile
_BACK = TILE_CLASSES.index("back")
_BLANK = (_BACK, TILE_CLASSES.index("5z"))


def ink_contrast(grey: np.ndarray, box) -> float:
    """Standard deviation of the fine detail (ink) inside the middle 80% of ``box`` in ``grey``
    ``(H, W) float32`` — what a tile face has much of, and its dim mirror image little of."""
    x1, y1, x2, y2 = box
    mx, my = 0.1 * (x2 - x1), 0.1 * (y2 - y1)
    h, w = grey.shape
    xa, ya = int(max(x1 + mx, 0)), int(max(y1 + my, 0))
    xb, yb = int(min(x2 - mx, w)), int(min(y2 - my, h))
    if xb - xa < 3 or yb - ya < 3:
        return 0.0
    patch = grey[ya:yb, xa:xb]
    return float((patch - cv2.GaussianBlur(patch, (0, 0), DETAIL_SIGMA)).std())


def hanging_pairs(boxes: np.ndarray) -> tuple[list[tuple[int, int]], float]:
    """Pairs ``(tile, below)`` of box indices where ``below`` hangs from ``tile``'s foot, and
    the rows' direction ``theta`` (radians, image coordinates, y down) across which a mirror
    image is turned over.

    ``boxes``: ``(K, 4)`` x1, y1, x2, y2. The rows' direction is taken from the boxes
    (:func:`vision.read.rows.row_direction`) and the tiles' width along it from their spacing (tiles
    in a row touch); each box's height across the row follows from its axis-aligned box. A box
    hangs from a tile when its centre is within half a tile's width of the tile's along the row,
    it is at most 1.3 times the tile's height, and its near edge lies within ``HANG`` of the
    tile's height of the tile's foot — on either side across the row (a photo taken from across
    the table has the feet on top)."""
    geo = _geometry(boxes)
    if geo is None:
        return [], 0.0 if len(np.asarray(boxes).reshape(-1, 4)) < 2 else _theta(boxes)
    theta, width, height, along, across = geo
    pairs = []
    for t in range(len(boxes)):
        if height[t] <= 0.3 * width:
            continue
        near = np.abs(along - along[t]) < width / 2
        gap = (np.abs(across - across[t]) - (height + height[t]) / 2) / height[t]
        hang = near & (gap >= HANG[0]) & (gap <= HANG[1]) & (height <= 1.3 * height[t]) & (height > 0)
        hang[t] = False
        pairs += [(t, int(j)) for j in np.flatnonzero(hang)]
    return pairs, theta


def _theta(boxes) -> float:
    return row_direction([Detection("back", tuple(b), 1.0) for b in np.asarray(boxes, np.float64).reshape(-1, 4)])


def _geometry(boxes) -> tuple | None:
    """The rows' direction ``theta``, the tiles' width along it, and per box ``(K,)`` its
    height across the row and its centre's coordinates along and across; None for fewer than
    two boxes or no neighbours along a row."""
    boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
    if len(boxes) < 2:
        return None
    centres = np.stack([(boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2], axis=1)
    theta = _theta(boxes)
    c, s = abs(math.cos(theta)), abs(math.sin(theta))
    links = [math.hypot(vx, vy) for vx, vy in nearest_vectors([tuple(p) for p in centres])
             if abs(vx * math.cos(theta) + vy * math.sin(theta)) > 0.8 * math.hypot(vx, vy)]
    if not links:
        return None
    width = float(np.median(links))
    # a w x h box around a tile `width` along and `height` across a row at theta:
    # w = width c + height s, h = width s + height c (least squares for height)
    height = s * (boxes[:, 2] - boxes[:, 0]) + c * (boxes[:, 3] - boxes[:, 1]) - 2 * width * s * c
    along = centres @ np.array([math.cos(theta), math.sin(theta)])
    across = centres @ np.array([-math.sin(theta), math.cos(theta)])
    return theta, width, height, along, across


def mirror_likeness(grey: np.ndarray, boxes: np.ndarray, tile: int, below: int) -> float:
    """How well box ``below`` is box ``tile`` mirrored in the line between them: the best
    normalised cross-correlation of the fine detail inside ``below`` (its middle 80%) with
    that detail's mirror image across the row, the line moved up to a tenth of the tile's
    height either way (the foot is not exactly at the boxes' edges). ``grey``: ``(H, W)
    float32`` of the photo; ``boxes``: ``(K, 4)``. Fine detail is divided by its local
    strength, so a reflection fading with distance from the foot still matches. -1..1; 0.0
    when the box is too small to compare."""
    geo = _geometry(boxes)
    if geo is None:
        return 0.0
    theta, _, height, _, across = geo
    boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
    scale = max(1.0, float(np.median(boxes[:, 3] - boxes[:, 1])) / 40)
    detail = grey - cv2.GaussianBlur(grey, (0, 0), DETAIL_SIGMA * scale)
    detail = detail / np.sqrt(cv2.GaussianBlur(detail * detail, (0, 0), 6 * scale) + 4.0)
    n = np.array([-math.sin(theta), math.cos(theta)])
    side = 1.0 if across[below] > across[tile] else -1.0
    line = ((across[tile] + side * height[tile] / 2) + (across[below] - side * height[below] / 2)) / 2
    x1, y1, x2, y2 = boxes[below]
    mx, my = 0.1 * (x2 - x1), 0.1 * (y2 - y1)
    h, w = grey.shape
    xa, ya, xb, yb = int(max(x1 + mx, 0)), int(max(y1 + my, 0)), int(min(x2 - mx, w)), int(min(y2 - my, h))
    if xb - xa < 4 or yb - ya < 4:
        return 0.0
    gx, gy = np.meshgrid(np.arange(xa, xb, dtype=np.float32), np.arange(ya, yb, dtype=np.float32))
    offset = gx * n[0] + gy * n[1]
    patch = detail[ya:yb, xa:xb]
    patch = patch - patch.mean()
    best = -1.0
    reach = 0.1 * height[tile]      # half-pixel steps (at most 41): ink strokes are a few px wide
    for shift in np.arange(-reach, reach + 1e-6, max(0.5, 2 * reach / 40)):
        k = 2 * (offset - (line + shift))
        mirrored = cv2.remap(detail, (gx - k * n[0]).astype(np.float32),
                             (gy - k * n[1]).astype(np.float32), cv2.INTER_LINEAR,
                             borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        mirrored = mirrored - mirrored.mean()
        norm = math.sqrt(float((patch * patch).sum() * (mirrored * mirrored).sum()))
        best = max(best, float((patch * mirrored).sum()) / (norm + 1e-6))
    return best


def reflections(image_bgr: np.ndarray, boxes: np.ndarray, names: np.ndarray,
                name_turned_over: Callable[[np.ndarray, float], np.ndarray],
                sideways: np.ndarray | None = None) -> np.ndarray:
    """Which boxes are a tile's mirror image in the table top, ``(K,) bool``.

    ``image_bgr``: the photo ``(H, W, 3) uint8``; ``boxes``: ``(K, 4)`` in its pixels;
    ``names``: ``(K,)`` the class index each box is read as; ``sideways``: ``(K,) bool`` boxes
    lying across their row (default none); ``name_turned_over(idx, theta)``:
    ``(len(idx),)`` the class index of each box ``idx`` read turned over across a row at
    ``theta`` radians (mirrored in a line along the row). A box is marked when it hangs from
    a tile (:func:`hanging_pairs`), its ink contrast is at most ``DIM_RATIO`` of that tile's
    (:func:`ink_contrast`) and, turned over, it is read as that tile — or, at most
    ``MIRROR_DIM`` as crisp, its detail is the tile's mirrored (:func:`mirror_likeness` over
    ``MIRROR_NCC``). A back or a white dragon (blank faces, the same either way up) is no
    tile to test, and a sideways tile neither hangs nor is hung from (a meld's tiles lie flat
    and mirror no face; a kakan's added tile lies across its row from the called one) — but a
    box flagged sideways only because a fading reflection was boxed short, no longer along
    the row than its tile (``TURNED_ALONG``), is tested. A box marked is no tile for the
    boxes hanging from it. Pure given the callable.
    """
    boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
    out = np.zeros(len(boxes), bool)
    pairs, theta = hanging_pairs(boxes)
    if sideways is not None:
        c, s = abs(math.cos(theta)), abs(math.sin(theta))
        along = c * (boxes[:, 2] - boxes[:, 0]) + s * (boxes[:, 3] - boxes[:, 1])
        pairs = [(t, j) for t, j in pairs if not sideways[t]
                 and not (sideways[j] and along[j] > TURNED_ALONG * along[t])]
    if not pairs:
        return out
    grey = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY).astype(np.float32)
    contrast = np.array([ink_contrast(grey, b) for b in boxes])
    dim = [(t, j) for t, j in pairs
           if contrast[j] <= DIM_RATIO * contrast[t] and int(names[t]) not in _BLANK]
    if not dim:
        return out
    cand = sorted({j for _, j in dim})
    turned = dict(zip(cand, (int(v) for v in name_turned_over(np.array(cand), theta))))
    # the crisper box first: a reflection's own faint mirror image is no tile's
    for t, j in sorted(dim, key=lambda p: -contrast[p[0]]):
        if out[t] or out[j]:
            continue
        if turned[j] == int(names[t]) or (contrast[j] <= MIRROR_DIM * contrast[t] and
                                          mirror_likeness(grey, boxes, t, j) > MIRROR_NCC):
            out[j] = True
    return out
