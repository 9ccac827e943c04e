"""Issue 39, "who may write": a page of another site cannot change the ledger, a set or a
game (Origin/Referer must be the server's own, the body JSON or multipart), and only known
Host names are answered (DNS rebinding), on ``serve`` and on ``stream --overlay``'s server."""
from __future__ import annotations

import json

import pytest

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402

from vision.server.routes.origin import known_hosts  # noqa: E402
from vision.server.app import create_app  # noqa: E402

PLAYERS = ["Ann", "Bob", "Cai", "Dan"]
EVIL = {"Origin": "http://evil.example"}
RIICHI = '{"action":"add","event":{"type":"riichi","player":"Dan"}}'


@pytest.fixture
def games(tmp_path, monkeypatch):
    monkeypatch.setenv("TILESCOPE_DATA", str(tmp_path))
    c = TestClient(create_app(reader=object()))
    gid = c.post("/api/games", json={"players": PLAYERS}).json()["id"]
    assert c.post(f"/api/games/{gid}/events", json={"type": "riichi", "player": "Bob"}).status_code == 200
    return c, gid, tmp_path / "games" / f"{gid}.jsonl"


@pytest.fixture
def ledger(tmp_path):
    from vision.stream.control import Control
    from vision.server.ledger import LedgerSession
    from vision.stream.livecontext import LiveContext
    from vision.stream.overlay import OverlayHub, create_overlay_app

    path = tmp_path / "g.jsonl"
    path.write_text(json.dumps({"type": "game", "players": PLAYERS}) + "\n")
    session = LedgerSession(str(path))
    hub = OverlayHub()
    app = create_overlay_app(hub, Control(LiveContext({"ruleset": "riichi"}), session, hub.publish),
                             allowed_hosts=known_hosts("127.0.0.1"))
    return TestClient(app, base_url="http://127.0.0.1:8765"), path


def test_a_foreign_origin_text_plain_post_does_not_change_the_ledger(ledger):
    c, path = ledger
    before = path.read_text()
    r = c.post("/api/control/ledger", content=RIICHI,
               headers={**EVIL, "Content-Type": "text/plain"})
    assert r.status_code == 403 and r.json()["code"] == "cross_origin"
    r = c.post("/api/control/ledger", content=RIICHI, headers={"Content-Type": "text/plain"})
    assert r.status_code == 415 and r.json()["code"] == "unsupported_media_type"
    r = c.post("/api/control/hand", json={"winner": "Dan"}, headers=EVIL)
    assert r.status_code == 403
    assert path.read_text() == before          # not one event written


def test_the_control_page_itself_and_curl_still_keep_the_ledger(ledger):
    c, path = ledger
    own = {"Origin": "http://127.0.0.1:8765", "Sec-Fetch-Site": "same-origin"}
    r = c.post("/api/control/ledger", content=RIICHI,
               headers={**own, "Content-Type": "application/json"})
    assert r.status_code == 200, r.text
    r = c.post("/api/control/ledger", json={"action": "undo"})      # curl: no Origin
    assert r.status_code == 200
    assert len(path.read_text().splitlines()) == 1


