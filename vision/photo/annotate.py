"""Draw what was read onto a copy of the photo: tile boxes and codes, group outlines, the
winning tile. Drawing only; every decision comes from the caller.

Colours (BGR) are fixed per meaning so a referee learns them once: confident tiles green,
uncertain ones (below ``low_confidence``) orange, face-down tiles grey, the winning tile's box
magenta; group outlines take the colour of their kind.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Iterable, Protocol, Sequence

import cv2
import numpy as np

from vision.read.detections import Detection

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
    return _scale_of((image.shape[1], image.shape[0]))


Rect = tuple[int, int, int, int]          # x1, y1, x2, y2 in image pixels


def _overlaps(a: Rect, b: Rect) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


# how far out (in label heights) a crowded row's line of labels may move to find room
LANES = 4


def place_label(box: Rect, size: tuple[int, int], image_wh: tuple[int, int],
                taken: list[Rect], below_first: bool = False, lanes: int = 1) -> Rect | None:
    """Where a label of ``size`` (w, h) goes for ``box``: its rectangle at the box's left edge,
    above the box or else below it (``below_first``: the other way), kept inside the image,
    overlapping none of ``taken``; with ``lanes`` > 1, then further out on the first side, a
    label's height at a time (the caller draws a leader line); None when nothing fits (the
    caller leaves it out). Labels of small tiles side by side made an unreadable strip."""
    w, h = size
    iw, ih = image_wh
    x = min(max(0, box[0]), max(0, iw - w))

    def above(k: int) -> Rect:
        y = max(0, box[1] - h * (k + 1))
        return (x, y, x + w, y + h)

    def below(k: int) -> Rect:
        y = max(0, min(ih - h, box[3] + h * k))
        return (x, y, x + w, y + h)

    first, second = (below, above) if below_first else (above, below)
    for rect in [first(0), second(0)] + [first(k) for k in range(1, lanes)]:
        if not any(_overlaps(rect, t) for t in taken):
            return rect
    return None


def _text_size(text: str, font_scale: float, thickness: int) -> tuple[int, int, int]:
    """Width and height of ``text``'s filled label (2 px padding), and its baseline."""
    (tw, th), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, font_scale, thickness)
    return tw + 2, th + base + 2, base


def _label(img: np.ndarray, text: str, rect: Rect, base: int, colour: tuple[int, int, int],
           font_scale: float, thickness: int, ink: tuple[int, int, int] = (0, 0, 0)) -> None:
    cv2.rectangle(img, rect[:2], (rect[2], rect[3]), colour, -1)
    cv2.putText(img, text, (rect[0] + 1, rect[3] - base), cv2.FONT_HERSHEY_SIMPLEX, font_scale,
                ink, thickness, cv2.LINE_AA)


@dataclass(frozen=True)
class Label:
    """A label placed: its text, rectangle, baseline, ground colour, font scale and thickness,
    the ink, and the tile box it names (a leader line is drawn to a label not touching it)."""

    text: str
    rect: Rect
    base: int
    colour: tuple[int, int, int]
    scale: float
    thick: int
    ink: tuple[int, int, int] = (0, 0, 0)
    box: Rect | None = None

    @property
    def apart(self) -> bool:
        """Not touching its box: joined to it by a leader line."""
        b = self.box
        return b is not None and not (self.rect[3] >= b[1] - 1 and self.rect[1] <= b[3] + 1)


