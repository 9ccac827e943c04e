"""Warnings about the photo itself, added after the corrections: tiles smaller than the reader
was trained on (``small_tiles``), a photo without colour where red fives count
(``no_colour``), a photo the reader was unsure of as a whole (``unsure_photo``), boxes left out
as reflections in a glass table top (``reflections``), and a photo of grain rather than tiles
(``too_many_boxes``). None of them changes the reading.
"""
from __future__ import annotations

from vision.read.detections import Detections
from vision.layout import Layout, LayoutWarning

# The smallest tiles (box long side, image pixels) in the classifier's training crops
# (models/train_classifier.py: 16..34 px for broadcast-size tiles).
SMALL_TILE_PX = 16
# Below this median tile confidence the photo as a whole is called unsure (unsure_photo): on
# 40 rendered hands each, 72% of the held-out jade set's photos, 13% of riichi-regular's
# (mostly taken from low down) and 3% of riichi-black's.
UNSURE_PHOTO = 0.4


def too_many_boxes(boxes: int) -> LayoutWarning:
    """The ``too_many_boxes`` warning: the reader's cap reached (``boxes`` or more): grain,
    noise or dithering read as tiles, not a hand."""
    return LayoutWarning(
        "too_many_boxes",
        f"the reader found {boxes} or more tile-like boxes, more than a whole "
        "table holds: the photo is too grainy, noisy or dithered to read. Take it again in "
        "better light, without a filter or a black-and-white mode")


def reflections_warning(detections: Detections) -> LayoutWarning | None:
    """The ``reflections`` warning when boxes were left out as tiles' mirror images
    (``vision.read.reflections``)."""
    if not detections.reflections:
        return None
    n = len(detections.reflections)
    return LayoutWarning(
        "reflections",
        f"{n} box{'es' if n > 1 else ''} just beyond the tiles' feet looked like their mirror "
        f"image{'s' if n > 1 else ''} in the table top (glass) and {'were' if n > 1 else 'was'} "
        "not counted; if a tile is missing, take the photo on a table that does not reflect")


