"""The table mode's games, kept on the serving device as ``tilescope game`` keeps them: one JSON
Lines file per game (docs/game-json.md) in ``games/`` of the user data folder
(``$TILESCOPE_DATA/games``, else platformdirs' folder for tilescope); its id is the file's name.
Start, list, read, add an event, undo: each refusal an :class:`vision.server.api_error.ApiError`
naming why. No web framework here: the server's routes (:mod:`vision.server.routes.game`) and
the offline page (``vision.offline``, its files in the browser's storage) answer alike."""
from __future__ import annotations

import json
import os
import re
import secrets
import time
from pathlib import Path
from typing import Any

from scoring.tournament import riichi_game as rg
from vision.common.safe_files import locked
from vision.common.userdata import user_folder
from vision.server.game_file import (GameFileError, ranking_json, read_game, read_lines, state_json,
                                     write_game)

from .api_error import ApiError

GAME_ID = re.compile(r"[0-9]{8}-[0-9]{6}-[0-9a-f]{6}")
MAX_EVENT_BYTES = 64 * 1024          # one event line; a scored hand is well under 1 KB
MAX_LISTED = 200                     # games GET /api/games reads (each is replayed), newest first


def games_dir() -> Path:
    """Where the games live: ``$TILESCOPE_DATA/games`` or the user's data folder."""
    return user_folder("games")


def _path(game_id: str) -> Path:
    if not GAME_ID.fullmatch(game_id):
        raise ApiError(404, "unknown_game", f"no game {game_id[:40]!r} (ids look like "
                                            "20261204-210000-a1b2c3)")
    path = games_dir() / f"{game_id}.jsonl"
    if not os.path.lexists(path):
        raise ApiError(404, "unknown_game", f"no game {game_id!r} on this device")
    return path


def _lines(path: Path) -> list[str]:
    """The game file's lines; 422 ``broken_game`` when it cannot be read as text (not UTF-8,
    or no regular file: a FIFO would block the reader)."""
    try:
        return read_lines(str(path))
    except GameFileError as exc:
        raise ApiError(422, "broken_game", str(exc).replace(str(games_dir()) + os.sep, "")) from None


def _read(lines: list[str], game_id: str, new: str | None = None):
    """read_game; a line that is no event (or no game) is ``invalid_event`` (``invalid_game``
    for the first line), a rule's refusal its own code. ``new=""``: the last line is the
    request's, named by its problem alone (not as a line of a file it never reached)."""
    try:
        return read_game(lines, game_id, new)
    except GameFileError as exc:
        first = str(exc).startswith(f"{game_id}:1:") or len(lines) == 1
        raise ApiError(422, "invalid_game" if first else "invalid_event", str(exc)) from None
    except rg.GameError as exc:
        raise ApiError(422, exc.code, str(exc).split(": ", 1)[1]) from None


def game_json(game_id: str, lines: list[str], new: str | None = None) -> dict:
    """The game as the page reads it: ``id``, ``ruleset``, ``players``, ``options`` (the
    file's), ``state`` (the last state, as ``tilescope game --json``), ``events`` (how many),
    ``history`` (each event with the lines it printed, newest last), ``ranking`` (once over)."""
    options, states, events = _read(lines, game_id, new)
    header = json.loads(lines[0])
    last = states[-1]
    return {
        "id": game_id, "ruleset": header.get("ruleset", "riichi"),
        "players": list(last.players), "options": header.get("options", {}),
        "state": {**state_json(last, len(events)),
                  "riichi": [last.players[s] for s in sorted(getattr(last, "in_riichi", ()))]},
        "events": len(events),
        "history": [{"event": e, "lines": list(s.lines)} for e, s in zip(events, states[1:])],
        "ranking": ranking_json(last, options) if last.ended else None,
    }


def show_game(game_id: str) -> dict:
    """The game ``game_id`` as the page reads it (:func:`game_json`); 404 ``unknown_game``."""
    return game_json(game_id, _lines(_path(game_id)))


def _new_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S", time.gmtime()) + "-" + secrets.token_hex(3)


def _one_object(body: Any, what: str) -> dict:
    if not isinstance(body, dict):
        raise ApiError(422, "invalid_request", f"{what} is one JSON object, got "
                                               f"{type(body).__name__}")
    return body


def create_game(body: Any) -> dict:
    """A new game file from ``{"players", "ruleset", "options"}``; the game's JSON."""
    body = _one_object(body, "a new game")
    extra = sorted(set(body) - {"players", "ruleset", "options"})
    if extra:
        raise ApiError(422, "invalid_request", f"unknown key {extra[0]!r}: a new game has "
                                               "players, ruleset and options")
    header: dict[str, Any] = {"type": "game"}
    if body.get("ruleset", "riichi") != "riichi":
        header["ruleset"] = body["ruleset"]
    header["players"] = body.get("players")
    if body.get("options"):
        header["options"] = body["options"]
    lines = [json.dumps(header, ensure_ascii=False)]
    game_id = _new_id()
    out = game_json(game_id, lines, new="")      # refuses bad names, rulesets, options
    games_dir().mkdir(parents=True, exist_ok=True)
    path = games_dir() / f"{game_id}.jsonl"
    with locked(path):
        if os.path.lexists(path):
            raise ApiError(409, "game_exists", f"a game {game_id} was started at the same "
                                               "second: start it again")
        _write(path, lines)
    return out


def add_event(game_id: str, body: Any) -> dict:
    """Append one event if the rules take it; the game's JSON after it."""
    event = _one_object(body, "an event")
    path = _path(game_id)
    with locked(path):      # read again under the lock: the CLI or a stream may share it
        lines = _lines(path) + [json.dumps(event, ensure_ascii=False)]
        out = game_json(game_id, lines, new="")  # refused: nothing written
        _write(path, lines)
    return out


def undo(game_id: str) -> dict:
    """Take the last event out; the game's JSON after it."""
    path = _path(game_id)
    with locked(path):
        lines = [ln for ln in _lines(path) if ln.strip()]
        if len(lines) <= 1:
            raise ApiError(409, "nothing_to_undo", "no event to undo: the game has just started")
        lines.pop()
        out = game_json(game_id, lines)
        _write(path, lines)
    return out


def _write(path: Path, lines: list[str]) -> None:
    try:
        write_game(str(path), lines)
    except GameFileError as exc:
        raise ApiError(500, "cannot_write", str(exc).replace(str(games_dir()) + os.sep, "")) from None


def list_games() -> list[dict]:
    """The games kept, newest first: id, players, ruleset, round, ended; at most MAX_LISTED.
    A file that cannot be read as a game (edited by hand into nonsense, not UTF-8, a FIFO) is
    listed as ``{"id", "broken": true, "error"}``, not left out without a word."""
    folder = games_dir()
    out = []
    paths = sorted(folder.glob("*.jsonl"), reverse=True) if folder.is_dir() else []
    for path in [p for p in paths if GAME_ID.fullmatch(p.stem)][:MAX_LISTED]:
        try:
            g = game_json(path.stem, _lines(path))
        except ApiError as exc:
            out.append({"id": path.stem, "broken": True, "error": exc.message})
            continue
        out.append({"id": g["id"], "players": g["players"], "ruleset": g["ruleset"],
                    "round": g["state"]["round"], "ended": g["state"]["ended"]})
    return out
