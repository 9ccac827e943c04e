"""Issue 39, proof "a browser test that a page from another origin cannot change the ledger,
the set or the game", in a real headless Chromium (``tests/browsing.py``).

``tilescope serve``'s app (a table-mode game, a named set) and ``stream --overlay``'s server
(a control page keeping a game file) run on loopback; a third server, a plain
``http.server`` on another port, serves a hostile page. Opened as ``http://localhost:PORT``
(another site) and as ``http://127.0.0.1:PORT`` (the same site, another origin), its script
sends every write it can without the browser asking first: ``fetch`` ``no-cors`` with
``text/plain`` and multipart bodies, HTML forms (url-encoded, ``text/plain`` shaped as JSON,
multipart), a form from a sandboxed frame (``Origin: null``), and one JSON ``fetch`` that
needs a preflight. Every request that reaches a server is recorded: each write must be
refused (403 ``cross_origin``), and afterwards the game file, the set file, the ledger's
game file and the control state are as they were. The servers' own pages can still write
(the positive control).

Skipped with the reason when chromium, chromedriver, selenium or uvicorn is missing.
"""
from __future__ import annotations

import functools
import http.server
import json
import threading
import urllib.request

import pytest
from browsing import chromium, free_port, need_browser, serve

need_browser()

from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

PLAYERS = ["Ann", "Bob", "Cai", "Dan"]


class Recorder:
    """ASGI middleware noting each HTTP request's method, path and answer status."""

    def __init__(self, app):
        self.app, self.seen = app, []

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        entry = [scope["method"], scope["path"], None]
        self.seen.append(entry)

        async def noting(message):
            if message["type"] == "http.response.start":
                entry[2] = message["status"]
            await send(message)

        return await self.app(scope, receive, noting)

    def posts(self):
        return [tuple(e) for e in self.seen if e[0] == "POST"]


def post_json(url: str, body) -> dict:
    """A write as a script makes it (no Origin: taken)."""
    req = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


