"""Draw what was read onto a copy of the photo: tile boxes and codes, group outlines, the
winning tile. Drawing only; every decision comes from the caller.

Colours (BGR) are fixed per meaning so a referee learns them once: confident tiles green,
uncertain ones (below ``low_confidence``) orange, face-down tiles grey, the winning tile's box
magenta; group outlines take the colour of their kind.
"""
from __future__ import annotations

from typing import Iterable, Protocol, Sequence

import cv2
import numpy as np

from vision.detections import Detection

CONFIDENT = (60, 200, 60)
UNCERTAIN = (0, 150, 255)
BACK = (150, 150, 150)
WINNING = (255, 0, 255)
GROUP_COLOURS = {
    "concealed": (255, 160, 0),
    "meld": (0, 220, 255),
    "win": WINNING,
    "dora": (200, 120, 255),
    "flower": (80, 255, 180),
    "loose": (128, 128, 128),
    "guessed": UNCERTAIN,
}


class GroupLike(Protocol):
    """What ``draw`` needs of a group (``vision.layout.Group`` fits): a kind and its tiles."""

    kind: str
    detections: Sequence[Detection]


def _scale(image: np.ndarray) -> tuple[float, int]:
    """Font scale and line thickness that stay readable from thumbnails to 12 MP photos."""
    side = max(image.shape[:2])
    return max(0.4, side / 1600), max(1, round(side / 700))


def _label(img: np.ndarray, text: str, x: int, y: int, colour: tuple[int, int, int],
           font_scale: float, thickness: int) -> None:
    (tw, th), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, font_scale, thickness)
    y = max(y, th + base + 2)
    cv2.rectangle(img, (x, y - th - base - 2), (x + tw + 2, y), colour, -1)
    cv2.putText(img, text, (x + 1, y - base), cv2.FONT_HERSHEY_SIMPLEX, font_scale, (0, 0, 0),
                thickness, cv2.LINE_AA)


def draw(image_bgr: np.ndarray, tiles: Iterable[Detection], *,
         groups: Iterable[GroupLike] | None = None, winning: Detection | None = None,
         low_confidence: float = 0.5, show_confidence: bool = False) -> np.ndarray:
    """Return an annotated copy of ``image_bgr`` (``(H, W, 3) uint8``); the input is untouched.

    ``tiles``: detections (boxes in image pixels) to box and label with their code (``*`` marks a
    sideways tile). ``groups``: optional outlines around each group's tiles, labelled with the
    group's ``label`` where it has one, else its kind. ``winning``: the winning tile, drawn with a thick magenta box.
    """
    out = image_bgr.copy()
    fs, lw = _scale(out)
    for g in groups or ():
        dets = list(g.detections)
        if not dets:
            continue
        colour = GROUP_COLOURS.get(g.kind, (255, 255, 255))
        x1 = min(d.box[0] for d in dets)
        y1 = min(d.box[1] for d in dets)
        x2 = max(d.box[2] for d in dets)
        y2 = max(d.box[3] for d in dets)
        pad = 3 * lw
        cv2.rectangle(out, (int(x1) - pad, int(y1) - pad), (int(x2) + pad, int(y2) + pad), colour,
                      lw)
        _label(out, getattr(g, "label", None) or g.kind, int(x1) - pad, int(y2) + pad + int(22 * fs), colour, fs * 0.8, max(1, lw - 1))
    for d in tiles:
        colour = BACK if d.tile == "back" else CONFIDENT if d.confidence >= low_confidence else UNCERTAIN
        x1, y1, x2, y2 = (int(round(v)) for v in d.box)
        cv2.rectangle(out, (x1, y1), (x2, y2), colour, lw)
        text = d.tile + ("*" if d.sideways else "")
        if show_confidence:
            text += f" {d.confidence:.2f}"
        _label(out, text, x1, y1, colour, fs, max(1, lw - 1))
    if winning is not None:
        x1, y1, x2, y2 = (int(round(v)) for v in winning.box)
        cv2.rectangle(out, (x1 - lw, y1 - lw), (x2 + lw, y2 + lw), WINNING, 3 * lw)
    return out
