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


Rect = tuple[int, int, int, int]          # x1, y1, x2, y2 in image pixels


def _overlaps(a: Rect, b: Rect) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def place_label(box: Rect, size: tuple[int, int], image_wh: tuple[int, int],
                taken: list[Rect], below_first: bool = False) -> Rect | None:
    """Where a label of ``size`` (w, h) goes for ``box``: its rectangle at the box's left edge,
    above the box or else below it (``below_first``: the other way), kept inside the image,
    overlapping none of ``taken``; None when both would (the caller leaves it out). Labels of
    small tiles side by side made an unreadable strip: each second one now goes below."""
    w, h = size
    iw, ih = image_wh
    x = min(max(0, box[0]), max(0, iw - w))
    above = (x, max(0, box[1] - h), x + w, max(0, box[1] - h) + h)
    below = (x, min(ih - h, box[3]), x + w, min(ih - h, box[3]) + h)
    for rect in ((below, above) if below_first else (above, below)):
        if not any(_overlaps(rect, t) for t in taken):
            return rect
    return None


def _text_size(text: str, font_scale: float, thickness: int) -> tuple[int, int, int]:
    """Width and height of ``text``'s filled label (2 px padding), and its baseline."""
    (tw, th), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, font_scale, thickness)
    return tw + 2, th + base + 2, base


def _label(img: np.ndarray, text: str, rect: Rect, base: int, colour: tuple[int, int, int],
           font_scale: float, thickness: int) -> None:
    cv2.rectangle(img, rect[:2], (rect[2], rect[3]), colour, -1)
    cv2.putText(img, text, (rect[0] + 1, rect[3] - base), cv2.FONT_HERSHEY_SIMPLEX, font_scale,
                (0, 0, 0), thickness, cv2.LINE_AA)


def draw(image_bgr: np.ndarray, tiles: Iterable[Detection], *,
         groups: Iterable[GroupLike] | None = None, winning: Detection | None = None,
         low_confidence: float = 0.5, show_confidence: bool = False) -> np.ndarray:
    """Return an annotated copy of ``image_bgr`` (``(H, W, 3) uint8``); the input is untouched.

    ``tiles``: detections (boxes in image pixels) to box and label with their code (``*`` marks a
    sideways tile). ``groups``: optional outlines around each group's tiles, labelled with the
    group's ``label`` where it has one, else its kind. ``winning``: the winning tile, drawn with a thick magenta box.
    A label goes above its box, else below it, else is left out (``place_label``): labels
    never cover one another.
    """
    out = image_bgr.copy()
    fs, lw = _scale(out)
    wh = (out.shape[1], out.shape[0])
    taken: list[Rect] = []        # labels placed so far: no label is drawn over another
    labels = []                   # (text, rect, baseline, colour, font scale, thickness)
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
        outline = (int(x1) - pad, int(y1) - pad, int(x2) + pad, int(y2) + pad)
        cv2.rectangle(out, outline[:2], outline[2:], colour, lw)
        text, thick = getattr(g, "label", None) or g.kind, max(1, lw - 1)
        w, h, base = _text_size(text, fs * 0.8, thick)
        rect = place_label(outline, (w, h), wh, taken, below_first=True)
        if rect is not None:
            taken.append(rect)
            labels.append((text, rect, base, colour, fs * 0.8, thick))
    for d in tiles:
        colour = BACK if d.tile == "back" else CONFIDENT if d.confidence >= low_confidence else UNCERTAIN
        x1, y1, x2, y2 = (int(round(v)) for v in d.box)
        cv2.rectangle(out, (x1, y1), (x2, y2), colour, lw)
        text = d.tile + ("*" if d.sideways else "")
        if show_confidence:
            text += f" {d.confidence:.2f}"
        w, h, base = _text_size(text, fs, max(1, lw - 1))
        rect = place_label((x1, y1, x2, y2), (w, h), wh, taken)
        if rect is not None:      # no room above or below: its box alone, not a smudge of text
            taken.append(rect)
            labels.append((text, rect, base, colour, fs, max(1, lw - 1)))
    if winning is not None:
        x1, y1, x2, y2 = (int(round(v)) for v in winning.box)
        cv2.rectangle(out, (x1 - lw, y1 - lw), (x2 + lw, y2 + lw), WINNING, 3 * lw)
    for text, rect, base, colour, scale, thick in labels:    # over every box and outline
        _label(out, text, rect, base, colour, scale, thick)
    return out
