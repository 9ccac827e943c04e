"""A hand in play on the stream: the shanten of a stable 13-tile hand, its waits and their values.

``stream_waits(detections, context)`` reads the tracked tiles as ``tilescope waits PHOTO`` reads
a photo (:func:`vision.photo.pipeline.read_hand_in_play`) and values them with
:func:`scoring.waits.hand_waits` under the stream's context (the hand's win left out: each wait
is valued both by ron and by tsumo). The overlay's ``hand.waits`` (docs/overlay-json.md) is
:func:`waits_json` of the report: short enough for a card, each value as the banner words it.
"""
from __future__ import annotations

from dataclasses import fields
from typing import Any

# what a hand in play cannot know yet: how it will be won (scoring.waits refuses them)
_WIN_KEYS = ("concealed", "melds", "win_tile", "win", "win_tile_shown")


def table_context(context: dict | None) -> dict:
    """The stream's JSON context (``tilescope score`` keys: mpsz text, rule dicts) as the
    :class:`scoring.hand.HandRequest` fields that :func:`scoring.waits.hand_waits` takes (Tile
    tuples, RiichiRules), less the hand and the win. Raises ValueError for a context no hand
    can carry (``vision.photo.pipeline.validate_context`` refused it already at the start)."""
    from scoring.hand import HandError
    from scoring.request import parse_request
    from .pipeline import PLACEHOLDERS

    ctx = {k: v for k, v in (context or {}).items() if k not in _WIN_KEYS}
    problem = None
    for hand in PLACEHOLDERS:     # a placeholder hand: parse_request checks only with tiles
        try:
            req = parse_request({"ruleset": "riichi", "win": "tsumo", **hand, **ctx})
        except HandError as exc:
            problem = exc
            continue
        return {f.name: getattr(req, f.name) for f in fields(req)
                if f.name in ctx or f.name == "ruleset"}
    raise ValueError(f"context: {problem}")


def stream_waits(detections, context: dict | None) -> dict | None:
    """``waits_json`` of the tracked tiles when they are a 13-tile hand in play (melds count
    3), else None (a winning hand, too few tiles, a reading no hand has). The camera's dora row
    stands when the context names no dora indicators, as in ``score_photo``."""
    from scoring.hand import HandError
    from scoring.tiles import TileError
    from scoring.waits import hand_waits
    from .pipeline import read_hand_in_play

    ctx = table_context(context)
    ruleset = ctx.get("ruleset", "riichi")
    try:
        concealed, melds, dora, _ = read_hand_in_play(detections, ruleset)
    except ValueError:                 # PhotoError: no tile, a meld the layout cannot make legal
        return None
    if len(concealed) + 3 * len(melds) != 13:
        return None
    if dora and ruleset == "riichi" and not ctx.get("dora_indicators"):
        ctx["dora_indicators"] = dora
    try:
        report = hand_waits(concealed, melds, ctx)
    except (HandError, TileError):     # five of a tile, an illegal meld: no hand in play
        return None
    return waits_json(report, ctx)


def _value(result: dict, context: dict | None) -> dict:
    """One way to win on a wait: ``valid``, the banner's words and the hand's own payment
    (the counters' bonus and the sticks apart: the same for every wait)."""
    from .banner import summarize, takings

    split = takings(result, context)
    pay = split.hand if split else (result.get("payment") or {}).get("total")
    return {"valid": bool(result.get("valid")), "value": summarize(result, context), "points": pay}


def waits_json(report: Any, context: dict | None = None) -> dict:
    """The overlay's ``hand.waits`` for a 13-tile :class:`scoring.waits.WaitsReport` valued
    under ``context`` (its ``honba`` and ``riichi_sticks``: what any win adds to the hand)."""
    from scoring.tiles import tile
    from .banner import HONBA_POINTS, STICK_POINTS

    ctx = context or {}
    tenpai = report.shanten == 0
    waits = [{"tile": str(tile(w.kind)), "left": w.left, "ron": _value(w.ron, ctx),
              "tsumo": _value(w.tsumo, ctx), "note": w.note} for w in report.waits]
    riichi = ctx.get("ruleset", "riichi") == "riichi"
    return {"shanten": report.shanten, "tenpai": tenpai, "waits": waits,
            "waits_left": sum(w.left for w in report.waits),
            "accept_left": sum(a.left for a in report.accept), "notes": list(report.notes),
            "honba_points": HONBA_POINTS * int(ctx.get("honba") or 0) if riichi else 0,
            "stick_points": STICK_POINTS * int(ctx.get("riichi_sticks") or 0) if riichi else 0}


def waits_summary(waits: dict) -> str:
    """The banner's line for a hand in play: 'tenpai: 1s 4s (8 left)', '1 shanten (20 tiles
    help)'; 'tenpai: no tile left to win on' when every wait is held or seen."""
    if waits["tenpai"]:
        if not waits["waits_left"]:
            return "tenpai: no tile left to win on"
        return f"tenpai: {' '.join(w['tile'] for w in waits['waits'])} ({waits['waits_left']} left)"
    return f"{waits['shanten']} shanten ({waits['accept_left']} tiles help)"
