"""A newcomer's paths through the web page in a real headless Chromium (issue 40): a truncated
JPEG's partial picture is not offered for tapping, a broadcast frame's tiny tiles get labels
that never overlap, and ``/docs`` draws its page with no internet (the browser cannot reach
a CDN here: the page must load everything from tilescope).

Skipped with the reason when chromium, chromedriver or selenium is missing
(``bash .ci/install_browser.sh`` installs them)."""
from __future__ import annotations

import pytest
from browsing import chromium, need_browser, serve
from sample_truth import SAMPLE, TruthReader

need_browser()

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402


@pytest.fixture(scope="module")
def server_url():
    from vision.server.app import create_app

    with serve(create_app(reader=TruthReader())) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    with chromium(window="800,1200") as driver:
        yield driver


def test_a_truncated_jpeg_is_not_drawn_under_tap_a_tile(server_url, browser, tmp_path):
    cut = tmp_path / "cut.jpg"
    data = SAMPLE.read_bytes()
    cut.write_bytes(data[: len(data) * 6 // 10])        # a photo whose upload broke off
    browser.get(server_url + "/")
    browser.find_element(By.ID, "file").send_keys(str(cut))
    status = browser.find_element(By.ID, "status")
    WebDriverWait(browser, 20).until(lambda d: "truncated" in status.text,
                                     message="no error for a truncated JPEG")
    assert "error" in status.get_attribute("class")
    assert browser.find_element(By.ID, "canvas-wrap").get_attribute("hidden") is not None
    assert not browser.find_element(By.ID, "view").is_displayed()
    # a good photo afterwards is drawn again
    browser.find_element(By.ID, "file").send_keys(str(SAMPLE))
    WebDriverWait(browser, 30).until(lambda d: "han" in d.find_element(By.ID, "headline").text)
    assert browser.find_element(By.ID, "view").is_displayed()


def test_tiny_tiles_get_labels_in_a_line_that_never_overlap(server_url, browser):
    # a broadcast frame's 6-px tiles, 14 side by side (as tests/test_annotate.py): the page's
    # labels ran into an illegible cluster; now one line above the row, in the tiles' order
    browser.get(server_url + "/")
    labels = browser.execute_script("""
        const boxes = [...Array(14).keys()].map((i) => [600 + 7 * i, 400, 606 + 7 * i, 408]);
        return placeLabels(boxes, boxes.map(() => 24), 18, 1280, 720);""")
    assert [lab["i"] for lab in labels] == list(range(14))
    assert all(lab["apart"] for lab in labels) and {lab["y"] for lab in labels} == {400 - 2 * 18}
    rects = [(lab["x"], lab["y"], lab["x"] + lab["w"], lab["y"] + lab["h"]) for lab in labels]
    rects += [(600 + 7 * i, 400, 606 + 7 * i, 408) for i in range(14)]
    for n, a in enumerate(rects):
        for b in rects[n + 1:]:
            assert not (a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]), (a, b)


def test_the_api_docs_draw_without_internet(server_url, browser):
    pytest.importorskip("fastapi_offline")
    browser.get(server_url + "/docs")
    WebDriverWait(browser, 20).until(
        lambda d: d.execute_script("const t = document.querySelector('.swagger-ui .info .title');"
                                   "return t && t.textContent"),
        message="Swagger UI drew nothing")
    title = browser.find_element(By.CSS_SELECTOR, ".swagger-ui .info .title").text
    assert title.startswith("tilescope")
    assert browser.find_elements(By.CSS_SELECTOR, ".opblock-summary-path[data-path='/api/score']")
    browser.get(server_url + "/redoc")
    WebDriverWait(browser, 20).until(lambda d: "tilescope" in d.find_element(By.TAG_NAME, "h1").text,
                                     message="ReDoc drew nothing")
