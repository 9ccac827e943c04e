"""``/docs`` and ``/redoc`` work without internet (issue 40, finding 2): the pages load their
scripts and style sheet from tilescope itself (``vision/server/routes/apidocs.py``, the files of the
``fastapi-offline`` package), and the OpenAPI schema is byte for byte the one FastAPI's own
CDN pages describe."""
from __future__ import annotations

import re

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("fastapi_offline", reason="the 'serve' extra's fastapi-offline is not installed")

from fastapi.testclient import TestClient  # noqa: E402

from vision.server.routes import apidocs  # noqa: E402
from vision.server.app import create_app  # noqa: E402


@pytest.fixture(scope="module")
def client():
    return TestClient(create_app())


@pytest.mark.parametrize("page", ["/docs", "/redoc"])
def test_the_api_pages_load_nothing_from_elsewhere(client, page):
    html = client.get(page)
    assert html.status_code == 200
    assert "http://" not in html.text and "https://" not in html.text      # no CDN, no fonts
    loaded = re.findall(r'(?:src|href)="([^"]+)"', html.text)
    assert loaded and all(url.startswith("/docs-assets/") for url in loaded)
    for url in loaded:
        asset = client.get(url)
        assert asset.status_code == 200 and len(asset.content) > 1000


def test_the_swagger_page_names_its_files():
    html = TestClient(create_app()).get("/docs").text
    assert '<script src="/docs-assets/swagger-ui-bundle.js"></script>' in html
    assert 'href="/docs-assets/swagger-ui.css"' in html


def test_only_the_pages_files_are_served(client):
    assert client.get("/docs-assets/../server.py").status_code == 404
    assert client.get("/docs-assets/core.py").status_code == 404


def test_the_openapi_schema_is_unchanged(client, monkeypatch):
    ours = client.get("/openapi.json").content
    monkeypatch.setattr(apidocs, "assets_dir", lambda: None)     # FastAPI's own (CDN) pages
    plain = TestClient(create_app())
    assert "cdn.jsdelivr.net" in plain.get("/docs").text
    assert plain.get("/openapi.json").content == ours
