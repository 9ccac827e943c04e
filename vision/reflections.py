"""Tiles mirrored in a glass table top: boxes that are reflections, not tiles.

On a glass (or polished) table a standing tile shows its face a second time, turned over and
dimmer, just beyond its foot. The detector, trained on tables that do not reflect, takes that
mirror image for one more tile: on rendered hands on glass of reflectance 0.3, per-tile
precision fell from 0.95 to 0.90 (models/README.md). A box is taken for a reflection when

- it hangs from another box's foot (across the row, on either side: a photo taken from across
  the table has the feet on top);
- its ink is faint beside that tile's (contrast at most ``DIM_RATIO`` of it: a reflection
  gives back only part of the light, while a real tile beside another is as crisp);
- turned over across the row, the classifier names it as the tile it hangs from — a mirror
  image, which no real tile laid in a row is (a tile of a grid below another of its kind is
  upright, and as crisp).
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
    (:func:`vision.rows.row_direction`) and the tiles' width along it from their spacing (tiles
    in a row touch); each box's height across the row follows from its axis-aligned box. A box
    hangs from a tile when its centre is within half a tile's width of the tile's along the row,
    it is at most 1.3 times the tile's height, and its near edge lies within ``HANG`` of the
    tile's height of the tile's foot — on either side across the row (a photo taken from across
    the table has the feet on top)."""
    boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
    if len(boxes) < 2:
        return [], 0.0
    centres = np.stack([(boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2], axis=1)
    theta = row_direction([Detection("back", tuple(b), 1.0) for b in boxes])
    c, s = abs(math.cos(theta)), abs(math.sin(theta))
    links = [math.hypot(vx, vy) for vx, vy in nearest_vectors([tuple(p) for p in centres])
             if abs(vx * math.cos(theta) + vy * math.sin(theta)) > 0.8 * math.hypot(vx, vy)]
    if not links:
        return [], theta
    width = float(np.median(links))
    # a w x h box around a tile `width` along and `height` across a row at theta:
    # w = width c + height s, h = width s + height c (least squares for height)
    height = s * (boxes[:, 2] - boxes[:, 0]) + c * (boxes[:, 3] - boxes[:, 1]) - 2 * width * s * c
    along = centres @ np.array([math.cos(theta), math.sin(theta)])
    across = centres @ np.array([-math.sin(theta), math.cos(theta)])
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
    (:func:`ink_contrast`) and, turned over, it is read as that tile. A back or a white
    dragon (blank faces, the same either way up) is no tile to test, and a sideways box
    neither hangs nor is hung from (a meld's tiles lie flat and mirror no face; a kakan's
    added tile lies across its row from the called one). A box marked is no tile for the
    boxes hanging from it. Pure given the callable.
    """
    boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
    out = np.zeros(len(boxes), bool)
    pairs, theta = hanging_pairs(boxes)
    if sideways is not None:
        pairs = [(t, j) for t, j in pairs if not (sideways[t] or sideways[j])]
    if not pairs:
        return out
    grey = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY).astype(np.float32)
    contrast = np.array([ink_contrast(grey, b) for b in boxes])
    dim = [(t, j) for t, j in pairs if contrast[j] <= DIM_RATIO * contrast[t]]
    if not dim:
        return out
    cand = sorted({j for _, j in dim})
    turned = dict(zip(cand, (int(v) for v in name_turned_over(np.array(cand), theta))))
    # the crisper box first: a reflection's own faint mirror image is no tile's
    for t, j in sorted(dim, key=lambda p: -contrast[p[0]]):
        if not out[t] and int(names[t]) not in _BLANK and turned[j] == int(names[t]):
            out[j] = True
    return out
