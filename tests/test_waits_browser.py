"""The web page with a photo of a hand in play, in a real headless Chromium (as
tests/test_browser.py; skipped the same way when chromium, chromedriver or selenium is missing).

The photo is the rendered 13-tile sample ``vision/samples/riichi_waiting.jpg``; the detector is
a stand-in returning its ground-truth boxes, the rest (layout, /api/score, /api/waits, the
scorer) is the real server. The values are worked out by hand in tests/test_waits_cli.py
(seat South, dora indicator 3s): waits 4s and 2z, two of each left; 4s by ron has no yaku, by
tsumo a mangan (8000); 2z a mangan (8000) either way."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from browsing import chromium, need_browser, phone_size, serve

from vision.read.detections import Detection, Detections

need_browser()

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

PHOTO = Path(__file__).parent.parent / "vision" / "samples" / "riichi_waiting.jpg"
TRUTH = json.loads(PHOTO.with_suffix(".json").read_text())


class WaitingReader:
    """Stand-in detector: the sample's ground-truth boxes, scaled to the image as read."""

    def read(self, img) -> Detections:
        h, w = img.shape[:2]
        sx, sy = w / TRUTH["image"]["width"], h / TRUTH["image"]["height"]
        return Detections(w, h, [Detection(t["tile"], (t["box"][0] * sx, t["box"][1] * sy,
                                                       t["box"][2] * sx, t["box"][3] * sy), 0.97)
                                 for t in TRUTH["tiles"]])


@pytest.fixture(scope="module")
def browser():
    with chromium(window="800,1200") as driver:
        yield driver


def _serve(reader):
    from vision.server.app import create_app

    with serve(create_app(reader=reader)) as url:
        yield url


@pytest.fixture(scope="module")
def waiting_url():
    yield from _serve(WaitingReader())


def _upload(browser, url: str, dora: str):
    """Open the page, seat South with dora indicators ``dora``, send the photo: the form."""
    browser.get(url + "/")
    form = browser.find_element(By.ID, "context")
    Select(form.find_element(By.NAME, "seat_wind")).select_by_value("S")
    form.find_element(By.NAME, "dora_indicators").send_keys(dora)
    browser.find_element(By.ID, "file").send_keys(str(PHOTO))
    return form


def _lines(browser) -> str:
    return browser.find_element(By.ID, "lines").text


def test_a_hand_in_play_shows_its_waits_values_and_furiten_on_a_phone(waiting_url, browser):
    with phone_size(browser):
        form = _upload(browser, waiting_url, "3s")
        WebDriverWait(browser, 30).until(lambda d: "Tenpai" in d.find_element(By.ID, "headline").text,
                                         message="no waits shown for the 13-tile photo")
        head = browser.find_element(By.ID, "headline")
        assert head.text == "Tenpai — waits 4s 2z (4 left)"
        assert "not a complete hand" not in browser.page_source
        items = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "#lines li.wait")]
        # each value names its yaku, as the CLI does (tests/test_waits_cli.py works them out)
        assert items[0].splitlines() == ["4s · 2 left", "ron no yaku · tsumo 8000 (mangan, 5 han: menzen tsumo, "
                                         "dora 3, red 1)", "no yaku by ron: only tsumo wins (or declare riichi)"]
        assert items[1].splitlines() == ["2z · 2 left", "ron 8000 (mangan, 4 han: yakuhai (seat wind), dora 2, "
                                         "red 1) · tsumo 8000 (mangan, 5 han: menzen tsumo, yakuhai (seat wind), "
                                         "dora 2, red 1)"]
        assert "furiten" not in _lines(browser).lower()

        # readable on the phone: nothing wider than the screen, every text 12 CSS px or more
        assert browser.execute_script("return document.documentElement.scrollWidth") <= 390
        sizes = browser.execute_script(
            "return [...document.querySelectorAll('#result-section li, #result-section li *, #headline')]"
            ".filter((e) => e.textContent.trim()).map((e) => parseFloat(getComputedStyle(e).fontSize))")
        assert sizes and min(sizes) >= 12
        # the tile row's suit letters too, and every control a finger can hit is 44 px tall
        small = browser.execute_script("return [...document.querySelectorAll('#hand .tile small')]"
                                       ".map((e) => parseFloat(getComputedStyle(e).fontSize))")
        assert small and min(small) >= 12
        low = browser.execute_script(
            "return [...document.querySelectorAll('#context select, #context input:not([type=checkbox]), "
            "#context label.check')].filter((e) => e.offsetParent)"
            ".map((e) => [e.name || e.textContent.trim(), e.getBoundingClientRect().height])"
            ".filter(([, h]) => h < 44)")
        assert low == []
        # a hand in play: titled Waits, nothing only a win has (the win, the winning tile, ippatsu)
        assert browser.find_element(By.ID, "result-title").text == "Waits"
        for name in ("win", "win_tile", "ippatsu", "ura_dora_indicators", "tenhou", "last_wall_tile"):
            assert not form.find_element(By.NAME, name).is_displayed(), name
        assert "winning" not in browser.find_element(By.CSS_SELECTOR, "header .tagline").text

        # a wait among the player's discards: furiten, said plainly
        field = form.find_element(By.NAME, "discards")
        field.send_keys("2z")
        browser.execute_script("arguments[0].dispatchEvent(new Event('change', {bubbles: true}))", field)
        WebDriverWait(browser, 30).until(lambda d: "Furiten" in _lines(d), message="no furiten line")
        furiten = browser.find_element(By.CSS_SELECTOR, "#lines li.furiten")
        assert furiten.text == "Furiten: a wait is among your discards — no ron on any wait, only tsumo"
        # said once as a line, and on each wait's ron (its tsumo still valued)
        assert _lines(browser).lower().count("furiten") == 3
        items = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "#lines li.wait")]
        assert items[1].splitlines()[1].startswith("ron furiten: no ron · tsumo 8000 (mangan, 5 han")
        assert browser.find_element(By.ID, "headline").text == "Tenpai — waits 4s 2z (3 left)"


