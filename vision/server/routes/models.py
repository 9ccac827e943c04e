"""The documented answer shapes of the HTTP API (pydantic models, for the OpenAPI page).

The answers themselves are built by the pipeline and the scorer (their ``to_json``); these
models describe them, and are not used to build or check them.
"""
from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class ErrorOut(BaseModel):
    """Every error answer: what was wrong, and a short code a script can test."""

    error: str = Field(description="what was wrong, in words")
    code: str = Field(description="short machine name: not_an_image, too_large, bad_json, ...")
    found: dict[str, Any] | None = Field(None, description="/api/set/learn's tile_count and "
                                         "out_of_order errors only: the tiles found, as /api/read "
                                         "answers them ({image, tiles}), in reading order "
                                         "(tile 1 first)")


class ImageSize(BaseModel):
    """The photo as read, in pixels (after EXIF rotation; a JPEG over the pixel limit is read
    at 1/2, 1/4 or 1/8 scale): the boxes are in these pixels."""

    width: int = Field(description="pixels")
    height: int = Field(description="pixels")


class TileOut(BaseModel):
    """One tile the reader found."""

    tile: str = Field(description="mpsz code (0m/0p/0s red fives, 1f..8f flowers) or 'back'")
    box: list[float] = Field(description="x1, y1, x2, y2 in pixels of the image as read (its "
                                         "size is `image`: a JPEG over the pixel limit is read "
                                         "at 1/2, 1/4 or 1/8 scale)")
    confidence: float = Field(description="0..1: the detector's score times the classifier's "
                                          "probability of this name")
    sideways: bool = Field(description="the tile lies turned across its row (a called tile)")


class ReadOut(BaseModel):
    """``/api/read``: the tiles of one photo (``tilescope read --json``)."""

    image: ImageSize
    tiles: list[TileOut]


class HandResultOut(BaseModel):
    """A hand result of ``docs/hand-json.md`` (riichi or MCR keys follow)."""

    model_config = ConfigDict(extra="allow")
    valid: bool | None = None
    error: str | None = None


class ScoreOut(BaseModel):
    """``tilescope score --json``."""

    model_config = ConfigDict(extra="allow")
    image: ImageSize
    tiles: list[TileOut]
    layout: dict[str, Any] | None = None
    request: dict[str, Any] | None = None
    result: dict[str, Any] | None = None
    warnings: list[Any] = []


class SetOut(BaseModel):
    """One named set profile (``docs/sets.md``)."""

    name: str
    references: int = Field(0, description="reference pictures it holds")
    kinds: int = Field(0, description="tile kinds they show")
    error: str | None = Field(None, description="the set's file cannot be read: why")


class SetsOut(BaseModel):
    """``/api/sets``: the named sets of the server's data folder (``tilescope set list``)."""

    sets: list[SetOut]
    server_set: str | None = Field(None, description="the set every photo is read with when "
                                                     "a request names none (serve --set)")


class DisagreementOut(BaseModel):
    """A tile of the sheet the reader names otherwise (learned as named)."""

    n: int = Field(description="the tile's number in reading order (1: top left)")
    given: str
    read: str
    confidence: float
    message: str


class SetLearnOut(BaseModel):
    """``/api/set/learn``: the set after learning."""

    name: str
    references: int = Field(description="references the set now holds")
    kinds: int = Field(description="tile kinds the set now holds")
    learned: int = Field(description="tiles learned from this photo")
    disagreements: list[DisagreementOut]
    swaps: list[dict[str, Any]] = Field(default_factory=list, description="pairs of tiles that each "
                                        "read as the other's kind: swapped on the table? "
                                        "(``tiles``: their numbers; ``message``); learned as named")


class SetChangeOut(BaseModel):
    """``/api/set/add`` and ``/api/set/undo``: the set after the change."""

    name: str
    references: int
    kinds: int
    tile: str = Field(description="the kind added (add) or dropped (undo)")
    n: int | None = Field(None, description="add: the photo's tile whose picture was added")


HAND_EXAMPLE = {
    "ruleset": "riichi",
    "concealed": "234m456p678s8s",
    "melds": [{"type": "pon", "tiles": "777z", "from": "across"}],
    "win_tile": "8s",
    "win": "tsumo",
    "seat_wind": "E",
    "round_wind": "E",
}

CHECK_EXAMPLE = {
    "ruleset": "riichi", "concealed": "234m456p678s8s",
    "melds": [{"type": "pon", "tiles": "999m", "from": "across"}],
    "win_tile": "8s", "win": "ron", "seat_wind": "S", "round_wind": "E",
    "declared": "hu", "revealed": True,
}

# every route that can fail answers these statuses in the ErrorOut shape
ERRORS = {s: {"model": ErrorOut} for s in (400, 409, 413, 422, 503, 504)}

