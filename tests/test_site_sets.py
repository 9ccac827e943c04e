"""Set profiles in the offline phone site (``web/src/site/sets.js``, issue #43), in headless
Chromium with the network off, against ``tilescope serve``'s own answers.

The same requests go to the server's app (FastAPI's TestClient, its sets in a throwaway
``TILESCOPE_DATA``) and to the page's ``fetch`` (answered in the browser: the Python in
Pyodide, the JavaScript reader, the sets in IndexedDB), with the service worker in control and
the static server stopped (as ``tests/test_site_offline.py`` does): refusals of a bad name, bad
tiles, a form without its photo and a tile count that is not the sheet's,
``vision/samples/set_sheet.jpg`` taught as "club", the sets listed, a photo scored, read and
its waits found with ``set=club``, an unknown set, a bad tile code, a tap-to-correct added to
the set and scored with again, undone (and an undo refused), scored with once more. Every
answer must be the server's: the same status and the same JSON (a box may differ by its last
0.1 pixel: see :func:`differences`).

Then the page's own form teaches the sheet as a second set (the user's path: a name, a photo),
and both sets are still there after a reload (IndexedDB).

Skipped with the reason when the site is not built or chromium, chromedriver or selenium is
missing, as ``tests/test_site_offline.py`` is.
"""
from __future__ import annotations

import base64
import json
import os
import tempfile
from pathlib import Path

import pytest
from test_site_offline import (PREFIX, REPO, SAMPLE, SITE, WAITING, network, static_server,
                               wait_kept, wait_ready)

from browsing import chromium

SHEET = REPO / "vision" / "samples" / "set_sheet.jpg"
CONTEXT = {"win": "ron", "seat_wind": "S", "dora_indicators": "1p"}   # riichi_open_red's hand
ANSWER_S = 600          # learning a sheet and reading with a set, on 2 slow cores

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402


def _photo(path: Path) -> dict:
    return {"name": path.name, "b64": base64.b64encode(path.read_bytes()).decode()}


def the_requests(red_five_n=None):
    """The requests both sides answer, in order: (label, method, path, form fields, photo).
    ``red_five_n``: the number the first scoring with the set gave the red five (the
    correction is added as a plain 5p, as a user taps it)."""
    score = {"context": json.dumps(CONTEXT), "set": "club"}
    out = [
        ("bad name", "POST", "/api/set/learn", {"name": "no good"}, SHEET),
        ("bad tiles", "POST", "/api/set/learn", {"name": "club", "tiles": "1m 9x"}, SHEET),
        ("no photo", "POST", "/api/set/learn", {"name": "club"}, None),
        ("tile count", "POST", "/api/set/learn", {"name": "club", "tiles": "1m 2m 3m"}, SHEET),
        ("learn", "POST", "/api/set/learn", {"name": "club"}, SHEET),
        ("sets", "GET", "/api/sets", None, None),
        ("score with the set", "POST", "/api/score", score, SAMPLE),
        ("read with the set", "POST", "/api/read", {"set": "club"}, SAMPLE),
        ("waits with the set", "POST", "/api/waits",
         {"context": json.dumps({"seat_wind": "S", "dora_indicators": "1p"}), "set": "club"}, WAITING),
        ("unknown set", "POST", "/api/score", {**score, "set": "nosuch"}, SAMPLE),
        ("bad tile", "POST", "/api/set/add", {**score, "name": "club", "n": "1", "tile": "9x"}, SAMPLE),
    ]
    if red_five_n is None:
        return out
    fixed = {**score, "fixes": json.dumps({str(red_five_n): "5p"})}
    return out + [
        ("add", "POST", "/api/set/add", {**fixed, "name": "club", "n": str(red_five_n), "tile": "5p"}, SAMPLE),
        ("sets after add", "GET", "/api/sets", None, None),
        ("score after add", "POST", "/api/score", fixed, SAMPLE),
        ("undo refused", "POST", "/api/set/undo", {"name": "club", "expect": "99"}, None),
        ("undo", "POST", "/api/set/undo", {"name": "club", "expect": "39"}, None),
        ("score after undo", "POST", "/api/score", score, SAMPLE),
        ("undo unknown", "POST", "/api/set/undo", {"name": "nosuch"}, None),
    ]


def differences(got, want, at="") -> list[str]:
    """Where two JSON values differ (the first few). A box (rounded to 0.1 pixel) may differ by
    that 0.1 where the JavaScript reader's float32 box and Python's straddle a rounding
    boundary (set_sheet.jpg's tile 30: 512.5 and 512.4)."""
    if at.endswith(".box") and isinstance(got, list) and isinstance(want, list) and len(got) == len(want):
        return [] if all(abs(g - w) < 0.1 + 1e-9 for g, w in zip(got, want)) else [f"{at}: {got} != {want}"]
    if isinstance(got, dict) and isinstance(want, dict):
        out = [f"{at}.{k}: only {'here' if k in got else 'there'}" for k in got.keys() ^ want.keys()]
        for k in got.keys() & want.keys():
            out += differences(got[k], want[k], f"{at}.{k}")
        return out[:6]
    if isinstance(got, list) and isinstance(want, list) and len(got) == len(want):
        return [x for i, (g, w) in enumerate(zip(got, want)) for x in differences(g, w, f"{at}[{i}]")][:6]
    return [] if got == want else [f"{at}: {json.dumps(got)[:200]} != {json.dumps(want)[:200]}"]


