"""The page's ``/api/...`` requests answered in the browser, as ``tilescope serve`` answers them.

``answer(request, photo)`` is what the page's worker (``web/src/site/worker.js``) calls in
Pyodide for each request the page makes; the answers are the server's, from the same
functions: the photo pipeline (:mod:`vision.photo.pipeline`), the typed hands
(``scoring.api.score_json``, ``scoring.verdict.check_json``), the waits
(:mod:`vision.server.waits_request`), the games (:mod:`vision.server.games`, kept under
``$TILESCOPE_DATA/games``: the browser's storage) and the request fields
(:mod:`vision.server.fields`).

``request``: ``{"method", "path", "text"}`` for a JSON body (its text, read as the server
reads it: a key given twice is refused), or ``{"method", "path", "form"}`` for a form (its text
fields; the photo itself stays in the page), plus ``"reads"``: the browser reader's readings
of the photo (:class:`vision.offline.reader.BrowserReader`). ``photo``: its size and colour
measures (:class:`vision.offline.reader.BrowserPhoto`), or None.

The answer is ``{"status": 200, "body": {...}}`` (an error: the server's ``{"error", "code"}``
body and status), or ``{"look": "x"}`` when the photo must be looked at again that way first
(the page reads it so, adds ``reads["x"]`` and asks again).
"""
from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from vision.server.api_error import ApiError

from .reader import BrowserPhoto, BrowserReader, LookNeeded, ReaderOutputError

MAX_JSON_CHARS = 1 << 20        # a typed hand or an event is well under; the server's body bound
GAME = re.compile(r"/api/games/([^/]+)(/events|/undo)?")
SET_PATHS = {"/api/sets", "/api/set/learn", "/api/set/add", "/api/set/undo"}   # the page's sets.js answers them


def answer(request: dict, photo: Any = None) -> dict:
    """One request's answer (see the module's doc); never raises."""
    try:
        return {"status": 200, "body": _route(request, photo)}
    except LookNeeded as need:
        return {"look": need.how}
    except ApiError as exc:
        return {"status": exc.status, "body": {"error": exc.message, "code": exc.code, **exc.extra}}
    except ReaderOutputError as exc:
        return {"status": 500, "body": {"error": f"the page's tile reader gave no reading ({exc}): "
                                                 "reload the page", "code": "internal"}}
    except Exception as exc:  # noqa: BLE001 - the server's answer to a bug, not a traceback
        return {"status": 500, "body": {"error": f"internal error ({type(exc).__name__}): this is a "
                                                 "bug in tilescope; please report it with the photo "
                                                 "or request", "code": "internal"}}


def _route(request: dict, photo: Any) -> dict:
    method, path = request.get("method", "GET"), request.get("path", "")
    handlers: dict[tuple[str, str], Callable[[], dict]] = {
        ("GET", "/api/health"): lambda: {"ok": True, "offline": True, "model_loaded": True},
        ("POST", "/api/hand"): lambda: _typed("score_json", request),
        ("POST", "/api/check"): lambda: _typed("check_json", request),
        ("POST", "/api/score"): lambda: _photo("score_photo", request, photo),
        ("POST", "/api/check-photo"): lambda: _photo("check_photo", request, photo),
        ("POST", "/api/read"): lambda: _reader(request).read(_photo_of(photo)).to_json(),
        ("POST", "/api/waits"): lambda: _waits(request, photo),
        ("GET", "/api/games"): lambda: {"games": _games().list_games()},
        ("POST", "/api/games"): lambda: _games().create_game(_body(request)),
    }
    if (method, path) in handlers:
        return handlers[method, path]()
    game = GAME.fullmatch(path)
    if game:
        games, game_id, action = _games(), game.group(1), game.group(2)
        if method == "GET" and action is None:
            return games.show_game(game_id)
        if method == "POST" and action == "/events":
            return games.add_event(game_id, _body(request))
        if method == "POST" and action == "/undo":
            return games.undo(game_id)
    if game or path in {p for _, p in handlers} | SET_PATHS:
        # a route the server has, asked with another method: its framework's answer
        raise ApiError(405, "http_405", "Method Not Allowed")
    raise ApiError(404, "http_404", f"the offline page does not answer {method} {path[:80]}")


def _games():
    import vision.server.games      # not ``from vision.server import``: its lazy names would load the app

    return vision.server.games


def _body(request: dict) -> Any:
    """The JSON body, read as the server's ``strict_body`` reads it; 400 ``bad_json``."""
    from vision.common.jsontext import load_json

    text = request.get("text")
    if text is None and "json" in request:      # a body the page parsed already
        return request["json"]
    if not isinstance(text, str):
        raise ApiError(422, "invalid_request", f"{request.get('path')} takes a JSON body")
    if len(text) > MAX_JSON_CHARS:
        raise ApiError(413, "too_large", f"the body is over {MAX_JSON_CHARS:,} characters")
    try:
        return load_json(text.lstrip("\ufeff"))
    except ValueError as exc:
        raise ApiError(400, "bad_json", f"the request body is not valid JSON: {exc}") from None


def _typed(name: str, request: dict) -> dict:
    if name == "score_json":
        from scoring.api import score_json as judge
    else:
        from scoring.verdict import check_json as judge
    return judge(_body(request))


def _form(request: dict) -> dict:
    form = request.get("form")
    if not isinstance(form, dict):
        raise ApiError(422, "invalid_request", "a photo is sent as the form field 'image'")
    return {k: v for k, v in form.items() if isinstance(v, str)}


def _reader(request: dict) -> BrowserReader:
    return BrowserReader(request.get("reads") or {})


def _photo_of(photo: Any) -> Any:
    if photo is None:
        raise ApiError(422, "invalid_request", "a photo is sent as the form field 'image'")
    if isinstance(photo, dict):         # size only (tests, a page that measured no colour)
        return BrowserPhoto(photo["width"], photo["height"])
    return photo


def _photo(name: str, request: dict, photo: Any) -> dict:
    """``/api/score`` and ``/api/check-photo``: the server's ``ServerState.photo_run``, with
    the browser's reader."""
    from vision.layout.fixspec import in_api_words
    from vision.photo import pipeline
    from vision.server.fields import photo_inputs, table_facts

    form = _form(request)
    _photo_of(photo)        # the server's route wants the photo before it reads the fields
    inputs = photo_inputs(form.get("context"), form.get("fixes"), form.get("melds"), form.get("win_tile"))
    extra = table_facts(form.get("table")) if name == "check_photo" else {}
    try:
        result = getattr(pipeline, name)(
            _photo_of(photo), inputs.context, reader=_reader(request), fixes=inputs.fixes or None,
            win_tile=inputs.win_tile, melds=inputs.melds or None, **extra)
    except ValueError as exc:
        if isinstance(exc, ReaderOutputError):
            raise
        raise ApiError(422, "invalid_request", in_api_words(str(exc))) from None
    return result.to_json()


def _waits(request: dict, photo: Any) -> dict:
    from vision.server.waits_request import photo_waits, typed_waits

    if request.get("form") is None:
        return typed_waits(_body(request))
    from vision.photo.pipeline import read_hand_in_play

    reader, image = _reader(request), _photo_of(photo)
    return photo_waits(_form(request), lambda ruleset, fixes, melds: read_hand_in_play(
        image, ruleset, reader=reader, fixes=fixes, melds=melds))
