"""The web page in a real headless Chromium (Debian's ``chromium`` + ``chromedriver``, driven
by Selenium; nothing is downloaded at run time).

Upload the bundled sample photo (``tests/data/riichi_open_red.jpg``), set the context, tap a
misread tile on the canvas, pick the right tile, and see the score change. The server runs the
real layout parser, scorer and verdict; the detector is a stand-in that returns the photo's
ground-truth boxes with the red five misread as a plain five (``tests/sample_truth.py``, which
also works out the expected values from the rules).

Skipped with the reason when chromium, chromedriver or selenium is missing
(``.ci/install_browser.sh`` installs them).
"""
from __future__ import annotations

import shutil
import socket
import tempfile
import threading
import time
import pytest
from sample_truth import SAMPLE, TruthReader

from scoring.tiles import parse_tiles

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
if not (CHROMIUM and CHROMEDRIVER):
    pytest.skip("chromium and chromedriver are not installed (run .ci/install_browser.sh)",
                allow_module_level=True)
webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install selenium)")
pytest.importorskip("uvicorn", reason="uvicorn (the 'serve' extra) is not installed")

from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve(reader):
    """The app on a free local port, with ``reader`` for a detector: yields its URL."""
    import uvicorn

    from vision.server import create_app

    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(reader=reader), host="127.0.0.1",
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
def server_url():
    yield from _serve(TruthReader())


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


def _score_the_sample(browser, url: str):
    """Open the page, say ron from the South seat, upload the sample: 1 han 30 fu as read
    (tests/sample_truth.py). Returns the options form."""
    browser.get(url + "/")
    form = browser.find_element(By.ID, "context")
    Select(form.find_element(By.NAME, "win")).select_by_value("ron")
    Select(form.find_element(By.NAME, "seat_wind")).select_by_value("S")
    browser.find_element(By.ID, "file").send_keys(str(SAMPLE))
    assert _headline(browser, "han") == "1 han 30 fu"
    return form


def test_upload_fix_a_tile_and_see_the_score_change(server_url, browser):
    _score_the_sample(browser, server_url)
    assert browser.title == "tilescope"
    assert "1000" in browser.find_element(By.ID, "payment").text
    WebDriverWait(browser, 10).until(lambda d: "Verdict: valid" in d.find_element(By.ID, "verdict").text)
    data = browser.execute_script("return state.data")
    index = next(i for i, t in enumerate(data["tiles"]) if t["tile"] == "5p")

    # Tap the misread tile on the canvas, as a finger would.
    canvas = browser.find_element(By.ID, "view")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", canvas)
    x1, y1, x2, y2 = data["tiles"][index]["box"]
    css_w, css_h, px_w, px_h = browser.execute_script(
        "const r = arguments[0].getBoundingClientRect();"
        "return [r.width, r.height, arguments[0].width, arguments[0].height];", canvas)
    dx = ((x1 + x2) / 2) * css_w / px_w - css_w / 2
    dy = ((y1 + y2) / 2) * css_h / px_h - css_h / 2
    ActionChains(browser).move_to_element_with_offset(canvas, round(dx), round(dy)).click().perform()

    picker = browser.find_element(By.ID, "picker")
    WebDriverWait(browser, 10).until(lambda d: picker.get_attribute("open") is not None,
                                     message="the tile picker did not open")
    assert browser.find_element(By.ID, "picker-current").text == "5p"
    picker.find_element(By.CSS_SELECTOR, "button[data-tile='0p']").click()

    assert _headline(browser, "2 han") == "2 han 30 fu"
    assert "2000" in browser.find_element(By.ID, "payment").text
    n = data["tiles"][index]["n"]
    assert browser.find_element(By.ID, "fixes").text == f"{n}=0p"
    data = browser.execute_script("return state.data")
    assert "0p" in [str(t) for t in parse_tiles(data["request"]["concealed"])]


def _set(browser, name: str, value: str) -> None:
    field = browser.find_element(By.ID, "context").find_element(By.NAME, name)
    field.clear()
    field.send_keys(value)
    browser.execute_script("arguments[0].dispatchEvent(new Event('change', {bubbles: true}))", field)