def test_a_control_body_naming_a_key_twice_is_refused(ledger):
    c, path = ledger
    r = c.post("/api/control/ledger", content='{"action": "add", "event": {"type": "riichi", '
               '"player": "Dan"}, "event": {"type": "riichi", "player": "Ann"}}',
               headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and "'event' is given twice" in r.json()["error"]
    assert len(path.read_text().splitlines()) == 1


def test_the_overlay_answers_only_known_host_names(ledger):
    c, _ = ledger
    assert c.get("/api/current").status_code == 200
    assert c.get("/api/current", headers={"Host": "rebound.evil.example"}).status_code == 400


def test_a_foreign_origin_cannot_undo_a_game_event(games):
    c, gid, path = games
    before = path.read_text()
    r = c.post(f"/api/games/{gid}/undo", headers=EVIL)
    assert r.status_code == 403
    r = c.post(f"/api/games/{gid}/undo", headers={"Referer": "http://evil.example/page.html"})
    assert r.status_code == 403
    r = c.post(f"/api/games/{gid}/undo", headers={"Origin": "null"})
    assert r.status_code == 403
    r = c.post(f"/api/games/{gid}/events", content='{"type": "riichi", "player": "Cai"}',
               headers={"Content-Type": "text/plain"})
    assert r.status_code == 415
    assert path.read_text() == before
    assert c.post(f"/api/games/{gid}/undo", headers={"Origin": "http://testserver"}).status_code == 200


def test_a_form_encoded_set_undo_is_refused_with_415(tmp_path, monkeypatch):
    monkeypatch.setenv("TILESCOPE_DATA", str(tmp_path))
    c = TestClient(create_app(reader=object()))
    r = c.post("/api/set/undo", data={"name": "club"})
    assert r.status_code == 415
    r = c.post("/api/set/undo", files={"name": (None, "club")}, headers=EVIL)
    assert r.status_code == 403
    r = c.post("/api/set/undo", files={"name": (None, "club")})
    assert r.json()["code"] == "unknown_set"          # its own page's multipart: taken


def test_reads_from_other_origins_are_not_writes(tmp_path, monkeypatch):
    monkeypatch.setenv("TILESCOPE_DATA", str(tmp_path))
    c = TestClient(create_app(reader=object()))
    assert c.get("/api/games", headers=EVIL).status_code == 200


def test_serve_answers_only_its_known_host_names():
    # any Host: was accepted, so a DNS-rebinding page could read the server's state
    c = TestClient(create_app(reader=object(), allowed_hosts=known_hosts("127.0.0.1")),
                   base_url="http://127.0.0.1:8000")
    assert c.get("/api/health").status_code == 200
    assert c.get("/api/health", headers={"Host": "localhost:8000"}).status_code == 200
    assert c.get("/api/health", headers={"Host": "attacker.example:8000"}).status_code == 400


def test_known_hosts_are_the_loopback_names_and_the_bound_host():
    assert known_hosts("127.0.0.1") == ["127.0.0.1", "::1", "[::1]", "localhost"]
    assert "table.club.lan" in known_hosts("table.club.lan")
    assert "scores.example" in known_hosts("127.0.0.1", ("scores.example",))
    assert "evil.example" not in known_hosts("0.0.0.0")


def test_a_network_server_takes_changes_only_from_paired_clients(tmp_path, monkeypatch):
    # with --host 0.0.0.0 nothing asked who was writing
    from vision.server.routes.origin import Pairing

    monkeypatch.setenv("TILESCOPE_DATA", str(tmp_path))
    c = TestClient(create_app(reader=object(), pairing=Pairing("123456")))
    r = c.post("/api/games", json={"players": PLAYERS})
    assert r.status_code == 401 and r.json()["code"] == "pairing_needed"
    assert c.get("/api/games").status_code == 200                  # reading needs no code
    assert c.post("/api/pair", json={"code": "654321"}).status_code == 403
    r = c.post("/api/pair", json={"code": "123456"})
    assert r.status_code == 200 and "tilescope_pair" in r.cookies
    assert c.post("/api/games", json={"players": PLAYERS}).status_code == 200    # the cookie
    script = TestClient(create_app(reader=object(), pairing=Pairing("123456")))
    r = script.post("/api/games", json={"players": PLAYERS}, headers={"X-Tilescope-Pairing": "123456"})
    assert r.status_code == 200


def test_ten_wrong_pairing_codes_lock_the_code_out_for_a_minute():
    from vision.server.routes.origin import Pairing

    p = Pairing("123456")
    assert [p.try_code(f"{k:06d}") for k in range(10)] == [False] * 10
    assert p.try_code("123456") is False          # locked out, even the right one
    p._wrong = [t - 61 for t in p._wrong]         # a minute later
    assert p.try_code("123456") is True


def test_a_network_overlay_pairs_its_control_page_and_not_its_overlay():
    from vision.stream.control import Control
    from vision.stream.livecontext import LiveContext
    from vision.stream.overlay import OverlayHub, OverlayServer

    hub = OverlayHub()
    control = Control(LiveContext({"ruleset": "riichi"}), None, hub.publish)
    assert OverlayServer(hub, 8765, "127.0.0.1", control=control).pairing is None
    server = OverlayServer(hub, 8765, "0.0.0.0", control=control)
    assert len(server.pairing.code) == 6
    c = TestClient(server.server.config.app, base_url="http://localhost:8765")
    assert c.get("/api/current").status_code == 200                 # the overlay: no code
    r = c.post("/api/control/hand", json={"win": "tsumo"})
    assert r.status_code == 401 and r.json()["code"] == "pairing_needed"
    r = c.post("/api/control/hand", json={"win": "tsumo"},
               headers={"X-Tilescope-Pairing": server.pairing.code})
    assert r.status_code == 200


def _printed_matrix(block: str) -> list[list[bool]]:
    """The modules (True: dark) drawn by ``qr_text``: half blocks, two rows a character, dark
    modules blank (for a dark terminal)."""
    halves = {"█": (False, False), "▀": (False, True), "▄": (True, False), "\xa0": (True, True),
              " ": (True, True)}
    rows = []
    for line in block.splitlines():
        pairs = [halves[ch] for ch in line]
        rows += [[top for top, _ in pairs], [bottom for _, bottom in pairs]]
    return rows


def test_the_pairing_link_is_printed_with_a_qr_code_of_it():
    # the issue asked for "a QR code of the URL with it"; only the code was printed
    qrcode = pytest.importorskip("qrcode")
    from vision.server.routes.origin import Pairing, pairing_link, pairing_words

    words = pairing_words(Pairing("123456"), "192.168.1.20", 8000)
    first, block = words.split("\n", 1)
    assert first.endswith("http://192.168.1.20:8000/?pair=123456")
    qr = qrcode.QRCode(border=4, error_correction=qrcode.constants.ERROR_CORRECT_L)
    qr.add_data("http://192.168.1.20:8000/?pair=123456")
    matrix = qr.get_matrix()
    printed = _printed_matrix(block)
    assert printed[:len(matrix)] == matrix           # the QR code of that very link
    assert pairing_link("0.0.0.0", 8765, "000042", "/control").endswith(":8765/control?pair=000042")
    assert pairing_link("fe80::1", 80, "1") == "http://[fe80::1]:80/?pair=1"


def test_serve_on_the_network_prints_the_pairing_code_and_its_qr_code(monkeypatch, capsys):
    pytest.importorskip("qrcode")
    import socket

    import uvicorn

    from vision.cli.dispatch import main
    from vision.server.routes import origin

    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: None)
    monkeypatch.setattr(origin.Pairing, "__init__",
                        lambda self, code=None: (setattr(self, "code", "654321"),
                                                 setattr(self, "token", "t"),
                                                 setattr(self, "_wrong", [])) and None)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    assert main(["serve", "--host", "0.0.0.0", "--port", str(port)]) == 0
    err = capsys.readouterr().err
    assert "pairing code 654321" in err
    link = [line for line in err.splitlines() if "?pair=654321" in line]
    assert link and link[0].endswith(f":{port}/?pair=654321")
    assert "▀" in err and "▄" in err                    # the QR code beside it


