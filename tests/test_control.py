"""The control page's API beside the overlay: per-hand context without a restart (issue 32,
"On screen") and the game's ledger kept from the stream (``--game``).

The clips are ``grey_tiles`` renders read back by a stand-in detector; the real layout parser,
scorer and ledger (``scoring/tournament/riichi_game.py``) run on them.
"""
from __future__ import annotations

import numpy as np
import pytest

from grey_tiles import GreyReader, render
from vision.stream import Frame, HandStabiliser, StreamRunner, pipeline_scorer

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402

from vision.control import Control  # noqa: E402
from vision.livecontext import LiveContext  # noqa: E402
from vision.overlay import OverlayHub, create_overlay_app  # noqa: E402

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
