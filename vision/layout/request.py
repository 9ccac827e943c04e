"""The tile part of a hand request, from the layout's groups: a typed value, JSON at the edge.

:class:`TileRequest` holds what the photo says of the hand (concealed tiles, melds, winning tile,
dora indicators, flowers); :meth:`TileRequest.to_json` gives the keys of ``docs/hand-json.md``
that the scorer's request is built from (the context adds the rest). :func:`win_candidates`
lists the tiles that could have won when none was set apart (the judging chooses among them).
"""
from __future__ import annotations

from dataclasses import dataclass

from scoring.tiles import Tile, TileError, parse_tile, parse_tiles, to_mpsz

from vision.read.detections import Detection
from vision.read.rows import BACK
from .groups import Group
from .sets import tile_kind


@dataclass(frozen=True, slots=True)
class RequestMeld:
    """One exposed meld (or closed kan) of a request: ``type`` (chi, pon, daiminkan, kakan,
    ankan), its ``tiles`` in mpsz (a closed kan's face-down tiles filled in), the ``called``
    tile and who it came ``from_`` (left, across, right) when the photo shows them."""

    type: str
    tiles: str
    called: str | None = None
    from_: str | None = None

    def to_json(self) -> dict:
        out = {"type": self.type, "tiles": self.tiles}
        if self.called is not None:
            out["called"] = self.called
        if self.from_ is not None:
            out["from"] = self.from_
        return out


@dataclass(frozen=True, slots=True)
class TileRequest:
    """What a photo says of a hand, as a request's tile keys (``docs/hand-json.md``).

    ``concealed``: the concealed tiles in mpsz, without the winning tile. ``melds``: exposed
    melds and closed kans. ``win_tile``: the tile set apart, or the likeliest one when none
    was (None when no winning hand could be formed). ``win_tile_shown``: False only for an MCR
    hand whose winning tile was not set apart (the request key that scores it without wait
    fans; riichi has no such key, so a riichi guess stays True here, as in the request).
    ``dora_indicators``: riichi, when a dora row was seen. ``flowers``: MCR, when flowers were.
    """

    concealed: str = ""
    melds: tuple[RequestMeld, ...] = ()
    win_tile: str | None = None
    win_tile_shown: bool = True
    dora_indicators: str | None = None
    flowers: int | None = None

    def to_json(self) -> dict:
        """The request keys, each only when known: ``{"concealed": "123m…", "melds": [...],
        "win_tile": "5p"}`` plus ``dora_indicators``, ``flowers``, ``win_tile_shown``."""
        out: dict = {"concealed": self.concealed, "melds": [m.to_json() for m in self.melds]}
        if self.dora_indicators is not None:
            out["dora_indicators"] = self.dora_indicators
        if self.flowers is not None:
            out["flowers"] = self.flowers
        if self.win_tile is not None:
            out["win_tile"] = self.win_tile
        if not self.win_tile_shown:
            out["win_tile_shown"] = False
        return out


def _codes(dets: list[Detection], ruleset: str) -> list[str]:
    """The tiles' codes as the ruleset names them (MCR: no red fives)."""
    out = []
    for d in dets:
        code = d.tile
        if ruleset == "mcr" and code.startswith("0"):
            code = "5" + code[1]          # MCR sets have no red fives
        out.append(code)
    return out


def _mpsz(codes: list[str]) -> str:
    """Codes as mpsz text in their order (joined as they are if one is no tile)."""
    try:
        return to_mpsz([parse_tile(c) for c in codes], sort=False)
    except TileError:
        return "".join(codes)


