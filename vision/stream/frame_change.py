"""Whether a video frame shows anything new since the last frame that was read in full.

Between two frames of a hand camera the hand mostly does not move: the camera shakes by a few
pixels and the compression adds noise. :class:`ChangeWatcher` keeps the last frame read in full
(the *keyframe*) and tells, for each new frame, the camera's shift since then and whether,
with that shift taken out, anything in the picture changed:

1. the shift, by phase correlation (:func:`phase_shift`) of the hand's region, or of the
   whole frame at a quarter size when no tile was read; a shift larger than
   :data:`MAX_SHIFT_PX` is a camera moved, not shaken, and the frame counts as changed (the
   caller reads it in full); a weak correlation peak (a blank table) is taken as no shift;
2. the hand's region, halved until a tile is about :data:`TILE_PX` high (a hand camera's at
   full size), the keyframe moved by the shift: the mean difference in each block of half a
   tile (:data:`HAND_BLOCK_DIFF`), which a tile swapped, added, taken away or covered raises;
3. the rest of the frame at a quarter size, likewise, in blocks of 32 px
   (:data:`FRAME_BLOCK_DIFF`): a hand laid down elsewhere, an arm coming in.

Every doubt counts as a change: the cost of a wrong "unchanged" is a wrong hand, the cost of a
wrong "changed" one full read. Pure image arithmetic, no model: 3-6 ms of CPU a 1280x720
frame on the shared development machine (a full read: 100-250 ms).
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

SMALL_HALVINGS = 2      # the whole-frame check works at a quarter of the frame's size
SMALL = 2 ** SMALL_HALVINGS
FRAME_BLOCK = 8         # its blocks, in small pixels (32 px of the frame)
# The thresholds are mean absolute differences (0..255 grey levels, BGR channels averaged) of a
# block after the shift is taken out. Measured on the shaken clips of benchmarks.stream (the
# broadcast frame and the sample photo, up to 3x2 px of shake a frame, mp4v, 300 frames each):
# unchanged blocks stayed under 4.1 in the hand and 1.9 in the small frame outside it; a tile
# swapped for another or taken away raised its block to 29-67 (tests/test_frame_change.py).
HAND_BLOCK_DIFF = 12.0
FRAME_BLOCK_DIFF = 4.0
MAX_SHIFT_PX = 8.0      # a larger move since the keyframe is a camera moved, not shaken
# least phase-correlation peak (phase_shift) taken as a shift: a clean sub-pixel shift gives
# 0.8-1, the shaken clips 0.4-0.9; a blank table (no texture to lock on) or unrelated content
# gives less
MIN_RESPONSE = 0.2
MARGIN_TILES = 1.0      # the hand's region reaches this many tile heights around its tiles
# The hand is compared with its tiles this high (px): enough to see a tile's face change, and
# a 100 px tile of a close-up costs no more than a broadcast's 30 px one
TILE_PX = 24.0
# Both sides are smoothed (Gaussian, this sigma in px) before the difference: a camera's
# sub-pixel shake blurs edges by different amounts from frame to frame, which unsmoothed
# differences on the sample photo's sharp tile edges took for a change (block means up to 23)
SMOOTH_SIGMA = 1.0


@dataclass(frozen=True)
class Change:
    """A frame against the keyframe: ``shift`` (dx, dy) of its content in pixels,
    ``changed`` whether anything besides that shift changed, ``why`` in words (empty when
    unchanged), ``diff`` the largest block difference seen, ``in_hand`` whether the change
    lies within the hand's region (else the frame as a whole: moved, resized, or changed
    elsewhere)."""

    shift: tuple[float, float]
    changed: bool
    why: str = ""
    diff: float = 0.0
    in_hand: bool = False


@dataclass(frozen=True)
class _Region:
    """The hand's rectangle ``box`` (x1, y1, x2, y2, frame px), compared at 1/``scale`` of
    the frame's size (a tile :data:`TILE_PX` high there), in blocks of ``block`` px.
    ``padded``: the keyframe around it, a ``pad`` wider on each side (so a shifted copy has no
    empty border), smoothed; ``grey``: the keyframe in it, for the phase correlation."""

    box: tuple[int, int, int, int]
    halvings: int               # scale = 2 ** halvings
    scale: float
    padded: np.ndarray          # (h + 2 pad, w + 2 pad, 3) uint8, at 1/scale
    grey: np.ndarray            # (h, w) float32, at 1/scale
    pad: int
    block: int


def hand_region(boxes: np.ndarray, width: int, height: int) -> tuple[int, int, int, int] | None:
    """The rectangle around tile boxes ``(K, 4)`` widened by :data:`MARGIN_TILES` tile
    heights, inside a ``width x height`` frame; None for no boxes."""
    boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
    if len(boxes) == 0:
        return None
    tile = float(np.median(np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])))
    m = MARGIN_TILES * tile
    x1, y1 = max(0, int(boxes[:, 0].min() - m)), max(0, int(boxes[:, 1].min() - m))
    x2, y2 = min(width, int(np.ceil(boxes[:, 2].max() + m))), min(height, int(np.ceil(boxes[:, 3].max() + m)))
    if x2 - x1 < 8 or y2 - y1 < 8:
        return None
    return x1, y1, x2, y2


def shifted(image: np.ndarray, dx: float, dy: float) -> np.ndarray:
    """``image`` with its content moved by (dx, dy) px (sub-pixel, bilinear; edges repeated)."""
    m = np.float32([[1, 0, dx], [0, 1, dy]])
    return cv2.warpAffine(image, m, image.shape[1::-1], flags=cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE)


def block_means(diff: np.ndarray, block: int) -> np.ndarray:
    """Mean of ``diff`` ``(H, W)`` float32 over blocks of about ``block`` px (the last row
    and column of blocks take the remainder); at least one block."""
    h, w = diff.shape[:2]
    bw, bh = max(1, round(w / block)), max(1, round(h / block))
    return cv2.resize(diff, (bw, bh), interpolation=cv2.INTER_AREA)


def _grey(image: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32)


_CHANNEL_MEAN = np.full((1, 3), 1 / 3, np.float32)


def _colour_diff(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Absolute difference of two BGR images, averaged over the channels: ``(H, W) float32``
    (a red five against a plain one differs in colour more than in grey)."""
    return cv2.transform(cv2.absdiff(a, b), _CHANNEL_MEAN).astype(np.float32)


