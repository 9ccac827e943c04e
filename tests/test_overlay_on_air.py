"""The overlay on air: a game driven from /control (a scored ron confirmed, undone and
confirmed again, a chombo, a double ron ending the game) with every number on the overlay
checked, then the overlay at 1920×1080, 1280×720 and 390×844 with nothing cut off.

Values from the riichi rules (``shared/rules/001_riichi_fr.txt``, seed 001):

* riichi « met en gage un bâton de 1000 points »; « Le gagnant récupère [...] toutes les mises
  de riichi éventuelles »;
* base points = fu × 2^(2 + han); a non-dealer's ron is 4 × base, rounded up to 100;
  yakuman: 32000 from a non-dealer;
* chombo: « Si Est est le joueur pénalisé, il paye l'équivalent d'un mangan tsumo inversé »:
  a non-dealer pays 4000 to the dealer and 2000 to each other player (8000, a mangan);
  « la partie est annulée, Est reste Est mais le compteur n'est pas incrémenté »;
* the final ranking: points − return (30000) + uma (15000 / 5000 / −5000 / −15000) + oka
  ((30000 − 25000) × 4 = 20000 to the first), in thousands.

Set ``TILESCOPE_DOCS_SHOTS=1`` to write the screenshots into ``docs/`` (docs/overlay-*.png).
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from browsing import chromium, free_port, need_browser

from grey_tiles import render

need_browser()

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

from test_overlay_browser import SECOND, PausedClip, riichi, run_clip, text_of  # noqa: E402
from test_stream import write_clip  # noqa: E402
from vision.stream.live import pipeline_scorer  # noqa: E402

DOCS = Path(__file__).resolve().parent.parent / "docs"
OPTIONS = {"start": 25000, "return_points": 30000, "uma": [15000, 5000, -5000, -15000],
           "east_only": True, "bust_ends": True}

# the board's rows as a viewer reads them, top to bottom: rank, wind, name (and its marks),
# points, change
BOARD = """return [...document.querySelectorAll('#players .player')].map((r) =>
  [...r.querySelectorAll('.rank, .wind, .name, .points, .change')].map((e) => [...e.childNodes].map((n) => n.textContent).join(' ')).join(' ').trim())"""


def board(d):
    return d.execute_script(BOARD)


def wait_for(d, what, timeout=30):
    WebDriverWait(d, timeout).until(lambda x: x.execute_script(what[0]) == what[1],
                                    message=f"never {what[1]!r}: {d.execute_script(what[0])!r}")


def until_text(d, element_id, text, timeout=30):
    WebDriverWait(d, timeout).until(lambda x: x.find_element(By.ID, element_id).text == text,
                                    message=f"#{element_id} never said {text!r}: "
                                            f"{d.find_element(By.ID, element_id).text!r}")


@pytest.fixture(scope="module")
def browser():
    with chromium(window="1000,1000") as driver:
        yield driver


def test_a_game_on_the_control_page_and_every_number_on_the_overlay(tmp_path, browser):
    from vision.stream.control import Control
    from vision.server.ledger import LedgerSession
    from vision.stream.livecontext import LiveContext
    from vision.stream.overlay import OverlayHub, OverlayServer

    game = tmp_path / "game.jsonl"
    game.write_text(json.dumps({"type": "game", "players": ["Ann", "Bob", "Cai", "Dan"],
                                "options": OPTIONS}) + "\n")
    ledger = LedgerSession(str(game))
    live = LiveContext({"ruleset": "riichi"}, table=ledger.context_for)
    hub = OverlayHub()
    control = Control(live, ledger, hub.publish)
    hub.publish(ledger.table_message())
    server = OverlayServer(hub, free_port(), control=control)
    server.start()
    url = f"http://127.0.0.1:{server.server.config.port}"
    clip = tmp_path / "clip.avi"
    write_clip(clip, [render(None)] * 3 + [render(SECOND)] * 16)
    # the hand comes once the winner is named (3); the clip waits with it on screen (12, 16)
    source = PausedClip(clip, [3, 12, 16])

    def on_hand(message):
        hub.publish(message)
        control.on_hand(message)

    d = browser
    try:
        d.get(url + "/?scale=1")
        overlay = d.current_window_handle
        until_text(d, "round", "East 1 · 0 honba · 0 riichi sticks")
        assert board(d) == ["1 E Ann 25000", "1 S Bob 25000", "1 W Cai 25000", "1 N Dan 25000"]
        d.switch_to.new_window("window")
        d.get(url + "/control")
        ctl = d.current_window_handle
        WebDriverWait(d, 20).until(lambda x: x.find_elements(By.CSS_SELECTOR, "#riichi-player option[value=Bob]"))
        riichi(d, "Bob")
        text_of(d, "round", "1 riichi stick")

        # 1. Cai's ron from Ann, scored from the camera: tanyao + pinfu, 2 han 30 fu:
        #    4 × 30 × 2^4 = 1920 → 2000; Bob's stick 1000 to Cai
        Select(d.find_element(By.NAME, "win")).select_by_value("ron")
        Select(d.find_element(By.NAME, "winner")).select_by_value("Cai")
        Select(d.find_element(By.NAME, "discarder")).select_by_value("Ann")
        d.find_element(By.ID, "apply").click()
        text_of(d, "context", "seat West")
        thread = run_clip(source, pipeline_scorer(live), on_hand, live)
        source.go(3)
        text_of(d, "proposal", "Ann pays Cai 2000")
        d.switch_to.window(overlay)
        until_text(d, "value", "2 han 30 fu · 2000 + 1000 sticks")
        assert d.find_element(By.ID, "lines").text == "pinfu 1 han · tanyao 1 han"
        assert d.find_element(By.ID, "proposal").text == (
            "Cai wins by ron from Ann\nCai: 2 han 30 fu (pinfu 1, tanyao 1)\n"
            "Ann pays Cai 2000\nCai takes the 1 riichi stick(s): 1000")
        assert board(d) == ["1 E Ann 25000", "1 W Cai 25000", "1 N Dan 25000", "4 S Bob riichi 24000 −1000"]
        d.switch_to.window(ctl)
        d.find_element(By.TAG_NAME, "body").send_keys(Keys.ENTER)          # confirm
        text_of(d, "round", "East 2")
        d.switch_to.window(overlay)
        # the board moved on (0 sticks); the card says what was paid, no "+ 1000 sticks" left
        until_text(d, "round", "East 2 · 0 honba · 0 riichi sticks")
        paid = ("2 han 30 fu · paid", "Ann pays Cai 2000 · Cai takes the 1 riichi stick(s): 1000")
        until_text(d, "value", paid[0])
        assert d.find_element(By.ID, "paid").text == paid[1]
        assert d.find_element(By.ID, "proposal").text == ""
        assert board(d) == ["1 S Cai 28000 +3000", "2 W Dan 25000", "3 E Bob 24000",
                            "4 N Ann 23000 −2000"]

        # 2. undo: the hand goes back in play with the context it was paid under (Cai from
        #    Ann, seat West, Bob's stick), scored again: 2000 + 1000 sticks, not the dealer's
        d.switch_to.window(ctl)
        body = d.find_element(By.TAG_NAME, "body")
        body.send_keys("u")
        body.send_keys("u")
        text_of(d, "round", "East 1")
        assert Select(d.find_element(By.NAME, "winner")).first_selected_option.text == "Cai"
        assert Select(d.find_element(By.NAME, "discarder")).first_selected_option.text == "Ann"
        assert "seat West" in d.find_element(By.ID, "context").text
        source.go(12)                             # the stream scores the hand again
        text_of(d, "proposal", "Ann pays Cai 2000")
        d.switch_to.window(overlay)
        until_text(d, "value", "2 han 30 fu · 2000 + 1000 sticks")
        assert d.find_element(By.ID, "paid").text == ""
        # the last event is the riichi again: its change stands
        assert board(d) == ["1 E Ann 25000", "1 W Cai 25000", "1 N Dan 25000", "4 S Bob riichi 24000 −1000"]
        d.switch_to.window(ctl)
        d.find_element(By.TAG_NAME, "body").send_keys(Keys.ENTER)          # confirmed again
        text_of(d, "round", "East 2")

        # 3. chombo by Dan (non-dealer): 4000 to Bob (dealer), 2000 to Ann and to Cai; the
        #    hand annulled, Bob deals again, no counter
        d.find_element(By.ID, "act-chombo").click()
        Select(d.find_element(By.ID, "chombo-player")).select_by_value("Dan")
        d.find_element(By.CSS_SELECTOR, "#form-chombo button[type=submit]").click()
        text_of(d, "last", "chombo by Dan")
        d.switch_to.window(overlay)
        wait_for(d, (BOARD, ["1 S Cai 30000 +2000", "2 E Bob 28000 +4000", "3 N Ann 25000 +2000",
                             "4 W Dan 17000 −8000"]))
        assert d.find_element(By.ID, "round").text == "East 2 · 0 honba · 0 riichi sticks"
        assert d.find_element(By.ID, "last").text == (
            "chombo by Dan\nchombo by Dan: pays Ann 2000\nchombo by Dan: pays Bob 4000\n"
            "chombo by Dan: pays Cai 2000")
        # the camera's hand is still the one paid before: said so, not its old payment
        assert d.find_element(By.ID, "value").text == paid[0]
        assert d.find_element(By.ID, "paid").text == paid[1]

        # 4. a double ron typed on the control page: Ann's discard, Cai 3 han 30 fu
        #    (4 × 30 × 2^5 = 3840 → 3900) and Dan a yakuman (32000); Ann at −10900: bust ends
        d.switch_to.window(ctl)
        d.find_element(By.ID, "act-win").click()
        Select(d.find_element(By.ID, "win-how")).select_by_value("ron")
        Select(d.find_element(By.ID, "win-from")).select_by_value("Ann")
        d.find_element(By.ID, "win-more").click()
        rows = d.find_elements(By.CSS_SELECTOR, "#winners .winner-row")
        Select(rows[0].find_element(By.CSS_SELECTOR, ".w-player")).select_by_value("Cai")
        rows[0].find_element(By.CSS_SELECTOR, ".w-han").send_keys("3")
        rows[0].find_element(By.CSS_SELECTOR, ".w-fu").send_keys("30")
        Select(rows[1].find_element(By.CSS_SELECTOR, ".w-player")).select_by_value("Dan")
        rows[1].find_element(By.CSS_SELECTOR, ".w-yakuman").send_keys("1")
        d.find_element(By.CSS_SELECTOR, "#form-win button[type=submit]").click()
        text_of(d, "round", "game over")
        d.switch_to.window(overlay)
        # (the deal passed to Cai as the ron ended the hand: the winds are East 3's)
        wait_for(d, (BOARD, ["1 S Dan 49000 +32000", "2 E Cai 33900 +3900", "3 N Bob 28000",
                             "4 W Ann -10900 −35900"]))
        assert d.find_element(By.ID, "round").text.endswith("· game over")
        # the game over, the ranking replaces the last event (the changes say its payments)
        assert not d.find_element(By.ID, "last").is_displayed()
        assert control.state()["table"]["last"]["lines"][:2] == ["Ann pays Cai 3900", "Ann pays Dan 32000"]
        # Dan 49000 − 30000 + 15000 + 20000 = +54.0; Cai 33900 − 30000 + 5000 = +8.9;
        # Bob 28000 − 30000 − 5000 = −7.0; Ann −10900 − 30000 − 15000 = −55.9 (sum 0)
        assert d.find_element(By.ID, "ranking").text == (
            "Final ranking\n1. Dan 49000 → +54.0 (uma +15.0, oka +20.0)\n"
            "2. Cai 33900 → +8.9 (uma +5.0)\n3. Bob 28000 → −7.0 (uma −5.0)\n"
            "4. Ann -10900 → −55.9 (uma −15.0)")
        # the card: the hand on screen was paid by the first ron, not by this one
        assert d.find_element(By.ID, "value").text == paid[0]
        assert d.find_element(By.ID, "paid").text == paid[1]
        events = [json.loads(x)["type"] for x in game.read_text().splitlines()[1:]]
        assert events == ["riichi", "ron", "chombo", "ron"]
        # the overlay stays an OBS browser source: nothing drawn but its two panels
        assert d.execute_script("return getComputedStyle(document.body).backgroundColor") == "rgba(0, 0, 0, 0)"
        check_sizes(d)
        source.go(16)
        thread.join(30)
    finally:
        source.close()
        server.stop()


# every element of the two panels inside the canvas, no text wider than its box, the
# scoreboard and the card apart
NOTHING_CUT = """
const w = innerWidth, h = innerHeight, out = [];
const visible = [...document.querySelectorAll('#table, #table *, #card, #card *')]
  .filter((e) => e.getClientRects().length && !e.closest('.hidden'));
