"""Learning a set profile: from a photo of the set's tiles, and from a corrected tile.

``photo + the tiles it shows, in reading order -> detections -> one reference per tile``. The
reader finds the tiles; the user's ``--tiles`` text names them (rows top to bottom, each left
to right: :func:`sheet_order`, the layout parser's rows, which stay apart when a row is
tilted). Three checks keep a wrong sheet from being learned silently: the count must match; a
sheet whose tiles mostly read as other kinds than named is refused (rows out of order); two
tiles that each read surely as the other's kind (swapped on the table?) are learned as named
but said first, since an unfamiliar set can confuse two kinds both ways (3z and 2z on some
real sets), and a refusal would leave such a set unlearnable.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, replace

import numpy as np

from .classes import CLASS_INDEX
from .detections import Detection, Detections
from .set_sheet import (GIVEN_UNLIKELY, MOSTLY_OTHER, SHEET_THRESHOLDS, SURE_OTHER,  # noqa: F401 - public here
                        Disagreement, SheetRefused, disagreements, parse_sheet, sheet_order, sheet_rows,
                        swapped)
from .tile_crops import crop_boxes
from .tileset import SetError, TileSet, calibrate, empty

@dataclass(frozen=True)
class Learned:
    """What :func:`learn_sheet` did: the new profile, the tiles it found (reading order), each
    tile's given kind, the tiles whose reading disagreed with their kind (learned as given) and
    the pairs of them that look swapped (each read as the other's kind)."""

    tileset: TileSet
    detections: Detections
    kinds: tuple[str, ...]
    disagreements: tuple[Disagreement, ...]
    swaps: tuple[tuple[Disagreement, Disagreement], ...] = ()
    sheet_probs: np.ndarray | None = None    # (N, 46): the classifier's reading of each tile


def reference_crops(image_bgr: np.ndarray, boxes: np.ndarray, size: int) -> np.ndarray:
    """The boxes cut as the classifier sees them, kept as a profile keeps them:
    ``(N, size, size, 3) uint8`` BGR (:func:`vision.read.tile_crops.crop_boxes`, back to bytes)."""
    tensors = crop_boxes(image_bgr, boxes, size)
    return np.ascontiguousarray((tensors * 255.0 + 0.5).astype(np.uint8).transpose(0, 2, 3, 1))


def learn_sheet(reader, image_bgr: np.ndarray, kinds: list[str], *, into: TileSet | None = None,
                name: str = "set", source: str = "photo", trust_order: bool = False) -> Learned:
    """Add one reference per tile of a photo of a set to ``into`` (a new profile when None).

    ``reader``: a :class:`vision.read.detector.TileReader` (its profile, if any, is not used: the
    sheet is judged by the classifier alone). ``kinds``: the tiles the photo shows in reading
    order (:func:`parse_sheet`). Raises ``SetError`` when the tiles found are not as many as
    given (``.detections`` on the error holds them, for a picture) or most of them read as other
    kinds than given (``trust_order`` learns them all the same).
    """
    plain = reader.with_set(None)
    dets = plain.read(image_bgr)
    for conf in SHEET_THRESHOLDS:
        if len(dets.tiles) == len(kinds):
            break
        # the user said how many tiles there are: a tile just under the detector's threshold
        # (or a shadow just over it) is found at another one
        other = copy.copy(plain)
        other.conf = conf
        again = other.read(image_bgr)
        if len(again.tiles) == len(kinds):
            dets = again
    dets = replace(dets, tiles=sheet_order(dets.tiles))
    if len(dets.tiles) != len(kinds):
        raise SheetRefused(dets, len(kinds))
    boxes = np.array([d.box for d in dets.tiles], np.float64)
    probs = plain.classify(image_bgr, boxes)
    found = disagreements(probs, kinds)
    if len(found) > MOSTLY_OTHER * len(kinds) and not trust_order:
        raise SheetRefused(dets, len(kinds), tuple(found))
    crops = reference_crops(image_bgr, boxes, reader.crop_size)
    base = into if into is not None else empty(name, reader.model_id)
    if base.model != reader.model_id and len(base):
        base = reader.with_set(base).tileset          # embedded anew by this classifier
    base = TileSet(base.name, base.kinds, base.crops, base.embeddings, reader.model_id, base.sources)
    sources = [f"{source} #{i + 1}" for i in range(len(kinds))]
    added = base.added(kinds, crops, reader.embed(crops), sources)
    sheet_probs = reader.reference_probs(added.crops)
    learned = replace(added, calibration=calibrate(added.kinds, sheet_probs, added.crops, added.embeddings))
    return Learned(learned, dets, tuple(kinds), tuple(found), tuple(swapped(found)), sheet_probs)


def learn_tile(reader, image_bgr: np.ndarray, tile: Detection, kind: str, into: TileSet,
               source: str) -> TileSet:
    """``into`` with the crop of one corrected tile added as a reference of ``kind``."""
    if kind not in CLASS_INDEX:
        raise SetError(f"unknown tile kind {kind!r}")
    crops = reference_crops(image_bgr, np.array([tile.box], np.float64), reader.crop_size)
    base = into
    if base.model != reader.model_id:
        base = reader.with_set(base).tileset if len(base) else empty(base.name, reader.model_id)
    return calibrated(reader, base.added([kind], crops, reader.embed(crops), [source]))


def calibrated(reader, tileset: TileSet) -> TileSet:
    """``tileset`` with its weight against the classifier decided from all its references
    (:func:`vision.read.tileset.calibrate`), as the profile file keeps it."""
    probs = reader.reference_probs(tileset.crops)
    return replace(tileset, calibration=calibrate(tileset.kinds, probs, tileset.crops, tileset.embeddings))
