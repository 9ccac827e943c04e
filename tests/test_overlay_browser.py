"""The stream overlay in a real headless Chromium (Debian's ``chromium`` + ``chromedriver``,
driven by Selenium as ``tests/test_browser.py``; nothing is downloaded at run time).

A rendered clip (``grey_tiles``: tiles whose grey level names them, read back by a stand-in
detector) plays through the real stream runner, layout parser and scorer into the overlay
server; the test pauses the clip where it wants to look at the page.

Skipped with the reason when chromium, chromedriver, selenium or uvicorn is missing.
"""
from __future__ import annotations

import threading

import pytest
from browsing import chromium, free_port, need_browser

from grey_tiles import GreyReader, render

need_browser()

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from test_stream import write_clip  # noqa: E402
from vision.stream.live import FrameSource, HandStabiliser, StreamRunner, pipeline_scorer  # noqa: E402

# 123m 123p 23s 789s 55z: tenpai on 1s / 4s. South seat (not the dealer), East round, no riichi.
TENPAI = ["1m", "2m", "3m", "1p", "2p", "3p", "2s", "3s", "7s", "8s", "9s", "5z", "5z"]
WAITING_CONTEXT = {"ruleset": "riichi", "win": "ron", "seat_wind": "S", "round_wind": "E"}


@pytest.fixture(scope="module")
def browser():
    with chromium(window="1000,900") as driver:
        yield driver


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

    def close(self) -> None:
        """Let every paused frame go (the runner's thread ends) and close the clip."""
        for i in self.pauses:
            self.go(i)
        self.source.close()


def run_clip(source, scorer, on_hand, context=None, stable: int = 4) -> threading.Thread:
    """The stream runner over ``source`` on a thread (as ``tilescope stream`` runs it)."""
    runner = StreamRunner(GreyReader(), HandStabiliser(stable), scorer, on_hand, context=context)
    thread = threading.Thread(target=runner.run, args=(source,), daemon=True)
    thread.start()
    return thread


def text_of(driver, element_id: str, expect: str, timeout: float = 30) -> str:
    WebDriverWait(driver, timeout).until(lambda d: expect in d.find_element(By.ID, element_id).text,
                                         message=f"#{element_id} never showed {expect!r}")
    return driver.find_element(By.ID, element_id).text


def test_the_overlay_shows_the_waits_of_a_hand_in_play_then_the_value_of_the_win(tmp_path, browser):
    from vision.stream.overlay import OverlayHub, OverlayServer

    clip = tmp_path / "clip.avi"
    write_clip(clip, [render(None)] * 3 + [render(TENPAI)] * 12 + [render(TENPAI + ["1s"])] * 12)
    hub = OverlayHub()
    server = OverlayServer(hub, free_port())
    server.start()
    source = PausedClip(clip, [15])           # the 13 tiles stay on screen until looked at
    try:
        browser.get(f"http://127.0.0.1:{server.server.config.port}/")
        # a riichi stick left on the table by an earlier hand goes to whoever wins
        thread = run_clip(source, pipeline_scorer({**WAITING_CONTEXT, "riichi_sticks": 1}), hub.publish)
        # the waits said as players say the tiles (not "1s 4s"), as the chips show them
        assert text_of(browser, "value", "tenpai") == "tenpai: 1 bamboo, 4 bamboo (8 left)"
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
        #   The stick's 1000 is said once, apart from each wait's own payment.
        assert rows == ["1s ×4  ron 8000 · tsumo 8000",
                        "4s ×4  ron no yaku · tsumo 1100 / no yaku by ron: only tsumo wins (or declare riichi)"]
        assert browser.find_element(By.CSS_SELECTOR, "#waits .extras").text == "+ 1000 sticks to the winner"
        # the waits' card on a 390 px phone: nothing cut off or outside (test_overlay_on_air)
        from browsing import phone_size
        from test_overlay_on_air import NOTHING_CUT
        with phone_size(browser):
            WebDriverWait(browser, 10).until(lambda d: d.execute_script("return innerWidth") == 390)
            assert browser.execute_script(NOTHING_CUT) == []
        source.go(15)                          # the winning tile 1s arrives
        assert text_of(browser, "value", "8000") == "mangan (4 han) · 8000 + 1000 sticks"
        assert browser.find_elements(By.CSS_SELECTOR, "#waits .wait") == []
        assert "sanshoku 2 han" in browser.find_element(By.ID, "lines").text
        thread.join(30)
    finally:
        source.close()
        server.stop()


