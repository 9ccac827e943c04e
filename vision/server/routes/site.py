"""The server's own routes: ``/api/health`` (liveness and limits), the phone web page at
``/`` (``vision/server/web``) with its static files, and an empty favicon."""
from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse, Response
from fastapi.staticfiles import StaticFiles

from .state import ServerState

WEB_DIR = Path(__file__).parent.parent / "web"


def install(app: FastAPI, state: ServerState) -> None:
    """Add the health check, the page and its static files to ``app`` (the static mount
    answers every path under ``/static``: install it last)."""
    limits = state.limits

    @app.get("/api/health", summary="Liveness and limits")
    async def api_health():
        # ok: the server answers; photos need model_loaded (model_error: why not, once tried)
        return {"ok": True, "model_loaded": state.reader is not None,
                "model_error": None if state.model_error is None else "the tile detector could "
                               "not be loaded: photo requests get 503 (the server's log says why)",
                "limits": {"max_upload_bytes": limits.max_upload_bytes,
                           "max_pixels": limits.max_pixels, "timeout_s": limits.timeout_s,
                           "queue_length": limits.queue_length,
                           "queue_wait_s": limits.queue_wait_s,
                           "max_body_bytes": limits.max_body_bytes}}

    @app.api_route("/", methods=["GET", "HEAD"], include_in_schema=False)
    async def index():      # HEAD too: uptime checks use it
        return FileResponse(WEB_DIR / "index.html", media_type="text/html")

    @app.get("/favicon.ico", include_in_schema=False)
    async def favicon():
        return Response(status_code=204)

    app.mount("/static", StaticFiles(directory=WEB_DIR), name="static")
