"""A second, closer look when the tiles are small in the detector's input.

The detector sees the whole photo letterboxed to one square (416 px for the bundled model). A
broadcast hand-camera frame (1280×720, tiles about 22×30 px) shrinks its tiles to about 7×10 px
there, below the sizes the detector was trained on (box heights mostly 16–100 px; see
``models/README.md``), and many tiles are missed or merged. So when the first pass finds tiles
whose median height in the letterbox is under :data:`ZOOM_BELOW_PX`, the area they cover
(plus a margin, for tiles the first pass missed at the ends of a row) is cut into square windows
sized so that a tile is about :data:`TARGET_TILE_PX` high in the detector's input, each window is
detected on its own, and the boxes are merged.

When the first pass finds nothing at all in a frame much larger than the input, a coarser
grid of windows over the whole frame (:func:`blind_windows`) finds the tiles first.

All functions are pure numpy and work in original-image pixels.
"""
from __future__ import annotations

import math

import numpy as np

ZOOM_BELOW_PX = 24.0    # first-pass median tile height (letterbox px) under which we zoom
TARGET_TILE_PX = 44.0   # tile height aimed at in a zoomed window (letterbox px; 34 and 56 read worse)
MIN_GAIN = 1.4          # a zoom that enlarges tiles less than this is not worth a pass
MAX_WINDOWS = 8         # above this many windows, the windows grow (less zoom) instead
MARGIN_TILES = 2.0      # margin around the first pass's tiles, in tile heights
OVERLAP_TILES = 1.6     # windows overlap by this many tile heights: a tile cut by one is whole in the next
BLIND_SIDE = 2.0        # windows of a blind look (nothing found) are this many inputs on a side
EDGE_PX = 2.0           # a box within this of an inner window edge was cut by the window


def tile_height(boxes: np.ndarray) -> float:
    """Median long side of ``(K, 4)`` boxes x1 y1 x2 y2 (a sideways tile is as long as an
    upright one is tall); 0.0 for no boxes."""
    boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
    if len(boxes) == 0:
        return 0.0
    return float(np.median(np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])))


def plan_windows(boxes: np.ndarray, width: int, height: int, imgsz: int
                 ) -> list[tuple[int, int, int, int]]:
    """Windows ``(x1, y1, x2, y2)`` (image pixels, integers, inside the image) for a closer look.

    ``boxes``: the first pass's tiles ``(K, 4)`` in image pixels of a ``width × height`` photo
    read at ``imgsz`` (the detector's square input side). Returns ``[]`` when no zoom is needed
    or none would help: no tiles, tiles already at least ``ZOOM_BELOW_PX`` high in the letterbox,
    or windows that would enlarge them less than ``MIN_GAIN`` times. Otherwise the smallest grid
    of equal windows covering the tiles' area plus ``MARGIN_TILES`` tile heights, each about
    ``imgsz * h / TARGET_TILE_PX`` px on a side (h: the median tile height), at most
    ``MAX_WINDOWS`` of them, neighbours overlapping by ``OVERLAP_TILES`` tile heights.
    """
    h = tile_height(boxes)
    if h <= 0 or width <= 0 or height <= 0:
        return []
    first_scale = imgsz / max(width, height)
    if h * first_scale >= ZOOM_BELOW_PX:
        return []
    boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
    margin = MARGIN_TILES * h
    rx1, ry1 = max(0.0, boxes[:, 0].min() - margin), max(0.0, boxes[:, 1].min() - margin)
    rx2, ry2 = min(float(width), boxes[:, 2].max() + margin), min(float(height), boxes[:, 3].max() + margin)
    out = _grid(rx1, ry1, rx2, ry2, imgsz * h / TARGET_TILE_PX, OVERLAP_TILES * h, width, height)
    # each window is letterboxed on its own: its long side fills the input
    gain = min(imgsz / max(x2 - x1, y2 - y1) for x1, y1, x2, y2 in out) / first_scale
    if gain < MIN_GAIN:
        return []
    return out


