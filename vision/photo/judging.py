"""Hand → score: the hand request a layout makes, and the scorer's (or the referee's) answer.

The values passed along the pipeline after the layout live here, so that the stages
(``vision.photo.pipeline``) and the correction steps (``vision.photo.corrections``) share them without
importing each other:

- :class:`TableContext`: the context a photo cannot show, checked and typed once at the
  pipeline's entry (:meth:`TableContext.of`; :func:`validate_context` is its JSON side);
- :class:`PhotoRequest`: the request scored: the photo's tiles (``vision.layout.TileRequest``),
  the context, and the scorer's typed ``scoring.hand.HandRequest`` built from both
  (:func:`typed_hand`); its ``to_json()`` writes it for the JSON edges only
  (``docs/hand-json.md``);
- :data:`Judgement`: the scorer's result object (``scoring.riichi.RiichiResult``,
  ``scoring.mcr.McrResult``), the referee's ``scoring.verdict.Verdict``, or
  ``scoring.api.ErrorResult`` for a hand that cannot be valued — each with ``.to_json()``;
- :class:`Reading`: one reading of the photo as it stands: detections, layout, and once judged
  its request, judgement and warnings;
- :class:`Job`: what the caller asked for (context, fixes, score or check).

:func:`judge_layout` turns a layout into a judged :class:`Reading`; it is the one place the
winning tile is chosen when the photo does not set it apart (among ``Layout.win_candidates``,
:class:`WinChoice`).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Union

from scoring.api import ErrorResult
from scoring.hand import HandError, HandRequest, check
from scoring.request import melds_of, parse_request, tiles_of
from scoring.tiles import TileError, parse_tile, parse_tiles

from vision.read.detections import Detections
from vision.layout import Layout, LayoutWarning, TileRequest

if TYPE_CHECKING:
    from scoring.mcr import McrResult
    from scoring.riichi import RiichiResult
    from scoring.verdict import Verdict

Judgement = Union["RiichiResult", "McrResult", "ErrorResult", "Verdict"]


class PhotoError(ValueError):
    """Bad input to the photo pipeline: a bad context, fix or winning tile (the message says
    which); unreadable images raise :class:`vision.read.imageio.ImageError` instead."""


# Keys of a request that come from the photo, never from the context. (``win_tile``,
# ``dora_indicators`` and ``flowers`` may come from either; the context wins.)
PHOTO_KEYS = ("concealed", "melds")
# Complete hands, used only to check the context on its own: a closed one without melds, and
# one with a closed kan whose winning tile is its only copy (room for rinshan and chankan).
PLACEHOLDERS = ({"concealed": "123m456m789m123p4p", "win_tile": "4p"},
                {"concealed": "123m456m46p11s", "melds": [{"type": "ankan", "tiles": "1111z"}],
                 "win_tile": "5p"})


def validate_context(context: dict | None) -> dict:
    """Check the context as ``tilescope hand`` checks a request, without the tiles.

    Returns a copy. Raises :class:`PhotoError` for a non-object, a tile key the photo gives
    (``concealed``, ``melds``), an unknown key, a bad value/type, or flags that no hand could
    carry, such as ippatsu without riichi (the scorer's message).
    """
    return TableContext.of(context).written


@dataclass(frozen=True, slots=True)
class TableContext:
    """The context a photo cannot show (the request keys of ``docs/hand-json.md`` other than
    the tiles), checked and typed once at the pipeline's entry (:meth:`of`).

    ``written``: the keys as the caller gave them (echoed in the request's JSON). ``base``:
    the same context typed, a :class:`scoring.hand.HandRequest` on a placeholder hand whose
    tiles :func:`typed_hand` replaces by the photo's."""

    written: dict
    base: HandRequest

    @classmethod
    def of(cls, context: dict | None) -> TableContext:
        """The checked, typed context. Raises :class:`PhotoError` for a non-object, a tile key
        the photo gives (``concealed``, ``melds``), an unknown key, a bad value/type, or flags
        that no hand could carry, such as ippatsu without riichi (the scorer's message)."""
        if context is None:
            context = {}
        if not isinstance(context, dict):
            raise PhotoError(f"the context must be a JSON object, got {type(context).__name__}")
        ctx = dict(context)
        for key in PHOTO_KEYS:
            if key in ctx:
                raise PhotoError(f"context key {key!r}: the tiles come from the photo "
                                 "(correct a misread tile with --fix N=TILE)")
        try:
            base = parse_request({"ruleset": "riichi", "win": "tsumo", **PLACEHOLDERS[0], **ctx})
        except HandError as exc:
            raise PhotoError(f"context: {exc}") from None
        # Flags that no hand can carry (ippatsu without riichi, tenhou by ron...) are the
        # context's fault: an error on every placeholder hand is one. One that only some hand
        # avoids (rinshan needs a kan) waits for the photo's tiles.
        flags = {k: v for k, v in ctx.items() if k != "win_tile"}
        problems = []
        for hand in PLACEHOLDERS:
            try:
                check(parse_request({"ruleset": "riichi", "win": "tsumo", **hand, **flags}))
            except HandError as exc:
                problems.append(str(exc))
            else:
                return cls(ctx, base)
        raise PhotoError(f"context: {problems[0]}")

    @property
    def ruleset(self) -> str:
        return self.base.ruleset

    @property
    def win_tile(self) -> str | None:
        """The winning tile the context names (``win_tile``), else None."""
        return self.written.get("win_tile")

    @property
    def aka(self) -> bool:
        """Riichi played with red fives (``rules.aka``)."""
        return self.base.rules.aka

    def gives(self, key: str) -> bool:
        """The context gives request key ``key`` (it then wins over the photo)."""
        return key in self.written


def typed_hand(tiles: TileRequest, ctx: TableContext, not_shown: bool = False) -> HandRequest:
    """The scorer's request: the photo's tiles (``tiles``, with a winning tile) and the
    context, which wins over the photo (its ``dora_indicators``, ``flowers``,
    ``win_tile_shown``); the photo's dora count in riichi only, its flowers in MCR only.
    ``not_shown``: MCR, the winning tile was not set apart (``win_tile_shown`` false whatever
    the context says). Raises HandError naming a tile that is none, as
    ``scoring.request.parse_request`` names it."""
    melds = melds_of(tiles.melds)
    try:
        win = parse_tile(tiles.win_tile)
    except TileError as exc:
        raise HandError(f"win_tile: {exc}") from None
    changes: dict = {"concealed": tiles_of(tiles.concealed, "concealed"), "melds": tuple(melds),
                     "win_tile": win}
    ruleset = ctx.ruleset
    if ruleset == "riichi" and tiles.dora_indicators is not None and not ctx.gives("dora_indicators"):
        changes["dora_indicators"] = tiles_of(tiles.dora_indicators, "dora_indicators")
    if ruleset == "mcr" and tiles.flowers is not None and not ctx.gives("flowers"):
        changes["flowers"] = tiles.flowers
    if ruleset == "mcr" and not_shown:
        changes["win_tile_shown"] = False
    elif not tiles.win_tile_shown and not ctx.gives("win_tile_shown"):
        changes["win_tile_shown"] = False
    return replace(ctx.base, **changes)


@dataclass(frozen=True, slots=True)
class PhotoRequest:
    """The hand request a photo's layout made. ``tiles``: the photo's part
    (:class:`vision.layout.TileRequest`, with its winning tile). ``context``: the caller's.
    ``hand``: the scorer's typed request built from both (:func:`typed_hand`), None when the
    scorer refused it (the judgement's error says why). ``not_shown``: MCR, the winning tile
    was not set apart. :meth:`to_json` writes it as ``docs/hand-json.md`` does (the context's
    keys as the caller gave them): ``tilescope score --json`` echoes it."""

    tiles: TileRequest
    context: TableContext
    hand: HandRequest | None
    not_shown: bool = False

    def to_json(self) -> dict:
        ruleset = self.context.ruleset
        req: dict = {"ruleset": ruleset, "win": "tsumo"}
        for key, value in self.tiles.to_json().items():
            if key == "dora_indicators" and ruleset != "riichi":
                continue
            if key == "flowers" and ruleset != "mcr":
                continue
            req[key] = value
        for key, value in self.context.written.items():
            if key == "win_tile":
                continue
            req[key] = value            # the context wins over what the photo shows
        if self.not_shown and ruleset == "mcr":
            req["win_tile_shown"] = False
        return req


def failed(result: Judgement) -> str | None:
    """The judgement's error (the hand could not be valued or ruled on), else None."""
    return result.error


@dataclass(frozen=True, slots=True)
class Job:
    """What the caller asked for, which every step may need. ``ctx``: the checked, typed
    context (:class:`TableContext`). ``fixes``: the user's ``--fix`` (``{number: tile}``).
    ``melds``: the user's ``--meld`` (``{(first, last): type}``). ``win_tile``: ``--win-tile``.
    ``judge``: a typed request → its :data:`Judgement` (the scorer, or the referee for
    ``check``). ``hand_only``: ``score`` (True) or ``check`` (False). ``discards``: the
    player's own discards (tile kinds; ``check``). ``array``: the photo (None when the caller
    passed detections), ``reader``: the tile reader, both for a second look."""

    ctx: TableContext
    judge: Callable[[HandRequest], Judgement]
    hand_only: bool
    fixes: dict[int, str] = field(default_factory=dict)
    melds: dict[tuple[int, int], str] | None = None
    win_tile: str | None = None
    discards: frozenset = frozenset()
    array: Any = None
    reader: Any = None

    @property
    def ruleset(self) -> str:
        return self.ctx.ruleset


@dataclass(frozen=True, slots=True)
class Reading:
    """One reading of the photo as it stands. ``detections``/``layout``: the tiles and their
    grouping. ``request``/``result``/``warnings``: the hand request judged, its judgement and
    the layout's warnings with the judging's (None, None, [] until judged). ``as_read``: the
    reader's detections after the user's fixes, before any automatic correction (a tile a
    correction re-read has confidence 1.0 in ``detections``). ``crowded``: the
    ``too_many_boxes`` warning when the reader found no hand but grain. ``refused``: the
    ``repair_refused`` warning of the meld repairs, whose cause the report's error names.
    ``renamed``: the layout stage's warnings on tiles it renamed (``not_flowers``,
    ``not_backs``: :meth:`vision.layout.grouping.Grouped.warnings`)."""

    detections: Detections
    layout: Layout
    request: PhotoRequest | None = None
    result: Judgement | None = None
    warnings: list[LayoutWarning] = field(default_factory=list)
    as_read: Detections | None = None
    crowded: LayoutWarning | None = None
    refused: LayoutWarning | None = None
    renamed: list[LayoutWarning] = field(default_factory=list)

    def judged(self, other: Reading) -> Reading:
        """``other``'s tiles, layout and judgement, with this reading's other fields."""
        return replace(self, detections=other.detections, layout=other.layout,
                       request=other.request, result=other.result, warnings=other.warnings)


def photo_tiles(layout: Layout, win: str | None) -> TileRequest | None:
    """The photo's tile part with its winning tile: ``win`` (``--win-tile`` or the context's)
    taken from the hand, else the tile set apart; None when neither is known. PhotoError for
    a ``win`` the hand does not hold."""
    if win:
        try:
            return layout.hand_for_win(win)
        except ValueError as exc:
            raise PhotoError(str(exc)) from None
    return layout.hand if layout.hand.win_tile is not None else None


def no_hand_why(layout: Layout, warnings: list[LayoutWarning] | None = None) -> str:
    """Why no hand request could be made of ``layout`` (no winning tile known), in words that
    stand alone: "see the warnings" only when ``warnings`` has some, and a hand in play (13
    tiles less 3 per meld: no tile drawn yet) named as one, with the verb that reads it."""
    see = " (see the warnings)" if warnings else ""
    if not layout.order:
        return f"no tiles could be read in the photo{see}"
    try:
        tiles = len(parse_tiles(layout.hand.concealed))
    except TileError:
        tiles = -1
    if tiles == 13 - 3 * len(layout.hand.melds):
        return (f"{tiles} tiles read, one short of a win — this looks like a hand in play: "
                "`tilescope waits PHOTO` shows its waits")
    return f"no winning hand could be formed from the tiles seen{see}; pass --fix N=TILE or --win-tile TILE"


def judge_tiles(tiles: TileRequest, ctx: TableContext, judge, not_shown: bool = False,
                ) -> tuple[PhotoRequest, Judgement]:
    """Type the request (:func:`typed_hand`) and judge it; a request the scorer refuses is an
    ``ErrorResult`` naming why."""
    try:
        hand = typed_hand(tiles, ctx, not_shown)
    except HandError as exc:
        return PhotoRequest(tiles, ctx, None, not_shown), ErrorResult(str(exc))
    return PhotoRequest(tiles, ctx, hand, not_shown), judge(hand)


def score(hand: HandRequest) -> Judgement:
    """The scorer's judgement (``scoring.api.score_hand``); like ``score_json``, a bug in the
    scorer is an error result, not an exception."""
    from scoring.api import score_hand

    try:
        return score_hand(hand)
    except Exception as exc:  # a bug must not stop a batch of photos; say what happened
        return ErrorResult(f"internal error while scoring: {type(exc).__name__}: {exc}")


def _scored_value(result: dict | None) -> int:
    """A verdict's scored hand (its JSON result) by its value: MCR total points, riichi payment."""
    if not result or result.get("error"):
        return 0
    return result["total"] if "total" in result else (result.get("payment") or {}).get("total", 0)


def value(result: Judgement) -> tuple:
    """Sort key for 'the highest-scoring reading' (riichi: payment; MCR: total points); a
    verdict counts by whether the win stands, then by the hand's value; a refused request
    lowest."""
    if isinstance(result, ErrorResult):
        return (-1, 0)
    valid = 1 if result.valid else 0
    if hasattr(result, "ruling"):                   # scoring.verdict.Verdict
        return (valid, _scored_value(result.result))
    if hasattr(result, "han"):                      # scoring.riichi.RiichiResult
        return (valid, result.payment.total if result.payment else 0)
    return (valid, result.total)                    # scoring.mcr.McrResult


@dataclass(frozen=True, slots=True)
class WinChoice:
    """The winning tile chosen among the layout's candidates when none was set apart: its
    ``code``, the ``request`` made with it and its ``result``."""

    code: str
    request: PhotoRequest
    result: Judgement


def _best_win_tile(layout: Layout, ctx: TableContext, judge) -> WinChoice:
    """When the winning tile was not set apart: judge each of the layout's candidates
    (``Layout.win_candidates``, likeliest first), keep the best (the first of equal value)."""
    best = None
    for code in layout.win_candidates:
        request, result = judge_tiles(photo_tiles(layout, code), ctx, judge, not_shown=True)
        if best is None or value(result) > value(best.result):
            best = WinChoice(code, request, result)
    return best


def first_guess(layout: Layout, ctx: TableContext, judge) -> tuple[PhotoRequest, Judgement] | None:
    """The hand judged with the winning tile set apart or given in the context, else with the
    likeliest candidate alone (``Layout.win_candidates[0]``, not shown): the quick judgement
    that a correction tried among many needs; None when no winning tile is known."""
    tiles = photo_tiles(layout, ctx.win_tile)
    if tiles is None and layout.win_candidates:
        tiles = layout.hand_for_win(layout.win_candidates[0], shown=False)
    return None if tiles is None else judge_tiles(tiles, ctx, judge)


def not_shown_warning(code: str, others: list[str], ruleset: str) -> LayoutWarning:
    """``win_tile_not_shown``: the winning tile was not set apart and ``code`` was chosen
    among the candidates (``others``: the rest)."""
    also = f" (could also be {', '.join(others)})" if others else ""
    if ruleset == "mcr":
        text = ("the winning tile is not set apart: scored as not shown (no Edge/Closed/Single "
                f"Wait, Last Tile or Nine Gates; seed rules §1.9) with {code}{also}")
    else:
        text = f"the winning tile is not set apart: scored with {code}, the highest-scoring choice{also}"
    return LayoutWarning("win_tile_not_shown", text, f"--win-tile {code}")


def judge_layout(detections: Detections, layout: Layout, job: Job) -> Reading:
    """The judged reading of one layout: the winning tile as shown, given, or — when it was
    not set apart — the best-scoring of the layout's candidates, with a warning saying so (the
    one place the winning tile is chosen)."""
    warnings = list(layout.warnings)
    win = job.win_tile or job.ctx.win_tile
    tiles = photo_tiles(layout, win)
    if win or not layout.win_candidates:
        if tiles is None:
            return Reading(detections, layout, None, ErrorResult(no_hand_why(layout, warnings)), warnings)
        request, result = judge_tiles(tiles, job.ctx, job.judge)
        return Reading(detections, layout, request, result, warnings)
    best = _best_win_tile(layout, job.ctx, job.judge)
    others = [c for c in layout.win_candidates if c != best.code]
    warnings.append(not_shown_warning(best.code, others, layout.ruleset))
    return Reading(detections, layout, best.request, best.result, warnings)
