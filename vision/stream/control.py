"""The control page beside the overlay (``GET /control`` on the overlay's port): the streamer
sets the hand in play's context and keeps the game's ledger while the stream runs.

:class:`Control` ties the stream's :class:`vision.stream.livecontext.LiveContext` to the game's
:class:`vision.server.ledger.LedgerSession` (``--game``; None without) and to the overlay's
``publish``: a setting changed rescores the hand on screen (the stream sees the context's new
version), a confirmed win or a typed event moves the ledger on and a ``table`` message goes
out. :func:`add_routes` puts the page and its JSON API on the overlay's app:

- ``GET /control``: the page; ``GET /api/control``: :meth:`Control.state`;
- ``POST /api/control/hand``: settings for the hand in play (``{"win": "ron", ...}``);
- ``POST /api/control/new-hand``: the settings back to the run's;
- ``POST /api/control/ledger``: ``{"action": "confirm" | "undo" | "add", "event": {...}}``.

An undo gives the hand its settings back as they were before the event it takes out (kept
beside each event this page wrote; for one written elsewhere, the winner, discarder and win
the event names): the hand on screen is scored again under the context it was paid with, never
the run's default.

A refused request answers 400 with ``{"error": "one line"}``.
"""
from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Callable

from fastapi import Request      # at module level: FastAPI reads the routes' annotations here
from fastapi.responses import FileResponse, JSONResponse

from vision.server.ledger import LedgerError, LedgerSession
from .livecontext import ContextError, LiveContext


MAX_BODY_BYTES = 64 * 1024     # one setting or event; a scored hand is well under 1 KB


class Control:
    """The context and ledger the control page changes; ``publish`` sends overlay messages."""

    def __init__(self, context: LiveContext, ledger: LedgerSession | None = None,
                 publish: Callable[[dict], None] | None = None):
        self.context = context
        self.ledger = ledger
        self.publish = publish or (lambda message: None)
        # the hand's settings before each event this page wrote, by the event's line: an undo
        # of that event gives them back (the context it was scored and paid under)
        self._before: dict[str, dict] = {}
        self._lock = threading.Lock()

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
        if not isinstance(body, dict):
            raise LedgerError('the request is one JSON object: {"action": "confirm", "undo" or '
                              f'"add"}}, got {json.dumps(body, ensure_ascii=False)[:40]}')
        action = body.get("action")
        settings = dict(self.context.state()["hand"])
        if action == "confirm":
            self.ledger.confirm()
        elif action == "undo":
            undone = self.ledger.undo()
        elif action == "add":
            self.ledger.add(body.get("event"))
        else:
            raise LedgerError(f"action {json.dumps(action, ensure_ascii=False)[:40]}: one of "
                              "confirm, undo, add" if "action" in body else
                              'the request needs "action": one of confirm, undo, add')
        if action in ("confirm", "add"):
            with self._lock:
                self._before[self.ledger.lines[-1]] = settings
        kind = (body.get("event") or {}).get("type") if action == "add" else action
        if kind == "undo":
            # the hand back in play as it was before the event: its settings restored (the
            # ledger gives the counters and sticks back), the hand on screen scored again
            self.context.restore(self._settings_before(undone))
        elif kind in ("ron", "tsumo"):
            # a win typed here is the hand on screen's: paid, not proposed again
            self.ledger.settle_on_screen()
            self.context.reset(rescore=False)
        elif kind in ("riichi", "dead_hand"):
            self.context.bump()           # the hand goes on (a riichi changes its context)
        else:
            # a hand ended: the next has its own settings; the one on screen keeps the value
            # it was paid (the overlay says what was paid: the table's "settled")
            self.context.reset(rescore=False)
        self.publish(self.ledger.table_message())
        return self.state()

    def _settings_before(self, event: dict) -> dict:
        """The hand's settings before ``event`` (just taken out of the file): as this page
        kept them, else what the event says (its winner, discarder and win)."""
        line = json.dumps(event, ensure_ascii=False)
        with self._lock:
            kept = self._before.pop(line, None)
        if kept is not None:
            return kept
        settings: dict = {}
        if event.get("type") == "tsumo":
            settings = {"win": "tsumo", "winner": event.get("player")}
        elif event.get("type") == "ron" and len(event.get("winners") or []) == 1:
            settings = {"win": "ron", "winner": event["winners"][0].get("player"),
                        "discarder": event.get("discarder")}
        hand = ((event.get("winners") or [{}])[0] if event.get("type") == "ron" else event).get("hand")
        if isinstance(hand, dict) and hand.get("dora_indicators"):
            settings["dora_indicators"] = hand["dora_indicators"]
        return {k: v for k, v in settings.items() if isinstance(v, str) and v}

    def on_hand(self, message: dict) -> None:
        """The stream's hand message: the ledger proposes its payment."""
        if self.ledger is None or message.get("type") != "hand":
            return
        if self.ledger.offer(message, self.context.state()["hand"]):
            self.publish(self.ledger.table_message())


def add_routes(app, control: Control) -> None:
    """The control page and its API on the overlay's FastAPI ``app``."""
    web_dir = Path(__file__).parent.parent / "server" / "web"

    def answer(action, *args):
        try:
            return action(*args)
        except (ContextError, LedgerError) as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)

    async def answer_body(action, request: Request):
        """``action`` on the request's JSON body; a body that cannot be read is a 400 naming why."""
        try:
            body = await body_of(request)
        except LedgerError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        return answer(action, body)

    async def body_of(request: Request):
        """The JSON body, read as a game file's line is (a key given twice refused), within
        MAX_BODY_BYTES; a LedgerError naming the problem."""
        from vision.common.jsontext import load_json

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
        return await answer_body(control.set_hand, request)

    @app.post("/api/control/new-hand")
    async def new_hand():
        return answer(control.new_hand)

    @app.post("/api/control/ledger")
    async def ledger(request: Request):
        return await answer_body(control.ledger_action, request)