def test_furiten_verdict_a_failed_score_and_a_new_photo(server_url, browser):
    # the sample (tests/sample_truth.py) waits on 1m-4m: with 1m among the player's discards
    # the ron is furiten, chombo (seed rules 001), ruled from the photo by /api/check-photo
    form = _score_the_sample(browser, server_url)
    _set(browser, "discards", "1m")
    WebDriverWait(browser, 15).until(lambda d: "furiten" in d.find_element(By.ID, "verdict").text,
                                     message="no furiten verdict")
    assert "penalty 8000" in browser.find_element(By.ID, "verdict").text      # reverse mangan
    assert browser.find_element(By.ID, "payment").text.endswith("not paid: the win does not stand")
    # in tournament mode the chombo is a standings penalty (20,000: WRC/EMA)
    browser.execute_script("document.getElementById('table-rules').open = true")
    form.find_element(By.NAME, "tournament").click()
    WebDriverWait(browser, 15).until(lambda d: "penalty 20000" in d.find_element(By.ID, "verdict").text,
                                     message="no standings penalty")
    form.find_element(By.NAME, "tournament").click()
    # the table's rule options reach the request only where they differ from the defaults
    assert "rules" not in browser.execute_script("return context()")
    form.find_element(By.NAME, "aka").click()
    Select(form.find_element(By.NAME, "kazoe")).select_by_value("sanbaiman")
    assert browser.execute_script("return context().rules") == {"aka": False, "kazoe": "sanbaiman"}
    form.find_element(By.NAME, "aka").click()
    Select(form.find_element(By.NAME, "kazoe")).select_by_value("yakuman")
    # a dora the API refuses: the old value must not stay on screen as this answer
    _set(browser, "dora_indicators", "3x")
    WebDriverWait(browser, 15).until(lambda d: "Could not score" in d.find_element(By.ID, "status").text)
    assert not browser.find_element(By.ID, "result-section").is_displayed()
    _set(browser, "dora_indicators", "")
    # a new photo is a new hand: the last one's discards do not carry over
    browser.find_element(By.ID, "file").send_keys(str(SAMPLE))
    WebDriverWait(browser, 15).until(lambda d: "Verdict: valid" in d.find_element(By.ID, "verdict").text)
    assert form.find_element(By.NAME, "discards").get_attribute("value") == ""


def test_a_file_that_is_not_a_photo_says_so(server_url, browser, tmp_path):
    bad = tmp_path / "notes.jpg"
    bad.write_text("these are my notes, not a photo")
    browser.get(server_url + "/")
    browser.find_element(By.ID, "file").send_keys(str(bad))
    status = browser.find_element(By.ID, "status")
    WebDriverWait(browser, 10).until(lambda d: "not an image" in status.text,
                                     message="no error shown for a non-image file")
    assert "error" in status.get_attribute("class")


def test_overlay_page_shows_what_the_websocket_sends(browser):
    from vision.overlay import OverlayHub, OverlayServer

    hub = OverlayHub()
    server = OverlayServer(hub, _free_port())
    server.start()
    try:
        browser.get(f"http://127.0.0.1:{server.server.config.port}/")
        WebDriverWait(browser, 10).until(lambda d: hub.client_count == 1,
                                         message="the overlay page did not connect to /ws")
        hub.publish({"type": "hand", "frame": 7, "time_s": 0.7, "hand": {
            "tiles": ["2m", "3m", "4m"], "summary": "1 han 30 fu · 1000", "warnings": [],
            "request": {"concealed": "23m", "melds": [], "win_tile": "4m"},
            "result": {"yaku": [{"name": "yakuhai (chun)", "han": 1}]}}})
        WebDriverWait(browser, 10).until(
            lambda d: d.find_element(By.ID, "value").text == "1 han 30 fu · 1000")
        assert browser.find_element(By.ID, "lines").text == "yakuhai (chun) 1"
        chips = browser.find_elements(By.CSS_SELECTOR, "#tiles .tile")
        assert [c.text.replace("\n", "") for c in chips] == ["2m", "3m", "4m"]
        hub.publish({"type": "hand", "frame": 9, "time_s": 0.9, "hand": None})
        WebDriverWait(browser, 10).until(
            lambda d: "hidden" in d.find_element(By.ID, "card").get_attribute("class"))
        # the source ended: the last hand leaves the screen
        hub.publish({"type": "hand", "frame": 11, "time_s": 1.1, "hand": {
            "tiles": ["2m", "3m", "4m"], "summary": "1 han 30 fu · 1000", "warnings": [],
            "request": None, "result": {}}})
        WebDriverWait(browser, 10).until(
            lambda d: "hidden" not in d.find_element(By.ID, "card").get_attribute("class"))
        hub.publish({"type": "end"})
        WebDriverWait(browser, 10).until(
            lambda d: "hidden" in d.find_element(By.ID, "card").get_attribute("class"))
    finally:
        server.stop()


