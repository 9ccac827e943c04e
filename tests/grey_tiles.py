"""Test helper: photos of "tiles" whose grey level names their class, and a fake detector that
reads them back. Lets stream and browser tests run the real layout parser and scorer on exact,
known detections without a trained model.
"""
from __future__ import annotations

import cv2
import numpy as np

from vision.read.classes import TILE_CLASSES
from vision.read.detections import Detection, Detections
from vision.stream.live import reading_order

TILE_W, TILE_H = 30, 40


def grey(code: str) -> int:
    """Grey level of a tile class: 20 + 5 x its class index (20..245)."""
    return 20 + 5 * TILE_CLASSES.index(code)


def tile_boxes(n: int) -> list[tuple[int, int, int, int]]:
    """13 tiles in a row 2 px apart, the 14th (winning tile) set 20 px apart."""
    boxes, x = [], 60
    for i in range(n):
        if i == 13:
            x += 20
        boxes.append((x, 160, x + TILE_W, 160 + TILE_H))
        x += TILE_W + 2
    return boxes


def render(hand: list[str] | None, w: int = 640, h: int = 360) -> np.ndarray:
    """A black (h, w, 3) frame with ``hand``'s tiles as flat grey rectangles at ``tile_boxes``."""
    img = np.zeros((h, w, 3), np.uint8)
    if hand:
        for code, (x1, y1, x2, y2) in zip(hand, tile_boxes(len(hand))):
            img[y1:y2, x1:x2] = grey(code)
    return img


class GreyReader:
    """Fake detector: bright rectangles on black are tiles, their grey level names the class."""

    def read(self, img: np.ndarray) -> Detections:
        g = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
        n, _, stats, _ = cv2.connectedComponentsWithStats((g > 10).astype(np.uint8))
        dets = []
        for i in range(1, n):
            x, y, bw, bh, area = stats[i]
            if area < 200:
                continue
            inner = g[y + 5:y + bh - 5, x + 5:x + bw - 5]
            code = int(round((float(np.median(inner)) - 20) / 5))
            dets.append(Detection(TILE_CLASSES[code],
                                  (float(x), float(y), float(x + bw), float(y + bh)), 0.95))
        dets = [dets[i] for i in reading_order(dets)]
        return Detections(img.shape[1], img.shape[0], dets)