def unsure_photo_warning(detections: Detections) -> LayoutWarning | None:
    """The ``unsure_photo`` warning when the reader named most of the photo's tiles unsurely
    (median confidence under ``UNSURE_PHOTO``): a tile set unlike the ones it was trained on,
    a camera low over the table, blur. Each unsure tile has its own ``low_confidence``
    warning; this one says that the photo as a whole should not be trusted."""
    confs = sorted(d.confidence for d in detections.tiles)
    if not confs or confs[len(confs) // 2] >= UNSURE_PHOTO:
        return None
    return LayoutWarning(
        "unsure_photo",
        f"the reader is unsure of most tiles in this photo (median confidence "
        f"{confs[len(confs) // 2]:.2f}): an unfamiliar tile set, a camera low over the table or "
        "blur. Check every tile, or take the photo from above")


# A photo in which fewer than this share of pixels show any colour (channels more than
# COLOUR_STEP apart, 0..255, once its exposure is brought up to full range) has none:
# greyscale, or a black-and-white filter. Rendered hands and the real photos show 1.4% and
# more (a grey photo 0.0%). A dark photo is lifted by at most MAX_COLOUR_GAIN (x8: JPEG
# chroma noise of a grey photo, ~2 levels, stays under COLOUR_STEP).
COLOURED_SHARE = 0.002
COLOUR_STEP = 24
MAX_COLOUR_GAIN = 8.0
# A tinted black-and-white photo (sepia, a "warm" or "cool" mono filter) has colour, but one
# that follows the brightness alone: at each grey level one chroma. Around the hand, brought
# down to TINT_SIZE px (area averaging: JPEG's chroma error is fine detail), a colour photo
# has its ink off the body's chroma at the same grey level: TINT_STEP levels off in 4.2% of
# the pixels and more (120 rendered hands of four styles, 1280x720 broadcast frames among
# them; the real photos 8% and more); sepia copies of them, saved at JPEG quality 60 or
# 90, 2.5% at most (the real photos' 0.0%).
TINT_SIZE = 96
TINT_STEP = 16.0
TINTED_SHARE = 0.033


def hand_area(layout: Layout, width: int, height: int) -> tuple[int, int, int, int]:
    """The part of the photo around the hand: its tiles' span and a tenth more each way,
    ``(x1, y1, x2, y2)`` in whole pixels within the photo."""
    x1 = min(d.box[0] for d in layout.order)
    y1 = min(d.box[1] for d in layout.order)
    x2 = max(d.box[2] for d in layout.order)
    y2 = max(d.box[3] for d in layout.order)
    mx, my = 0.1 * (x2 - x1), 0.1 * (y2 - y1)
    return (int(max(0, x1 - mx)), int(max(0, y1 - my)), int(min(width, x2 + mx)),
            int(min(height, y2 + my)))


class PhotoColour:
    """What ``no_colour`` measures of a photo (an ``(H, W, 3)`` BGR array); the offline page's
    photo (``vision.offline.reader.BrowserPhoto``) measures the same in the browser."""

    def __init__(self, array):
        self.array = array
        self.size = (array.shape[1], array.shape[0])     # width, height

    def coloured_share(self) -> float | None:
        """The share of pixels (a coarse look, the exposure brought up to full range) whose
        channels are more than ``COLOUR_STEP`` apart; None for an array that is not BGR."""
        import numpy as np

        array = self.array
        if array.ndim != 3:
            return None
        step = max(1, max(array.shape[:2]) // 256)          # a coarse look is enough
        small = array[::step, ::step].astype("float32")
        top = small.max(axis=2)
        # an underexposed photo has its colours at a few levels apart: judge it as if exposed fully
        gain = min(MAX_COLOUR_GAIN, 255.0 / max(float(np.percentile(top, 99)), 1.0))
        return float(((top - small.min(axis=2)) * max(gain, 1.0) > COLOUR_STEP).mean())

    def off_tint_share(self, x1: int, y1: int, x2: int, y2: int) -> float:
        """The share of pixels of the area ``(x1, y1, x2, y2)``, brought down to ``TINT_SIZE`` px,
        whose chroma is more than ``TINT_STEP`` levels off the mean chroma of their grey level:
        near 0 for a tinted black-and-white photo (see ``TINTED_SHARE``)."""
        import cv2
        import numpy as np

        area = self.array[y1:y2, x1:x2]
        if area.size == 0:
            return 1.0
        f = TINT_SIZE / max(area.shape[:2])
        if f < 1:
            area = cv2.resize(area, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
        s = area.astype(np.float32)
        b, g, r = s[..., 0], s[..., 1], s[..., 2]
        gain = max(1.0, min(MAX_COLOUR_GAIN, 255.0 / max(float(np.percentile(s.max(axis=2), 99)), 1.0)))
        x, y = (r - g) * gain, ((r + g) / 2 - b) * gain       # red-green and yellow-blue axes
        level = np.clip(((b + g + r) / 3 * gain / 8).astype(np.int64), 0, 31).ravel()
        n = np.maximum(np.bincount(level, minlength=32), 1)
        mean_x = np.bincount(level, x.ravel(), minlength=32) / n
        mean_y = np.bincount(level, y.ravel(), minlength=32) / n
        off = np.hypot(x.ravel() - mean_x[level], y.ravel() - mean_y[level])
        return float((off > TINT_STEP).mean())


def no_colour_warning(array, ctx: dict, layout: Layout) -> LayoutWarning | None:
    """The ``no_colour`` warning for a riichi hand played with red fives (``rules.aka``) in a
    photo without colour (grey, or tinted: :meth:`PhotoColour.off_tint_share`): a red five is
    told from a plain one by its red ink alone, so every five read is a guess between the two
    (the payment may lack its aka dora)."""
    if (array is None or not layout.order or ctx.get("ruleset", "riichi") != "riichi"
            or not (ctx.get("rules") or {}).get("aka", True)):
        return None
    photo = array if hasattr(array, "coloured_share") else PhotoColour(array)
    coloured = photo.coloured_share()
    if coloured is None:
        return None
    if (coloured >= COLOURED_SHARE
            and photo.off_tint_share(*hand_area(layout, *photo.size)) >= TINTED_SHARE):
        return None
    fives = [n for n, d in enumerate(layout.order, start=1) if d.tile[0] in "05" and d.tile[1:] in ("m", "p", "s")]
    which = (f" (tile{'s' if len(fives) > 1 else ''} {', '.join(map(str, fives))})" if fives else "")
    return LayoutWarning(
        "no_colour",
        "the photo has no colour, so a red five cannot be told from a plain five" + which
        + ": pass --fix N=0m (0p, 0s) for each red five, or take the photo in colour",
        "", tuple(fives))


def small_tiles_warning(detections: Detections) -> LayoutWarning | None:
    """A warning when the tiles are smaller in the photo than the classifier was trained on
    (``SMALL_TILE_PX``, the median long side of the boxes in image pixels): its names are
    guesses there, whatever confidence it gives."""
    sides = sorted(max(d.width, d.height) for d in detections.tiles)
    if not sides:
        return None
    median = sides[len(sides) // 2]
    if median >= SMALL_TILE_PX:
        return None
    return LayoutWarning(
        "small_tiles",
        f"the tiles are only about {median:.0f} px high in the photo, smaller than the "
        f"{SMALL_TILE_PX} px the reader was trained on: check every tile, or take the photo "
        "closer or at a higher resolution")