for (const e of visible) {
  const r = e.getBoundingClientRect(), name = e.id || e.className || e.tagName;
  if (r.left < 0 || r.top < 0 || r.right > w + 0.5 || r.bottom > h + 0.5) out.push('outside: ' + name);
  if (e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflow !== 'visible') out.push('cut: ' + name);
  if (e.scrollWidth > e.clientWidth + 1 && e.children.length === 0 && e.clientWidth) out.push('wider: ' + name);
}
const a = document.getElementById('table').getBoundingClientRect();
const b = document.getElementById('card').getBoundingClientRect();
if (!document.getElementById('card').classList.contains('hidden') && a.bottom > b.top)
  out.push(`overlap: board ${Math.round(a.top)}-${Math.round(a.bottom)}, card ${Math.round(b.top)}-${Math.round(b.bottom)}`);
if (document.documentElement.scrollWidth > w) out.push('page wider than the canvas');
return out;"""

FONT_PX = "return parseFloat(getComputedStyle(document.getElementById(arguments[0])).fontSize)"


def check_sizes(d):
    """The overlay at a 1080p, a 720p canvas and a 390 px phone: nothing cut off or outside,
    the scoreboard's names and points ≥ 24 px on 1080p (was 18) and the payment lines ≥ 20
    px (was 15), in proportion on 720p; screenshots of each."""
    shots = {}
    try:
        for name, (w, h, dpr) in {"1080p": (1920, 1080, 1), "720p": (1280, 720, 1),
                                  "390": (390, 844, 2)}.items():
            d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                              {"width": w, "height": h, "deviceScaleFactor": dpr, "mobile": name == "390"})
            WebDriverWait(d, 10).until(lambda x: x.execute_script("return innerWidth") == w)
            assert d.execute_script(NOTHING_CUT) == [], (name, d.execute_script("return getComputedStyle(document.documentElement).fontSize"))
            size = d.execute_script(FONT_PX, "players")
            lines = d.execute_script(FONT_PX, "paid")
            if name == "1080p":
                assert size >= 24 and lines >= 20, (size, lines)
            if name == "720p":                    # two thirds of 1080p's: the same on the canvas
                assert size >= 16 and lines >= 13, (size, lines)
            if name == "390":
                assert size >= 12 and lines >= 12, (size, lines)
            # the picture over a grey stand-in for the camera (the page itself stays clear)
            d.execute_script("document.documentElement.style.background = '#56635b'")
            shots[name] = d.get_screenshot_as_png()
            d.execute_script("document.documentElement.style.background = ''")
        # ?scale=1.5: every size half as large again, still inside a 1080p canvas
        d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                          {"width": 1920, "height": 1080, "deviceScaleFactor": 1, "mobile": False})
        base = d.execute_script(FONT_PX, "players")
        d.execute_script("document.documentElement.style.setProperty('--scale', '1.5')")
        assert d.execute_script(FONT_PX, "players") == pytest.approx(base * 1.5, abs=0.5)
        assert d.execute_script(NOTHING_CUT) == []
        d.execute_script("document.documentElement.style.setProperty('--scale', '1')")
    finally:
        d.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    if os.environ.get("TILESCOPE_DOCS_SHOTS"):
        for name in ("1080p", "390"):
            (DOCS / f"overlay-{name}.png").write_bytes(shots[name])
