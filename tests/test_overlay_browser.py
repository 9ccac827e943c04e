"""The stream overlay in a real headless Chromium (Debian's ``chromium`` + ``chromedriver``,
driven by Selenium as ``tests/test_browser.py``; nothing is downloaded at run time).

A rendered clip (``grey_tiles``: tiles whose grey level names them, read back by a stand-in
detector) plays through the real stream runner, layout parser and scorer into the overlay
server; the test pauses the clip where it wants to look at the page.

Skipped with the reason when chromium, chromedriver, selenium or uvicorn is missing.
"""
from __future__ import annotations

import shutil
import socket
import tempfile
import threading

import pytest

from grey_tiles import GreyReader, render

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
if not (CHROMIUM and CHROMEDRIVER):
    pytest.skip("chromium and chromedriver are not installed (run .ci/install_browser.sh)",
                allow_module_level=True)
webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install selenium)")
pytest.importorskip("uvicorn", reason="uvicorn (the 'serve' extra) is not installed")

from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from test_stream import write_clip  # noqa: E402
from vision.stream import FrameSource, HandStabiliser, StreamRunner, pipeline_scorer  # noqa: E402

# 123m 123p 23s 789s 55z: tenpai on 1s / 4s. South seat (not the dealer), East round, no riichi.
TENPAI = ["1m", "2m", "3m", "1p", "2p", "3p", "2s", "3s", "7s", "8s", "9s", "5z", "5z"]
WAITING_CONTEXT = {"ruleset": "riichi", "win": "ron", "seat_wind": "S", "round_wind": "E"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def browser():
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    profile = tempfile.mkdtemp(prefix="tilescope-chromium-")
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", f"--user-data-dir={profile}", "--window-size=1000,900"):
        opts.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=opts)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)


class PausedClip:
    """A clip's ``FrameSource`` that waits before each frame index of ``pauses`` until the
    test sets that frame's event: the page is looked at while a hand is on screen."""

    live = False
    dropped = 0

    def __init__(self, path, pauses: list[int]):
        self.source = FrameSource(str(path))
        self.pauses = {i: threading.Event() for i in pauses}

    def frames(self):
        for frame, detect in self.source.frames():
            if frame.index in self.pauses:
                assert self.pauses[frame.index].wait(60), "the test never let the clip go on"
            yield frame, detect

    def go(self, index: int) -> None:
        self.pauses[index].set()


def run_clip(source, hub, scorer, stable: int = 4) -> threading.Thread:
    """The stream runner over ``source`` on a thread (as ``tilescope stream`` runs it)."""
    runner = StreamRunner(GreyReader(), HandStabiliser(stable), scorer, hub.publish)
    thread = threading.Thread(target=runner.run, args=(source,), daemon=True)
    thread.start()
    return thread


def text_of(driver, element_id: str, expect: str, timeout: float = 30) -> str:
    WebDriverWait(driver, timeout).until(lambda d: expect in d.find_element(By.ID, element_id).text,
                                         message=f"#{element_id} never showed {expect!r}")
    return driver.find_element(By.ID, element_id).text


def test_the_overlay_shows_the_waits_of_a_hand_in_play_then_the_value_of_the_win(tmp_path, browser):
    from vision.overlay import OverlayHub, OverlayServer

    clip = tmp_path / "clip.avi"
    write_clip(clip, [render(None)] * 3 + [render(TENPAI)] * 12 + [render(TENPAI + ["1s"])] * 12)
    hub = OverlayHub()
    server = OverlayServer(hub, free_port())
    server.start()
    source = PausedClip(clip, [15])           # the 13 tiles stay on screen until looked at
    try:
        browser.get(f"http://127.0.0.1:{server.server.config.port}/")
        thread = run_clip(source, hub, pipeline_scorer(WAITING_CONTEXT))
        assert text_of(browser, "value", "tenpai") == "tenpai: 1s 4s (8 left)"
        rows = browser.execute_script(
            "return [...document.querySelectorAll('#waits .wait')].map((r) => r.querySelector('.tile')"
            ".dataset.tile + r.querySelector('span:not(.tile)').textContent"
            " + (r.querySelector('.note') ? ' / ' + r.querySelector('.note').textContent : ''))")
        # Rules (shared/rules/001_riichi_fr.txt, the yaku table; base points = fu × 2^(2+han)):
        # 1s by ron: 123m 123p 123s 789s 55z = sanshoku 2 + junchan 2 = 4 han, 40 fu (20 + 10
        #   closed ron + 2 dragon pair, rounded up): 40 × 2^6 = 2560 > 2000 → mangan, 8000;
        #   by tsumo menzen tsumo adds 1 han: still mangan, 8000 in all.
        # 4s: 234s breaks the sanshoku and 55z the junchan: no yaku by ron; by tsumo menzen
        #   tsumo 1 han, 30 fu (20 + 2 tsumo + 2 dragon pair → 30): 30 × 2^3 = 240, a
        #   non-dealer's tsumo 300 + 300 + 500 (the dealer pays double, rounded up) = 1100.
        assert rows == ["1s ×4  ron 8000 · tsumo 8000",
                        "4s ×4  ron no win · tsumo 1100 / no yaku by ron: only tsumo wins (or declare riichi)"]
        source.go(15)                          # the winning tile 1s arrives
        assert text_of(browser, "value", "8000") == "mangan (4 han) · 8000"
        assert browser.find_elements(By.CSS_SELECTOR, "#waits .wait") == []
        assert "sanshoku" in browser.find_element(By.ID, "lines").text
        thread.join(30)
    finally:
        for i in source.pauses:
            source.go(i)
        source.source.close()
        server.stop()
