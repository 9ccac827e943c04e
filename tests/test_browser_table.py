"""The table mode page (/table) in a real headless Chromium at a phone's size (390 × 844),
driven by Selenium as tests/test_browser.py: a short riichi game of six events, the points
checked against values worked by hand from seed 001 (riichi rules, French), each step
naming its sentence. Skipped with the reason when chromium, chromedriver or selenium is
missing (.ci/install_browser.sh installs them).
"""
from __future__ import annotations

import os
import shutil
import tempfile

import pytest
from browsing import chromium, click, need_browser, points, serve, settle

need_browser()

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

PLAYERS = ["Ann", "Bob", "Cai", "Dan"]


@pytest.fixture(scope="module")
def server_url():
    from vision.server.app import create_app

    data = tempfile.mkdtemp(prefix="tilescope-table-")
    old = os.environ.get("TILESCOPE_DATA")
    os.environ["TILESCOPE_DATA"] = data
    try:
        with serve(create_app(reader=object())) as url:
            yield url
    finally:
        if old is None:
            os.environ.pop("TILESCOPE_DATA", None)
        else:
            os.environ["TILESCOPE_DATA"] = old
        shutil.rmtree(data, ignore_errors=True)


@pytest.fixture(scope="module")
def phone():
    with chromium(phone=True) as driver:
        yield driver


# every visible control or link under 44 CSS px tall (a checkbox or radio measured by its
# label, its hit area): "[id or class] height" ("Score a hand" was a 41-px link)
SHORT_CONTROLS = """
    return [...document.querySelectorAll('input, select, button, summary, a')]
      .filter(e => e.getClientRects().length && getComputedStyle(e).visibility !== 'hidden')
      .map(e => [e, /checkbox|radio/.test(e.type) ? e.closest('label') : e])
      .filter(([e, hit]) => hit.getBoundingClientRect().height < 44)
      .map(([e, hit]) => (e.id || e.className || e.name || e.tagName) + ' '
        + Math.round(hit.getBoundingClientRect().height));"""


def short_controls(d):
    return d.execute_script(SHORT_CONTROLS)


def status_text(d):
    return d.find_element(By.ID, "table-status").text