class FlatMeldReader(TruthReader):
    """The sample with its pon laid straight: the turned tile's box made upright, the size of
    the others, so the pon 777z (tiles 12-14) is set apart like a meld but no turned tile says
    so."""

    def read(self, img):
        from dataclasses import replace
        from statistics import median

        dets = super().read(img)
        upright = [d.box for d in dets.tiles if not d.sideways]
        w = median(b[2] - b[0] for b in upright)
        h = median(b[3] - b[1] for b in upright)

        def straight(d):
            cx, bottom = (d.box[0] + d.box[2]) / 2, d.box[3]
            return replace(d, box=(cx - w / 2, bottom - h, cx + w / 2, bottom), sideways=False)

        return replace(dets, tiles=[straight(d) if d.sideways else d for d in dets.tiles])


@pytest.fixture(scope="module")
def flat_meld_url():
    yield from _serve(FlatMeldReader())


def test_a_meld_warning_regroups_the_hand_with_one_tap(flat_meld_url, browser):
    """The pon without a seen turned tile is scored as exposed (1 han 30 fu, 1000, as in
    sample_truth); the warning's button, "regroup: 12-14 as concealed", declares tiles 12-14 concealed: a closed ron,
    yakuhai (chun) 1 han, fu 20 + 10 closed ron + 8 closed triplet of honours = 38 -> 40;
    non-dealer ron base 40 x 2^(1+2) = 320, x4 = 1280 -> 1300 (seed rules text)."""
    _score_the_sample(browser, flat_meld_url)
    button = WebDriverWait(browser, 10).until(
        lambda d: d.find_element(By.CSS_SELECTOR, "#warnings button.meld"))
    assert "tiles 12-14 (777z)" in button.find_element(By.XPATH, "..").text
    assert button.text == "regroup: 12-14 as concealed"     # says what one tap does
    button.click()
    assert _headline(browser, "40 fu") == "1 han 40 fu"
    assert "1300" in browser.find_element(By.ID, "payment").text
    melds = browser.find_element(By.ID, "context").find_element(By.NAME, "melds")
    assert melds.get_attribute("value") == "12-14=concealed"
    # typed by hand instead: emptied, the pon is exposed again; typed back, concealed again
    melds.clear()
    browser.execute_script("arguments[0].dispatchEvent(new Event('change', {bubbles: true}))", melds)
    assert _headline(browser, "30 fu") == "1 han 30 fu"
    melds.send_keys("12-14=concealed")
    browser.execute_script("arguments[0].dispatchEvent(new Event('change', {bubbles: true}))", melds)
    assert _headline(browser, "40 fu") == "1 han 40 fu"


def test_flowers_typed_as_zero_overrule_the_photo(server_url, browser):
    browser.get(server_url + "/")
    form = browser.find_element(By.ID, "context")
    Select(form.find_element(By.NAME, "ruleset")).select_by_value("mcr")
    assert "flowers" not in browser.execute_script("return context()")    # empty: as seen
    flowers = form.find_element(By.NAME, "flowers")
    flowers.send_keys("0")
    assert browser.execute_script("return context()")["flowers"] == 0


def test_what_belongs_to_the_last_photo_goes_with_it(server_url, browser, tmp_path):
    # a tester saw the last hand's value under a non-image's error, its corrections line and
    # dora indicator carried to the next photo, and a mistyped meld scored as if not typed
    form = _score_the_sample(browser, server_url)
    browser.execute_script("state.fixes = {3: '1p'}; showFixes();")
    _set(browser, "dora_indicators", "1p")
    _headline(browser, "han")
    browser.find_element(By.ID, "file").send_keys(str(SAMPLE))      # a new photo, a new hand
    _headline(browser, "1 han 30 fu")
    assert not browser.find_element(By.ID, "fixes-line").is_displayed()
    assert form.find_element(By.NAME, "dora_indicators").get_attribute("value") == ""
    _set(browser, "melds", "1-3 chi")
    WebDriverWait(browser, 10).until(lambda d: "Melds: write tile numbers" in d.find_element(By.ID, "status").text)
    assert not browser.find_element(By.ID, "result-section").is_displayed()
    _set(browser, "melds", "")
    _headline(browser, "1 han 30 fu")
    bad = tmp_path / "notes.jpg"
    bad.write_text("not a photo")
    browser.find_element(By.ID, "file").send_keys(str(bad))
    WebDriverWait(browser, 10).until(lambda d: "not an image" in d.find_element(By.ID, "status").text)
    assert not browser.find_element(By.ID, "result-section").is_displayed()
    assert not browser.find_element(By.ID, "canvas-wrap").is_displayed()
    # the table's rules are kept in this browser from one visit to the next
    browser.execute_script("document.getElementById('table-rules').open = true")
    form.find_element(By.NAME, "kiriage").click()
    browser.get(server_url + "/")
    assert browser.execute_script("return context().rules") == {"kiriage": True}
    browser.execute_script("localStorage.clear()")
    # the pipeline's command-line advice in the page's words
    said = browser.execute_script("return inPageWords(arguments[0])",
                                  "Look at them: pass --fix 1=2m --fix 8=4s if they are as read; "
                                  "pass --meld 12-14=concealed; pass --win-tile 3m")
    assert said == ("Look at them: set tile 1 to 2m, tile 8 to 4s (tap the tile) if they are as "
                    "read; write 12-14=concealed in the melds field; set the winning tile to 3m")


