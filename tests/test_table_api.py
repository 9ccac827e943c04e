"""The server's table mode (vision/server/routes/game.py): games kept as JSON Lines on the device.

Payments from seed 001 (riichi rules, French), the sentence quoted beside each check.
"""
import json

import pytest

pytest.importorskip("httpx", reason="the server's test client needs httpx")
from fastapi.testclient import TestClient  # noqa: E402

from vision.server.app import create_app  # noqa: E402

PLAYERS = ["Ann", "Bob", "Cai", "Dan"]


@pytest.fixture
def client(tmp_path, monkeypatch):
    monkeypatch.setenv("TILESCOPE_DATA", str(tmp_path))
    return TestClient(create_app(reader=object()))


def new(client, **body):
    r = client.post("/api/games", json={"players": PLAYERS, **body})
    assert r.status_code == 200, r.text
    return r.json()


def test_a_game_start_events_undo_and_the_file(client, tmp_path):
    g = new(client, options={"east_only": True})
    gid = g["id"]
    assert g["state"]["points"] == dict.fromkeys(PLAYERS, 25000) and g["state"]["round"] == "East 1"
    # « met en gage un bâton de 1000 points »
    r = client.post(f"/api/games/{gid}/events", json={"type": "riichi", "player": "Bob"})
    assert r.json()["state"]["sticks"] == 1 and r.json()["state"]["riichi"] == ["Bob"]
    # 2 han 30 fu tsumo, base 480: the dealer Ann pays 1000, Cai and Dan 500; Bob takes the stick
    r = client.post(f"/api/games/{gid}/events",
                    json={"type": "tsumo", "player": "Bob", "han": 2, "fu": 30})
    s = r.json()["state"]
    assert s["points"] == {"Ann": 24000, "Bob": 27000, "Cai": 24500, "Dan": 24500}
    assert (s["round"], s["dealer"], s["sticks"]) == ("East 2", "Bob", 0)
    assert r.json()["history"][-1]["lines"][0] == "Ann pays Bob 1000"
    # the same JSON Lines as `tilescope game`
    lines = (tmp_path / "games" / f"{gid}.jsonl").read_text().splitlines()
    assert json.loads(lines[0]) == {"type": "game", "players": PLAYERS,
                                    "options": {"east_only": True}}
    assert len(lines) == 3
    r = client.post(f"/api/games/{gid}/undo")
    assert r.json()["state"]["points"]["Bob"] == 24000 and r.json()["events"] == 1
    assert client.get(f"/api/games/{gid}").json()["events"] == 1
    assert [g["id"] for g in client.get("/api/games").json()["games"]] == [gid]


def test_refused_events_name_the_rule_and_keep_the_file(client, tmp_path):
    gid = new(client)["id"]
    path = tmp_path / "games" / f"{gid}.jsonl"
    before = path.read_text()
    for event, code in [({"type": "riichi", "player": "Zed"}, "unknown_player"),
                        ({"type": "abortive", "reason": "four_kans", "kans": ["Bob"] * 4},
                         "four_kans_not_abortive"),
                        ({"type": "yell"}, "invalid_event"), ([1, 2], "invalid_request")]:
        r = client.post(f"/api/games/{gid}/events", json=event)
        assert r.status_code == 422 and r.json()["code"] == code, r.text
    assert path.read_text() == before
    r = client.post(f"/api/games/{gid}/events", content=b'{"type": ',
                    headers={"content-type": "application/json"})
    assert r.status_code == 400 and r.json()["code"] == "bad_json"
    assert client.post(f"/api/games/{gid}/undo").json()["code"] == "nothing_to_undo"
    assert client.get("/api/games/../../etc").status_code == 404
    assert client.get("/api/games/20991231-000000-abcdef").json()["code"] == "unknown_game"
    r = client.post("/api/games", json={"players": ["A", "B", "C", "A"]})
    assert r.status_code == 422 and r.json()["code"] == "bad_players"
    r = client.post("/api/games", json={"players": PLAYERS, "colour": "red"})
    assert r.status_code == 422 and "colour" in r.json()["error"]
    r = client.post("/api/games", json={"players": PLAYERS, "options": {"east_only": "yes"}})
    assert r.status_code == 422 and r.json()["code"] == "invalid_game"


def test_an_mcr_session_ends_with_table_points(client):
    gid = new(client, ruleset="mcr")["id"]
    # the discarder pays 8 + total, each other player 8 (scoring/mcr/RULES.md, Payments)
    r = client.post(f"/api/games/{gid}/events", json={
        "type": "ron", "discarder": "Cai", "winners": [{"player": "Ann", "fan": 12}]})
    assert r.json()["state"]["points"] == {"Ann": 36, "Bob": -8, "Cai": -20, "Dan": -8}
    for _ in range(15):
        r = client.post(f"/api/games/{gid}/events", json={"type": "draw"})
    g = r.json()
    assert g["state"]["ended"] and [(x["name"], x["table_points"]) for x in g["ranking"]] == [
        ("Ann", 4.0), ("Bob", 1.5), ("Dan", 1.5), ("Cai", 0.0)]
    # ema.py: « players tied on score share the points of the places they cover »: (2 + 1) / 2


# finding 9: a refused request is named by what is wrong with it alone: no game id, no line of
# a file that was never written
def test_a_refused_request_names_its_problem_only(client, tmp_path):
    r = client.post("/api/games", json={"players": PLAYERS[:3]})
    assert r.status_code == 422 and r.json() == {"error": "a game has 4 players, got 3",
                                                 "code": "invalid_game"}
    games = tmp_path / "games"
    assert not games.exists() or not list(games.glob("*.jsonl"))      # nothing written
    gid = new(client)["id"]
    r = client.post(f"/api/games/{gid}/events", json={"type": "riichi"})
    assert r.json() == {"error": 'a riichi event needs "player"', "code": "invalid_event"}
    # seed 001 line 108: « Une main à 1 yaku 20 mini-points n'existe pas »
    r = client.post(f"/api/games/{gid}/events",
                    json={"type": "tsumo", "player": "Bob", "han": 1, "fu": 20})
    assert r.json()["code"] == "bad_value" and r.json()["error"].startswith("Bob's tsumo: 1 han 20 fu")