def place_labels(image_wh: tuple[int, int], tiles: Sequence[Detection],
                 groups: Iterable[GroupLike] = (), *, low_confidence: float = 0.5,
                 show_confidence: bool = False, numbers: bool = False) -> list[Label]:
    """Every label of a picture, none covering another nor a tile: group names (below their
    outline first), each tile's code (just above it, else just below), and with ``numbers``
    each tile's reading-order number, 1 up in ``tiles`` order (just below it). A row of tiles
    too small for that (a broadcast frame's 6-px tiles) gets its codes in one line above the
    row and its numbers in one line below, in the tiles' order, each joined to its tile by a
    leader line (:func:`_fan`). A label with no room at all is left out."""
    fs, lw = _scale_of(image_wh)
    boxes = [tuple(int(round(v)) for v in d.box) for d in tiles]
    taken: list[Rect] = list(boxes)
    labels: list[Label] = []
    for g in groups or ():
        dets = list(g.detections)
        if dets:
            pad = 3 * lw
            outline = (int(min(d.box[0] for d in dets)) - pad, int(min(d.box[1] for d in dets)) - pad,
                       int(max(d.box[2] for d in dets)) + pad, int(max(d.box[3] for d in dets)) + pad)
            text, thick = getattr(g, "label", None) or g.kind, max(1, lw - 1)
            w, h, base = _text_size(text, fs * 0.8, thick)
            rect = place_label(outline, (w, h), image_wh, taken, below_first=True)
            if rect is not None:
                taken.append(rect)
                labels.append(Label(text, rect, base, GROUP_COLOURS.get(g.kind, (255, 255, 255)),
                                    fs * 0.8, thick))
    thick = max(1, lw - 1)
    codes = []
    for d, box in zip(tiles, boxes):
        colour = BACK if d.tile == "back" else CONFIDENT if d.confidence >= low_confidence else UNCERTAIN
        text = d.tile + ("*" if d.sideways else "") + (f" {d.confidence:.2f}" if show_confidence else "")
        codes.append(Label(text, (0, 0, 0, 0), 0, colour, fs, thick, (0, 0, 0), box))
    kinds = [(codes, False)]
    if numbers:
        kinds.append(([Label(str(n), (0, 0, 0, 0), 0, (0, 0, 0), fs * 0.9, thick, (255, 255, 255), box)
                       for n, box in enumerate(boxes, start=1)], True))
    rows = _rows(boxes)
    for wanted, below in kinds:
        for row in rows:
            labels += _placed(row, wanted, below, image_wh, taken)
    return labels


def _placed(row: list[int], wanted: list[Label], below: bool, image_wh, taken: list[Rect]) -> list[Label]:
    """The labels of one row's tiles (indices ``row``): each beside its tile (codes above or
    below, numbers below); when one of them finds no room there, all of the row's in a line
    outside the row (:func:`_fan`). ``taken`` grows by the rectangles used."""
    mark = len(taken)
    out = []
    for i in row:
        lab = wanted[i]
        w, h, base = _text_size(lab.text, lab.scale, lab.thick)
        rect = place_label(lab.box, (w, h), image_wh, taken, below_first=below, lanes=1)
        if rect is None or (below and rect[1] < lab.box[1]):     # a number goes below its tile
            del taken[mark:]
            return _fan([wanted[i] for i in row], below, image_wh, taken)
        taken.append(rect)
        out.append(replace(lab, rect=rect, base=base))
    return out


def _fan(row: list[Label], below: bool, image_wh, taken: list[Rect]) -> list[Label]:
    """A crowded row's labels in one line outside it (above, or ``below``), in the order of
    their tiles left to right, centred on the row and a label's height clear of it (room for
    the leader lines), moved further out while it would cover something; [] when no line fits."""
    iw, ih = image_wh
    row = sorted(row, key=lambda lab: lab.box[0] + lab.box[2])
    sizes = [_text_size(lab.text, lab.scale, lab.thick) for lab in row]
    width = sum(w for w, _, _ in sizes) + 2 * (len(row) - 1)
    h = max(hh for _, hh, _ in sizes)
    if width > iw:
        return []
    centre = sum(lab.box[0] + lab.box[2] for lab in row) / (2 * len(row))
    x0 = int(min(max(0, centre - width / 2), iw - width))
    edge = max(lab.box[3] for lab in row) if below else min(lab.box[1] for lab in row)
    for k in range(1, LANES + 1):
        y = edge + h * k if below else edge - h * (k + 1)
        if y < 0 or y + h > ih:
            break
        rects, x = [], x0
        for w, _, _ in sizes:
            rects.append((x, y, x + w, y + h))
            x += w + 2
        if not any(_overlaps(r, t) for r in rects for t in taken):
            taken.extend(rects)
            return [replace(lab, rect=r, base=base) for lab, r, (_, _, base) in zip(row, rects, sizes)]
    return []