def red_five(answer: dict) -> int:
    return next(t["n"] for t in answer["body"]["tiles"] if t["tile"] == "0p")


@pytest.fixture(scope="module")
def server_answers():
    """The server's answers to the_requests, its sets in a throwaway data folder."""
    from fastapi.testclient import TestClient

    from vision.server.app import create_app

    with tempfile.TemporaryDirectory(prefix="tilescope-sets-") as data:
        old = os.environ.get("TILESCOPE_DATA")
        os.environ["TILESCOPE_DATA"] = data
        try:
            with TestClient(create_app()) as client:
                def ask(method, path, fields, photo):
                    if method == "GET":
                        r = client.get(path)
                    elif photo:
                        r = client.post(path, data=fields, files={
                            "image": (photo.name, photo.read_bytes(), "image/jpeg")})
                    else:       # multipart, as the page's FormData sends it
                        r = client.post(path, files={k: (None, v) for k, v in fields.items()})
                    return {"status": r.status_code, "body": r.json()}

                first = {label: ask(*rest) for label, *rest in the_requests()}
                n = red_five(first["score with the set"])
                # a fresh data folder for the whole sequence with the correction
                for f in Path(data).glob("**/*.npz"):
                    f.unlink()
                yield n, {label: ask(*rest) for label, *rest in the_requests(n)}
        finally:
            if old is None:
                os.environ.pop("TILESCOPE_DATA", None)
            else:
                os.environ["TILESCOPE_DATA"] = old


def page_ask(d, method, path, fields, photo) -> dict:
    """The page's own fetch (answered by local-api.js in the browser)."""
    return d.execute_async_script("""
        const [method, path, fields, photo, done] = arguments;
        const init = { method };
        if (method !== "GET") {
          const body = new FormData();
          for (const [k, v] of Object.entries(fields || {})) body.append(k, v);
          if (photo) {
            const bin = atob(photo.b64);
            body.append("image", new File([Uint8Array.from(bin, (c) => c.charCodeAt(0))], photo.name,
                                          { type: "image/jpeg" }));
          }
          init.body = body;
        }
        fetch(path, init).then(async (r) => done({ status: r.status, body: await r.json() }),
                               (e) => done({ status: 0, body: { error: String(e) } }));
    """, method, path, fields, _photo(photo) if photo else None)


@pytest.fixture(scope="module")
def served():
    with tempfile.TemporaryDirectory(prefix="tilescope-site-") as root:
        os.symlink(SITE, Path(root) / PREFIX)
        with static_server(Path(root)) as server:
            yield server


def test_sets_offline_answer_as_the_server(served, server_answers):
    n, want = server_answers
    with chromium(window="800,1200") as d:
        d.set_script_timeout(ANSWER_S)
        site = f"{served.url}/{PREFIX}/"
        d.get(site)
        wait_ready(d)
        wait_kept(d)
        network(d, online=False)
        served.stop()
        try:
            d.get(site)
            wait_ready(d)
            for label, *request in the_requests(n):
                got = page_ask(d, *request)
                assert not differences(got, want[label]), f"{label}: {differences(got, want[label])}"
            assert want["learn"]["body"]["references"] == 38
            assert [(s["name"], s["references"]) for s in want["sets"]["body"]["sets"]] == [("club", 38)]
            assert want["add"]["body"]["references"] == 39 and want["undo"]["body"]["references"] == 38

            # the page's own form, as a user teaches a set: a name, then the sheet's photo
            d.execute_script("document.getElementById('set-teach').open = true")
            d.find_element(By.ID, "set-name").send_keys("ui")
            d.find_element(By.ID, "set-photo").send_keys(str(SHEET))
            status = lambda: d.find_element(By.ID, "set-status").text      # noqa: E731
            WebDriverWait(d, ANSWER_S, poll_frequency=0.5).until(
                lambda _: status().startswith(("Learned", "Not learned", "Could not")),
                message="the page never answered the sheet")
            assert status().startswith("Learned 38 tiles into ui"), status()
            assert d.execute_script("return document.getElementById('set-pick').value") == "ui"

            # kept in the browser: both sets are there after a reload
            d.get(site)
            wait_ready(d)
            listed = page_ask(d, "GET", "/api/sets", None, None)
            assert [(s["name"], s["references"]) for s in listed["body"]["sets"]] == [("club", 38), ("ui", 38)]
            WebDriverWait(d, 60, poll_frequency=0.5).until(
                lambda _: {"club", "ui"} <= set(d.execute_script(
                    "return [...document.getElementById('set-pick').options].map((o) => o.value)")),
                message="the set picker does not list the sets after a reload")
        finally:
            network(d, online=True)
