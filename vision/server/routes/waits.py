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

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from scoring.tiles import quoted
from vision.server.waits_request import FORM_FIELDS, parse_waits_request, photo_waits, typed_waits  # noqa: F401 - parse_waits_request: public here

from .errors import ApiError
from .inputs import read_upload, strict_body
from .models import ERRORS
from .state import ServerState


def _photo_work(state: ServerState, data: bytes, form: dict, set_name: str | None) -> dict:
    """A photo of a hand in play (its bytes, the form's text fields, the tile set named) → the
    answer, read with ``state``'s readers."""
    from vision.photo.pipeline import read_hand_in_play

    reader, tag = state.sets.reader_for(set_name)
    img = state.decode(data)
    return photo_waits(form, lambda ruleset, fixes, melds: read_hand_in_play(
        img, ruleset, reader=state.readings.reader(reader, data, tag), fixes=fixes, melds=melds))


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
                      **{k: {"type": "string"} for k in FORM_FIELDS[1:]}}}}}}})
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
            return JSONResponse(await state.workers.run(typed_waits, body, typed=True))
        form = await request.form()
        unknown = sorted(k for k in form.keys() if k not in FORM_FIELDS)
        if unknown:
            raise ApiError(422, "invalid_request", f"unknown form field {quoted(unknown[0][:40])} "
                                                   f"(fields: {', '.join(FORM_FIELDS)})")
        image = form.get("image")
        if image is None or isinstance(image, str):
            raise ApiError(422, "invalid_request", "a photo is sent as the file field 'image' of a "
                                                   "multipart/form-data request (curl -F image=@photo.jpg)")
        data = await read_upload(image, request, state.limits.max_upload_bytes)
        texts = {k: v for k, v in form.items() if isinstance(v, str)}
        return JSONResponse(await state.workers.run(_photo_work, state, data, texts, texts.get("set") or None))
