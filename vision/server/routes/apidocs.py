"""``/docs`` (Swagger UI) and ``/redoc`` served offline: their scripts and style sheet come
from the ``fastapi-offline`` package (in the ``serve`` extra), at ``/docs-assets/…``, not
from a CDN, so a phone on a hall's Wi-Fi without internet sees the API's pages. The OpenAPI
schema is the same either way (these routes are not in it)."""
from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
from fastapi.responses import FileResponse, HTMLResponse, Response

ASSETS_URL = "/docs-assets"
# the files the two pages load, and their types
ASSETS = {"swagger-ui-bundle.js": "text/javascript", "swagger-ui.css": "text/css",
          "redoc.standalone.js": "text/javascript", "favicon.png": "image/png"}


def assets_dir() -> Path | None:
    """The folder of the packaged Swagger UI / ReDoc files, or None without ``fastapi-offline``."""
    try:
        import fastapi_offline
    except ImportError:
        return None
    folder = Path(fastapi_offline.__file__).parent / "static"
    return folder if all((folder / name).is_file() for name in ASSETS) else None


def app_kwargs() -> dict:
    """``FastAPI(...)`` keywords: its own CDN pages off when the packaged files are there."""
    return {"docs_url": None, "redoc_url": None} if assets_dir() is not None else {}


def install(app: FastAPI) -> None:
    """``/docs``, its OAuth2 redirect page, ``/redoc`` and their files, from the packaged
    assets (nothing is added without them: FastAPI's own pages stay)."""
    folder = assets_dir()
    if folder is None:
        return
    title, openapi = app.title, app.openapi_url

    @app.get(ASSETS_URL + "/{name}", include_in_schema=False)
    async def docs_asset(name: str):
        if name not in ASSETS:
            return Response(status_code=404)
        return FileResponse(folder / name, media_type=ASSETS[name],
                            headers={"Cache-Control": "public, max-age=86400"})

    @app.get("/docs", include_in_schema=False)
    async def swagger_ui() -> HTMLResponse:
        return get_swagger_ui_html(openapi_url=openapi, title=f"{title} - Swagger UI",
                                   oauth2_redirect_url=app.swagger_ui_oauth2_redirect_url,
                                   swagger_js_url=f"{ASSETS_URL}/swagger-ui-bundle.js",
                                   swagger_css_url=f"{ASSETS_URL}/swagger-ui.css",
                                   swagger_favicon_url=f"{ASSETS_URL}/favicon.png",
                                   swagger_ui_parameters=app.swagger_ui_parameters)

    @app.get(app.swagger_ui_oauth2_redirect_url, include_in_schema=False)
    async def swagger_ui_redirect() -> HTMLResponse:
        return get_swagger_ui_oauth2_redirect_html()

    @app.get("/redoc", include_in_schema=False)
    async def redoc() -> HTMLResponse:
        return get_redoc_html(openapi_url=openapi, title=f"{title} - ReDoc",
                              redoc_js_url=f"{ASSETS_URL}/redoc.standalone.js",
                              redoc_favicon_url=f"{ASSETS_URL}/favicon.png", with_google_fonts=False)