def _rows(boxes: list[Rect]) -> list[list[int]]:
    """The tiles in rows: tiles side by side (overlapping by half their height, less than a
    tile's width apart) are of one row, joined transitively; rows in order of their first tile."""
    parent = list(range(len(boxes)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, a in enumerate(boxes):
        for j in range(i + 1, len(boxes)):
            b = boxes[j]
            overlap = min(a[3], b[3]) - max(a[1], b[1])
            gap = max(a[0], b[0]) - min(a[2], b[2])
            if overlap > 0.5 * min(a[3] - a[1], b[3] - b[1]) and gap < max(a[2] - a[0], b[2] - b[0]):
                parent[find(j)] = find(i)
    rows: dict[int, list[int]] = {}
    for i in range(len(boxes)):
        rows.setdefault(find(i), []).append(i)
    return list(rows.values())


def _scale_of(image_wh: tuple[int, int]) -> tuple[float, int]:
    side = max(image_wh)        # the longer side of (w, h)
    return max(0.4, side / 1600), max(1, round(side / 700))


def draw(image_bgr: np.ndarray, tiles: Iterable[Detection], *,
         groups: Iterable[GroupLike] | None = None, winning: Detection | None = None,
         low_confidence: float = 0.5, show_confidence: bool = False,
         numbers: bool = False) -> np.ndarray:
    """Return an annotated copy of ``image_bgr`` (``(H, W, 3) uint8``); the input is untouched.

    ``tiles``: detections (boxes in image pixels) to box and label with their code (``*`` marks a
    sideways tile). ``groups``: optional outlines around each group's tiles, labelled with the
    group's ``label`` where it has one, else its kind. ``winning``: the winning tile, drawn with
    a thick magenta box. ``numbers``: each tile's reading-order number (the N of ``--fix
    N=TILE``) too. Labels never cover one another (:func:`place_labels`): in a row of tiles
    smaller than their labels they stack outward, each joined to its tile by a leader line.
    """
    out = image_bgr.copy()
    tiles = list(tiles)
    groups = list(groups or ())
    fs, lw = _scale(out)
    for g in groups:
        dets = list(g.detections)
        if not dets:
            continue
        pad = 3 * lw
        x1, y1 = int(min(d.box[0] for d in dets)) - pad, int(min(d.box[1] for d in dets)) - pad
        x2, y2 = int(max(d.box[2] for d in dets)) + pad, int(max(d.box[3] for d in dets)) + pad
        cv2.rectangle(out, (x1, y1), (x2, y2), GROUP_COLOURS.get(g.kind, (255, 255, 255)), lw)
    for d in tiles:
        colour = BACK if d.tile == "back" else CONFIDENT if d.confidence >= low_confidence else UNCERTAIN
        x1, y1, x2, y2 = (int(round(v)) for v in d.box)
        cv2.rectangle(out, (x1, y1), (x2, y2), colour, lw)
    if winning is not None:
        x1, y1, x2, y2 = (int(round(v)) for v in winning.box)
        cv2.rectangle(out, (x1 - lw, y1 - lw), (x2 + lw, y2 + lw), WINNING, 3 * lw)
    labels = place_labels((out.shape[1], out.shape[0]), tiles, groups, low_confidence=low_confidence,
                          show_confidence=show_confidence, numbers=numbers)
    for lab in labels:                                      # leader lines under the labels
        if lab.apart:
            b, r = lab.box, lab.rect
            up = r[3] <= b[1]
            cv2.line(out, ((b[0] + b[2]) // 2, b[1] if up else b[3]),
                     ((r[0] + r[2]) // 2, r[3] if up else r[1]), lab.colour if lab.ink == (0, 0, 0)
                     else (255, 255, 255), 1, cv2.LINE_AA)
    for lab in labels:                                      # over every box and outline
        _label(out, lab.text, lab.rect, lab.base, lab.colour, lab.scale, lab.thick, lab.ink)
    return out
