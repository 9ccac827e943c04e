"""The values a layout is made of: a group of tiles that belong together, and a warning.

A :class:`Group` is one part of the hand as it lies (concealed part, winning tile, meld, dora
indicators, flowers, loose tiles); a :class:`LayoutWarning` is one uncertain step of the parse,
with the best guess that was taken and the flag that undoes it.
"""
from __future__ import annotations

from dataclasses import dataclass

from scoring.tiles import TileError, parse_tile, to_mpsz

from vision.read.detections import Detection
from .fixspec import parse_fixes, parse_melds
from vision.read.rows import BACK


LOW_CONFIDENCE = 0.6        # below this a tile is reported with its alternatives


@dataclass(frozen=True, slots=True)
class LayoutWarning:
    """One uncertain step of the parse.

    ``code``: a stable identifier. The layout's: ``low_confidence``, ``tile_count``,
    ``ambiguous_grouping``, ``meld_without_sideways``, ``loose_tiles``, ``beside_flowers``,
    ``flowers_in_riichi``, ``back_tile``, ``doubled``; the layout stage's renamings
    (``vision.layout.grouping``): ``not_flowers``, ``not_backs``; the judging and the corrections
    (``vision.photo.judging``, ``vision.photo.corrections``): ``win_tile_not_shown``, ``hand_invalid``,
    ``corrected``, ``repair_refused``, ``unsorted_row``, ``recounted``; the photo's
    (``vision.photo.photo_warnings``): ``small_tiles``, ``unsure_photo``, ``reflections``,
    ``no_colour``, ``too_many_boxes`` (tests/test_warning_codes.py keeps this list the codes
    the code emits). ``message``: one sentence a player can read, with the best guess that
    was used. ``fix``: the command-line option(s) that correct it (``--fix 3=5p``,
    ``--win-tile 7m``), or ``""`` when there is nothing to pass (:attr:`arguments`: the same
    for the Python API). ``tiles``: the 1-based reading-order numbers of the tiles concerned.
    """

    code: str
    message: str
    fix: str = ""
    tiles: tuple[int, ...] = ()

    def to_json(self) -> dict:
        return {"code": self.code, "message": self.message, "fix": self.fix,
                "tiles": list(self.tiles)}

    @property
    def arguments(self) -> dict:
        """``fix`` as the keyword arguments of :func:`vision.score_photo`: ``{"fixes": {3:
        "5p"}, "melds": {(12, 14): "concealed"}, "win_tile": "7m"}``, each key only when
        ``fix`` names it (``{}`` when there is nothing to pass)."""
        out: dict = {}
        words = self.fix.split()
        for flag, value in zip(words, words[1:]):
            if flag == "--fix":
                out.setdefault("fixes", {}).update(parse_fixes([value]))
            elif flag == "--meld":
                out.setdefault("melds", {}).update(parse_melds([value]))
            elif flag == "--win-tile":
                out["win_tile"] = value
        return out


@dataclass(slots=True)
class Group:
    """Tiles that belong together.

    ``kind``: ``concealed``, ``win``, ``meld``, ``dora``, ``flower`` or ``loose`` (seen but not
    part of the hand). ``detections``: in reading order (for a kakan the stacked pair is
    adjacent, the lower one first). ``meld_type``: ``chi pon daiminkan kakan ankan`` for melds.
    ``called``: the sideways tile's code; ``from_``: ``left``/``across``/``right`` or None
    when the photo does not show it. ``repairs``: for a meld whose tiles as read are no legal
    set, the unsure tile and the next guess of the reader's that make it one (see
    :attr:`Layout.meld_repairs`).
    """

    kind: str
    detections: list[Detection]
    meld_type: str | None = None
    called: str | None = None
    from_: str | None = None
    repairs: tuple[tuple[Detection, str], ...] = ()   # (tile, next guess) that make the meld legal

    @property
    def tiles(self) -> list[str]:
        return [d.tile for d in self.detections]

    def mpsz(self) -> str:
        faces = [d.tile for d in self.detections if d.tile != BACK]
        try:
            text = to_mpsz([parse_tile(t) for t in faces], sort=False)
        except TileError:
            text = " ".join(faces)
        backs = len(self.detections) - len(faces)
        return text + ("+" + "?" * backs if backs else "")


def count_warning(got: int, melds: list[Group], shows: str, hint: str) -> LayoutWarning:
    """The ``tile_count`` warning: ``got`` tiles where ``melds`` make a winning hand of 14 plus
    one per kan."""
    kans = sum(1 for m in melds if m.meld_type in ("daiminkan", "kakan", "ankan"))
    return LayoutWarning(
        "tile_count", f"{shows} {got} tiles; a winning hand with {len(melds)} exposed meld(s) "
        f"and {kans} kan(s) has {14 + kans} — {hint}")