def background(d, css):
    return d.execute_script("return getComputedStyle(arguments[0]).backgroundColor",
                            d.find_element(By.CSS_SELECTOR, css))


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
    assert short_controls(d) == []                   # a finger's 44 px (Apple HIG), checkboxes too
    for i, name in enumerate(PLAYERS):
        d.find_element(By.ID, f"p{i}").send_keys(name)
    click(d, "#start")
    settle(d, "Game started")
    assert points(d) == dict.fromkeys(PLAYERS, 25000)
    assert d.find_element(By.ID, "round-line").text.startswith("East 1 · dealer Ann")

    # 1. « met en gage un bâton de 1000 points »
    click(d, "#act-riichi")
    # no player is chosen for the user: the form sent as it opened records nothing
    assert Select(d.find_element(By.ID, "riichi-player")).first_selected_option.text == "choose…"
    click(d, "#form-riichi button[type=submit]")
    settle(d, "Choose who declares riichi")
    assert points(d) == dict.fromkeys(PLAYERS, 25000)
    Select(d.find_element(By.ID, "riichi-player")).select_by_value("Bob")
    click(d, "#form-riichi button[type=submit]")
    settle(d, "Recorded: Bob declares riichi")
    assert points(d)["Bob"] == 24000 and "1 riichi stick" in d.find_element(By.ID, "round-line").text

    # 2. Bob tsumo 2 han 30 fu: base 30 × 2^4 = 480; the dealer Ann pays 2 × 480 → 1000, Cai
    # and Dan 480 → 500; « Le gagnant récupère ... toutes les mises de riichi »; « Si un autre
    # joueur qu'Est gagne, les vents tournent »
    click(d, "#act-win")
    Select(d.find_element(By.ID, "win-how")).select_by_value("tsumo")
    win_row(d, "Bob", han=2, fu=30)
    assert short_controls(d) == []
    click(d, "#form-win button[type=submit]")
    settle(d, "Recorded: Bob wins by tsumo")
    assert points(d) == {"Ann": 24000, "Bob": 27000, "Cai": 24500, "Dan": 24500}
    assert d.find_element(By.ID, "round-line").text.startswith("East 2 · dealer Bob · 0 counters")

    # 3. « Si deux joueurs sont tenpai, les deux autres joueurs noten payent chacun 1500
    # points. » « Est reste Est uniquement s'il est tenpai [...] Un compteur est toujours ajouté. »
    click(d, "#act-draw")
    # the open form's button is the highlighted one, not Win
    accent = background(d, "#form-draw button[type=submit]")
    assert background(d, "#act-draw") == accent and background(d, "#act-win") != accent
    assert d.find_element(By.ID, "act-draw").get_attribute("aria-expanded") == "true"
    assert short_controls(d) == []
    for name in ("Bob", "Cai"):
        click(d, f"#tenpai input[value={name}]")
    click(d, "#form-draw button[type=submit]")
    settle(d, "Recorded: exhaustive draw, tenpai: Bob, Cai")
    assert points(d) == {"Ann": 22500, "Bob": 28500, "Cai": 26000, "Dan": 23000}
    assert "East 2 · dealer Bob · 1 counter ·" in d.find_element(By.ID, "round-line").text

    # 4. the dealer Bob rons Ann, 3 han 40 fu: 40 × 2^5 × 6 = 7680 → 7700, + 300 a counter
    # (« Chaque compteur rapporte un bonus de 300 points »); « il reste Est et on incrémente »
    click(d, "#act-win")
    Select(d.find_element(By.ID, "win-how")).select_by_value("ron")
    Select(d.find_element(By.ID, "win-from")).select_by_value("Ann")
    win_row(d, "Bob", han=3, fu=40)
    click(d, "#form-win button[type=submit]")
    settle(d, "Recorded: Bob wins by ron from Ann")
    assert points(d) == {"Ann": 14500, "Bob": 36500, "Cai": 26000, "Dan": 23000}
    assert "2 counters" in d.find_element(By.ID, "round-line").text

    # 5. « Le joueur fautif paye l'équivalent d'un mangan tsumo »: Cai pays the dealer Bob
    # 4000, Ann and Dan 2000; « Est reste Est mais le compteur n'est pas incrémenté »
    click(d, "#act-chombo")
    Select(d.find_element(By.ID, "chombo-player")).select_by_value("Cai")
    click(d, "#form-chombo button[type=submit]")
    settle(d, "Recorded: chombo by Cai")
    assert points(d) == {"Ann": 16500, "Bob": 40500, "Cai": 18000, "Dan": 25000}
    # undo asks first, naming the event; "Keep it" keeps it
    click(d, "#act-undo")
    assert d.find_element(By.ID, "undo-what").text.startswith("Undo: chombo by Cai? (")
    assert points(d) == {"Ann": 16500, "Bob": 40500, "Cai": 18000, "Dan": 25000}
    click(d, "#undo-keep")
    assert not d.find_element(By.ID, "form-undo").is_displayed()
    click(d, "#act-undo")
    click(d, "#form-undo button[type=submit]")
    settle(d, "Undone: chombo by Cai")
    assert points(d) == {"Ann": 14500, "Bob": 36500, "Cai": 26000, "Dan": 23000}

    # 6. Dan rons Ann with a hand the server scores: 22234m345p56678s + 4s, pinfu tanyao,
    # 2 han 30 fu → 30 × 2^4 × 4 = 1920 → 2000, + 2 counters × 300
    click(d, "#act-win")
    Select(d.find_element(By.ID, "win-from")).select_by_value("Ann")
    win_row(d, "Dan", hand="22234m345p56678s", tile="4s", dora_ind="9p")
    click(d, "#form-win button[type=submit]")
    settle(d, "Recorded: Dan wins by ron from Ann")
    assert points(d) == {"Ann": 11900, "Bob": 36500, "Cai": 26000, "Dan": 25600}
    assert d.find_element(By.ID, "round-line").text.startswith("East 3 · dealer Cai · 0 counters")

    # a refused event names the rule in words: Ann (11900) cannot ron on her own discard;
    # no error code, no "GAME-ID:LINE:" of the file
    game_id = d.execute_script("return localStorage.getItem('tilescope.table.game')")
    click(d, "#act-win")
    Select(d.find_element(By.ID, "win-from")).select_by_value("Ann")
    win_row(d, "Ann", han=1, fu=30)
    click(d, "#form-win button[type=submit]")
    settle(d, "own discard")
    assert "error" in d.find_element(By.ID, "table-status").get_attribute("class")
    assert "ron_by_discarder" not in status_text(d) and game_id not in status_text(d)
    # « 25 fu pour les 7 paires »; otherwise fu go in tens: 35 is refused, said plainly
    win_row(d, "Ann", han=1, fu=35)
    Select(d.find_element(By.ID, "win-from")).select_by_value("Bob")
    click(d, "#form-win button[type=submit]")
    settle(d, "fu")
    assert "bad_value" not in status_text(d) and game_id not in status_text(d)
    assert not status_text(d).startswith(game_id[:8])
    # the abortive draw's reasons in words, never the file's codes
    click(d, "#act-abortive")
    reasons = [o.text for o in Select(d.find_element(By.ID, "abortive-reason")).options]
    assert all("_" not in r for r in reasons) and "Nine terminals and honours" in reasons
    Select(d.find_element(By.ID, "abortive-reason")).select_by_value("four_kans")
    assert short_controls(d) == []

    # phone-sized: nothing wider than the screen, every label and button text ≥ 12 px
    assert d.execute_script("return document.documentElement.scrollWidth") <= 390
    small = d.execute_script("""
        return [...document.querySelectorAll('label, button, select, input, p, li, .wind')]
          .filter(e => e.offsetParent !== null)
          .filter(e => parseFloat(getComputedStyle(e).fontSize) < 12)
          .map(e => e.id || e.className || e.tagName);""")
    assert small == []
    # the placeholders' text reads at 4.5:1 on the white field (WCAG AA)
    assert d.execute_script(CONTRAST, "input.w-hand") >= 4.5