def build_request(groups: list[Group], ruleset: str, win: str | None = None,
                  shown: bool = True) -> TileRequest:
    """The tile part of a hand request from the groups.

    ``win``: the winning tile to use instead of the one set apart (taken out of the concealed
    tiles plus the shown winning tile); raises ValueError if the hand holds no such tile.
    Without a shown winning tile and without ``win`` there is no winning tile. ``shown`` False:
    ``win`` was not set apart (kept in the request for MCR only, see :class:`TileRequest`).
    """
    hand: list[str] = []
    win_tile: str | None = None
    melds: list[RequestMeld] = []
    dora = flowers = None
    for g in groups:
        if g.kind == "concealed":
            hand.extend(_codes([d for d in g.detections if d.tile != BACK], ruleset))
        elif g.kind == "win":
            win_tile = _codes(g.detections, ruleset)[0]
        elif g.kind == "meld":
            melds.append(_request_meld(g, ruleset))
        elif g.kind == "dora" and ruleset == "riichi":
            faces = [d.tile for d in g.detections if d.tile != BACK]
            if faces:
                dora = _mpsz(faces)
        elif g.kind == "flower" and ruleset == "mcr":
            flowers = min(len(g.detections), 8)
    if win is not None:
        hand, win_tile = _take_win(hand, win_tile, win, ruleset)
    return TileRequest(_mpsz(hand), tuple(melds), win_tile, shown or ruleset != "mcr", dora, flowers)


def _take_win(hand: list[str], shown: str | None, win: str, ruleset: str) -> tuple[list[str], str]:
    """``win`` (``--win-tile``) taken out of the hand and the tile set apart: the rest and the
    tile taken (the same code, else one of the same kind: a red five for a five)."""
    try:
        parse_tile(win)
    except TileError as exc:
        raise ValueError(f"--win-tile {win}: {exc}") from None
    if ruleset == "mcr" and win.startswith("0"):
        win = "5" + win[1]
    pool = hand + ([shown] if shown else [])
    match = win if win in pool else next(
        (c for c in pool if tile_kind(c) == tile_kind(win)), None)
    if match is None:
        raise ValueError(f"--win-tile {win}: the hand in the photo has no {win}")
    pool.remove(match)
    return pool, match


def _request_meld(g: Group, ruleset: str) -> RequestMeld:
    """A meld group as a request's meld (MCR: no red fives)."""
    codes = _codes([d for d in g.detections if d.tile != BACK], ruleset)
    if g.meld_type == "ankan":
        # the face-down tiles are the same kind as the faces; with red fives in play (riichi),
        # a closed kan of fives holds the suit's red five, face down if it is not shown
        if codes:
            base = codes[0][0].replace("0", "5") + codes[0][1]
            while len(codes) < 4:
                red = "0" + base[1]
                missing_red = (ruleset == "riichi" and base[0] == "5" and base[1] in "mps"
                               and red not in codes)
                codes.append(red if missing_red else base)
        return RequestMeld("ankan", _mpsz(codes))
    called = g.called
    if called is not None and ruleset == "mcr" and called.startswith("0"):
        called = "5" + called[1]
    return RequestMeld(g.meld_type, _mpsz(codes), called, g.from_)


def win_candidates(request: TileRequest) -> list[str]:
    """Tiles of the concealed part that could be the winning tile (the hand minus that tile
    waits on it), for a hand of a winning hand's size whose winning tile the photo does not
    set apart; [] for any other (a tile set apart, a count that is not a winning hand's).
    Likeliest first: the rightmost tile of the row first, as a winning tile not set apart
    usually still ends the row, then leftwards (each kind once). Falls back to every distinct
    tile so ordered when none completes a standard, seven-pairs or thirteen-orphans hand (MCR
    knitted shapes, or a misread tile). The layout names them (``Layout.win_candidates``);
    the judging (:func:`vision.photo.judging.judge_layout`) chooses among them."""
    from scoring.decompose import waits
    from scoring.hand import Meld

    tiles = parse_tiles_safe(request.concealed)
    if request.win_tile is not None or not tiles or len(tiles) != 14 - 3 * len(request.melds):
        return []
    try:
        melds = [Meld(m.type, tuple(parse_tiles(m.tiles))) for m in request.melds]
    except TileError:
        return []
    distinct = list(dict.fromkeys(str(t) for t in reversed(tiles)))
    out = []
    for code in distinct:
        rest = list(tiles)
        rest.remove(next(t for t in rest if str(t) == code))
        if len(rest) == 13 - 3 * len(melds) and parse_tile(code).kind in waits(rest, melds):
            out.append(code)
    return out or distinct


def parse_tiles_safe(text: str) -> list[Tile]:
    """Parse mpsz, [] on a bad code (the layout's own strings are always well formed)."""
    try:
        return parse_tiles(text)
    except TileError:
        return []
