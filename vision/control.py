"""The control page beside the overlay (``GET /control`` on the overlay's port): the streamer
sets the hand in play's context and keeps the game's ledger while the stream runs.

:class:`Control` ties the stream's :class:`vision.livecontext.LiveContext` to the game's
:class:`vision.ledger.LedgerSession` (``--game``; None without) and to the overlay's
``publish``: a setting changed rescores the hand on screen (the stream sees the context's new
version), a confirmed win or a typed event moves the ledger on and a ``table`` message goes
out. :func:`add_routes` puts the page and its JSON API on the overlay's app:

- ``GET /control``: the page; ``GET /api/control``: :meth:`Control.state`;
- ``POST /api/control/hand``: settings for the hand in play (``{"win": "ron", ...}``);
- ``POST /api/control/new-hand``: the settings back to the run's;
- ``POST /api/control/ledger``: ``{"action": "confirm" | "undo" | "add", "event": {...}}``.

A refused request answers 400 with ``{"error": "one line"}``.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable

from fastapi import Request      # at module level: FastAPI reads the routes' annotations here
from fastapi.responses import FileResponse, JSONResponse

from vision.ledger import LedgerError, LedgerSession
from vision.livecontext import ContextError, LiveContext


MAX_BODY_BYTES = 64 * 1024     # one setting or event; a scored hand is well under 1 KB


class Control:
    """The context and ledger the control page changes; ``publish`` sends overlay messages."""

    def __init__(self, context: LiveContext, ledger: LedgerSession | None = None,
                 publish: Callable[[dict], None] | None = None):
        self.context = context
        self.ledger = ledger
        self.publish = publish or (lambda message: None)
        self._last_hand: dict | None = None

    def state(self) -> dict:
        """``{"context": LiveContext.state(), "table": the ledger's table message or null}``."""
        return {"context": self.context.state(),
                "table": self.ledger.table_message() if self.ledger else None}

    def set_hand(self, changes: dict) -> dict:
        """New settings for the hand in play (ContextError when refused)."""
        self.context.set(changes)
        return self.state()

    def new_hand(self) -> dict:
        self.context.reset()
        return self.state()

    def ledger_action(self, body: dict) -> dict:
        """Confirm the proposed win, undo the last event, or add a typed one; the ledger's
        settings for the hand are cleared when it moves on (the next hand has its own)."""
        if self.ledger is None:
            raise LedgerError("no game is kept: start the stream with --game FILE")
        action = body.get("action") if isinstance(body, dict) else None
        if action == "confirm":
            self.ledger.confirm()
        elif action == "undo":
            self.ledger.undo()
        elif action == "add":
            self.ledger.add(body.get("event"))
        else:
            raise LedgerError(f"action {action!r}: one of confirm, undo, add")
        kind = (body.get("event") or {}).get("type") if action == "add" else action
        if kind == "riichi":
            self.context.bump()           # the riichi of the hand in play changed: rescore
        else:
            # a hand ended: the next has its own settings; the one on screen keeps the value
            # it was paid (an undo puts it back in play: scored again)
            self.context.reset(rescore=kind == "undo")
        self.publish(self.ledger.table_message())
        return self.state()

    def on_hand(self, message: dict) -> None:
        """The stream's hand message: the ledger proposes its payment."""
        if self.ledger is None or message.get("type") != "hand":
            return
        if self.ledger.offer(message, self.context.state()["hand"]):
            self.publish(self.ledger.table_message())


def add_routes(app, control: Control) -> None:
    """The control page and its API on the overlay's FastAPI ``app``."""
    web_dir = Path(__file__).with_name("web")

    def answer(action, *args):
        try:
            return action(*args)
        except (ContextError, LedgerError) as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)

    async def body_of(request: Request):
        """The JSON body, read as a game file's line is (a key given twice refused), within
        MAX_BODY_BYTES; a LedgerError naming the problem."""
        from vision.jsontext import load_json

        raw = await request.body()
        if len(raw) > MAX_BODY_BYTES:
            raise LedgerError(f"the body is over {MAX_BODY_BYTES:,} bytes")
        try:
            return load_json(raw.decode("utf-8-sig"))
        except (ValueError, UnicodeDecodeError) as exc:
            raise LedgerError(f"the request body is not valid JSON: {exc}") from None

    @app.get("/control")
    async def page():
        return FileResponse(web_dir / "control.html", media_type="text/html")

    @app.get("/api/control")
    async def state():
        return control.state()

    @app.post("/api/control/hand")
    async def hand(request: Request):
        try:
            body = await body_of(request)
        except LedgerError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        return answer(control.set_hand, body)

    @app.post("/api/control/new-hand")
    async def new_hand():
        return answer(control.new_hand)

    @app.post("/api/control/ledger")
    async def ledger(request: Request):
        try:
            body = await body_of(request)
        except LedgerError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        return answer(control.ledger_action, body)
