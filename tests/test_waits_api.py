"""``POST /api/waits`` (vision/server/routes/waits.py) through FastAPI's test client.

A typed hand answers what ``tilescope waits --text … --json`` prints; a photo is read by a fake
reader that lays out a known hand (tests/synthetic_hands.py), so every answer is known.
Values: riichi, dealer (seat East) 123456789m 11p 22p waiting on 1p/2p: ittsu 2 han 40 fu by
ron = 3900 (dealer table, scoring/riichi/limits.py; the CLI test checks the same line)."""
from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402

from synthetic_hands import Table, to_detections  # noqa: E402
from vision.cli.dispatch import main  # noqa: E402
from vision.server.app import Limits, create_app  # noqa: E402


class RowReader:
    """Fake detector: whatever the image, the tiles of ``hand`` in one row."""

    def __init__(self, hand: str):
        self.hand = hand

    def read(self, img):
        return to_detections(Table().row(self.hand))


def png() -> bytes:
    ok, buf = cv2.imencode(".png", np.full((120, 160, 3), 128, np.uint8))
    assert ok
    return buf.tobytes()


@pytest.fixture
def client():
    return TestClient(create_app(reader=RowReader("123456789m1122p")))


def cli_json(capsys, *argv) -> dict:
    assert main(["waits", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_typed_hand_answers_what_the_cli_prints(client, capsys):
    r = client.post("/api/waits", json={"ruleset": "riichi", "concealed": "123456789m1122p"})
    assert r.status_code == 200
    got = r.json()
    assert got == cli_json(capsys, "--text", "123456789m1122p")
    assert [w["tile"] for w in got["waits"]] == ["1p", "2p"] and got["waits_left"] == 4
    assert got["waits"][0]["ron"]["payment"]["total"] == 3900


def test_typed_table_keys_and_discards(client, capsys):
    body = {"concealed": "123456m789p1122s", "seat_wind": "S", "dora_indicators": "1s", "discards": "2s"}
    got = client.post("/api/waits", json=body).json()
    assert got == cli_json(capsys, "--text", "123456m789p1122s", "--seat", "S", "--dora", "1s",
                           "--discards", "2s")
    assert got["furiten"] is True and got["waits"][0]["note"].startswith("no yaku by ron")
    assert got["waits"][1]["tsumo"]["dora"]["dora"] == 3       # 2s wins: three 2s, indicator 1s


def test_typed_mcr_and_melds(client, capsys):
    body = {"ruleset": "mcr", "concealed": "147m258p369s5z", "melds": [{"type": "pon", "tiles": "777z"}]}
    got = client.post("/api/waits", json=body).json()
    assert got == cli_json(capsys, "--text", "147m258p369s5z +pon 777z", "--ruleset", "mcr")
    # Green Book fan 35: knitted straight + pung of 7z + tanki on 5z
    assert [w["tile"] for w in got["waits"]] == ["5z"]
    assert "Knitted Straight" in [f["name"] for f in got["waits"][0]["ron"]["fans"]]


def test_fourteen_tiles_give_the_discards(client):
    got = client.post("/api/waits", json={"concealed": "123456789m1122p5z"}).json()
    assert got["tiles"] == 14 and got["discards"][0]["discard"] == "5z"
    assert got["discards"][0]["accept_left"] == 4


@pytest.mark.parametrize("body, words", [
    ({"concealed": "123456789m1122p", "win": "ron"}, "has not won yet"),
    ({"concealed": "123456789m1122p", "win_tile": "1p"}, "has not won yet"),
    ({"concealed": "123m"}, "3 concealed tiles"),
    ({"concealed": "11111m23456789p"}, "5 copies"),
    ({"concealed": "12x"}, "concealed"),
    ({"concealed": "123456789m1122p", "discards": 5}, "discards"),
    ({"concealed": "123456789m1122p", "seat": "S"}, "unknown key"),
    (["123456789m1122p"], "JSON object"),
])
def test_bad_typed_hands_are_422_with_one_line(client, body, words):
    r = client.post("/api/waits", json=body)
    assert r.status_code == 422 and r.json()["code"] == "bad_hand"
    assert words in r.json()["error"] and "\n" not in r.json()["error"]


def test_bad_json_and_wrong_body_kind(client):
    r = client.post("/api/waits", content=b"{", headers={"content-type": "application/json"})
    assert r.status_code == 400 and r.json()["code"] == "bad_json"
    r = client.post("/api/waits", content=b"123m", headers={"content-type": "text/plain"})
    assert r.status_code == 422 and "JSON body" in r.json()["error"]


def test_photo_of_a_hand_in_play(client, capsys):
    r = client.post("/api/waits", files={"image": ("a.png", png(), "image/png")},
                    data={"context": json.dumps({"seat_wind": "E"}), "discards": "9s"})
    assert r.status_code == 200
    got = r.json()
    warnings = got.pop("warnings")
    assert isinstance(warnings, list)
    assert got == cli_json(capsys, "--text", "123456789m1122p", "--discards", "9s")
    assert got["furiten"] is False


def test_photo_fixes_apply_before_the_waits(client):
    # tile 13 of the row (the second 2p) corrected to 3p: 123456789m 11p 23p waits on 1p 4p
    r = client.post("/api/waits", files={"image": ("a.png", png(), "image/png")},
                    data={"fixes": json.dumps({"13": "3p"})})
    assert r.status_code == 200, r.json()
    assert r.json()["concealed"] == "123456789m1123p"
    assert [w["tile"] for w in r.json()["waits"]] == ["1p", "4p"]


@pytest.mark.parametrize("data, code, status", [
    ({"context": json.dumps({"concealed": "123m"})}, "bad_context", 422),
    ({"context": json.dumps({"win": "ron"})}, "bad_context", 422),
    ({"context": "{"}, "bad_json", 400),
    ({"win_tile": "1p"}, "invalid_request", 422),
    ({"fixes": json.dumps({"40": "1m"})}, "invalid_request", 422),
])
def test_bad_photo_fields(client, data, code, status):
    r = client.post("/api/waits", files={"image": ("a.png", png(), "image/png")}, data=data)
    assert r.status_code == status and r.json()["code"] == code, r.json()


def test_photo_limits_as_for_score():
    client = TestClient(create_app(reader=RowReader("123456789m1122p"), limits=Limits(max_upload_bytes=1000)))
    r = client.post("/api/waits", files={"image": ("a.png", b"x" * 5000, "image/png")})
    assert r.status_code == 413
    r = client.post("/api/waits", files={"image": ("a.png", b"not an image", "image/png")})
    assert r.status_code == 400 and r.json()["code"] == "not_an_image"
    r = client.post("/api/waits", data={"context": "{}"}, files={"other": ("a.png", png(), "image/png")})
    assert r.status_code == 422
