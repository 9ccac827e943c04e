"""``/api/waits``'s answers without the web framework: a typed hand in play, or a photo's
fields and a way to read it, → ``tilescope waits --json``'s object (``docs/waits-json.md``).
The server's route (:mod:`vision.server.routes.waits`) and the offline page
(``vision.offline``) answer through these."""
from __future__ import annotations

from dataclasses import fields
from typing import Any

from scoring.hand import HandError, HandRequest
from scoring.tiles import TileError, parse_tiles, quoted
from vision.layout.fixspec import FixSpecError, fixes_from_json, melds_from_json

from .api_error import ApiError
from .fields import parse_json_field

# the keys of a hand request that describe the hand or its win, not the table
_HAND_KEYS = ("concealed", "melds", "win_tile", "win")
_TABLE_FIELDS = tuple(f.name for f in fields(HandRequest) if f.name not in _HAND_KEYS)
_DEFAULTS = HandRequest(concealed=(), win_tile=parse_tiles("1z")[0], win="ron")
FORM_FIELDS = ("image", "context", "discards", "fixes", "melds", "set")


def parse_waits_request(obj: Any, *, photo: bool = False) -> tuple[tuple, tuple, dict, tuple, bool]:
    """A decoded JSON request (or a photo's ``context``, ``photo=True``: no tiles in it) →
    ``(concealed, melds, context, discards, discards given)`` for
    :func:`scoring.waits.hand_waits`. Raises HandError naming the first problem."""
    from scoring.request import json_kind, parse_request

    if not isinstance(obj, dict):
        raise HandError(f"a request is a JSON object, got {json_kind(obj)}")
    obj = dict(obj)
    for key in ("win_tile", "win"):
        if key in obj:
            raise HandError(f"{quoted(key)}: a hand in play has not won yet; each wait is valued "
                            "both by ron and by tsumo (leave it out)")
    if photo:
        for key in ("concealed", "melds"):
            if key in obj:
                raise HandError(f"context: {quoted(key)} is read from the photo (correct tiles "
                                "with 'fixes', group them with 'melds')")
        obj["concealed"] = ""
    discards = obj.pop("discards", None)
    if discards is not None and not isinstance(discards, str):
        raise HandError(f"discards: mpsz text such as \"19m5p\", got {json_kind(discards)}")
    try:
        thrown = tuple(parse_tiles(discards or ""))
    except TileError as exc:
        raise HandError(f"discards: {exc}") from None
    req = parse_request({"ruleset": "riichi", **obj, "win_tile": "1z", "win": "ron"})
    ctx = {name: getattr(req, name) for name in _TABLE_FIELDS
           if getattr(req, name) != getattr(_DEFAULTS, name)}
    ctx["ruleset"] = req.ruleset
    return req.concealed, req.melds, ctx, thrown, discards is not None


def waits_answer(concealed, melds, ctx, discards, given, warnings=None) -> dict:
    from scoring.waits import hand_waits

    try:
        out = hand_waits(concealed, melds, ctx, discards, discards_given=given).to_json()
    except (HandError, TileError) as exc:
        raise ApiError(422, "bad_hand", str(exc)) from None
    if warnings is not None:
        out["warnings"] = [w.to_json() for w in warnings]
    return out


def typed_waits(obj: Any) -> dict:
    """A typed hand in play (the decoded JSON body) → the answer."""
    try:
        concealed, melds, ctx, discards, given = parse_waits_request(obj)
    except HandError as exc:
        raise ApiError(422, "bad_hand", str(exc)) from None
    return waits_answer(concealed, melds, ctx, discards, given)



def photo_waits(form: dict, read_in_play) -> dict:
    """A photo of a hand in play → the answer. ``form``: the request's text fields
    (``context``, ``discards``, ``fixes``, ``melds``); ``read_in_play(ruleset, fixes, melds)``
    reads the photo (``vision.photo.pipeline.read_hand_in_play`` with the caller's reader)."""
    from vision.layout.fixspec import in_api_words

    context = parse_json_field("context", form.get("context"), {})
    try:
        fixes = fixes_from_json(parse_json_field("fixes", form.get("fixes"), None))
        meld_map = melds_from_json(parse_json_field("melds", form.get("melds"), None))
    except FixSpecError as exc:
        raise ApiError(422, exc.code, str(exc)) from None
    if not isinstance(context, dict):
        raise ApiError(422, "bad_context", "context must be a JSON object of hand-request keys")
    if form.get("discards") is not None:
        context = {**context, "discards": form["discards"]}
    try:
        _, _, ctx, discards, given = parse_waits_request(context, photo=True)
    except HandError as exc:
        raise ApiError(422, "bad_context", str(exc)) from None
    try:
        concealed, melds, dora, warnings = read_in_play(ctx["ruleset"], fixes or None, meld_map or None)
    except ValueError as exc:       # PhotoError: a fix or group that does not fit the photo
        raise ApiError(422, "invalid_request", in_api_words(str(exc))) from None
    if dora and "dora_indicators" not in ctx and ctx["ruleset"] == "riichi":
        ctx["dora_indicators"] = dora       # the photo's dora row, as `tilescope waits` takes it
    return waits_answer(concealed, melds, ctx, discards, given, warnings)
