"""Hand → score: the hand request a layout makes, and the scorer's (or the referee's) answer.

The values passed along the pipeline after the layout live here, so that the stages
(``vision.pipeline``) and the correction steps (``vision.corrections``) share them without
importing each other:

- :class:`PhotoRequest`: the request scored, typed (``scoring.hand.HandRequest``) and as
  written (``docs/hand-json.md``: the context's keys as the caller gave them, the photo's tiles),
  the written form kept for the JSON edges only;
- :data:`Judgement`: the scorer's result object (``scoring.riichi.RiichiResult``,
  ``scoring.mcr.McrResult``), the referee's ``scoring.verdict.Verdict``, or
  ``scoring.api.ErrorResult`` for a hand that cannot be valued — each with ``.to_json()``;
- :class:`Reading`: one reading of the photo as it stands: detections, layout, and once judged
  its request, judgement and warnings;
- :class:`Job`: what the caller asked for (context, fixes, score or check).

:func:`judge_layout` turns a layout into a judged :class:`Reading`.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Union

from scoring.api import ErrorResult
from scoring.hand import HandError, HandRequest
from scoring.request import parse_request

from .detections import Detections
from .layout import Layout, LayoutWarning

if TYPE_CHECKING:
    from scoring.mcr import McrResult
    from scoring.riichi import RiichiResult
    from scoring.verdict import Verdict

Judgement = Union["RiichiResult", "McrResult", "ErrorResult", "Verdict"]


class PhotoError(ValueError):
    """Bad input to the photo pipeline: a bad context, fix or winning tile (the message says
    which); unreadable images raise :class:`vision.imageio.ImageError` instead."""


@dataclass(frozen=True, slots=True)
class PhotoRequest:
    """The hand request a photo's layout made. ``hand``: the scorer's typed request, None
    when the scorer refused the request as written (the judgement's error says why).
    ``written``: the request as ``docs/hand-json.md`` writes it (the context's keys as the
    caller gave them), which ``to_json`` returns: ``tilescope score --json`` echoes it."""

    written: dict
    hand: HandRequest | None

    def to_json(self) -> dict:
        return self.written


def failed(result: Judgement) -> str | None:
    """The judgement's error (the hand could not be valued or ruled on), else None."""
    return result.error


@dataclass(frozen=True, slots=True)
class Job:
    """What the caller asked for, which every step may need. ``ctx``: the checked context
    (request keys other than the tiles). ``fixes``: the user's ``--fix`` (``{number: tile}``).
    ``melds``: the user's ``--meld`` (``{(first, last): type}``). ``win_tile``: ``--win-tile``.
    ``judge``: a typed request → its :data:`Judgement` (the scorer, or the referee for
    ``check``). ``hand_only``: ``score`` (True) or ``check`` (False). ``discards``: the
    player's own discards (tile kinds; ``check``). ``array``: the photo (None when the caller
    passed detections), ``reader``: the tile reader, both for a second look."""

    ctx: dict
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
        return self.ctx.get("ruleset", "riichi")


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
    ``not_backs``: :meth:`vision.grouping.Grouped.warnings`)."""

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


def hand_request(layout: Layout, ctx: dict, win_tile: str | None) -> tuple[dict | None, str | None]:
    """The full request as written (context + photo tiles), or (None, why) when no winning
    tile is known."""
    win = win_tile or ctx.get("win_tile")
    if win:
        try:
            tiles = layout.request_for_win(win)
        except ValueError as exc:
            raise PhotoError(str(exc)) from None
    else:
        tiles = dict(layout.tile_request)
    if "win_tile" not in tiles:
        if not layout.order:
            return None, "no tiles could be read in the photo (see the warnings)"
        return None, ("no winning hand could be formed from the tiles seen "
                      "(see the warnings; pass --fix N=TILE or --win-tile TILE)")
    ruleset = ctx.get("ruleset", "riichi")
    req: dict = {"ruleset": ruleset, "win": "tsumo"}
    for key, value in tiles.items():
        if key == "dora_indicators" and ruleset != "riichi":
            continue
        if key == "flowers" and ruleset != "mcr":
            continue
        req[key] = value
    for key, value in ctx.items():
        if key == "win_tile":
            continue
        req[key] = value            # the context wins over what the photo shows
    return req, None


def judge_written(written: dict, judge) -> tuple[PhotoRequest, Judgement]:
    """Type the request (``scoring.request.parse_request``) and judge it; a request the scorer
    refuses is an ``ErrorResult`` naming why."""
    try:
        hand = parse_request(written)
    except HandError as exc:
        return PhotoRequest(written, None), ErrorResult(str(exc))
    return PhotoRequest(written, hand), judge(hand)


def score(hand: HandRequest) -> Judgement:
    """The scorer's judgement (``scoring.api.score_hand``); like ``score_json``, a bug in the
    scorer is an error result, not an exception."""
    from scoring.api import score_hand

    try:
        return score_hand(hand)
    except Exception as exc:  # a bug must not stop a batch of photos; say what happened
        return ErrorResult(f"internal error while scoring: {type(exc).__name__}: {exc}")


def _json_value(result: dict) -> tuple:
    if "ruling" in result:
        return (1 if result.get("valid") else 0,) + _json_value(result.get("result") or {})[1:]
    if result.get("error") or not result:
        return (-1, 0)
    pay = (result.get("payment") or {}).get("total", 0)
    return (1 if result.get("valid") else 0, result.get("total", 0) if "total" in result else pay)


def value(result: Judgement) -> tuple:
    """Sort key for 'the highest-scoring reading' (riichi: payment; MCR: total points); a
    verdict counts by whether the win stands, then by the hand's value."""
    return _json_value(result.to_json())