def test_a_win_keeps_the_win_fields_and_the_placeholder_fits(waiting_url, browser):
    with phone_size(browser):
        browser.get(waiting_url + "/")
        field = browser.find_element(By.NAME, "win_tile")
        # "as set apart" whole in its box (it was cut to "as set apa"): its text's width fits
        # inside the padding
        assert browser.execute_script(
            "const e = arguments[0], s = getComputedStyle(e), c = document.createElement('canvas').getContext('2d');"
            "c.font = s.font; return c.measureText(e.placeholder).width"
            " <= e.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight)", field)
        assert field.is_displayed() and browser.find_element(By.NAME, "win").is_displayed()


def test_a_wait_with_no_copy_left_is_said_so_on_the_page(waiting_url, browser):
    # dora indicators 4s4s with the hand's two 4s: every 4s in sight; the page says no copy
    # left instead of "ron cannot be won", and 2z is still valued
    _upload(browser, waiting_url, "4s4s")
    WebDriverWait(browser, 30).until(lambda d: "Tenpai" in d.find_element(By.ID, "headline").text,
                                     message="no waits shown")
    items = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "#lines li.wait")]
    assert items[0].splitlines() == ["4s · 0 left", "no copy left: all four are in sight, no win on it"]
    assert items[1].startswith("2z · 2 left")


def test_a_context_the_scorer_refuses_falls_back_to_the_waits(waiting_url, browser):
    # four 1m dora indicators: /api/score checks a photo's context on its own, before the tiles,
    # and answers 422 ("context: 5 copies of 1m": its check hands hold a 1m); the hand in play
    # (234m067p44567s22z, no 1m) is fine, and /api/waits answers: its waits are shown
    _upload(browser, waiting_url, "1m1m1m1m")
    WebDriverWait(browser, 30).until(lambda d: "Tenpai" in d.find_element(By.ID, "headline").text
                                     or "Could not" in d.find_element(By.ID, "status").text,
                                     message="neither the waits nor an error")
    assert browser.find_element(By.ID, "headline").text == "Tenpai — waits 4s 2z (4 left)"
    assert "Could not" not in browser.find_element(By.ID, "status").text


class DrawnTileReader(WaitingReader):
    """The sample with a 14th tile, 5z, drawn at the right end of the row (the boxes squeezed
    to 90 % across to make room, one tile's step on)."""

    def read(self, img) -> Detections:
        d = super().read(img)
        sx = img.shape[1] / TRUTH["image"]["width"]
        squeezed = [Detection(t.tile, (t.box[0] * .9, t.box[1], t.box[2] * .9, t.box[3]), t.confidence)
                    for t in d.tiles]
        last = squeezed[-1].box
        step = (last[0] - squeezed[-2].box[0])
        extra = Detection("5z", (last[0] + step, last[1] - 6 * sx, last[2] + step, last[3] - 6 * sx), 0.97)
        return Detections(d.width, d.height, squeezed + [extra])


@pytest.fixture(scope="module")
def drawn_url():
    yield from _serve(DrawnTileReader())


def test_fourteen_tiles_are_a_hand_in_play_without_not_a_win_noise(drawn_url, browser):
    # 234m067p44567s22z + 5z: not a complete hand, one discard (5z) from tenpai on 4s and 2z;
    # the page shows the discard choices, not the scorer's "Not a win as read: ..." reasons
    browser.get(drawn_url + "/")
    browser.find_element(By.ID, "file").send_keys(str(PHOTO))
    WebDriverWait(browser, 30).until(lambda d: "discard" in d.find_element(By.ID, "headline").text,
                                     message="no discard choices for the 14-tile photo")
    assert browser.find_element(By.ID, "headline").text == "Shanten 0: choose a discard"
    first = browser.find_element(By.CSS_SELECTOR, "#lines li.discard").text.splitlines()[0]
    assert first == "Discard 5z → tenpai"
    assert "Not a win" not in _lines(browser) and "not a complete hand" not in browser.page_source
    assert browser.find_element(By.ID, "result-title").text == "Waits"
