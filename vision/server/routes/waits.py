"""``POST /api/waits``: a hand in play → its shanten, waits and what each win would be worth.

One endpoint, two bodies (``docs/waits-json.md``, "HTTP"):

- a typed hand, ``Content-Type: application/json``: the keys of a hand request
  (``docs/hand-json.md``) without ``win_tile`` and ``win`` (each wait is valued both ways),
  ``concealed`` holding 13 or 14 tiles less 3 per meld, ``ruleset`` default ``riichi``, plus
  ``discards`` (the player's own, mpsz: furiten, and counted as seen);
- a photo, ``multipart/form-data``: ``image``, and as for ``/api/score`` the optional fields
  ``context`` (JSON object of the same table keys), ``fixes``, ``melds``, ``set``, plus
  ``discards``.

The answer is ``tilescope waits --json``'s object (a photo's adds ``warnings``). Errors have
the API's shape, ``{"error", "code"}``: a hand that is malformed or impossible is 422
``bad_hand``; the photo limits and their codes are ``/api/score``'s.
"""
from __future__ import annotations

from dataclasses import fields
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from scoring.hand import HandError, HandRequest
from scoring.tiles import TileError, parse_tiles, quoted
from vision.layout.fixspec import FixSpecError, fixes_from_json, melds_from_json

from .errors import ApiError
from .inputs import parse_json_field, read_upload, strict_body
from .models import ERRORS
from .state import ServerState

# the keys of a hand request that describe the hand or its win, not the table
_HAND_KEYS = ("concealed", "melds", "win_tile", "win")
_TABLE_FIELDS = tuple(f.name for f in fields(HandRequest) if f.name not in _HAND_KEYS)
_DEFAULTS = HandRequest(concealed=(), win_tile=parse_tiles("1z")[0], win="ron")
_FORM_FIELDS = ("image", "context", "discards", "fixes", "melds", "set")


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


def _answer(concealed, melds, ctx, discards, given, warnings=None) -> dict:
    from scoring.waits import hand_waits

    try:
        out = hand_waits(concealed, melds, ctx, discards, discards_given=given).to_json()
    except (HandError, TileError) as exc:
        raise ApiError(422, "bad_hand", str(exc)) from None
    if warnings is not None:
        out["warnings"] = [w.to_json() for w in warnings]
    return out


def _typed_work(obj: Any) -> dict:
    """A typed hand in play (the decoded JSON body) → the answer."""
    try:
        concealed, melds, ctx, discards, given = parse_waits_request(obj)
    except HandError as exc:
        raise ApiError(422, "bad_hand", str(exc)) from None
    return _answer(concealed, melds, ctx, discards, given)


def _photo_work(state: ServerState, data: bytes, form: dict, set_name: str | None) -> dict:
    """A photo of a hand in play (its bytes, the form's text fields, the tile set named) → the
    answer, read with ``state``'s readers."""
    from vision.layout.fixspec import in_api_words
    from vision.photo.pipeline import read_hand_in_play

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
    reader, tag = state.sets.reader_for(set_name)
    img = state.decode(data)
    try:
        concealed, melds, dora, warnings = read_hand_in_play(
            img, ctx["ruleset"], reader=state.readings.reader(reader, data, tag),
            fixes=fixes or None, melds=meld_map or None)
    except ValueError as exc:       # PhotoError: a fix or group that does not fit the photo
        raise ApiError(422, "invalid_request", in_api_words(str(exc))) from None
    if dora and "dora_indicators" not in ctx and ctx["ruleset"] == "riichi":
        ctx["dora_indicators"] = dora       # the photo's dora row, as `tilescope waits` takes it
    return _answer(concealed, melds, ctx, discards, given, warnings)


def install(app: FastAPI, state: ServerState) -> None:
    """Add ``POST /api/waits`` to ``app``."""

    @app.post("/api/waits", response_model=None, responses=ERRORS,
              summary="A hand in play (typed or a photo) → shanten, waits and their values",
              openapi_extra={"requestBody": {"required": True, "content": {
                  "application/json": {"schema": {"type": "object"}, "example": {
                      "ruleset": "riichi", "concealed": "123456789m1122p", "seat_wind": "S",
                      "discards": "9s"}},
                  "multipart/form-data": {"schema": {"type": "object", "required": ["image"], "properties": {
                      "image": {"type": "string", "format": "binary"},
                      **{k: {"type": "string"} for k in _FORM_FIELDS[1:]}}}}}}})
    async def api_waits(request: Request):
        """``tilescope waits --json`` over HTTP: a typed hand (JSON body, hand-request keys
        without the win, plus ``discards``) or a photo (form: ``image``, ``context``,
        ``discards``, ``fixes``, ``melds``, ``set``). See ``docs/waits-json.md``."""
        kind = request.headers.get("content-type", "")
        if not kind.startswith("multipart/form-data"):
            if "json" not in kind:
                raise ApiError(422, "invalid_request", "/api/waits takes a JSON body (a typed hand, "
                                                       "Content-Type: application/json) or a photo "
                                                       "as the form field 'image'")
            body = await strict_body(request)
            return JSONResponse(await state.workers.run(_typed_work, body, typed=True))
        form = await request.form()
        unknown = sorted(k for k in form.keys() if k not in _FORM_FIELDS)
        if unknown:
            raise ApiError(422, "invalid_request", f"unknown form field {quoted(unknown[0][:40])} "
                                                   f"(fields: {', '.join(_FORM_FIELDS)})")
        image = form.get("image")
        if image is None or isinstance(image, str):
            raise ApiError(422, "invalid_request", "a photo is sent as the file field 'image' of a "
                                                   "multipart/form-data request (curl -F image=@photo.jpg)")
        data = await read_upload(image, request, state.limits.max_upload_bytes)
        texts = {k: v for k, v in form.items() if isinstance(v, str)}
        return JSONResponse(await state.workers.run(_photo_work, state, data, texts, texts.get("set") or None))
