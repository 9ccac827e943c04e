"""The offline page's set steps (``vision.offline.sets``) answer as the server's set routes.

The browser reader's part (reading the sheet, naming its boxes) is played here by the Python
reader, as the page's JavaScript reader plays it; the expected answers are the server's
(``/api/set/learn`` through FastAPI's test client on the same photo and fields).
"""
from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import pytest

from tests.test_offline_api import reading
from vision.offline import sets
from vision.read.set_sheet import SHEET_THRESHOLDS

ROOT = Path(__file__).resolve().parent.parent
SHEET = ROOT / "vision" / "samples" / "set_sheet.jpg"


@pytest.fixture(scope="module")
def reader():
    from vision.read.detector import TileReader

    return TileReader()


def server_learns(tmp_path, monkeypatch, **data):
    from fastapi.testclient import TestClient
    from vision.server.app import create_app

    monkeypatch.setenv("TILESCOPE_DATA", str(tmp_path / "data"))
    r = TestClient(create_app()).post("/api/set/learn", data={"name": "club", **data}, files={
        "image": ("set_sheet.jpg", SHEET.read_bytes(), "image/jpeg")})
    return {"status": r.status_code, "body": r.json()}


def offline_learns(reader, form: dict) -> dict:
    """The page's steps, the reader's work done by the Python reader."""
    from vision.read.imageio import load_image

    image = load_image(SHEET)
    asked = sets.sheet_request(form)
    if "kinds" not in asked:
        return asked
    kinds = asked["kinds"]
    found = reading(reader.read(image))
    for conf in SHEET_THRESHOLDS:
        if sets.count_matches(found, kinds):
            break
        other = copy.copy(reader)
        other.conf = conf
        again = reading(other.read(image))
        if sets.count_matches(again, kinds):
            found = again
    ordered = sets.order_sheet(found, kinds)
    if "reading" not in ordered:
        return ordered
    boxes = np.array([t["box"] for t in ordered["reading"]["tiles"]], np.float64)
    probs = reader.classify(image, boxes).tolist()
    judged = sets.judge_sheet(ordered["reading"], kinds, probs, form.get("trust_order") == "true")
    if "disagreements" not in judged:
        return judged
    return sets.learned_answer(form["name"], len(kinds), len(set(kinds)), len(kinds), judged)


def test_a_sheet_is_learned_with_the_servers_answer(reader, tmp_path, monkeypatch):
    assert offline_learns(reader, {"name": "club"}) == server_learns(tmp_path, monkeypatch)


def test_a_count_that_is_not_the_sheets_is_refused_as_the_server_refuses_it(reader, tmp_path, monkeypatch):
    # the default sheet has 38 tiles; naming 37 is refused with the tiles found
    tiles = "123456789m 123456789p 123456789s 1234567z 0m0p0s"
    got = offline_learns(reader, {"name": "club", "tiles": tiles})
    want = server_learns(tmp_path, monkeypatch, tiles=tiles)
    assert got["status"] == want["status"] == 422 and want["body"]["code"] == "tile_count"
    assert got["body"]["error"] == want["body"]["error"]
    # the tiles found: the same tiles in the same order (boxes as Detections.to_json rounds them)
    assert got["body"]["found"] == want["body"]["found"]


def test_rows_named_in_another_order_are_refused_as_the_server_refuses_them(reader, tmp_path, monkeypatch):
    tiles = "123456789s 123456789p 123456789m 1234567z 0m0p0s back"
    got = offline_learns(reader, {"name": "club", "tiles": tiles})
    want = server_learns(tmp_path, monkeypatch, tiles=tiles)
    assert want["body"]["code"] == "out_of_order"
    assert got == want


def test_names_and_texts_refused_as_the_server_refuses_them(tmp_path, monkeypatch):
    for form in ({"name": "../etc"}, {"name": "club", "tiles": "12x"}, {"name": "club", "tiles": "1m" * 300}):
        want = server_learns(tmp_path, monkeypatch, **{k: v for k, v in form.items() if k != "name"},
                             **({"name": form["name"]} if form["name"] != "club" else {}))
        assert sets.sheet_request(form) == want, form


def test_a_set_change_is_answered_and_refused_as_the_server_does():
    # vision.server.routes.sets: the size after, the tile; an empty set and a stale size refused
    assert sets.change_answer("club", 39, 38, tile="5p", n=3) == {
        "status": 200, "body": {"name": "club", "references": 39, "kinds": 38, "tile": "5p", "n": 3}}
    assert sets.undo_refused("club", 0, None)["body"]["code"] == "empty_set"
    assert sets.undo_refused("club", 39, "38")["status"] == 409
    assert sets.undo_refused("club", 39, "39") is None
    score = {"tiles": [{"n": 1, "tile": "1m", "confidence": 0.9}, {"n": 2, "tile": "5p", "confidence": 1.0}]}
    assert sets.tile_to_add(score, 1, "2m", {})["tile"]["n"] == 1
    # tile 1 was fixed to another tile than sent: the one tile fixed to that code is taken
    assert sets.tile_to_add(score, 1, "5p", {"1": "9s"})["tile"]["n"] == 2
    assert sets.tile_to_add(score, 9, "9s", {})["body"]["code"] == "no_such_tile"
    assert sets.tile_to_add(score, 1, "5x", {})["body"]["code"] == "bad_tile"


def test_the_pages_other_set_words_are_the_servers():
    # what web/src/site/sets.js asks besides the steps: the thresholds, an unknown set's words
    # (SetStore.reader_for's for a request's set, SetStore.load's for an undo), the fixes field
    assert sets.sheet_thresholds() == list(SHEET_THRESHOLDS)
    assert sets.unknown_set("nosuch", ["b", "a"]) == {"status": 422, "body": {
        "error": "no set named 'nosuch' on this server (sets learned: a, b)", "code": "unknown_set"}}
    assert sets.unknown_set("nosuch", [])["body"]["error"].endswith("(sets learned: none yet)")
    assert sets.unknown_set("nosuch")["body"]["error"] == "no set named 'nosuch' on this server"
    assert sets.fixed_numbers('{"3": "5p"}') == {"3": "5p"}
    assert sets.fixed_numbers(None) == {}