def test_a_number_the_browser_cannot_read_is_said_not_scored_as_zero(server_url, browser):
    # Chromium reads a number field holding "2e" as empty: the page scored it as 0 honba (and
    # as the photo's flowers) and showed that value as if it were the hand's with 2 honba
    form = _score_the_sample(browser, server_url)
    payment = browser.find_element(By.ID, "payment")
    _set(browser, "honba", "2")
    # ron 1000 + 2 honba x 300 (seed rules 001: 100 per honba from each of three, all from
    # the discarder on a ron) = 1600
    WebDriverWait(browser, 15).until(lambda d: "1600" in payment.text, message="honba not counted")
    for name, typed, said in (("honba", "2e", "Honba: write a whole number"),
                              ("riichi_sticks", "1.5", "Riichi sticks: write a whole number")):
        _set(browser, name, typed)
        status = browser.find_element(By.ID, "status")
        WebDriverWait(browser, 15).until(lambda d: said in status.text,
                                         message=f"{name} {typed!r} not said")
        assert "error" in status.get_attribute("class")
        assert not browser.find_element(By.ID, "result-section").is_displayed()
        _set(browser, name, "0")
        _headline(browser, "1 han 30 fu")
    Select(form.find_element(By.NAME, "ruleset")).select_by_value("mcr")
    _set(browser, "flowers", "1e")
    WebDriverWait(browser, 15).until(
        lambda d: "Flowers: write a whole number" in d.find_element(By.ID, "status").text,
        message="flowers '1e' not said")
    assert not browser.find_element(By.ID, "result-section").is_displayed()
    _set(browser, "flowers", "")
    Select(form.find_element(By.NAME, "ruleset")).select_by_value("riichi")


def test_a_tile_picker_open_on_the_last_photo_goes_with_it(server_url, browser):
    # A photo picked just before a tap decodes while the picker is open on the last photo's
    # tile 5p: the choice made in it then corrected the new photo's tile of that number (a 5p
    # made red: 2 han, 2000, on a hand nobody corrected). The new photo closes the picker.
    import base64

    _score_the_sample(browser, server_url)
    data = browser.execute_script("return state.data")
    index = next(i for i, t in enumerate(data["tiles"]) if t["tile"] == "5p")
    browser.execute_script("openPicker(arguments[0])", index)
    picker = browser.find_element(By.ID, "picker")
    assert picker.get_attribute("open") is not None
    photo = base64.b64encode(SAMPLE.read_bytes()).decode("ascii")
    browser.execute_async_script(
        "const [b64, done] = arguments;"
        "const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));"
        "loadPhoto(new File([bytes], 'next.jpg', {type: 'image/jpeg'})).then(done, done);", photo)
    assert _headline(browser, "han") == "1 han 30 fu"
    assert picker.get_attribute("open") is None
    # a choice that still reaches the picker (its close) belongs to the photo it was opened on
    browser.execute_script("const d = document.getElementById('picker'); d.returnValue = '0p';"
                           "d.dispatchEvent(new Event('close'))")
    assert browser.execute_script("return state.fixes") == {}
    assert not browser.find_element(By.ID, "fixes-line").is_displayed()


_HOLD_FETCHES = """
window.held = [];
const real = window.fetch.bind(window);
window.fetch = (url, opts) => new Promise((ok, no) => window.held.push({
  url, go: () => real(url, opts).then(ok, no), fail: () => no(new TypeError("Failed to fetch"))}));
"""


