"""The plain value passed from the detector to the layout parser."""
from __future__ import annotations

from dataclasses import dataclass, field

# Boxes kept from one photo, best first (ultralytics' max_det): a hand with melds, dora row
# and flowers is ~40 tiles and a whole table 136, but a noisy or dithered photo can raise
# thousands of faint boxes, whose pairwise row and layout work would run for minutes.
MAX_BOXES = 300
# A reader's look_again (TileReader's, the offline page's): the ways of a second look, and how a
# report says them
SECOND_LOOKS = {"x": "at the photo mirrored left to right", "y": "at the photo mirrored top to bottom"}


@dataclass(frozen=True, slots=True)
class Detection:
    """One tile seen in a photo.

    ``tile``: class name from ``vision.read.classes.TILE_CLASSES`` (mpsz code, ``0x`` red five, or
    ``back``). ``box``: (x1, y1, x2, y2) in original-image pixels, axis-aligned.
    ``confidence``: 0..1, the product of detector and classifier confidence where both exist.
    ``sideways``: the tile lies turned 90° relative to its row (a called tile in a meld).
    ``alternatives``: next-best (tile, confidence) guesses, best first, for the uncertainty report.
    """

    tile: str
    box: tuple[float, float, float, float]
    confidence: float
    sideways: bool = False
    alternatives: tuple[tuple[str, float], ...] = ()

    @property
    def center(self) -> tuple[float, float]:
        x1, y1, x2, y2 = self.box
        return ((x1 + x2) / 2.0, (y1 + y2) / 2.0)

    @property
    def width(self) -> float:
        return self.box[2] - self.box[0]

    @property
    def height(self) -> float:
        return self.box[3] - self.box[1]

    def to_json(self) -> dict:
        return {
            "tile": self.tile,
            "box": [round(v, 1) for v in self.box],
            "confidence": round(self.confidence, 4),
            "sideways": self.sideways,
        }


@dataclass(slots=True)
class Detections:
    """All tiles found in one image; ``width``/``height`` of the (EXIF-rotated) image in pixels."""

    width: int
    height: int
    tiles: list[Detection] = field(default_factory=list)
    # the zoom windows (x1, y1, x2, y2, image px) the tiles were read through; () when the
    # whole image was read in one pass. A stream passes them back for its next frame.
    windows: tuple[tuple[int, int, int, int], ...] = ()
    # boxes (x1, y1, x2, y2) left out as a tile's mirror image in a glass table top
    reflections: tuple[tuple[float, float, float, float], ...] = ()
    # MAX_BOXES or more boxes were found (grain, noise, dithering): their number, and no
    # tile named (naming 300 crops cost seconds a frame); 0 for a photo read as usual
    crowded: int = 0

    def to_json(self) -> dict:
        """The ``tilescope read --json`` shape: tiles ordered left to right, top to bottom, and
        ``reflections`` (boxes left out as mirror images in the table) when there are any."""
        out = {
            "image": {"width": self.width, "height": self.height},
            "tiles": [d.to_json() for d in self.tiles],
        }
        if self.reflections:     # boxes left out as mirror images in a glass table top
            out["reflections"] = [[round(v, 1) for v in b] for b in self.reflections]
        if self.crowded:
            out["crowded"] = self.crowded
        return out