def riichi(driver, name):
    """Riichi declared on the control page's shared event forms (vision/server/web/events.js)."""
    from selenium.webdriver.support.ui import Select

    if not driver.find_element(By.ID, "form-riichi").is_displayed():
        driver.find_element(By.ID, "act-riichi").click()
    Select(driver.find_element(By.ID, "riichi-player")).select_by_value(name)
    driver.find_element(By.CSS_SELECTOR, "#form-riichi button[type=submit]").click()


def new_game(tmp_path):
    """A riichi game of Ann, Bob, Cai and Dan kept in ``tmp_path/game.jsonl``, fed to the live
    context and driven from a control page: (game file, ledger, live context, hub, control)."""
    import json

    from vision.stream.control import Control
    from vision.server.ledger import LedgerSession
    from vision.stream.livecontext import LiveContext
    from vision.stream.overlay import OverlayHub

    game = tmp_path / "game.jsonl"
    game.write_text(json.dumps({"type": "game", "players": ["Ann", "Bob", "Cai", "Dan"]}) + "\n")
    ledger = LedgerSession(str(game))
    live = LiveContext({"ruleset": "riichi"})
    live.table = ledger.context_for
    hub = OverlayHub()
    return game, ledger, live, hub, Control(live, ledger, hub.publish)


# 234m 456m 678p 34s 88s + 5s: tanyao and pinfu (tests/test_control.py works out its values)
SECOND = ["2m", "3m", "4m", "4m", "5m", "6m", "6p", "7p", "8p", "3s", "4s", "8s", "8s", "5s"]