# the contrast of an element's (or its ::placeholder's) text on white: WCAG 2's formula
CONTRAST = """
    const el = document.querySelector(arguments[0]);
    const css = getComputedStyle(el, el.tagName === 'INPUT' ? '::placeholder' : null).color;
    const [r, g, b] = css.match(/[\\d.]+/g).map(Number).map(v => v / 255)
      .map(v => v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
    const lum = 0.2126 * r + 0.7152 * g + 0.0722 * b;
    return 1.05 / (lum + 0.05);"""


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
    settle(d, "Recorded: Ann wins by ron from Cai")
    assert points(d) == {"Ann": 36, "Bob": -8, "Cai": -20, "Dan": -8}
    # the deal passes after every hand
    assert d.find_element(By.ID, "round-line").text == "East 2 · dealer Bob"
    # « необходимые 8 очков » (seed 000 §2.9.2): 9 with 2 flowers is 7 without them
    click(d, "#act-win")
    Select(d.find_element(By.ID, "win-how")).select_by_value("tsumo")
    win_row(d, "Bob", fan=9, flowers=2)
    click(d, "#form-win button[type=submit]")
    settle(d, "8")
    # the message alone, in the page's words: no code, and the button's "False hu"
    assert "under_8_points" not in status_text(d) and "false_win" not in status_text(d)
    # the false hu form: whose, and the hand shown, each answer on its own line, whole
    click(d, "#act-false")
    accent = background(d, "#form-false button[type=submit]")
    assert background(d, "#act-false") == accent and background(d, "#act-win") != accent
    assert short_controls(d) == []
    kinds = d.find_elements(By.CSS_SELECTOR, "#false-kind label")
    assert [k.text for k in kinds] == ["4 sets and a pair, under 8 points: 10 to each",
                                       "Not a hand: 20 to each"]
    assert all(d.execute_script("const r = arguments[0].getBoundingClientRect();"
                                "return r.left >= 0 && r.right <= 390 && "
                                "arguments[0].scrollWidth <= arguments[0].clientWidth", k) for k in kinds)
    click(d, "#form-false button[type=submit]")              # nobody chosen: nothing recorded
    settle(d, "Choose who declared the false hu")
    Select(d.find_element(By.ID, "false-player")).select_by_value("Bob")
    click(d, "#form-false button[type=submit]")              # no hand chosen: nothing either
    settle(d, "Choose the hand shown")
    assert points(d) == {"Ann": 36, "Bob": -8, "Cai": -20, "Dan": -8}
    click(d, "#false-kind input[value=short]")
    click(d, "#form-false button[type=submit]")
    settle(d, "Recorded: false hu by Bob")
    # « a revealed false hu with a complete hand under 8 points pays 10 to each other player »
    # (scoring/mcr/RULES.md, Disputed wins; seed 000 §2.9.2)
    assert points(d) == {"Ann": 46, "Bob": -38, "Cai": -10, "Dan": 2}
    assert d.execute_script("return document.documentElement.scrollWidth") <= 390
    # Bob's hand is dead after his false hu (seed 000 §2.8.9): his tsumo is refused, §3.2
    # quoted: « Мертвая рука: нарушитель не может объявлять «ху», но продолжает играть »
    assert "dead hand" in d.find_element(By.CSS_SELECTOR, "#players .player[data-player=Bob]").text
    click(d, "#act-win")
    Select(d.find_element(By.ID, "win-how")).select_by_value("tsumo")
    win_row(d, "Bob", fan=8)
    click(d, "#form-win button[type=submit]")
    settle(d, "нарушитель не может объявлять «ху»")
    assert "Bob's hand is dead" in status_text(d) and "§3.2" in status_text(d)
    assert points(d) == {"Ann": 46, "Bob": -38, "Cai": -10, "Dan": 2}
    # §3.1 penalties on the same page: a warning, then 5 points off Dan's score only
    for said in ("warning", "5 points"):
        click(d, "#act-penalty")
        Select(d.find_element(By.ID, "penalty-player")).select_by_value("Dan")
        assert short_controls(d) == []
        click(d, "#form-penalty button[type=submit]")
        settle(d, "Recorded: penalty to Dan")
        # the status line is written before the lists are drawn again: wait for them (a loaded
        # machine drew the players' penalties after the status)
        WebDriverWait(d, 15).until(lambda x: said in x.find_element(By.ID, "last-lines").text)
    WebDriverWait(d, 15).until(
        lambda x: "penalties -5" in x.find_element(By.CSS_SELECTOR, "#players .player[data-player=Dan]").text)
    assert points(d) == {"Ann": 46, "Bob": -38, "Cai": -10, "Dan": 2}
    assert d.execute_script("return document.documentElement.scrollWidth") <= 390
