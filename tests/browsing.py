"""Set-up shared by the browser tests (not a test file): a headless Chromium driven by Selenium
(Debian's ``chromium`` + ``chromedriver``; nothing is downloaded at run time), a free local
port, and an ASGI app served by uvicorn in a thread.

A test module calls ``need_browser()`` first, at module level: it skips the module with the
reason when chromium, chromedriver, selenium or uvicorn is missing (``.ci/install_browser.sh``
installs them), before anything imports selenium.
"""
from __future__ import annotations

import shutil
import socket
import tempfile
import threading
import time
from contextlib import contextmanager

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")

# a phone's viewport (390 × 844 CSS px), touch and its user agent
PHONE = {"deviceMetrics": {"width": 390, "height": 844, "pixelRatio": 3.0}}


def need_browser() -> None:
    """Skip the calling module, with the reason, unless chromium, chromedriver, selenium and
    uvicorn are all there."""
    if not (CHROMIUM and CHROMEDRIVER):
        pytest.skip("chromium and chromedriver are not installed (bash .ci/install_browser.sh installs them)",
                    allow_module_level=True)
    pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install selenium)")
    pytest.importorskip("uvicorn", reason="uvicorn (the 'serve' extra) is not installed")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def chromium(phone: bool = False, window: str = "800,1200"):
    """A headless Chromium with a throwaway profile, quit and its profile removed on exit.
    ``phone``: emulate a 390 × 844 phone (``window`` is then unused); else a desktop window of
    ``window`` CSS px."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    profile = tempfile.mkdtemp(prefix="tilescope-chromium-")
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--disable-dev-shm-usage", f"--user-data-dir={profile}"]
    if phone:
        opts.add_experimental_option("mobileEmulation", PHONE)
    else:
        flags.append(f"--window-size={window}")
    for flag in flags:
        opts.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=opts)
    try:
        driver.set_page_load_timeout(30)
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


@contextmanager
def serve(app):
    """``app`` served by uvicorn on a free local port in a thread: yields its base URL once it
    answers (fails the test if it has not started within 20 s), stops it on exit."""
    import uvicorn

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 20
        while not server.started:
            if time.monotonic() > deadline or not thread.is_alive():
                pytest.fail("the test server did not start")
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=5)


@contextmanager
def phone_size(driver):
    """A desktop ``driver`` at a phone's size (390 × 844, touch) for the block, then back."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": 390, "height": 844, "deviceScaleFactor": 3, "mobile": True})
    try:
        yield driver
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


# ---- driving the pages (selenium imported on use: need_browser() runs first) ----

def click(d, css: str) -> None:
    """Click the element ``css`` after scrolling it to the middle (a phone's screen is short)."""
    from selenium.webdriver.common.by import By

    el = d.find_element(By.CSS_SELECTOR, css)
    d.execute_script("arguments[0].scrollIntoView({block: 'center'})", el)
    el.click()


def settle(d, text: str, timeout: float = 15) -> None:
    """Wait until the table page's status line says ``text`` (its answer came)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(d, timeout).until(lambda x: text in x.find_element(By.ID, "table-status").text,
                                    message=f"status never said {text!r}: "
                                    + d.find_element(By.ID, "table-status").text)


def points(d) -> dict[str, int]:
    """The table page's points, by player."""
    from selenium.webdriver.common.by import By

    return {c.get_attribute("data-player"): int(c.find_element(By.CLASS_NAME, "points").text)
            for c in d.find_elements(By.CSS_SELECTOR, "#players .player")}


def tap_tile(d, box) -> None:
    """Tap the middle of a tile's ``box`` (photo pixels) on the phone page's canvas, as a finger
    would: the canvas is drawn at the photo's size and shown scaled."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    canvas = d.find_element(By.ID, "view")
    d.execute_script("arguments[0].scrollIntoView({block: 'center'})", canvas)
    x1, y1, x2, y2 = box
    css_w, css_h, px_w, px_h = d.execute_script(
        "const r = arguments[0].getBoundingClientRect();"
        "return [r.width, r.height, arguments[0].width, arguments[0].height];", canvas)
    dx = ((x1 + x2) / 2) * css_w / px_w - css_w / 2
    dy = ((y1 + y2) / 2) * css_h / px_h - css_h / 2
    ActionChains(d).move_to_element_with_offset(canvas, round(dx), round(dy)).click().perform()
