"""The shared event forms (vision/server/web/events.js, on /table and /control) given what a hurried
scorekeeper types: empty boxes, a yakuman beside han, a hand beside the points, the same
winner twice, the discarder among the winners, a negative han. Each is refused in one line
in the status, nothing recorded, the points unchanged; never a value silently dropped.
Values from seed 001 (riichi, French): « Les yakumans ... n'ont pas de valeur en hans »;
seed 000 (EMA MCR clarifications). Driven as tests/test_browser_table.py; skipped with the
reason when chromium, chromedriver or selenium is missing.
"""
from __future__ import annotations

import pytest
from browsing import need_browser

need_browser()

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

# the table page's server (a fresh data folder) and phone-sized browser, one each for this module
from test_browser_table import PLAYERS, click, phone, points, server_url, settle, status_text  # noqa: E402,F401


def start(d, url, ruleset):
    d.get(url + "/table")
    if d.find_element(By.ID, "start-section").get_attribute("hidden") is not None:
        click(d, "#leave")
    for i, name in enumerate(PLAYERS):
        box = d.find_element(By.ID, f"p{i}")
        box.clear()
        box.send_keys(name)
    Select(d.find_element(By.ID, "ruleset")).select_by_value(ruleset)
    click(d, "#start")
    settle(d, "Game started")


def fill(row, player, **fields):
    Select(row.find_element(By.CLASS_NAME, "w-player")).select_by_value(player)
    for name, value in fields.items():
        box = row.find_element(By.CLASS_NAME, "w-" + name.replace("_", "-"))
        box.clear()
        if value != "":
            box.send_keys(str(value))


def rows(d):
    return d.find_elements(By.CSS_SELECTOR, "#winners .winner-row")


def refused(d, text, before):
    click(d, "#form-win button[type=submit]")
    settle(d, text)
    assert "error" in d.find_element(By.ID, "table-status").get_attribute("class")
    assert "\n" not in status_text(d) and "Traceback" not in status_text(d)
    assert points(d) == before


def test_odd_riichi_wins_are_refused_in_words(server_url, phone):
    d = phone
    start(d, server_url, "riichi")
    before = dict.fromkeys(PLAYERS, 25000)
    click(d, "#act-win")
    Select(d.find_element(By.ID, "win-from")).select_by_value("Ann")
    # empty: nothing typed for the winner
    fill(rows(d)[0], "Bob")
    refused(d, "Type Bob's han and fu, a yakuman, or the hand.", before)
    # a yakuman has no han (seed 001): both typed is asked, not the han dropped unsaid
    fill(rows(d)[0], "Bob", han=3, fu=30, yakuman=1)
    refused(d, "A yakuman has no han nor fu: give Bob's yakuman or the han and fu, not both.",
            before)
    # the hand beside typed han: which one was meant is asked
    fill(rows(d)[0], "Bob", yakuman="", hand="22234m345p56678s", tile="4s")
    refused(d, "Give Bob's hand or the han, fu, not both.", before)
    # fu not in tens (35): the server's words, no code
    fill(rows(d)[0], "Bob", hand="", tile="", han=2, fu=35)
    refused(d, "fu are 25 or 20..110 in tens under 5 han, got 35", before)
    # the same winner twice on one discard, then the discarder among the winners
    fill(rows(d)[0], "Bob", fu=30)
    click(d, "#win-more")
    fill(rows(d)[1], "Bob", han=1, fu=30)
    refused(d, "Bob is named twice among the winners", before)
    fill(rows(d)[1], "Ann", han=1, fu=30)
    refused(d, "Ann cannot win on their own discard", before)
    # a negative han typed past the box's min: the server's range, in words
    d.execute_script("arguments[0].removeAttribute('min')", rows(d)[1].find_element(
        By.CLASS_NAME, "w-han"))
    fill(rows(d)[1], "Cai", han=-1, fu=30)
    refused(d, "Cai's han must be a whole number ≥ 0, got -1", before)
    # and a sound double ron goes through: 2 han 30 fu (Bob) 2000, 1 han 30 fu (Cai) 1000
    fill(rows(d)[1], "Cai", han=1, fu=30)
    click(d, "#form-win button[type=submit]")
    settle(d, "Recorded")
    assert points(d) == {"Ann": 22000, "Bob": 27000, "Cai": 26000, "Dan": 25000}


def test_odd_mcr_wins_are_refused_in_words(server_url, phone):
    d = phone
    start(d, server_url, "mcr")
    before = dict.fromkeys(PLAYERS, 0)
    click(d, "#act-win")
    Select(d.find_element(By.ID, "win-from")).select_by_value("Ann")
    fill(rows(d)[0], "Bob")
    refused(d, "Type Bob's points (fan), or the hand.", before)
    fill(rows(d)[0], "Bob", fan=12, hand="123m456m789m123p5p", tile="5p")
    refused(d, "Give Bob's points (fan) or the hand, not both.", before)
    # « необходимые 8 очков » (seed 000 §2.9.2)
    fill(rows(d)[0], "Bob", fan=7, hand="", tile="")
    refused(d, "8 points without flowers", before)
    # « the discarder pays 8 + total, each other player 8 »
    fill(rows(d)[0], "Bob", fan=8)
    click(d, "#form-win button[type=submit]")
    settle(d, "Recorded")
    assert points(d) == {"Ann": -16, "Bob": 32, "Cai": -8, "Dan": -8}
