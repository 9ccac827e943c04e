"""The server's table mode: games kept on the serving device, as ``tilescope game`` keeps them.

Each game is one JSON Lines file (docs/game-json.md) in ``games/`` of the user data folder
(``$TILESCOPE_DATA/games``, else platformdirs' folder for tilescope, as the set profiles);
its id is the file's name. The endpoints (:func:`install`):

* ``POST /api/games`` ``{"players": [4 names], "ruleset": "riichi"|"mcr", "options": {...}}``
  starts a game; ``GET /api/games``: the games kept, newest first.
* ``GET /api/games/{id}``: the game (see :func:`game_json`).
* ``POST /api/games/{id}/events``: one event, as a line of the file; refused (422, the
  ledger's error code) when the rules refuse it, the file left as it was.
* ``POST /api/games/{id}/undo``: takes the last event out.
* ``GET /table``: the page (vision/server/web/table.html).

Errors answer ``{"error": message, "code": code}`` as the rest of the API.
"""
from __future__ import annotations

from typing import Any

from fastapi import Body, FastAPI, Request
from fastapi.responses import FileResponse

from vision.server.game_file import GameFileError, decode_json
from vision.server.games import (MAX_EVENT_BYTES, add_event, create_game, game_json,  # noqa: F401 - public here
                                 games_dir, list_games, show_game, undo)
from .errors import ApiError
from .site import WEB_DIR
from .state import ServerState


async def _body(request: Request) -> Any:
    raw = await request.body()
    if len(raw) > MAX_EVENT_BYTES:
        raise ApiError(413, "too_large", f"the body is over {MAX_EVENT_BYTES:,} bytes")
    try:
        return decode_json(raw.decode("utf-8-sig"), "the request body")
    except (GameFileError, UnicodeDecodeError) as exc:
        raise ApiError(400, "bad_json", str(exc)) from None


def install(app: FastAPI, state: ServerState) -> None:
    """Put the table mode's endpoints and page on ``app``. A game's file is read and written
    on the typed hands' thread (it may score a hand); a refusal is an ApiError."""

    async def typed(fn, *args):
        return await state.workers.run(fn, *args, typed=True)

    @app.get("/api/games", summary="The games kept on this device")
    async def api_games():
        return {"games": await typed(list_games)}

    @app.post("/api/games", summary="Start a game (players, ruleset, options)")
    async def api_new_game(request: Request, _: dict[str, Any] = Body(None, examples=[
            {"players": ["Ann", "Bob", "Cai", "Dan"], "options": {"east_only": True}}])):
        return await typed(create_game, await _body(request))

    @app.get("/api/games/{game_id}", summary="A game's standings and history")
    async def api_game(game_id: str):
        return await typed(show_game, game_id)

    @app.post("/api/games/{game_id}/events", summary="Add one event (docs/game-json.md)")
    async def api_event(game_id: str, request: Request, _: dict[str, Any] = Body(None, examples=[
            {"type": "riichi", "player": "Bob"}])):
        return await typed(add_event, game_id, await _body(request))

    @app.post("/api/games/{game_id}/undo", summary="Take the last event out")
    async def api_undo(game_id: str):
        return await typed(undo, game_id)

    @app.get("/table", include_in_schema=False)
    def table_page():
        return FileResponse(WEB_DIR / "table.html", media_type="text/html")
