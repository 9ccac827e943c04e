"""The control page's API beside the overlay: per-hand context without a restart (issue 32,
"On screen") and the game's ledger kept from the stream (``--game``).

The clips are ``grey_tiles`` renders read back by a stand-in detector; the real layout parser,
scorer and ledger (``scoring/tournament/riichi_game.py``) run on them.
"""
from __future__ import annotations

import numpy as np
import pytest

from grey_tiles import GreyReader, render
from vision.stream.live import Frame, HandStabiliser, StreamRunner, pipeline_scorer

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402

from vision.stream.control import Control  # noqa: E402
from vision.stream.livecontext import LiveContext  # noqa: E402
from vision.stream.overlay import OverlayHub, create_overlay_app  # noqa: E402

RUN = {"ruleset": "riichi", "win": "ron", "seat_wind": "S", "round_wind": "E"}
# 123m 456p 789s 23s 55z + 4s: the first hand of the clip
FIRST = ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "2s", "3s", "5z", "5z", "4s"]
# 234m 456m 678p 34s 88s + 5s: all simples, a two-sided wait, a pair that is no yakuhai
SECOND = ["2m", "3m", "4m", "4m", "5m", "6m", "6p", "7p", "8p", "3s", "4s", "8s", "8s", "5s"]


class Clip:
    """Feeds rendered hands to a runner frame by frame; collects what it publishes."""

    def __init__(self, runner: StreamRunner):
        self.runner, self.index, self.sent = runner, 0, []

    def show(self, hand, frames: int = 8) -> list[dict]:
        image = render(hand) if hand is not None else np.zeros((360, 640, 3), np.uint8)
        out = []
        for _ in range(frames):
            m = self.runner.step(Frame(self.index, image, self.index / 10))
            self.index += 1
            if m is not None:
                out.append(m)
        self.sent += out
        return out


def setup(base=RUN, ledger=None):
    hub = OverlayHub()
    live = LiveContext(base)
    if ledger is not None:
        live.table = ledger.context_for
    control = Control(live, ledger, hub.publish)

    def on_hand(message):
        hub.publish(message)
        control.on_hand(message)

    runner = StreamRunner(GreyReader(), HandStabiliser(4), pipeline_scorer(live), on_hand, context=live)
    return Clip(runner), TestClient(create_overlay_app(hub, control)), hub


def payment(message) -> int:
    return message["hand"]["result"]["payment"]["total"]


def test_the_second_hand_is_scored_with_its_own_seat_and_dora_without_a_restart():
    clip, client, _ = setup()
    with client:
        first = clip.show(FIRST)
        assert len(first) == 1 and first[0]["hand"]["request"]["seat_wind"] == "S"
        second = clip.show(SECOND)
        # under the run's context (South seat, no dora): tanyao 1 + pinfu 1 = 2 han, ron 30 fu
        # (20 + 10 closed ron); a non-dealer's ron pays 4 × base, base = 30 × 2^(2+2) = 480:
        # 1920 → 2000 (rounded up to 100)
        assert [payment(m) for m in second] == [2000]
        # the streamer sets the hand's own: West seat, dora indicator 7s (dora 8s, the pair)
        r = client.post("/api/control/hand", json={"seat_wind": "W", "dora_indicators": "7s"})
        assert r.status_code == 200 and r.json()["context"]["context"]["dora_indicators"] == "7s"
        rescored = clip.show(SECOND, frames=1)      # the next frame rescores the hand on screen
        # 2 han + 2 dora = 4 han 30 fu: base 30 × 2^6 = 1920, × 4 = 7680 → 7700
        assert [payment(m) for m in rescored] == [7700]
        assert rescored[0]["frame"] == second[0]["frame"]          # the same hand, rescored
        req = rescored[0]["hand"]["request"]
        assert (req["seat_wind"], req["dora_indicators"]) == ("W", "7s")
        assert clip.show(SECOND) == []              # nothing changed since: nothing sent
        # a new hand: the settings go back to the run's
        assert client.post("/api/control/new-hand").status_code == 200
        assert [payment(m) for m in clip.show(SECOND, frames=1)] == [2000]


def test_a_setting_the_scorer_refuses_is_one_line_and_changes_nothing():
    clip, client, _ = setup()
    with client:
        before = client.get("/api/control").json()["context"]
        for body, words in (({"seat_wind": "X"}, "seat_wind"), ({"dora_indicators": "9x"}, "dora"),
                            ({"winner": "Ann"}, "unknown setting 'winner'"), ([1], "JSON object")):
            r = client.post("/api/control/hand", json=body)
            assert r.status_code == 400 and words in r.json()["error"], (body, r.json())
            assert "\n" not in r.json()["error"]
        assert client.get("/api/control").json()["context"] == before
        r = client.post("/api/control/ledger", json={"action": "undo"})
        assert r.status_code == 400 and "--game" in r.json()["error"]


