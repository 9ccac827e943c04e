"""The table mode page (/table) in a real headless Chromium at a phone's size (390 × 844),
driven by Selenium as tests/test_browser.py: a short riichi game of six events, the points
checked against values worked by hand from seed 001 (riichi rules, French), each step
naming its sentence. Skipped with the reason when chromium, chromedriver or selenium is
missing (.ci/install_browser.sh installs them).
"""
from __future__ import annotations

import os
import shutil
import socket
import tempfile
import threading
import time

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
if not (CHROMIUM and CHROMEDRIVER):
    pytest.skip("chromium and chromedriver are not installed (run .ci/install_browser.sh)",
                allow_module_level=True)
webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed")
pytest.importorskip("uvicorn", reason="uvicorn (the 'serve' extra) is not installed")

from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

PLAYERS = ["Ann", "Bob", "Cai", "Dan"]


@pytest.fixture(scope="module")
def server_url():
    import uvicorn

    from vision.server import create_app

    data = tempfile.mkdtemp(prefix="tilescope-table-")
    old = os.environ.get("TILESCOPE_DATA")
    os.environ["TILESCOPE_DATA"] = data
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(reader=object()), host="127.0.0.1",
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
    if old is None:
        os.environ.pop("TILESCOPE_DATA", None)
    else:
        os.environ["TILESCOPE_DATA"] = old
    shutil.rmtree(data, ignore_errors=True)


@pytest.fixture(scope="module")
def phone():
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    profile = tempfile.mkdtemp(prefix="tilescope-chromium-")
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--disable-dev-shm-usage", f"--user-data-dir={profile}"):
        opts.add_argument(flag)
    # a phone's viewport (390 × 844 CSS px), touch and its user agent
    opts.add_experimental_option("mobileEmulation", {
        "deviceMetrics": {"width": 390, "height": 844, "pixelRatio": 3.0}})
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=opts)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)


def points(d):
    return {c.get_attribute("data-player"): int(c.find_element(By.CLASS_NAME, "points").text)
            for c in d.find_elements(By.CSS_SELECTOR, "#players .player")}


def click(d, css):
    el = d.find_element(By.CSS_SELECTOR, css)
    d.execute_script("arguments[0].scrollIntoView({block: 'center'})", el)
    el.click()


def settle(d, text):
    """Wait until the status line says ``text`` (the server answered)."""
    WebDriverWait(d, 15).until(lambda x: text in x.find_element(By.ID, "table-status").text,
                               message=f"status never said {text!r}: "
                               + d.find_element(By.ID, "table-status").text)


def win_row(d, player, **fields):
    row = d.find_elements(By.CSS_SELECTOR, "#winners .winner-row")[-1]
    Select(row.find_element(By.CLASS_NAME, "w-player")).select_by_value(player)
    for name, value in fields.items():
        box = row.find_element(By.CLASS_NAME, "w-" + name.replace("_", "-"))
        box.clear()
        box.send_keys(str(value))