def _best_win_tile(layout: Layout, ctx: dict, judge) -> tuple[PhotoRequest, Judgement, str] | None:
    """When the winning tile was not set apart: score each candidate, keep the best."""
    best = None
    for code in layout.win_candidates:
        written, _ = hand_request(layout, {**ctx, "win_tile": code}, None)
        if written is None:
            continue
        if layout.ruleset == "mcr":
            written["win_tile_shown"] = False
        request, result = judge_written(written, judge)
        if best is None or value(result) > value(best[1]):
            best = (request, result, code)
    return best


def judge_layout(detections: Detections, layout: Layout, job: Job) -> Reading:
    """The judged reading of one layout: the winning tile as shown, given, or the
    best-scoring candidate when it was not set apart (with a warning saying so)."""
    warnings = list(layout.warnings)
    win = job.win_tile or job.ctx.get("win_tile")
    if win:
        warnings = [w for w in warnings if w.code != "win_tile_not_shown"]
    written, why = hand_request(layout, job.ctx, job.win_tile)
    if written is None:
        return Reading(detections, layout, None, ErrorResult(why), warnings)
    if not (layout.win_candidates and not win):
        request, result = judge_written(written, job.judge)
        return Reading(detections, layout, request, result, warnings)
    request, result, code = _best_win_tile(layout, job.ctx, job.judge)
    others = [c for c in layout.win_candidates if c != code]
    warnings = [w for w in warnings if w.code != "win_tile_not_shown"]
    also = f" (could also be {', '.join(others)})" if others else ""
    if layout.ruleset == "mcr":
        text = ("the winning tile is not set apart: scored as not shown (no Edge/Closed/Single "
                f"Wait, Last Tile or Nine Gates; seed rules §1.9) with {code}{also}")
    else:
        text = f"the winning tile is not set apart: scored with {code}, the highest-scoring choice{also}"
    warnings.append(LayoutWarning("win_tile_not_shown", text, f"--win-tile {code}"))
    return Reading(detections, layout, request, result, warnings)