def test_the_camera_s_dora_row_or_a_typed_one():
    live = LiveContext({**RUN, "dora_indicators": "1m"})
    assert live.current()["dora_indicators"] == "1m"               # the run's --dora
    live.set({"dora_indicators": "camera"})
    assert "dora_indicators" not in live.current()                 # the photo's row stands
    live.set({"dora_indicators": "3s"})
    assert live.current()["dora_indicators"] == "3s"
    live.set({"dora_indicators": None})
    assert live.current()["dora_indicators"] == "1m"               # back to the run's


# ---------------------------------------------------------------- the game's ledger (--game)

def new_game(tmp_path, options=None):
    import json

    from vision.server.ledger import LedgerSession

    path = tmp_path / "game.jsonl"
    path.write_text(json.dumps({"type": "game", "players": ["Ann", "Bob", "Cai", "Dan"],
                                "options": options or {}}) + "\n")
    return path, LedgerSession(str(path))


def points(table) -> dict:
    return {p["name"]: p["points"] for p in table["players"]}


def test_a_scored_hand_is_proposed_confirmed_and_written_and_the_ledger_feeds_the_context(tmp_path):
    import json

    path, ledger = new_game(tmp_path)
    clip, client, hub = setup(base={"ruleset": "riichi", "win": "ron"}, ledger=ledger)
    with client:
        ctx = client.get("/api/control").json()["context"]["context"]
        # no winner named yet: the dealer's seat (Ann, East), the ledger's round and counters
        assert (ctx["seat_wind"], ctx["round_wind"], ctx["honba"], ctx["riichi"]) == ("E", "E", 0, "none")
        r = client.post("/api/control/ledger", json={"action": "add", "event": {"type": "riichi", "player": "Bob"}})
        # « met en gage un bâton de 1000 points » (rules text, riichi)
        assert points(r.json()["table"])["Bob"] == 24000 and r.json()["table"]["sticks"] == 1
        # the seat comes from the ledger, not from the page
        r = client.post("/api/control/hand", json={"seat_wind": "W"})
        assert r.status_code == 400 and "ledger" in r.json()["error"]
        r = client.post("/api/control/hand", json={"winner": "Cai", "discarder": "Ann"})
        assert r.json()["context"]["context"]["seat_wind"] == "W"         # Cai sits West
        clip.show(SECOND)
        proposal = hub.table["proposal"]
        assert proposal["event"]["type"] == "ron" and proposal["event"]["discarder"] == "Ann"
        # tanyao + pinfu, 30 fu, 2000 from Ann; « Le gagnant récupère le montant calculé du ou
        # des joueurs perdants ainsi que toutes les mises de riichi éventuelles »: + 1000
        assert proposal["lines"][:2] == ["Ann pays Cai 2000", "Cai takes the 1 riichi stick(s): 1000"]
        assert len(path.read_text().splitlines()) == 2          # nothing written before confirming
        r = client.post("/api/control/ledger", json={"action": "confirm"})
        table = r.json()["table"]
        assert points(table) == {"Ann": 23000, "Bob": 24000, "Cai": 28000, "Dan": 25000}
        # « Si un autre joueur qu'Est gagne, les vents tournent et les compteurs sont remis à zéros »
        assert (table["round"], table["honba"], table["sticks"]) == ("East 2", 0, 0)
        assert [p["name"] for p in table["players"] if p["dealer"]] == ["Bob"]
        assert table["proposal"] is None
        written = [json.loads(x) for x in path.read_text().splitlines()]
        assert [e["type"] for e in written] == ["game", "riichi", "ron"]
        assert written[2]["winners"][0]["hand"]["seat_wind"] == "W"
        # the paid hand still on screen is not proposed again
        assert clip.show(SECOND) == [] and hub.table["proposal"] is None
        r = client.post("/api/control/ledger", json={"action": "confirm"})
        assert r.status_code == 400 and "no win to confirm" in r.json()["error"]
        # « Si deux joueurs sont tenpai, les deux autres joueurs noten payent chacun 1500 points »;
        # « Est reste Est uniquement s'il est tenpai [...] Un compteur est toujours ajouté »
        r = client.post("/api/control/ledger", json={"action": "add", "event": {"type": "draw", "tenpai": ["Bob", "Cai"]}})
        table = r.json()["table"]
        assert points(table) == {"Ann": 21500, "Bob": 25500, "Cai": 29500, "Dan": 23500}
        assert (table["round"], table["honba"]) == ("East 2", 1)
        # an abortive draw, then taken back: the file and the points as before it
        client.post("/api/control/ledger", json={"action": "add", "event": {"type": "abortive", "reason": "four_winds"}})
        assert len(path.read_text().splitlines()) == 5
        r = client.post("/api/control/ledger", json={"action": "undo"})
        assert points(r.json()["table"]) == points(table) and len(path.read_text().splitlines()) == 4
        # Bob, the dealer, wins the next hand by tsumo; the ledger gives the 1 counter. Menzen
        # tsumo 1 han, 30 fu (20 + 2 tsumo + 2 dragon pair → 30): base 30 × 2^3 = 240, the
        # dealer's tsumo 2 × 240 = 480 → 500 from each; « Chaque compteur rapporte un bonus de
        # 300 points [...] (100 point par joueur si le gagnant pioche sa tuile) »: 600 each
        client.post("/api/control/hand", json={"winner": "Bob", "win": "tsumo"})
        assert clip.show(FIRST)[0]["hand"]["request"]["honba"] == 1
        assert hub.table["proposal"]["event"]["type"] == "tsumo"
        table = client.post("/api/control/ledger", json={"action": "confirm"}).json()["table"]
        assert points(table) == {"Ann": 20900, "Bob": 27300, "Cai": 28900, "Dan": 22900}
        # « Si le gagnant est Est, il reste Est et on incrémente un compteur »
        assert (table["round"], table["honba"]) == ("East 2", 2)


