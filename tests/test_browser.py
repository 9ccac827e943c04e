"""The web page in a real headless Chromium (Debian's ``chromium`` + ``chromedriver``, driven
by Selenium; nothing is downloaded at run time).

Upload a photo of a hand, tap a misread tile on the canvas, pick the right tile, and see the
score change. The server runs the real layout parser and scorer behind a fake detector that
reads the tiles of the rendered photo back from their grey levels (tests/grey_tiles.py), so
the expected values come from the rules, not from a model.

Skipped with the reason when chromium, chromedriver or selenium is missing
(``.ci/install_browser.sh`` installs them).
"""
from __future__ import annotations

import shutil
import socket
import tempfile
import threading
import time

import cv2
import pytest

from grey_tiles import GreyReader, render

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
if not (CHROMIUM and CHROMEDRIVER):
    pytest.skip("chromium and chromedriver are not installed (run .ci/install_browser.sh)",
                allow_module_level=True)
webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install selenium)")
pytest.importorskip("uvicorn", reason="uvicorn (the 'serve' extra) is not installed")
pytest.importorskip("vision.pipeline", reason="vision.pipeline (photo -> score) is not present")

from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

# The photo shows 234m 456p 678s 23s 55p and, set apart, 1s: the detector "misread" the winning
# 4s as 1s. Dealer (East) tsumo, riichi rules:
#   as read, win 1s:  menzen tsumo + pinfu = 2 han 20 fu (123s has a terminal: no tanyao)
#   fixed,   win 4s:  menzen tsumo + pinfu + tanyao = 3 han 20 fu
PHOTO_HAND = ["2m", "3m", "4m", "4p", "5p", "6p", "6s", "7s", "8s", "2s", "3s", "5p", "5p", "1s"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server_url():
    import uvicorn

    from vision.server import create_app

    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(reader=GreyReader()), host="127.0.0.1",
                                           port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            pytest.fail("the test server did not start")
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=5)


@pytest.fixture(scope="module")
def browser():
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    profile = tempfile.mkdtemp(prefix="tilescope-chromium-")
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", f"--user-data-dir={profile}", "--window-size=800,1200"):
        opts.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=opts)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)


def _headline(driver, expect: str, timeout: float = 30) -> str:
    WebDriverWait(driver, timeout).until(lambda d: expect in d.find_element(By.ID, "headline").text,
                                         message=f"headline never showed {expect!r}")
    return driver.find_element(By.ID, "headline").text


def test_upload_fix_a_tile_and_see_the_score_change(server_url, browser, tmp_path):
    photo = tmp_path / "hand.png"
    cv2.imwrite(str(photo), render(PHOTO_HAND))
    browser.get(server_url + "/")
    assert browser.title == "tilescope"
    browser.find_element(By.ID, "file").send_keys(str(photo))

    assert _headline(browser, "han") == "2 han 20 fu"
    data = browser.execute_script("return state.data")
    assert [t["tile"] for t in data["tiles"]] == PHOTO_HAND or sorted(
        t["tile"] for t in data["tiles"]) == sorted(PHOTO_HAND)

    # Tap the winning tile (set apart at the right end) on the canvas, as a finger would.
    canvas = browser.find_element(By.ID, "view")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", canvas)
    index = next(i for i, t in enumerate(data["tiles"]) if t["tile"] == "1s")
    x1, y1, x2, y2 = data["tiles"][index]["box"]
    rect = browser.execute_script(
        "const r = arguments[0].getBoundingClientRect();"
        "return [r.width, r.height, arguments[0].width, arguments[0].height];", canvas)
    css_w, css_h, px_w, px_h = rect
    dx = ((x1 + x2) / 2) * css_w / px_w - css_w / 2
    dy = ((y1 + y2) / 2) * css_h / px_h - css_h / 2
    ActionChains(browser).move_to_element_with_offset(canvas, round(dx), round(dy)).click().perform()

    picker = browser.find_element(By.ID, "picker")
    WebDriverWait(browser, 10).until(lambda d: picker.get_attribute("open") is not None,
                                     message="the tile picker did not open")
    assert browser.find_element(By.ID, "picker-current").text == "1s"
    picker.find_element(By.CSS_SELECTOR, "button[data-tile='4s']").click()

    assert _headline(browser, "3 han") == "3 han 20 fu"
    assert browser.find_element(By.ID, "fixes").text.endswith("=4s")
    data = browser.execute_script("return state.data")
    assert data["request"]["win_tile"] == "4s"
    # 3 han 20 fu, dealer tsumo: 1300 from each of three = 3900 (riichi payment table).
    assert "3900" in browser.find_element(By.ID, "payment").text


def test_a_file_that_is_not_a_photo_says_so(server_url, browser, tmp_path):
    bad = tmp_path / "notes.jpg"
    bad.write_text("these are my notes, not a photo")
    browser.get(server_url + "/")
    browser.find_element(By.ID, "file").send_keys(str(bad))
    status = browser.find_element(By.ID, "status")
    WebDriverWait(browser, 10).until(lambda d: "not an image" in status.text,
                                     message="no error shown for a non-image file")
    assert "error" in status.get_attribute("class")
