"""The offline phone site (``web/build.mjs`` → ``web/dist``, issue #43) in a real headless
Chromium: served by a plain static server under a sub-path, opened once, then used with the
network off.

The page scores a sample photo through its own form (the project's Python in Pyodide, the
tile reader in the browser: the stand-in of ``web/test/fixture-reader.js`` until the real one
is built in), and the answer must be what ``vision.photo.pipeline.score_photo`` gives for that
photo in Python: the same tiles and the same value. Then the network goes off: DevTools'
offline emulation (``navigator.onLine`` false), which in this Chromium does not reach the
service worker's own fetches (one it passes on still got to the host), so the static server
is stopped too and nothing can come from it. The page is reloaded from the service worker's
cache, scores the photo again, takes a tap-to-correct (the red five as a plain one) and scores
it as ``score_photo`` with that fix does, shows the waits of a hand in play as the server's
``/api/waits`` gives them, and a game is started and an event added in table mode, kept in the
browser's IndexedDB across a reload.

Skipped with the reason when the site is not built (``cd web && npm ci && npm run build``) or
chromium, chromedriver or selenium is missing (``.ci/install_browser.sh`` installs them).
"""
from __future__ import annotations

import functools
import http.server
import json
import os
import tempfile
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
from browsing import chromium, click, free_port, need_browser, points, serve, settle, tap_tile

REPO = Path(__file__).resolve().parent.parent
SITE = REPO / "web" / "dist"
SAMPLE = REPO / "vision" / "samples" / "riichi_open_red.jpg"
WAITING = REPO / "vision" / "samples" / "riichi_waiting.jpg"     # 13 tiles: a hand in play
# what the page leaves out of the context it sends /api/waits (WIN_ONLY, vision/server/web/app.js)
WIN_ONLY = ("win", "last_wall_tile", "replacement_tile", "robbing_kong", "ippatsu", "tenhou",
            "chiihou", "ura_dora_indicators", "last_copy")
PREFIX = "tilescope"        # the site is served at /tilescope/, as a static host's sub-path
READY_S = 300               # Pyodide, the wheels and onnxruntime on 2 slow cores: ~20 s here

if not all((SITE / f).is_file() for f in ("index.html", "sw.js", "worker.js", "site.json")):
    pytest.skip("the offline site is not built (cd web && npm ci && npm run build)",
                allow_module_level=True)
need_browser()

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):       # no line per file on the test's output
        pass