def test_the_ledger_refuses_what_the_rules_refuse_and_names_it(tmp_path):
    path, ledger = new_game(tmp_path)
    clip, client, hub = setup(base={"ruleset": "riichi", "win": "ron"}, ledger=ledger)
    with client:
        for body, words in (
                ({"action": "add", "event": {"type": "riichi", "player": "Eve"}}, "unknown_player"),
                ({"action": "add", "event": {"type": "abortive", "reason": "rain"}},
                 "unknown_abortive_draw: an abortive draw is one of"),
                ({"action": "add", "event": {"type": "riichi"}}, 'a riichi event needs "player"'),
                ({"action": "undo"}, "no event to undo"),
                ({"action": "dance"}, 'action "dance": one of confirm, undo, add'),
                # a body that is no object, or no action, said as such ("action None" before)
                ("junk", 'the request is one JSON object: {"action": "confirm", "undo" or '
                         '"add"}, got "junk"'),
                ({"event": {"type": "draw"}}, 'the request needs "action": one of confirm')):
            r = client.post("/api/control/ledger", json=body)
            assert r.status_code == 400 and words in r.json()["error"], (body, r.json())
            assert "\n" not in r.json()["error"]
        assert len(path.read_text().splitlines()) == 1                   # nothing written
        # a winner named without the discarder of a ron: the proposal says what is missing
        client.post("/api/control/hand", json={"winner": "Cai"})
        clip.show(SECOND)
        assert "ron from whom" in hub.table["proposal"]["error"]
        r = client.post("/api/control/hand", json={"winner": "Zed"})
        assert r.status_code == 400 and "'Zed' is not at this table" in r.json()["error"]


def test_the_documented_table_messages_are_the_ones_sent(tmp_path):
    # docs/overlay-json.md's table examples against those a short game sends: the start, a
    # proposal refused (no winner named), a proposal, the table after confirming
    from test_stream import _documented_messages, _fits

    path, ledger = new_game(tmp_path)
    clip, client, hub = setup(base={"ruleset": "riichi", "win": "ron"}, ledger=ledger)
    sent = [ledger.table_message()]
    with client:
        client.post("/api/control/ledger", json={"action": "add", "event": {"type": "riichi", "player": "Bob"}})
        clip.show(SECOND)
        sent.append(hub.table)
        client.post("/api/control/hand", json={"winner": "Cai", "discarder": "Ann"})
        clip.show(SECOND, 1)
        sent.append(hub.table)
        sent.append(client.post("/api/control/ledger", json={"action": "confirm"}).json()["table"])
    assert [m["proposal"] and sorted(m["proposal"]) for m in sent] == [None, ["error"], ["event", "lines", "values"], None]
    documented = [d for d in _documented_messages() if d["type"] == "table"]
    assert len(documented) == 4
    for m in sent:
        assert any(_fits(m, d) for d in documented), f"undocumented table message: {m}"
    for d in documented:
        assert any(_fits(m, d) for m in sent), f"documented but not sent: {d}"