def test_a_short_game_kept_from_the_control_page_and_shown_on_the_overlay(tmp_path, browser):
    import json

    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.support.ui import Select

    from vision.stream.overlay import OverlayServer

    game, ledger, live, hub, control = new_game(tmp_path)
    hub.publish(ledger.table_message())
    server = OverlayServer(hub, free_port(), control=control)
    server.start()
    url = f"http://127.0.0.1:{server.server.config.port}"
    clip = tmp_path / "clip.avi"
    write_clip(clip, [render(None)] * 3 + [render(SECOND)] * 12)
    source = PausedClip(clip, [3])            # the hand comes once the page has named the winner

    def on_hand(message):
        hub.publish(message)
        control.on_hand(message)

    try:
        browser.get(url + "/")
        overlay = browser.current_window_handle
        assert text_of(browser, "round", "East 1") == "East 1 · 0 honba · 0 riichi sticks"
        browser.switch_to.new_window("window")
        browser.get(url + "/control")
        WebDriverWait(browser, 20).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#riichi-player option[value=Bob]"))
        # 1. Bob declares riichi: « met en gage un bâton de 1000 points »
        riichi(browser, "Bob")
        text_of(browser, "round", "1 riichi stick")
        # 2. Cai wins by ron from Ann: named on the page, then the hand comes into the camera
        Select(browser.find_element(By.NAME, "win")).select_by_value("ron")
        Select(browser.find_element(By.NAME, "winner")).select_by_value("Cai")
        Select(browser.find_element(By.NAME, "discarder")).select_by_value("Ann")
        browser.find_element(By.ID, "apply").click()
        text_of(browser, "context", "seat West")                # Cai sits West this hand
        thread = run_clip(source, pipeline_scorer(live), on_hand, live)
        source.go(3)
        # tanyao + pinfu 2 han 30 fu, a non-dealer's ron: 4 × 30 × 2^4 = 1920 → 2000 from Ann;
        # « Le gagnant récupère [...] toutes les mises de riichi éventuelles »: Bob's 1000
        proposal = text_of(browser, "proposal", "Ann pays Cai 2000")
        assert proposal.startswith("Cai wins by ron from Ann\nCai: 2 han 30 fu (pinfu 1, tanyao 1)")
        # the overlay's card says the hand's 2000 and Bob's stick apart (not "· 3000")
        control_window = browser.current_window_handle
        browser.switch_to.window(overlay)
        assert text_of(browser, "value", "sticks") == "2 han 30 fu · 2000 + 1000 sticks"
        browser.switch_to.window(control_window)
        browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ENTER)      # confirm (key)
        text_of(browser, "round", "East 2")
        # 3. an exhaustive draw, Bob and Cai tenpai: « Si deux joueurs sont tenpai, les deux
        #    autres joueurs noten payent chacun 1500 points »; Bob, the dealer, is tenpai:
        #    « Est reste Est uniquement s'il est tenpai » and « Un compteur est toujours ajouté »
        browser.find_element(By.ID, "act-draw").click()
        for name in ("Bob", "Cai"):
            browser.find_element(By.CSS_SELECTOR, f"#tenpai input[value={name}]").click()
        browser.find_element(By.CSS_SELECTOR, "#form-draw button[type=submit]").click()
        text_of(browser, "round", "1 honba")
        # 4. an abortive draw entered by mistake, then undone (key u)
        browser.find_element(By.ID, "act-abortive").click()
        browser.find_element(By.CSS_SELECTOR, "#form-abortive button[type=submit]").click()
        text_of(browser, "last", "abortive")
        # undo asks first, naming the event; a second u takes it out
        browser.find_element(By.TAG_NAME, "body").send_keys("u")
        assert browser.find_element(By.ID, "undo").text == "Undo: abortive draw: nine terminals and honours? Press again"
        assert "abortive" in browser.find_element(By.ID, "last").text
        browser.find_element(By.TAG_NAME, "body").send_keys("u")
        text_of(browser, "last", "draw, tenpai: Bob, Cai")
        browser.switch_to.window(overlay)
        # Ann 25000 − 2000 − 1500; Bob − 1000 (riichi) + 1500; Cai + 2000 + 1000 + 1500;
        # Dan − 1500: 21500 + 25500 + 29500 + 23500 = 100000
        assert text_of(browser, "round", "East 2") == "East 2 · 1 honba · 0 riichi sticks"
        rows = browser.execute_script(
            "return [...document.querySelectorAll('#players .player')].map((r) => r.dataset.name + ' '"
            " + r.querySelector('.wind').textContent + ' ' + r.querySelector('.points').textContent)")
        assert rows == ["Cai S 29500", "Bob E 25500", "Dan W 23500", "Ann N 21500"]     # by rank
        assert browser.find_element(By.ID, "proposal").text == ""       # the win was paid
        events = [json.loads(x)["type"] for x in game.read_text().splitlines()[1:]]
        assert events == ["riichi", "ron", "draw"]
        thread.join(30)
    finally:
        source.close()
        server.stop()



@pytest.fixture(scope="module")
def phone():
    """Chromium at a phone's size: a 390 × 844 CSS px viewport."""
    with chromium(phone=True) as driver:
        yield driver


# every visible control or link under 44 CSS px tall (a checkbox measured by its label, its
# hit area)
SHORT_CONTROLS = """
    return [...document.querySelectorAll('input, select, button, summary, a')]
      .filter(e => e.getClientRects().length && getComputedStyle(e).visibility !== 'hidden')
      .map(e => [e, e.type === 'checkbox' ? e.closest('label') : e])
      .filter(([e, hit]) => hit.getBoundingClientRect().height < 44)
      .map(([e, hit]) => (e.id || e.name || e.textContent.trim() || e.tagName) + ' '
        + Math.round(hit.getBoundingClientRect().height));"""

# text under 12 px, or under 4.5:1 on the white page (WCAG 2's formula), of visible labels,
# legends, buttons and lines
POOR_TEXT = """
    const lum = (css) => css.match(/[\\d.]+/g).slice(0, 3).map(Number).map(v => v / 255)
      .map(v => v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4)
      .reduce((a, v, i) => a + [0.2126, 0.7152, 0.0722][i] * v, 0);
    return [...document.querySelectorAll('label, legend, button, select, summary, div, span, td, p')]
      .filter(e => e.getClientRects().length && !e.disabled && e.textContent.trim())
      .filter(e => parseFloat(getComputedStyle(e).fontSize) < 12
        || 1.05 / (lum(getComputedStyle(e).color) + 0.05) < 4.5)
      .map(e => e.id || e.name || e.tagName);"""