def _next_held(browser, how: str) -> str:
    """Let the oldest request the page made go (``go``) or fail (``fail``): its URL."""
    WebDriverWait(browser, 15).until(lambda d: d.execute_script("return window.held.length"),
                                     message="the page made no request")
    return browser.execute_script(f"const h = window.held.shift(); h.{how}(); return h.url;")


def _change(browser, name: str, value: str) -> None:
    """``name`` set to ``value`` with one change event (selenium's clear() sends one more)."""
    browser.execute_script("const f = document.getElementById('context')[arguments[0]];"
                           "f.value = arguments[1];"
                           "f.dispatchEvent(new Event('change', {bubbles: true}))", name, value)


def test_a_value_for_the_last_inputs_is_shown_as_such(server_url, browser):
    # While the answer for 2 honba was on its way, the page showed the 0-honba value (1000)
    # as it was, under the 2 typed; and a payment stood with no word that its ruling (a chombo
    # is not paid) was still to come, or had failed to come
    _score_the_sample(browser, server_url)
    WebDriverWait(browser, 15).until(lambda d: "Verdict: valid" in d.find_element(By.ID, "verdict").text)
    section = browser.find_element(By.ID, "result-section")
    payment = browser.find_element(By.ID, "payment")
    verdict = browser.find_element(By.ID, "verdict")
    assert "stale" not in section.get_attribute("class")
    browser.execute_script(_HOLD_FETCHES)
    _change(browser, "honba", "2")
    assert "1000" in payment.text                       # the last inputs' value, still there…
    assert "stale" in section.get_attribute("class")    # …shown as such
    assert section.get_attribute("aria-busy") == "true"
    assert _next_held(browser, "go") == "/api/score"
    # ron 1000 + 2 honba x 300 (seed rules 001) = 1600
    WebDriverWait(browser, 15).until(lambda d: "1600" in payment.text)
    assert "stale" not in section.get_attribute("class")
    assert verdict.text == "Verdict: being ruled…"
    assert _next_held(browser, "go") == "/api/check-photo"
    WebDriverWait(browser, 15).until(lambda d: "Verdict: valid" in verdict.text)
    _change(browser, "honba", "0")
    assert _next_held(browser, "go") == "/api/score"
    WebDriverWait(browser, 15).until(lambda d: "1000" in payment.text)
    assert _next_held(browser, "fail") == "/api/check-photo"
    WebDriverWait(browser, 15).until(lambda d: "cannot rule" in verdict.text,
                                     message="a verdict that never came was not said")
    assert "no answer from the server" in verdict.text
    browser.get(server_url + "/")                       # the page's own fetch again


def test_tiles_grouped_twice_in_the_melds_field_are_said(server_url, browser):
    # "12-14=concealed 12-14=pon" was sent as {"12-14": "pon"}: the sample scored with its pon
    # (1 han 30 fu, sample_truth) as if "concealed" were not typed; `tilescope score` refuses
    # --meld 12-14=concealed --meld 12-14=pon (already declared)
    _score_the_sample(browser, server_url)
    _change(browser, "melds", "12-14=concealed 012-14=pon")
    WebDriverWait(browser, 15).until(
        lambda d: "tiles 12-14 are written twice (concealed and pon)" in d.find_element(By.ID, "status").text,
        message="a grouping written twice was not said")
    assert not browser.find_element(By.ID, "result-section").is_displayed()
    _change(browser, "melds", "12-14=pon")
    assert _headline(browser, "han") == "1 han 30 fu"
    assert browser.execute_script("return melds()") == {"12-14": "pon"}


def test_the_payment_says_where_its_total_comes_from(server_url, browser):
    # ron with 2 riichi sticks on the table: the discarder pays the hand's 1000 and the winner
    # takes the sticks, 1000 each (seed rules 001): 3000. The line read "Winner receives 3000
    # (discarder pays 1000)", parts that do not add up to the total.
    _score_the_sample(browser, server_url)
    _change(browser, "riichi_sticks", "2")
    payment = browser.find_element(By.ID, "payment")
    WebDriverWait(browser, 15).until(lambda d: "3000" in payment.text, message="sticks not counted")
    assert payment.text == "Winner receives 3000 (discarder pays 1000, 2000 in riichi sticks)"
    _change(browser, "riichi_sticks", "0")
    WebDriverWait(browser, 15).until(lambda d: payment.text == "Winner receives 1000 (discarder pays 1000)")