def test_stream_refuses_a_game_without_an_overlay_or_that_it_cannot_read(tmp_path, capsys, monkeypatch):
    import vision.photo.pipeline
    from test_stream import _free_port, write_clip
    from vision.cli.dispatch import main

    monkeypatch.setattr(vision.photo.pipeline, "get_reader", lambda weights=None: GreyReader())
    clip = tmp_path / "clip.avi"
    write_clip(clip, [render(None)] * 2)
    port = str(_free_port())
    cases = ((["--game", "g.jsonl"], "--game needs --overlay PORT"),
             (["--overlay", port, "--game", str(tmp_path / "none.jsonl")], "--game: cannot read"),
             (["--overlay", port, "--game", str(clip)], "--game: "),                 # not JSON
             (["--overlay", port, "--game", "g.jsonl", "--ruleset", "mcr"], "cannot go with --ruleset mcr"))
    for flags, words in cases:
        assert main(["stream", str(clip), *flags]) == 2, flags
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and words in err[0] and "Traceback" not in err[0], (flags, err)


def test_the_control_page_script_parses():
    """A syntax error would leave the page dead; node checks it where chromium is missing
    (tests/test_overlay_browser.py drives it where chromium is installed)."""
    import shutil
    import subprocess

    from vision.stream.overlay import WEB_DIR

    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    r = subprocess.run([node, "--check", str(WEB_DIR / "control.js")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


# finding 6: an MCR session's file is refused at the start, in one line, before the model loads
def test_stream_refuses_an_mcr_session_before_the_model_loads(tmp_path, capsys, monkeypatch):
    import vision.photo.pipeline
    from test_stream import _free_port, write_clip
    from vision.cli.dispatch import main

    def no_model(weights=None):
        raise AssertionError("the model was loaded")

    monkeypatch.setattr(vision.photo.pipeline, "get_reader", no_model)
    clip = tmp_path / "clip.avi"
    write_clip(clip, [render(None)] * 2)
    game = tmp_path / "m.jsonl"
    game.write_text('{"type": "game", "ruleset": "mcr", "players": ["A", "B", "C", "D"]}\n')
    assert main(["stream", str(clip), "--overlay", str(_free_port()), "--game", str(game)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"tilescope stream: --game: {game} is an MCR session; --game takes a riichi game"]


def test_an_undo_gives_the_hand_back_its_settings_and_a_paid_hand_is_not_proposed_again(tmp_path):
    # a confirmed ron undone: the winner, discarder and dora come back as they were (not the
    # run's defaults), the hand is scored again under them and proposed again; an event
    # written elsewhere (tilescope game --add) undone: its winner and discarder come back
    import json

    path, ledger = new_game(tmp_path)
    clip, client, hub = setup(base={"ruleset": "riichi", "win": "ron"}, ledger=ledger)
    with client:
        client.post("/api/control/hand", json={"winner": "Cai", "discarder": "Ann", "dora_indicators": "7s"})
        clip.show(SECOND)
        # tanyao + pinfu + 2 dora (8s pair) = 4 han 30 fu, a non-dealer's ron: 7700
        assert hub.table["proposal"]["lines"][0] == "Ann pays Cai 7700"
        client.post("/api/control/ledger", json={"action": "confirm"})
        assert hub.table["settled"]["lines"][0] == "Ann pays Cai 7700"
        assert hub.table["settled"]["values"][0]["words"] == "4 han 30 fu"
        assert client.get("/api/control").json()["context"]["hand"] == {}
        # a chombo after it: the hand on screen stays paid, and is not proposed again
        client.post("/api/control/ledger", json={"action": "add", "event": {"type": "chombo", "player": "Dan"}})
        clip.show(SECOND, 2)
        assert hub.table["settled"]["lines"][0] == "Ann pays Cai 7700" and hub.table["proposal"] is None
        client.post("/api/control/ledger", json={"action": "undo"})        # the chombo
        assert hub.table["settled"] is not None
        state = client.post("/api/control/ledger", json={"action": "undo"}).json()   # the ron
        assert state["context"]["hand"] == {"winner": "Cai", "discarder": "Ann", "dora_indicators": "7s"}
        assert hub.table["settled"] is None
        rescored = clip.show(SECOND, 1)
        assert [payment(m) for m in rescored] == [7700]
        assert hub.table["proposal"]["lines"][0] == "Ann pays Cai 7700"
        # the same ron written beside the stream, then undone here: read from the event
        event = {"type": "ron", "discarder": "Bob", "winners": [{"player": "Dan", "han": 1, "fu": 30}]}
        with open(path, "a") as f:
            f.write(json.dumps(event) + "\n")
        state = client.post("/api/control/ledger", json={"action": "undo"}).json()
        assert state["context"]["hand"] == {"win": "ron", "winner": "Dan", "discarder": "Bob"}