def blind_windows(width: int, height: int, imgsz: int) -> list[tuple[int, int, int, int]]:
    """Windows over the whole photo for when the first pass found no tile at all: in a large
    frame (1920×1080 with 22×30 px tiles) the tiles are too small for it to see any. Each window
    is ``BLIND_SIDE`` detector inputs on a side (at most ``MAX_WINDOWS``), enough for the
    detector to find the tiles roughly; their boxes then plan the close look of
    :func:`plan_windows`. ``[]`` for a photo that is not much larger than those windows.
    """
    side = BLIND_SIDE * imgsz
    if max(width, height) < 1.2 * side:
        return []
    return _grid(0.0, 0.0, float(width), float(height), side, 0.1 * side, width, height)


def _grid(rx1: float, ry1: float, rx2: float, ry2: float, side: float, overlap: float,
          width: int, height: int) -> list[tuple[int, int, int, int]]:
    """The fewest square windows of ``side`` (grown by 1.25× until at most ``MAX_WINDOWS``)
    covering the region, neighbours overlapping by ``overlap``, slid inside the photo."""
    while True:
        nx = _count(rx2 - rx1, side, overlap)
        ny = _count(ry2 - ry1, side, overlap)
        if nx * ny <= MAX_WINDOWS:
            break
        side *= 1.25
    out = []
    for y in _starts(ry1, ry2, side, ny):
        for x in _starts(rx1, rx2, side, nx):
            # a window near the photo's edge slides inwards rather than shrink (less zoom)
            x, y = min(max(x, 0.0), max(0.0, width - side)), min(max(y, 0.0), max(0.0, height - side))
            x1, y1 = int(max(0, math.floor(x))), int(max(0, math.floor(y)))
            x2, y2 = int(min(width, math.ceil(x + side))), int(min(height, math.ceil(y + side)))
            out.append((x1, y1, x2, y2))
    return out


def _count(extent: float, side: float, overlap: float) -> int:
    """Windows of ``side`` overlapping by ``overlap`` needed to cover ``extent``."""
    if extent <= side:
        return 1
    return int(math.ceil((extent - overlap) / (side - overlap)))


def _starts(lo: float, hi: float, side: float, n: int) -> list[float]:
    """``n`` window starts spread evenly so the windows span ``lo..hi`` (centred if one is
    longer than the span)."""
    if n == 1:
        return [lo + (hi - lo - side) / 2]
    step = (hi - lo - side) / (n - 1)
    return [lo + k * step for k in range(n)]


def cut_by_window(boxes: np.ndarray, window: tuple[int, int, int, int], width: int, height: int
                  ) -> np.ndarray:
    """``(K,) bool``: the box touches an edge of ``window`` that is not an edge of the image, so
    the window may have cut the tile (its neighbour window, overlapping, sees it whole)."""
    boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
    x1, y1, x2, y2 = window
    cut = np.zeros(len(boxes), bool)
    if x1 > 0:
        cut |= boxes[:, 0] <= x1 + EDGE_PX
    if y1 > 0:
        cut |= boxes[:, 1] <= y1 + EDGE_PX
    if x2 < width:
        cut |= boxes[:, 2] >= x2 - EDGE_PX
    if y2 < height:
        cut |= boxes[:, 3] >= y2 - EDGE_PX
    return cut


def span(windows) -> tuple[int, int, int, int]:
    """The rectangle ``(x1, y1, x2, y2)`` spanned by windows (or rectangles) of that form."""
    a = np.asarray(windows).reshape(-1, 4)
    return int(a[:, 0].min()), int(a[:, 1].min()), int(a[:, 2].max()), int(a[:, 3].max())


def within(inner: tuple[int, int, int, int], outer: tuple[int, int, int, int]) -> bool:
    """Rectangle ``inner`` lies inside ``outer`` (both x1 y1 x2 y2)."""
    return inner[0] >= outer[0] and inner[1] >= outer[1] and inner[2] <= outer[2] and inner[3] <= outer[3]
