"""The server's own routes: ``/api/health`` (liveness and limits), the phone web page at
``/`` (``vision/server/web``) with its static files, an empty favicon, and the offline phone
site at ``/phone/`` when one is built (``web/build.mjs``; ``tilescope serve --site``)."""
from __future__ import annotations

import mimetypes
from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse, Response
from fastapi.staticfiles import StaticFiles

from .state import ServerState

WEB_DIR = Path(__file__).parent.parent / "web"
# the offline site built in a checkout (cd web && npm run build), served by default when there:
# the checkout this package runs from (an editable install), else the one the server is
# started in (`pip install .` copies the package away from its checkout)
SITE_DIR = Path(__file__).resolve().parents[3] / "web" / "dist"
SITE_DIRS = (SITE_DIR, Path("web") / "dist")

# the site's files whose types a browser checks: module scripts must be JavaScript, the wasm
# application/wasm (compiled while it downloads); not every system's mime.types knows them
for _type, _ext in (("text/javascript", ".mjs"), ("application/wasm", ".wasm"),
                    ("application/manifest+json", ".webmanifest")):
    mimetypes.add_type(_type, _ext)


class _IsolatedFiles(StaticFiles):
    """The offline site's files, cross-origin isolated (COOP + COEP): the page may then use
    SharedArrayBuffer, so the tile reader runs on several threads. Every file is the site's
    own, so requiring CORP of cross-origin ones costs nothing."""

    def file_response(self, *args, **kwargs):
        response = super().file_response(*args, **kwargs)
        response.headers["Cross-Origin-Opener-Policy"] = "same-origin"
        response.headers["Cross-Origin-Embedder-Policy"] = "require-corp"
        return response


def site_problem(site_dir: str | Path) -> str | None:
    """Why ``site_dir`` is not a built offline site (None when it is one)."""
    d = Path(site_dir)
    missing = [f for f in ("index.html", "sw.js", "worker.js") if not (d / f).is_file()]
    if missing:
        return (f"{d} is not a built offline site (no {', '.join(missing)}): "
                "build it with `cd web && npm ci && npm run build`")
    return None


def install(app: FastAPI, state: ServerState, site_dir: str | Path | None = None) -> None:
    """Add the health check, the page and its static files to ``app`` (the static mount
    answers every path under ``/static``: install it last), and ``site_dir`` (a built offline
    site, ``web/dist``) at ``/phone/`` when given."""
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
    if site_dir is not None:
        # a static copy: the page runs the rules in the browser and answers its own /api/...
        # (no route of the API's schema; the service worker's scope is /phone/)
        app.mount("/phone", _IsolatedFiles(directory=Path(site_dir), html=True), name="phone")