@contextmanager
def static_server(root: Path):
    """``root`` served over HTTP on a free loopback port in a thread: yields the server (its
    ``url``); ``stop()`` ends it early (the network going away)."""
    port = free_port()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port),
                                             functools.partial(_Quiet, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    stopped = []

    def stop():
        if not stopped:
            server.shutdown()
            server.server_close()
            stopped.append(True)

    server.url = f"http://127.0.0.1:{port}"
    server.stop = stop
    try:
        yield server
    finally:
        stop()


def wait_ready(d) -> float:
    """Seconds until the page's worker is ready (window.tilescopeOffline, web/src/site/local-api.js)."""
    t0 = time.monotonic()
    state = lambda: d.execute_script("return window.tilescopeOffline && "     # noqa: E731
                                     "[tilescopeOffline.state, tilescopeOffline.error]")
    WebDriverWait(d, READY_S, poll_frequency=0.5).until(
        lambda _: (state() or ["loading"])[0] != "loading", message="the page never got ready")
    assert state() == ["ready", None], f"the page did not start: {state()}"
    return time.monotonic() - t0


def wait_kept(d) -> None:
    """Until the service worker has kept every file of the site and controls the page."""
    WebDriverWait(d, 120, poll_frequency=0.5).until(
        lambda _: d.execute_script("return !!navigator.serviceWorker.controller"),
        message="no service worker took control of the page")


def score_sample(d) -> dict:
    """Pick the sample photo in the page's form; the page's answer (``state.data``) and the
    context it sent (``context()``, vision/server/web/app.js)."""
    d.find_element(By.ID, "file").send_keys(str(SAMPLE))
    WebDriverWait(d, 120, poll_frequency=0.3).until(
        lambda _: "found" in d.find_element(By.ID, "status").text
        or "Could not" in d.find_element(By.ID, "status").text,
        message="the page never answered the photo")
    status = d.find_element(By.ID, "status").text
    assert "Could not" not in status, status
    return {"data": d.execute_script("return state.data"),
            "context": d.execute_script("return context()"), "status": status}


def python_answer(context: dict, fixes: dict | None = None) -> dict:
    from vision.photo.pipeline import score_photo

    return json.loads(json.dumps(score_photo(str(SAMPLE), context, fixes=fixes).to_json()))


def assert_same_as_python(page: dict, fixes: dict | None = None) -> None:
    want, got = python_answer(page["context"], fixes), page["data"]
    assert [t["tile"] for t in got["tiles"]] == [t["tile"] for t in want["tiles"]]
    assert [t["box"] for t in got["tiles"]] == [t["box"] for t in want["tiles"]]
    assert got["request"] == want["request"]
    assert got["result"] == want["result"]
    # the photo's own warnings too: the colour measures are the browser's (web/src/site/colour.js)
    assert got["warnings"] == want["warnings"]
    assert got["result"]["valid"] is True


def tap_to_correct(d, read_as: str, really: str) -> None:
    """Tap the tile read as ``read_as`` on the page's canvas, as a finger would (as
    tests/test_browser.py does), pick ``really`` and wait for the page's new answer."""
    data = d.execute_script("return state.data")
    index = next(i for i, t in enumerate(data["tiles"]) if t["tile"] == read_as)
    tap_tile(d, data["tiles"][index]["box"])
    picker = d.find_element(By.ID, "picker")
    WebDriverWait(d, 10).until(lambda _: picker.get_attribute("open") is not None,
                               message="the tile picker did not open")
    picker.find_element(By.CSS_SELECTOR, f"button[data-tile='{really}']").click()
    WebDriverWait(d, 60, poll_frequency=0.3).until(
        lambda _: any(t["tile"] == really and t.get("n") == data["tiles"][index].get("n")
                      for t in (d.execute_script("return state.data") or {}).get("tiles", [])),
        message="the corrected answer never came")


def server_waits(context: dict) -> dict:
    """What ``tilescope serve``'s /api/waits answers for the WAITING photo and ``context``."""
    from fastapi.testclient import TestClient

    from vision.server.app import create_app

    context = {k: v for k, v in context.items() if k not in WIN_ONLY}
    with TestClient(create_app()) as client:
        r = client.post("/api/waits", data={"context": json.dumps(context)},
                        files={"image": (WAITING.name, WAITING.read_bytes(), "image/jpeg")})
    assert r.status_code == 200, r.text
    return r.json()


def assert_waits_as_the_server(d) -> None:
    d.find_element(By.ID, "file").send_keys(str(WAITING))
    head = lambda: d.find_element(By.ID, "headline").text        # noqa: E731
    WebDriverWait(d, 120, poll_frequency=0.3).until(
        lambda _: head().startswith(("Tenpai", "Shanten")), message="no waits shown")
    want = server_waits(d.execute_script("return context()"))
    assert want["tenpai"]
    assert head() == (f"Tenpai — waits {' '.join(w['tile'] for w in want['waits'])} "
                      f"({want['waits_left']} left)")


def network(d, online: bool) -> None:
    d.execute_cdp_cmd("Network.enable", {})
    d.execute_cdp_cmd("Network.emulateNetworkConditions",
                      {"offline": not online, "latency": 0, "downloadThroughput": -1,
                       "uploadThroughput": -1})


@pytest.fixture(scope="module")
def served():
    # the site under a sub-path: its pages, worker and service worker must not assume "/"
    with tempfile.TemporaryDirectory(prefix="tilescope-site-") as root:
        os.symlink(SITE, Path(root) / PREFIX)
        with static_server(Path(root)) as server:
            yield server


@pytest.fixture(scope="module")
def browser():
    with chromium(window="800,1200") as driver:
        yield driver


def test_the_site_scores_a_photo_then_works_with_the_network_off(served, browser):
    d = browser
    site = f"{served.url}/{PREFIX}/"
    d.get(site)
    first_load = wait_ready(d)
    print(f"first load: ready in {first_load:.1f} s")
    page = score_sample(d)
    assert_same_as_python(page)
    assert page["data"]["result"]["han"] == 2
    assert page["status"].startswith(f"{len(page['data']['tiles'])} tiles found: 2 han 30 fu")
    wait_kept(d)

    # the network off: DevTools' emulation, and the host itself gone
    network(d, online=False)
    served.stop()
    try:
        assert not d.execute_script("return navigator.onLine")
        d.get(site)
        wait_ready(d)
        assert_same_as_python(score_sample(d))
        tap_to_correct(d, "0p", "5p")        # the red five as a plain one: its aka dora gone
        n = next(t["n"] for t in d.execute_script("return state.data")["tiles"] if t["tile"] == "5p")
        page = {"data": d.execute_script("return state.data"),
                "context": d.execute_script("return context()")}
        assert_same_as_python(page, fixes={n: "5p"})
        assert page["data"]["result"]["han"] == 1
        assert_waits_as_the_server(d)

        a_game_kept_in_the_browser(d, site)
    finally:
        network(d, online=True)        # the browser is the module's: the next test needs it


def a_game_kept_in_the_browser(d, site: str) -> None:
    """Table mode: a game started and an event recorded, still there after a reload (IndexedDB)."""
    d.get(site + "table.html")
    wait_ready(d)
    for i, name in enumerate(["Ann", "Bob", "Cai", "Dan"]):
        d.find_element(By.ID, f"p{i}").send_keys(name)
    click(d, "#start")
    settle(d, "Game started", 60)
    click(d, "#act-riichi")
    d.execute_script("const s = document.getElementById('riichi-player'); s.value = 'Bob';"
                     "s.dispatchEvent(new Event('change', {bubbles: true}))")
    click(d, "#form-riichi button[type=submit]")
    settle(d, "Recorded: Bob declares riichi", 60)
    assert points(d) == {"Ann": 25000, "Bob": 24000, "Cai": 25000, "Dan": 25000}
    game_id = d.execute_script("return game.id")
    d.get(site + "table.html")
    wait_ready(d)
    games = d.execute_async_script(
        "const done = arguments[0];"
        "fetch('/api/games').then(r => r.json()).then(done, e => done({error: String(e)}))")
    assert game_id in [g["id"] for g in games["games"]], games


def test_tilescope_serve_serves_the_site_at_phone_cross_origin_isolated(browser):
    # `tilescope serve` (--site, default the checkout's web/dist): the same site at /phone/,
    # isolated (COOP + COEP) so the reader may use threads; the page still answers itself
    from vision.server.app import create_app

    with serve(create_app(reader=object(), site_dir=str(SITE))) as url:
        browser.get(url + "/phone/")
        wait_ready(browser)
        assert browser.execute_script("return crossOriginIsolated") is True
        assert_same_as_python(score_sample(browser))
