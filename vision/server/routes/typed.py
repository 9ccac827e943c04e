"""The typed-hand routes: ``/api/hand`` (a hand JSON's value, as ``tilescope hand``) and
``/api/check`` (the referee's verdict on a declared win, as ``tilescope check --json``).
They run on a thread of their own: a typed hand never waits behind photos."""
from __future__ import annotations

from typing import Any

from fastapi import Body, FastAPI, Request
from fastapi.responses import JSONResponse

from .inputs import strict_body
from .models import CHECK_EXAMPLE, ERRORS, HAND_EXAMPLE, HandResultOut
from .state import ServerState


def install(app: FastAPI, state: ServerState) -> None:
    """Add the typed-hand routes to ``app``."""

    @app.post("/api/hand", response_model=None,
              responses={200: {"model": HandResultOut}, **ERRORS},
              summary="Score a typed hand (hand JSON)")
    async def api_hand(request: Request, hand: dict[str, Any] = Body(..., examples=[HAND_EXAMPLE])):
        """Score one hand request of ``hand-json.md`` (riichi or MCR). A hand that is malformed
        or incomplete still answers 200 with ``error`` set in the result, as ``tilescope hand``."""
        return JSONResponse(await state.workers.run(
            state.scorers.get("score_json"), await strict_body(request), typed=True))

    @app.post("/api/check", response_model=None,
              responses={200: {"model": HandResultOut}, **ERRORS},
              summary="Verdict on a disputed win")
    async def api_check(request: Request, claim: dict[str, Any] = Body(..., examples=[CHECK_EXAMPLE])):
        """The referee's verdict on a declared win (false hu, chombo, furiten), as
        ``tilescope check --json``: a hand request plus the table keys ``declared`` ("hu"),
        ``revealed``, ``discards`` (the winner's own, mpsz, for furiten), ``tournament``,
        ``penalties``, ``count_as_typed`` (a tile count that is not a hand's is what the player
        holds: rule on it; else it is an error, most often a typing slip). Answers
        ``{"ruleset", "ruling", "valid", "penalty", "result", "explanation", "error"}``."""
        return JSONResponse(await state.workers.run(
            state.scorers.get("check_json"), await strict_body(request), typed=True))
