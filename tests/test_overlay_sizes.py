"""The overlay (an OBS browser source) and the control page at every canvas a streamer may use,
320 to 3840 px wide, with long names, a dead hand, a double ron and a card on screen; and the
overlay's ``?scale=`` out of range or garbage. docs/overlay-json.md: « ?scale=1.5 (0.5 to 3)
multiplies every size »; « Nothing is cut off at any width ». Driven as
tests/test_overlay_on_air.py; skipped with the reason when the browser is missing.
"""
from __future__ import annotations

import json
import time

import pytest
from browsing import chromium, free_port, need_browser

need_browser()

from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from test_overlay_on_air import FONT_PX, NOTHING_CUT  # noqa: E402

NAMES = ["Annabelle-Marguerite", "Bob", "Cai", "Wolfeschlegelsteinhausen"]
CANVASES = [(320, 568), (390, 844), (768, 1024), (1080, 1920), (1280, 720), (1920, 1080),
            (2560, 1440), (3840, 2160)]
# a riichi win on screen, unsure tiles framed: the card as tall as a win's makes it
HAND = {"type": "hand", "frame": 1, "time_s": 0.1, "hand": {
    "tiles": "1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 1p 1p 5z 5z".split(),
    "request": {"ruleset": "riichi", "concealed": "123456789m111p55z", "win_tile": "5z",
                "win": "ron"},
    "result": {"valid": True, "han": 3, "fu": 40, "limit": None},
    "summary": "3 han 40 fu · 5200 + 300 honba + 1000 sticks",
    "lines": [{"name": "ittsu", "han": 2}, {"name": "yakuhai (chun)", "han": 1}],
    "guessed": False, "unsure": True, "unsure_tiles": [3, 9], "warnings": [], "waits": None}}


@pytest.fixture(scope="module")
def url(tmp_path_factory):
    from vision.stream.control import Control
    from vision.server.ledger import LedgerSession
    from vision.stream.livecontext import LiveContext
    from vision.stream.overlay import OverlayHub, OverlayServer

    game = tmp_path_factory.mktemp("sizes") / "game.jsonl"
    game.write_text("".join(json.dumps(x) + "\n" for x in [
        {"type": "game", "players": NAMES},
        {"type": "riichi", "player": "Bob"},
        {"type": "ron", "discarder": NAMES[0], "winners": [{"player": "Bob", "yakuman": 2},
                                                          {"player": "Cai", "han": 13}]},
        {"type": "dead_hand", "player": NAMES[3], "reason": "a wrong call " * 12}]))
    ledger = LedgerSession(str(game))
    hub = OverlayHub()
    control = Control(LiveContext({"ruleset": "riichi"}, table=ledger.context_for), ledger,
                      hub.publish)
    hub.publish(ledger.table_message())
    hub.publish(HAND)
    server = OverlayServer(hub, free_port(), control=control)
    server.start()
    try:
        yield f"http://127.0.0.1:{server.server.config.port}"
    finally:
        server.stop()


@pytest.fixture(scope="module")
def browser():
    with chromium(window="1000,1000") as driver:
        yield driver


def at(d, w, h, mobile=False):
    d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                      {"width": w, "height": h, "deviceScaleFactor": 1, "mobile": mobile})
    WebDriverWait(d, 10).until(lambda x: x.execute_script("return innerWidth") >= w)
    time.sleep(0.2)                                    # the page's resize handler


def shown(d):
    WebDriverWait(d, 20).until(lambda x: "hidden" not in x.find_element("id", "card")
                               .get_attribute("class") and x.find_element("id", "players").text)


# scale 3 asked the text 81 px tall on a 1080p canvas: the board alone was taller than the
# picture ("outside: table"). Now the panels are as large as the canvas holds, never smaller
# than at scale 1; nothing is cut at any width, at any scale in or out of range
def test_the_overlay_fits_every_canvas_at_every_scale(url, browser):
    d = browser
    try:
        base = {}
        for query in ("", "?scale=3", "?scale=99", "?scale=1e5", "?scale=0.5", "?scale=abc",
                      "?scale=-2", "?scale=0", "?scale=", "?scale=1.2.3", "?scale=%"):
            d.get(url + "/" + query)
            shown(d)
            for w, h in CANVASES:
                at(d, w, h)
                assert d.execute_script(NOTHING_CUT) == [], (query, w, h)
                px = d.execute_script(FONT_PX, "players")
                if query == "":
                    base[w, h] = px
                elif query in ("?scale=3", "?scale=99", "?scale=1e5"):   # 99, 1e5: 3, the most
                    assert base[w, h] - 0.5 <= px <= 3 * base[w, h] + 0.5, (query, w, h, px)
                elif query in ("?scale=0.5", "?scale=-2", "?scale=0"):   # -2, 0: 0.5
                    assert px == pytest.approx(base[w, h] / 2, abs=0.5)
                else:                                           # garbage: the scale-1 size
                    assert px == pytest.approx(base[w, h], abs=0.1), (query, w, h)
        # where the canvas holds it, scale 3 is 3 × the size: 40 px base on a 3840 × 2160 canvas
        # holds 1/20 of its height and more; 1080p at scale 1.5 is still 1.5 × 27 px
        d.get(url + "/?scale=1.5")
        shown(d)
        at(d, 1920, 1080)
        assert d.execute_script(FONT_PX, "players") == pytest.approx(40.5, abs=0.5)
    finally:
        d.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


# the control page on a 320 and a 390 px phone: the fieldset was as wide as the 40-character
# JSON box (421 px) and a select of long names 10 px past the screen: the phone laid the
# whole page out wider than itself
def test_the_control_page_fits_a_small_phone(url, browser):
    d = browser
    try:
        d.get(url + "/control")
        WebDriverWait(d, 20).until(lambda x: x.find_elements("css selector",
                                                             "#riichi-player option[value=Bob]"))
        for w in (320, 390):
            at(d, w, 700, mobile=True)
            for form in ("", "act-win", "act-draw", "act-abortive", "act-chombo", "act-dead"):
                if form:        # each event form open in turn, its selects of long names too
                    d.execute_script(f"document.getElementById('{form}').click()")
                assert d.execute_script("return [innerWidth, document.documentElement.scrollWidth]"
                                        ) == [w, w], (w, form)
    finally:
        d.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