def test_a_short_game_on_a_phone(server_url, phone):
    d = phone
    d.get(server_url + "/")
    assert d.find_element(By.CSS_SELECTOR, "a[href='/table']")       # linked from the page
    d.get(server_url + "/table")
    assert d.execute_script("return window.innerWidth") == 390
    for i, name in enumerate(PLAYERS):
        d.find_element(By.ID, f"p{i}").send_keys(name)
    click(d, "#start")
    settle(d, "Game started")
    assert points(d) == dict.fromkeys(PLAYERS, 25000)
    assert d.find_element(By.ID, "round-line").text.startswith("East 1 · dealer Ann")

    # 1. « met en gage un bâton de 1000 points »
    click(d, "#act-riichi")
    Select(d.find_element(By.ID, "riichi-player")).select_by_value("Bob")
    click(d, "#form-riichi button[type=submit]")
    settle(d, "Recorded: riichi Bob")
    assert points(d)["Bob"] == 24000 and "1 riichi stick" in d.find_element(By.ID, "round-line").text

    # 2. Bob tsumo 2 han 30 fu: base 30 × 2^4 = 480; the dealer Ann pays 2 × 480 → 1000, Cai
    # and Dan 480 → 500; « Le gagnant récupère ... toutes les mises de riichi »; « Si un autre
    # joueur qu'Est gagne, les vents tournent »
    click(d, "#act-win")
    Select(d.find_element(By.ID, "win-how")).select_by_value("tsumo")
    win_row(d, "Bob", han=2, fu=30)
    click(d, "#form-win button[type=submit]")
    settle(d, "Recorded: tsumo Bob")
    assert points(d) == {"Ann": 24000, "Bob": 27000, "Cai": 24500, "Dan": 24500}
    assert d.find_element(By.ID, "round-line").text.startswith("East 2 · dealer Bob · 0 counters")

    # 3. « Si deux joueurs sont tenpai, les deux autres joueurs noten payent chacun 1500
    # points. » « Est reste Est uniquement s'il est tenpai [...] Un compteur est toujours ajouté. »
    click(d, "#act-draw")
    for name in ("Bob", "Cai"):
        click(d, f"#tenpai input[value={name}]")
    click(d, "#form-draw button[type=submit]")
    settle(d, "Recorded: draw")
    assert points(d) == {"Ann": 22500, "Bob": 28500, "Cai": 26000, "Dan": 23000}
    assert "East 2 · dealer Bob · 1 counter ·" in d.find_element(By.ID, "round-line").text

    # 4. the dealer Bob rons Ann, 3 han 40 fu: 40 × 2^5 × 6 = 7680 → 7700, + 300 a counter
    # (« Chaque compteur rapporte un bonus de 300 points »); « il reste Est et on incrémente »
    click(d, "#act-win")
    Select(d.find_element(By.ID, "win-how")).select_by_value("ron")
    Select(d.find_element(By.ID, "win-from")).select_by_value("Ann")
    win_row(d, "Bob", han=3, fu=40)
    click(d, "#form-win button[type=submit]")
    settle(d, "Recorded: ron Bob from Ann")
    assert points(d) == {"Ann": 14500, "Bob": 36500, "Cai": 26000, "Dan": 23000}
    assert "2 counters" in d.find_element(By.ID, "round-line").text

    # 5. « Le joueur fautif paye l'équivalent d'un mangan tsumo »: Cai pays the dealer Bob
    # 4000, Ann and Dan 2000; « Est reste Est mais le compteur n'est pas incrémenté »
    click(d, "#act-chombo")
    Select(d.find_element(By.ID, "chombo-player")).select_by_value("Cai")
    click(d, "#form-chombo button[type=submit]")
    settle(d, "Recorded: chombo Cai")
    assert points(d) == {"Ann": 16500, "Bob": 40500, "Cai": 18000, "Dan": 25000}
    click(d, "#act-undo")
    settle(d, "undone")
    assert points(d) == {"Ann": 14500, "Bob": 36500, "Cai": 26000, "Dan": 23000}

    # 6. Dan rons Ann with a hand the server scores: 22234m345p56678s + 4s, pinfu tanyao,
    # 2 han 30 fu → 30 × 2^4 × 4 = 1920 → 2000, + 2 counters × 300
    click(d, "#act-win")
    Select(d.find_element(By.ID, "win-from")).select_by_value("Ann")
    win_row(d, "Dan", hand="22234m345p56678s", tile="4s", dora_ind="9p")
    click(d, "#form-win button[type=submit]")
    settle(d, "Recorded: ron Dan from Ann")
    assert points(d) == {"Ann": 11900, "Bob": 36500, "Cai": 26000, "Dan": 25600}
    assert d.find_element(By.ID, "round-line").text.startswith("East 3 · dealer Cai · 0 counters")

    # a refused event names the rule: Ann (11900) cannot ron on her own discard
    click(d, "#act-win")
    Select(d.find_element(By.ID, "win-from")).select_by_value("Ann")
    win_row(d, "Ann", han=1, fu=30)
    click(d, "#form-win button[type=submit]")
    settle(d, "ron_by_discarder")
    assert "error" in d.find_element(By.ID, "table-status").get_attribute("class")

    # phone-sized: nothing wider than the screen, every label and button text ≥ 12 px
    assert d.execute_script("return document.documentElement.scrollWidth") <= 390
    small = d.execute_script("""
        return [...document.querySelectorAll('label, button, select, input, p, li, .wind')]
          .filter(e => e.offsetParent !== null)
          .filter(e => parseFloat(getComputedStyle(e).fontSize) < 12)
          .map(e => e.id || e.className || e.tagName);""")
    assert small == []


def test_an_mcr_session_on_a_phone(server_url, phone):
    d = phone
    d.get(server_url + "/table")
    if d.find_element(By.ID, "start-section").get_attribute("hidden") is not None:
        click(d, "#leave")                   # the page reopens the last game: start another
    for i, name in enumerate(PLAYERS):
        box = d.find_element(By.ID, f"p{i}")
        box.clear()
        box.send_keys(name)
    Select(d.find_element(By.ID, "ruleset")).select_by_value("mcr")
    assert not d.find_element(By.ID, "opt-east-only").is_displayed()
    click(d, "#start")
    settle(d, "Game started")
    assert not d.find_element(By.ID, "act-riichi").is_displayed()
    # « the discarder pays 8 + total, each other player 8 » (scoring/mcr/RULES.md, Payments)
    click(d, "#act-win")
    Select(d.find_element(By.ID, "win-from")).select_by_value("Cai")
    win_row(d, "Ann", fan=12)
    click(d, "#form-win button[type=submit]")
    settle(d, "Recorded: ron Ann from Cai")
    assert points(d) == {"Ann": 36, "Bob": -8, "Cai": -20, "Dan": -8}
    # the deal passes after every hand
    assert d.find_element(By.ID, "round-line").text == "East 2 · dealer Bob"
    # « необходимые 8 очков » (seed 000 §2.9.2): 9 with 2 flowers is 7 without them
    click(d, "#act-win")
    Select(d.find_element(By.ID, "win-how")).select_by_value("tsumo")
    win_row(d, "Bob", fan=9, flowers=2)
    click(d, "#form-win button[type=submit]")
    settle(d, "under_8_points")
