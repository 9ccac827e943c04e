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

from test_browser import _serve, browser  # noqa: F401  (the browser fixture)
from vision.detections import Detection, Detections

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
def waiting_url():
    yield from _serve(WaitingReader())


def _lines(browser) -> str:
    return browser.find_element(By.ID, "lines").text


def test_a_hand_in_play_shows_its_waits_values_and_furiten_on_a_phone(waiting_url, browser):  # noqa: F811
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                            {"width": 390, "height": 844, "deviceScaleFactor": 3, "mobile": True})
    try:
        browser.get(waiting_url + "/")
        form = browser.find_element(By.ID, "context")
        Select(form.find_element(By.NAME, "seat_wind")).select_by_value("S")
        form.find_element(By.NAME, "dora_indicators").send_keys("3s")
        browser.find_element(By.ID, "file").send_keys(str(PHOTO))
        WebDriverWait(browser, 30).until(lambda d: "Tenpai" in d.find_element(By.ID, "headline").text,
                                         message="no waits shown for the 13-tile photo")
        head = browser.find_element(By.ID, "headline")
        assert head.text == "Tenpai — waits 4s 2z (4 left)"
        assert "not a complete hand" not in browser.page_source
        items = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "#lines li.wait")]
        assert items[0].splitlines() == ["4s · 2 left", "ron no yaku · tsumo 8000 (mangan, 5 han)",
                                         "no yaku by ron: only tsumo wins (or declare riichi)"]
        assert items[1].splitlines() == ["2z · 2 left", "ron 8000 (mangan, 4 han) · tsumo 8000 (mangan, 5 han)"]
        assert "furiten" not in _lines(browser).lower()

        # readable on the phone: nothing wider than the screen, every text 12 CSS px or more
        assert browser.execute_script("return document.documentElement.scrollWidth") <= 390
        sizes = browser.execute_script(
            "return [...document.querySelectorAll('#result-section li, #result-section li *, #headline')]"
            ".filter((e) => e.textContent.trim()).map((e) => parseFloat(getComputedStyle(e).fontSize))")
        assert sizes and min(sizes) >= 12

        # a wait among the player's discards: furiten, said plainly
        field = form.find_element(By.NAME, "discards")
        field.send_keys("2z")
        browser.execute_script("arguments[0].dispatchEvent(new Event('change', {bubbles: true}))", field)
        WebDriverWait(browser, 30).until(lambda d: "Furiten" in _lines(d), message="no furiten line")
        furiten = browser.find_element(By.CSS_SELECTOR, "#lines li.furiten")
        assert furiten.text == "Furiten: a wait is among your discards — no ron on any wait, only tsumo"
        assert _lines(browser).lower().count("furiten") == 1          # said once
        assert browser.find_element(By.ID, "headline").text == "Tenpai — waits 4s 2z (3 left)"
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