# The hostile page: every write another site's page can send without a CORS preflight.
# T is tilescope serve, O the overlay (ledger + control), G the game's id.
HOSTILE = """<!doctype html><meta charset="utf-8"><title>working</title>
<body><script>
const T = "%(serve)s", O = "%(overlay)s", G = "%(game)s";
const RIICHI = '{"action":"add","event":{"type":"riichi","player":"Dan"}}';
async function shot(url, init) {
  try { await fetch(url, { method: "POST", mode: "no-cors", credentials: "include", ...init }); }
  catch (e) { /* an opaque answer or a refusal: the server saw it or not, the test counts */ }
}
function form(action, enctype, fields, sandboxed) {
  return new Promise((done) => {
    const frame = document.createElement("iframe");
    frame.name = "f" + Math.random().toString(36).slice(2);
    if (sandboxed) frame.setAttribute("sandbox", "allow-forms allow-scripts");
    document.body.appendChild(frame);
    const html = `<form method="POST" action="${action}" enctype="${enctype}">` +
      Object.entries(fields).map(([k, v]) =>
        `<input type="hidden" name='${k}' value='${v}'>`).join("") + "</form>";
    let loads = 0;
    frame.onload = () => { if (++loads === 2) done(); };     // about:blank, then the answer
    setTimeout(done, 5000);
    frame.srcdoc = `<body onload="setTimeout(() => document.forms[0].submit(), 0)">${html}`;
  });
}
function multipart(fields, photo) {
  const body = new FormData();
  for (const [k, v] of Object.entries(fields)) body.append(k, v);
  if (photo) body.append("image", new Blob([new Uint8Array([137, 80, 78, 71])], { type: "image/png" }), "x.png");
  return body;
}
(async () => {
  const text = { "Content-Type": "text/plain" };
  // the ledger and the control state (stream --overlay)
  await shot(O + "/api/control/ledger", { headers: text, body: RIICHI });
  await shot(O + "/api/control/ledger", { headers: text, body: '{"action":"undo"}' });
  await shot(O + "/api/control/ledger", { headers: text, body: '{"action":"confirm"}' });
  await shot(O + "/api/control/hand", { headers: text, body: '{"win":"tsumo","winner":"Dan"}' });
  await shot(O + "/api/control/new-hand", {});
  // the game (serve's table mode)
  await shot(T + "/api/games/" + G + "/undo", {});
  await shot(T + "/api/games/" + G + "/undo", { headers: text, body: "{}" });
  await shot(T + "/api/games/" + G + "/events", { headers: text, body: '{"type":"riichi","player":"Cai"}' });
  await shot(T + "/api/games", { headers: text, body: '{"players":["W","X","Y","Z"]}' });
  // the set
  await shot(T + "/api/set/undo", { headers: text, body: "name=club" });
  await shot(T + "/api/set/undo", { body: multipart({ name: "club" }) });
  await shot(T + "/api/set/learn", { body: multipart({ name: "club" }, true) });
  await shot(T + "/api/set/add", { body: multipart({ name: "club", n: "1", tile: "1m" }, true) });
  // forms: url-encoded, text/plain shaped as JSON, multipart, and from a sandboxed frame
  await form(T + "/api/set/undo", "application/x-www-form-urlencoded", { name: "club" });
  await form(T + "/api/set/undo", "multipart/form-data", { name: "club" });
  await form(T + "/api/games/" + G + "/undo", "application/x-www-form-urlencoded", {});
  await form(O + "/api/control/ledger", "text/plain",
             { '{"action":"add","event":{"type":"riichi","player":"Dan","x":"': '"}}' });
  await form(T + "/api/set/undo", "multipart/form-data", { name: "club" }, true);
  await form(O + "/api/control/ledger", "text/plain",
             { '{"action":"undo","x":"': '"}' }, true);
  // JSON needs the browser to ask first (a preflight this server never grants)
  try {
    await fetch(T + "/api/games/" + G + "/events", { method: "POST", headers: { "Content-Type": "application/json" },
                                                      body: '{"type":"riichi","player":"Cai"}' });
  } catch (e) {}
  document.title = "done";
})();
</script>
"""

# the writes the page sends that reach a server (the preflighted one never does)
SENT = 19


@pytest.fixture(scope="module")
def browser():
    with chromium(window="900,700") as driver:
        yield driver


@pytest.fixture
def servers(tmp_path, monkeypatch):
    """serve (with a game of one event and a set of two references), the overlay with a
    control page keeping its game file, each behind a Recorder: a dict of what the test
    needs."""
    import numpy as np

    from test_overlay_browser import new_game
    from vision.stream.overlay import OverlayServer
    from vision.server.app import create_app
    from vision.read.tileset import TileSet

    monkeypatch.setenv("TILESCOPE_DATA", str(tmp_path / "data"))
    sets = tmp_path / "data" / "sets"
    sets.mkdir(parents=True)
    emb = np.eye(2, 8, dtype=np.float32)
    TileSet("club", ("1m", "2m"), np.zeros((2, 48, 48, 3), np.uint8), emb, "model").save(sets / "club.npz")

    ledger_game, ledger, live, hub, control = new_game(tmp_path)
    hub.publish(ledger.table_message())
    overlay = OverlayServer(hub, free_port(), control=control)
    overlay_rec = Recorder(overlay.server.config.app)
    overlay.server.config.app = overlay_rec
    serve_rec = Recorder(create_app(reader=object()))
    with serve(serve_rec) as url:
        gid = post_json(url + "/api/games", {"players": PLAYERS})["id"]
        post_json(f"{url}/api/games/{gid}/events", {"type": "riichi", "player": "Bob"})
        overlay.start()
        serve_rec.seen.clear()              # the set-up's own writes
        try:
            yield {"serve": url, "overlay": f"http://127.0.0.1:{overlay.server.config.port}",
                   "game": gid, "game_file": tmp_path / "data" / "games" / f"{gid}.jsonl",
                   "set_file": sets / "club.npz", "ledger_file": ledger_game, "control": control,
                   "recorders": (serve_rec, overlay_rec), "tmp": tmp_path}
        finally:
            overlay.stop()