def test_a_lone_surrogate_in_a_game_is_refused_not_a_500(games):
    # {"player": "\ud800"} is valid JSON but no text: writing the game's line (or the error
    # quoting it) raised UnicodeEncodeError, answered 500
    c, gid, path = games
    before = path.read_text()
    r = c.post(f"/api/games/{gid}/events", content=b'{"type": "riichi", "player": "\\ud800"}',
               headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and r.json()["code"] == "bad_json", r.text
    assert "lone surrogate" in r.json()["error"]
    r = c.post("/api/games", content=b'{"players": ["Ann", "Bob", "Cai", "\\udc00"]}',
               headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and r.json()["code"] == "bad_json"
    assert path.read_text() == before
    r = c.post(f"/api/games/{gid}/events", content=b'{"type": "riichi", "player": "\\ud83d\\ude00"}',
               headers={"Content-Type": "application/json"})     # a pair is one character: 😀
    assert r.status_code == 422 and "😀" in r.json()["error"]


def test_an_error_quoting_a_lone_surrogate_is_still_answered():
    from vision.server.routes.errors import ErrorResponse

    body = ErrorResponse({"error": "no player '\ud800'", "code": "x"}).body
    assert json.loads(body) == {"error": "no player '\ud800'", "code": "x"}


def test_odd_pairing_codes_cookies_and_bodies_are_wrong_codes_not_500s(tmp_path, monkeypatch):
    # compare_digest raised TypeError on a str that is not ASCII (a code "é", a header or a
    # cookie of other bytes), json a RecursionError on a deep body: each answered 500
    from vision.server.routes.origin import Pairing

    monkeypatch.setenv("TILESCOPE_DATA", str(tmp_path))
    c = TestClient(create_app(reader=object(), pairing=Pairing("123456")),
                   raise_server_exceptions=False)
    for body in ('{"code": "é"}', '{"code": "\\ud800"}', '{"code": 123456}', '["x"]', "[" * 5000,
                 b"\xff\xfe"):
        r = c.post("/api/pair", content=body, headers={"Content-Type": "application/json"})
        assert r.status_code == 403 and r.json()["code"] == "wrong_code", (body, r.text)
    for header in (("X-Tilescope-Pairing", "é".encode()), ("Cookie", "tilescope_pair=é".encode())):
        r = c.post("/api/games", json={"players": PLAYERS}, headers=[header])
        assert r.status_code == 401 and r.json()["code"] == "pairing_needed"
    r = c.post("/api/games", json={"players": PLAYERS}, headers=[("X-Tilescope-Pairing", b"123456")])
    assert r.status_code == 200