def test_the_control_page_on_a_phone(tmp_path, phone):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.support.ui import Select

    from vision.stream.overlay import OverlayServer

    _, _, _, hub, control = new_game(tmp_path)
    server = OverlayServer(hub, free_port(), control=control)
    server.start()
    d = phone
    try:
        d.get(f"http://127.0.0.1:{server.server.config.port}/control")
        WebDriverWait(d, 20).until(lambda x: x.find_elements(By.CSS_SELECTOR, "#riichi-player option[value=Bob]"))
        assert d.execute_script("return window.innerWidth") == 390
        assert d.execute_script(SHORT_CONTROLS) == []          # a finger's 44 px (Apple HIG)
        # the camera's dora row: a 22-px checkbox whose label is the hit area, a tap on the
        # label's far end ticks it
        camera = d.find_element(By.NAME, "camera")
        label = camera.find_element(By.XPATH, "ancestor::label")
        assert label.size["height"] >= 44 and label.size["width"] >= 44
        ticked = camera.is_selected()
        ActionChains(d).move_to_element_with_offset(label, label.size["width"] // 2 - 4, 0).click().perform()
        assert camera.is_selected() != ticked
        ActionChains(d).move_to_element_with_offset(label, label.size["width"] // 2 - 4, 0).click().perform()
        assert camera.is_selected() == ticked
        assert d.execute_script(POOR_TEXT) == []
        assert d.execute_script("return document.documentElement.scrollWidth") <= 390
        # the keys are a keyboard's: no legend, no key hints on a phone
        assert not d.find_element(By.CLASS_NAME, "keys").is_displayed()
        assert "(" not in d.find_element(By.ID, "apply").text
        # the abortive draws in words, never the file's codes
        d.find_element(By.ID, "act-abortive").click()
        reasons = [o.text for o in Select(d.find_element(By.ID, "abortive-reason")).options]
        assert reasons == ["Nine terminals and honours", "Four kans", "Four winds", "Four riichi"]
        # every form of the shared event forms fits a finger and the screen
        for act in ("act-riichi", "act-win", "act-draw", "act-chombo", "act-dead"):
            d.find_element(By.ID, act).click()
            assert d.execute_script(SHORT_CONTROLS) == [], act
            assert d.execute_script("return document.documentElement.scrollWidth") <= 390, act
        d.find_element(By.ID, "act-dead").click()
        # the raw JSON event box is kept, folded under its name
        assert not d.find_element(By.ID, "event").is_displayed()
        d.find_element(By.CSS_SELECTOR, "#other-event summary").click()
        assert d.find_element(By.ID, "event").is_displayed()
        assert d.execute_script(SHORT_CONTROLS) == []
        assert d.execute_script("return document.documentElement.scrollWidth") <= 390
        # what scores now, said in words; no dora typed: the camera's row, and its box ticked
        context = d.find_element(By.ID, "context").text
        assert "=" not in context and "dora: the row the camera sees" in context
        assert d.find_element(By.NAME, "camera").is_selected()
        d.find_element(By.NAME, "dora_indicators").send_keys("3s")
        assert not d.find_element(By.NAME, "camera").is_selected()   # typed: not the camera's
        d.find_element(By.ID, "apply").click()
        text_of(d, "context", "dora indicators 3s")
        assert "camera" not in d.find_element(By.ID, "context").text
        assert not d.find_element(By.NAME, "camera").is_selected()
        d.find_element(By.NAME, "camera").click()
        d.find_element(By.ID, "apply").click()
        text_of(d, "context", "the row the camera sees")
        assert d.find_element(By.NAME, "camera").is_selected()
        assert d.find_element(By.NAME, "dora_indicators").get_attribute("value") == ""
    finally:
        server.stop()