class ChangeWatcher:
    """The keyframe (:meth:`keyframe`) and each later frame's :class:`Change` (:meth:`check`)."""

    def __init__(self):
        self._small: np.ndarray | None = None      # the keyframe at 1/SMALL, BGR uint8
        self._small_grey: np.ndarray | None = None
        self._region: _Region | None = None
        self._size: tuple[int, int] = (0, 0)

    @property
    def ready(self) -> bool:
        """Whether there is a keyframe to compare with."""
        return self._small is not None

    def keyframe(self, image: np.ndarray, boxes: np.ndarray) -> None:
        """Remember ``image`` ``(H, W, 3) uint8`` BGR, read in full, with its tiles' ``boxes``
        ``(K, 4)`` (frame px): later frames are compared with it."""
        h, w = image.shape[:2]
        self._size = (w, h)
        small = _halved(image, SMALL_HALVINGS)
        self._small, self._small_grey = _smooth(small), _grey(small)
        self._region = None
        box = hand_region(boxes, w, h)
        if box is not None:
            boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
            tile = float(np.median(np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])))
            # halved a whole number of times (_halved: exact 2x2 means, fast)
            halvings = max(0, round(np.log2(max(tile, 1.0) / TILE_PX)))
            scale = 2 ** halvings
            x1, y1, x2, y2 = box
            x2, y2 = x2 - (x2 - x1) % scale, y2 - (y2 - y1) % scale    # whole blocks of scale
            pad = int(np.ceil(MAX_SHIFT_PX / scale)) + 2
            big = pad * scale
            around = cv2.copyMakeBorder(image, big, big, big, big, cv2.BORDER_REPLICATE)[
                y1:y2 + 2 * big, x1:x2 + 2 * big]
            self._region = _Region((x1, y1, x2, y2), halvings, float(scale),
                                   _smooth(_halved(around, halvings)),
                                   _grey(_halved(image[y1:y2, x1:x2], halvings)), pad,
                                   max(4, round(TILE_PX / 2)))

    def check(self, image: np.ndarray) -> Change:
        """``image`` (same size as the keyframe) against the keyframe. Raises RuntimeError
        when there is no keyframe yet."""
        if self._small is None:
            raise RuntimeError("no keyframe yet")
        h, w = image.shape[:2]
        if (w, h) != self._size:
            return Change((0.0, 0.0), True, "the frame size changed")
        small = _halved(image, SMALL_HALVINGS)
        if min(small.shape[:2]) < FRAME_BLOCK + 2 * int(np.ceil(MAX_SHIFT_PX / SMALL)):
            return Change((0.0, 0.0), True, "a frame too small to compare")
        region = None
        if self._region is not None:
            x1, y1, x2, y2 = self._region.box
            region = _halved(image[y1:y2, x1:x2], self._region.halvings)
        shift, response = self._shift(region, small)
        if response < MIN_RESPONSE:
            # no clear peak: a blank table (nothing to lock on) or new content; the
            # differences below, unshifted, decide
            shift = (0.0, 0.0)
        elif max(abs(shift[0]), abs(shift[1])) > MAX_SHIFT_PX:
            return Change(shift, True, f"moved ({shift[0]:+.1f}, {shift[1]:+.1f}) px")
        worst = 0.0
        if self._region is not None:
            r = self._region
            cur = _smooth(region)
            moved = shifted(r.padded, shift[0] / r.scale, shift[1] / r.scale)[
                r.pad:r.pad + cur.shape[0], r.pad:r.pad + cur.shape[1]]
            blocks = block_means(_colour_diff(moved, cur), r.block)
            worst = float(blocks.max())
            if worst > HAND_BLOCK_DIFF:
                return Change(shift, True, f"the hand changed (block difference {worst:.1f})", worst, True)
        # the small frame, its border (where the shift brings in the unknown) left out
        moved = shifted(self._small, shift[0] / SMALL, shift[1] / SMALL)
        edge = int(np.ceil(MAX_SHIFT_PX / SMALL))
        diff = _colour_diff(moved, _smooth(small))
        if self._region is not None:    # looked at closer above
            x1, y1, x2, y2 = (v // SMALL for v in self._region.box)
            diff[y1:y2, x1:x2] = 0.0
        diff = diff[edge:-edge or None, edge:-edge or None]
        frame_worst = float(block_means(diff, FRAME_BLOCK).max()) if diff.size else 0.0
        if frame_worst > FRAME_BLOCK_DIFF:
            return Change(shift, True, f"the picture changed (block difference {frame_worst:.1f})",
                          max(worst, frame_worst))
        return Change(shift, False, "", max(worst, frame_worst))

    def _shift(self, region: np.ndarray | None, small: np.ndarray) -> tuple[tuple[float, float], float]:
        """The content's (dx, dy) since the keyframe (frame px) and the correlation peak
        (0..1), from the hand's ``region`` (at its scale) or else the ``small`` frame."""
        if self._region is not None and region is not None:
            scale = self._region.scale
            ref, cur = self._region.grey, _grey(region)
        else:
            ref, cur, scale = self._small_grey, _grey(small), float(SMALL)
        (dx, dy), response = phase_shift(ref, cur)
        return (dx * scale, dy * scale), response


def phase_shift(ref: np.ndarray, cur: np.ndarray) -> tuple[tuple[float, float], float]:
    """How far the content of ``cur`` lies moved from ``ref`` (both ``(H, W) float32``, the
    same size): ``((dx, dy), peak)``. Phase correlation under a Hanning window finds the
    whole pixels (the peak's 3x3 neighbourhood, wrapped round, its centroid a first fraction);
    two Lucas-Kanade steps on the smoothed images then place it to about 0.05 px (the
    centroid alone was off by up to 0.25 px, which left tile edges in the difference).
    ``peak``: the neighbourhood's sum, about 1 for a clean shift, near 0 for unrelated images.

    Not ``cv2.phaseCorrelate``: OpenCV 5.1's gave (0.5, 0) for two identical images, its
    centroid window not wrapped round the zero shift, a shake's commonest value."""
    h, w = ref.shape
    if min(h, w) < 8:                   # too small to correlate: no peak
        return (0.0, 0.0), 0.0
    window = cv2.createHanningWindow((w, h), cv2.CV_32F)
    fa = cv2.dft(ref * window, flags=cv2.DFT_COMPLEX_OUTPUT)
    fb = cv2.dft(cur * window, flags=cv2.DFT_COMPLEX_OUTPUT)
    cross = cv2.mulSpectrums(fb, fa, 0, conjB=True)
    cross /= cv2.magnitude(cross[..., 0], cross[..., 1])[..., None] + 1e-9
    surface = cv2.idft(cross, flags=cv2.DFT_REAL_OUTPUT | cv2.DFT_SCALE)
    iy, ix = np.unravel_index(int(np.argmax(surface)), surface.shape)
    steps = np.arange(-1, 2)
    near = np.clip(surface[np.ix_((iy + steps) % h, (ix + steps) % w)], 0, None)
    total = float(near.sum())
    if total <= 0:
        return (0.0, 0.0), 0.0
    dy = iy + float(near.sum(axis=1) @ steps) / total
    dx = ix + float(near.sum(axis=0) @ steps) / total
    dx, dy = (dx - w if dx > w / 2 else dx), (dy - h if dy > h / 2 else dy)
    return _refined(ref, cur, dx, dy), total


def _refined(ref: np.ndarray, cur: np.ndarray, dx: float, dy: float, steps: int = 2
             ) -> tuple[float, float]:
    """(dx, dy) improved by Gauss-Newton steps on the translation (Lucas-Kanade): ``cur`` is
    taken as ``ref`` moved by (dx, dy) plus the gradient times the rest."""
    a, b = _smooth(ref), _smooth(cur)
    m = 3            # a border the moved copy fills by repeating its edge: left out
    for _ in range(steps):
        moved = shifted(a, dx, dy)
        gx = cv2.Sobel(moved, cv2.CV_32F, 1, 0, ksize=3, scale=1 / 8)
        gy = cv2.Sobel(moved, cv2.CV_32F, 0, 1, ksize=3, scale=1 / 8)
        gx, gy, e = gx[m:-m, m:-m], gy[m:-m, m:-m], (b - moved)[m:-m, m:-m]
        hxx, hxy, hyy = float((gx * gx).sum()), float((gx * gy).sum()), float((gy * gy).sum())
        det = hxx * hyy - hxy * hxy
        if det <= 1e-6 * max(hxx * hyy, 1e-12):     # no texture in some direction
            break
        bx, by = float((gx * e).sum()), float((gy * e).sum())
        # cur = moved(x - delta) = moved - g . delta: delta = -(H^-1) g . e
        ddx, ddy = -(hyy * bx - hxy * by) / det, -(hxx * by - hxy * bx) / det
        if abs(ddx) > 1 or abs(ddy) > 1:            # not a small correction: keep the peak's
            break
        dx, dy = dx + ddx, dy + ddy
    return dx, dy


def _halved(image: np.ndarray, times: int) -> np.ndarray:
    """``image`` halved ``times`` times, each pixel the mean of 2x2 (a linear resize to
    exactly half samples between four pixels; 10x faster than an area resize: 0.2 against
    1.7 ms for a 1280x720 frame to a quarter)."""
    for _ in range(times):
        h, w = image.shape[:2]
        image = cv2.resize(image, (max(1, w // 2), max(1, h // 2)), interpolation=cv2.INTER_LINEAR)
    return image


def _smooth(image: np.ndarray) -> np.ndarray:
    return cv2.GaussianBlur(image, (0, 0), SMOOTH_SIGMA)