class Hostile:
    """The other site: a plain http.server on its own port serving ``evil.html``."""

    def __init__(self, folder, html: str):
        (folder / "evil.html").write_text(html)
        handler = functools.partial(QuietHandler, directory=str(folder))
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), handler)
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def snapshot(s) -> tuple:
    return (s["game_file"].read_bytes(), s["set_file"].read_bytes(), s["ledger_file"].read_bytes(),
            json.dumps(s["control"].state(), sort_keys=True, default=str))


@pytest.mark.parametrize("site", ["localhost", "127.0.0.1"],
                         ids=["another-site", "same-site-another-port"])
def test_a_page_of_another_origin_cannot_change_the_ledger_the_set_or_the_game(servers, browser, site):
    s = servers
    before = snapshot(s)
    folder = s["tmp"] / "evil"
    folder.mkdir()
    hostile = Hostile(folder, HOSTILE % {"serve": s["serve"], "overlay": s["overlay"], "game": s["game"]})
    try:
        browser.get(f"http://{site}:{hostile.port}/evil.html")
        WebDriverWait(browser, 60).until(lambda d: d.title == "done",
                                         message="the hostile page never finished")
    finally:
        hostile.close()
    posts = [p for rec in s["recorders"] for p in rec.posts()]
    # every write reached a server (none lost on the way: the test proves something) ...
    assert len(posts) == SENT, posts
    # ... and each was refused by the write gate, not by a later check of its fields
    assert {status for _, _, status in posts} == {403}, posts
    assert snapshot(s) == before            # not one event, reference or setting changed


def test_the_servers_own_pages_still_write(servers, browser):
    s = servers
    game_before = s["game_file"].read_text()
    ledger_before = s["ledger_file"].read_text()
    send = """const [url, body, done] = arguments;
      fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body })
        .then((r) => done(r.status), (e) => done(String(e)));"""
    browser.get(s["serve"] + "/")
    status = browser.execute_async_script(send, f"/api/games/{s['game']}/events",
                                          '{"type": "riichi", "player": "Cai"}')
    assert status == 200
    assert len(s["game_file"].read_text().splitlines()) == len(game_before.splitlines()) + 1
    browser.get(s["overlay"] + "/control")
    status = browser.execute_async_script(send, "/api/control/ledger",
                                          '{"action":"add","event":{"type":"riichi","player":"Dan"}}')
    assert status == 200
    assert s["ledger_file"].read_text() != ledger_before
    assert '"Dan"' in s["ledger_file"].read_text().splitlines()[-1]


@pytest.mark.parametrize("page", ["/", "/table"])
def test_a_phone_opening_the_pairing_link_is_paired_and_the_code_leaves_the_address(
        tmp_path, monkeypatch, browser, page):
    # the QR code printed by serve on a network opens PAGE?pair=CODE
    from vision.server.routes.origin import Pairing
    from vision.server.app import create_app

    monkeypatch.setenv("TILESCOPE_DATA", str(tmp_path))
    browser.delete_all_cookies()
    with serve(create_app(reader=object(), pairing=Pairing("246810"))) as url:
        browser.get(f"{url}{page}?pair=246810")
        WebDriverWait(browser, 15).until(lambda d: d.get_cookie("tilescope_pair"),
                                         message="the page did not pair by itself")
        assert "pair=" not in browser.current_url
        status = browser.execute_async_script(
            """const done = arguments[0];
            fetch("/api/games", { method: "POST", headers: { "Content-Type": "application/json" },
                                  body: JSON.stringify({ players: ["Ann", "Bob", "Cai", "Dan"] }) })
              .then((r) => done(r.status), (e) => done(String(e)));""")
        assert status == 200
