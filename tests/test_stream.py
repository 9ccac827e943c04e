"""tilescope stream: tracking, the hand stabiliser, frame sources, and the OBS overlay.

The video test renders its own short clip (empty table → hand A held still, with one misread
frame and one dropped tile → hand B) and plays it through the stream pipeline with a fake
reader that reads the tiles back from their grey levels. The overlay's WebSocket must send
hand A once it is stable, then hand B, and nothing in between.
"""
from __future__ import annotations

import threading

import cv2
import numpy as np
import pytest

from grey_tiles import GreyReader, render, tile_boxes
from vision.read.detections import Detection, Detections
from vision.stream.live import (Frame, FrameSource, HandStabiliser, LatestFrameReader, StreamRunner,
                                TileTracker, hand_message, iou, layout_groups, reading_order, summarize)

CONTEXT = {"ruleset": "riichi", "win": "tsumo", "seat_wind": "E", "round_wind": "E"}
# Hand A: 123m 456p 789s 23s 55z, winning tile 4s (closed, self-drawn, dealer).
HAND_A = ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "2s", "3s", "5z", "5z", "4s"]
# Hand B: the White pair replaced by a pair of 5p.
HAND_B = ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "2s", "3s", "5p", "5p", "4s"]


# ---------------------------------------------------------------- a rendered clip

def write_clip(path, frames: list[np.ndarray], fps: float = 10.0) -> None:
    h, w = frames[0].shape[:2]
    out = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), fps, (w, h))
    assert out.isOpened()
    for f in frames:
        out.write(f)
    out.release()


def clip_frames() -> list[np.ndarray]:
    frames = [render(None)] * 10 + [render(HAND_A)] * 20 + [render(HAND_B)] * 20
    misread = list(HAND_A)
    misread[0] = "7m"
    frames[20] = render(misread)          # one frame reads 1m as 7m: must not show
    frames[23] = render(HAND_A[:-1])      # one frame loses the winning tile: must not show
    return frames


# ---------------------------------------------------------------- pure units

def dets_of(tiles: list[str], dx: float = 0.0) -> Detections:
    return Detections(640, 360, [Detection(t, (x1 + dx, y1, x2 + dx, y2), 0.9)
                                 for t, (x1, y1, x2, y2) in zip(tiles, tile_boxes(len(tiles)))])


def test_iou_of_known_boxes():
    assert iou((0, 0, 10, 10), (0, 0, 10, 10)) == 1.0
    assert iou((0, 0, 10, 10), (5, 0, 15, 10)) == pytest.approx(50 / 150)
    assert iou((0, 0, 10, 10), (10, 0, 20, 10)) == 0.0


def test_reading_order_rows_then_left_to_right():
    d = [Detection("1m", (100, 105, 130, 145), 1), Detection("2m", (0, 100, 30, 140), 1),
         Detection("3m", (0, 200, 30, 240), 1), Detection("4m", (50, 98, 80, 138), 1)]
    assert reading_order(d) == [1, 3, 0, 2]


def test_stabiliser_reports_after_n_frames_and_only_once():
    s = HandStabiliser(stable_frames=5)
    events = [s.update(dets_of(HAND_A, dx=(i % 3) - 1), i) for i in range(20)]
    fired = [(i, e) for i, e in enumerate(events) if e is not None]
    # Frame 0 starts the tracks; at frame 2 they have been seen 3 times in the window (enter=3)
    # and join the hand; frames 2..6 are its 5 still frames.
    assert [i for i, _ in fired] == [6]
    assert fired[0][1].tiles == HAND_A


def test_stabiliser_ignores_a_single_misread_frame():
    s = HandStabiliser(stable_frames=3)
    misread = list(HAND_A)
    misread[4] = "0p"
    seq = [HAND_A] * 6 + [misread] + [HAND_A] * 6
    events = [s.update(dets_of(t), i) for i, t in enumerate(seq)]
    assert [e.tiles for e in events if e] == [HAND_A]


def test_a_voted_tile_keeps_a_confidence_and_next_guesses_that_agree_with_its_name():
    # frames vote 4p for tile 4; this frame reads it 0p (0.8) with 4p (0.15) as its next guess.
    # Shown as 4p, its confidence is this frame's 4p probability and 0p leads its next guesses
    # (never "read as 4p, next guess 4p", from which a correction would invent a hand)
    s = HandStabiliser(stable_frames=3)
    for i in range(6):
        s.update(dets_of(HAND_A), i)
    misread = dets_of(HAND_A)
    tiles = list(misread.tiles)
    tiles[3] = Detection("0p", tiles[3].box, 0.8, False, (("4p", 0.15), ("5p", 0.03)))
    s.update(Detections(misread.width, misread.height, tiles), 6)
    shown = s.current.tiles[3]
    assert shown.tile == "4p" and shown.confidence == 0.15
    assert shown.alternatives == (("0p", 0.8), ("5p", 0.03))
    assert s.current.tiles[0] == dets_of(HAND_A).tiles[0]     # tiles read as voted: as read


def test_stabiliser_reports_a_change_and_an_empty_table():
    s = HandStabiliser(stable_frames=3)
    seq = [HAND_A] * 8 + [HAND_B] * 10 + [[]] * 8
    events = [(i, s.update(dets_of(t), i)) for i, t in enumerate(seq)]
    got = [(i, e.tiles) for i, e in events if e]
    assert [t for _, t in got] == [HAND_A, HAND_B, []]
    assert got[1][0] >= 8 + 3 - 1 and got[2][0] >= 18 + 3 - 1


def test_tracker_bridges_a_dropped_detection():
    t = TileTracker()
    assert t.update(dets_of(HAND_A)) == [] and t.update(dets_of(HAND_A)) == []
    full = t.update(dets_of(HAND_A))  # third sighting: enter=3
    gap = t.update(dets_of(HAND_A[:-1]))
    assert [x.label[0] for x in gap] == [x.label[0] for x in full] == HAND_A


def test_tracker_hysteresis_and_duplicate_boxes():
    t = TileTracker()  # window 5, enter 3, leave 1
    extra = Detection("9m", (400, 300, 430, 340), 0.5)
    # A spurious tile seen every other frame: joins after its 3rd sighting, then stays.
    counts = []
    for i in range(10):
        d = dets_of(HAND_A)
        if i % 2 == 0:
            d.tiles.append(extra)
        counts.append(len(t.update(d)))
    assert counts == [0, 0, 14, 14, 15, 15, 15, 15, 15, 15]
    # A second, smaller box on the first tile (a detector's duplicate) never joins the hand.
    dup = Detection("7m", (62, 165, 88, 198), 0.5)
    t = TileTracker()
    for _ in range(6):
        d = dets_of(HAND_A)
        d.tiles.append(dup)
        hand = t.update(d)
    assert [x.label[0] for x in hand] == HAND_A


def test_summarize_lines():
    assert summarize({"valid": True, "han": 1, "fu": 30, "limit": None,
                      "payment": {"total": 1500}}) == "1 han 30 fu · 1500"
    assert summarize({"valid": True, "total": 17, "fans": [], "payment": {"total": 41}}) == "17 points · 41"
    assert summarize({"error": "not complete"}) == "not scored: not complete"
    assert summarize(None) == "not scored"
    # a non-dealer's ron, 3 han 30 fu: 30 × 2^5 × 4 = 3840 → 3900; the scorer's total adds
    # « un bonus de 300 points » a counter and « toutes les mises de riichi » (riichi rules
    # text): 3900 + 300 + 1000 = 5200, said apart so the hand's value reads as the table's
    three_thirty = {"valid": True, "han": 3, "fu": 30, "limit": None,
                    "payment": {"total": 5200, "from_discarder": 4200}}
    assert summarize(three_thirty, {"honba": 1, "riichi_sticks": 1}) == \
        "3 han 30 fu · 3900 + 300 honba + 1000 sticks"
    assert summarize({**three_thirty, "payment": {"total": 4900}}, {"riichi_sticks": 1}) == \
        "3 han 30 fu · 3900 + 1000 sticks"
    # the command line's advice is no use on a live banner
    assert summarize({"error": "no winning hand could be formed from the tiles seen (see the "
                               "warnings; pass --fix N=TILE or --win-tile TILE)"}) == \
        "not scored: no winning hand could be formed from the tiles seen"


def test_a_hand_scored_from_guessed_tiles_says_so_on_the_banner():
    # the pipeline re-read tiles 3 and 5 from the reader's next guesses: a viewer sees no
    # warnings, so the summary itself says the value rests on a guess
    from vision.stream.live import HandEvent

    event = HandEvent(9, dets_of(HAND_A), tuple((t, False) for t in HAND_A))
    result = {"valid": True, "han": 1, "fu": 30, "limit": None, "payment": {"total": 1500}}
    corrected = {"code": "corrected", "message": "...", "fix": "--fix 3=7m --fix 5=2p", "tiles": [3, 5]}
    msg = hand_message(event, {"result": result, "warnings": [corrected]}, 1.0)["hand"]
    assert msg["summary"] == "1 han 30 fu · 1500 (guessed: tiles 3, 5 unsure)" and msg["guessed"]
    plain = hand_message(event, {"result": result, "warnings": []}, 1.0)["hand"]
    assert plain["summary"] == "1 han 30 fu · 1500" and not plain["guessed"]


def test_the_overlay_lines_explain_every_han_dora_and_red_fives_included():
    # the broadcast sample's true hand (vision/samples/README.md): 234m 067p 44s 57s + chi 678m,
    # ron on 6s, dora indicator 3s. Tanyao 1; dora 4s held twice: 2; the red 0p: aka dora 1
    # (riichi rules 001: each dora and red five is one han) = 4 han, as the summary says. The
    # overlay showed "tanyao 1" alone under "4 han 30 fu"
    from scoring.api import score_json
    from vision.stream.live import HandEvent

    result = score_json({"ruleset": "riichi", "concealed": "234m067p44s57s",
                         "melds": [{"type": "chi", "tiles": "678m", "called": "6m", "from": "left"}],
                         "win_tile": "6s", "win": "ron", "seat_wind": "W", "round_wind": "E",
                         "dora_indicators": "3s"})
    event = HandEvent(9, dets_of(HAND_A), tuple((t, False) for t in HAND_A))
    hand = hand_message(event, {"result": result, "warnings": []}, 1.0)["hand"]
    assert hand["summary"] == "4 han 30 fu · 7700"
    assert hand["lines"] == [{"name": "tanyao", "han": 1}, {"name": "dora", "han": 2},
                             {"name": "aka dora", "han": 1}]
    assert sum(line["han"] for line in hand["lines"]) == result["han"] == 4
    # ura dora under riichi: the same hand closed with riichi, ura indicator 5m (ura dora 6m:
    # the chi's 6m now concealed, 1) - riichi 1 + tanyao 1 + dora 2 + aka 1 + ura 1 = 6 han
    closed = score_json({"ruleset": "riichi", "concealed": "234m067p44s57s678m", "win_tile": "6s",
                         "win": "ron", "seat_wind": "W", "round_wind": "E", "riichi": "riichi",
                         "dora_indicators": "3s", "ura_dora_indicators": "5m"})
    lines = hand_message(event, {"result": closed}, 1.0)["hand"]["lines"]
    assert lines[-1] == {"name": "ura dora", "han": 1}
    assert sum(line["han"] for line in lines) == closed["han"]
    # MCR: the fans are the lines, flowers included (the mcr_flowers sample: 16+6+2+1+1x2 = 27)
    mcr = score_json({"ruleset": "mcr", "concealed": "123456m7z", "win_tile": "7z", "win": "ron",
                      "melds": [{"type": "chi", "tiles": "789m", "called": "7m", "from": "left"},
                                {"type": "pon", "tiles": "555z", "called": "5z", "from": "across"}],
                      "seat_wind": "S", "round_wind": "E", "flowers": 2})
    lines = hand_message(event, {"result": mcr}, 1.0)["hand"]["lines"]
    assert sum(line["points"] * line["count"] for line in lines) == mcr["total"] == 27
    assert {"name": "Flower Tiles", "points": 1, "count": 2} in lines


def test_a_hand_read_from_unsure_tiles_is_never_shown_as_sure():
    # a broadcast clip showed a plain value over five "tile read as ... (confidence 0.49)"
    # warnings: the message says unsure (and which tiles), and so does its banner line
    from vision.stream.live import HandEvent

    event = HandEvent(9, dets_of(HAND_A), tuple((t, False) for t in HAND_A))
    result = {"valid": True, "han": 1, "fu": 30, "limit": None, "payment": {"total": 1500}}
    low = [{"code": "low_confidence", "message": f"tile {n} read as 5p (confidence 0.49)",
            "fix": f"--fix {n}=6p", "tiles": [n]} for n in (9, 2)]
    hand = hand_message(event, {"result": result, "warnings": low}, 1.0)["hand"]
    assert (hand["unsure"], hand["unsure_tiles"]) == (True, [2, 9])
    assert hand["summary"] == "1 han 30 fu · 1500 (unsure: tiles 2, 9)"
    corrected = {"code": "corrected", "tiles": [3]}
    hand = hand_message(event, {"result": result, "warnings": low + [corrected]}, 1.0)["hand"]
    assert hand["summary"] == "1 han 30 fu · 1500 (guessed: tile 3 unsure; unsure: tiles 2, 9)"
    assert hand["unsure_tiles"] == [2, 3, 9] and hand["guessed"]
    # the reader unsure of the photo as a whole names no tile
    whole = {"code": "unsure_photo", "message": "the reader is unsure of most tiles", "tiles": []}
    hand = hand_message(event, {"result": result, "warnings": [whole]}, 1.0)["hand"]
    assert (hand["unsure"], hand["unsure_tiles"]) == (True, [])
    assert hand["summary"] == "1 han 30 fu · 1500 (unsure reading)"
    # a warning about grouping, not names, leaves the value sure
    meld = {"code": "meld_without_sideways", "tiles": [12, 13, 14]}
    hand = hand_message(event, {"result": result, "warnings": [meld]}, 1.0)["hand"]
    assert (hand["unsure"], hand["unsure_tiles"], hand["summary"]) == (False, [], "1 han 30 fu · 1500")
    # on the annotated video the unsure value's banner is amber, a sure one white
    from vision.stream.live import UNSURE_BANNER, draw_frame

    frame = np.zeros((360, 640, 3), np.uint8)
    amber = draw_frame(frame, None, "1 han 30 fu · 1500 (unsure: tiles 2, 9)", unsure=True)[-40:]
    white = draw_frame(frame, None, "1 han 30 fu · 1500")[-40:]
    assert (amber.reshape(-1, 3) == UNSURE_BANNER).all(axis=1).any()
    assert not (white.reshape(-1, 3) == UNSURE_BANNER).all(axis=1).any() and white.min(axis=2).max() == 255


# overlay.js in node with a stand-in for the few DOM calls it makes; prints what the card shows
OVERLAY_HARNESS = r"""
const fs = require("fs"), vm = require("vm");
const els = {};
function el(id) {
  const classes = new Set();
  return els[id] = els[id] || {id, textContent: "", innerHTML: "", children: [], dataset: {},
    appendChild(c) { this.children.push(c); },
    classList: {add: (c) => classes.add(c), remove: (c) => classes.delete(c),
                toggle: (c, on) => on ? classes.add(c) : classes.delete(c), has: (c) => classes.has(c)},
    get className() { return [...classes].join(" "); }, set className(v) { classes.clear(); classes.add(v); }};
}
let socket;
const ctx = {document: {getElementById: el, createElement: () => el(Math.random())},
             location: {protocol: "http:", host: "x"}, setTimeout: () => {},
             WebSocket: function () { socket = this; }};
vm.createContext(ctx);
for (const f of process.argv.slice(2, 4)) vm.runInContext(fs.readFileSync(f, "utf8"), ctx);
socket.onmessage({data: fs.readFileSync(0, "utf8")});
const card = el("card");
console.log(JSON.stringify({value: el("value").textContent, lines: el("lines").textContent,
  unsure: el("unsure").textContent, card: card.className}));
"""


def test_the_overlay_page_shows_every_line_and_marks_an_unsure_value(tmp_path):
    import json
    import shutil
    import subprocess

    from vision.stream.overlay import WEB_DIR

    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    harness = tmp_path / "harness.js"
    harness.write_text(OVERLAY_HARNESS)
    hand = {"tiles": ["2m"], "summary": "2 han 30 fu · 2000 (unsure: tiles 2, 9)",
            "request": None, "result": {}, "warnings": [], "guessed": False,
            "lines": [{"name": "yakuhai (chun)", "han": 1}, {"name": "aka dora", "han": 1}],
            "unsure": True, "unsure_tiles": [2, 9]}

    def shown(hand):
        msg = json.dumps({"type": "hand", "frame": 7, "time_s": 0.7, "hand": hand})
        r = subprocess.run([node, str(harness), str(WEB_DIR / "tiles.js"), str(WEB_DIR / "overlay.js")],
                           input=msg, capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        return json.loads(r.stdout)

    got = shown(hand)
    assert got["lines"] == "yakuhai (chun) 1 han · aka dora 1 han"   # 1 + 1 = the 2 han shown
    assert got["unsure"] == "? unsure reading: tiles 2, 9" and "unsure" in got["card"].split()
    got = shown({**hand, "summary": "2 han 30 fu · 2000", "unsure": False, "unsure_tiles": []})
    assert got["unsure"] == "" and "unsure" not in got["card"].split()
    mcr = shown({**hand, "lines": [{"name": "Flower Tiles", "points": 1, "count": 2}]})
    assert mcr["lines"] == "Flower Tiles 1×2"


class ListCapture:
    """A fake live capture: hands out ``n`` frames as fast as it is asked."""

    def __init__(self, n: int):
        self.n, self.i = n, 0

    def read(self):
        if self.i >= self.n:
            return False, None
        self.i += 1
        return True, np.full((4, 4, 3), self.i - 1, np.uint8)

    def release(self):
        pass


def test_latest_frame_reader_only_moves_forward_and_ends_on_the_last_frame():
    reader = LatestFrameReader(ListCapture(200))
    seen, last = [], -1
    while (f := reader.latest(last)) is not None:
        seen.append(f.index)
        last = f.index
        threading.Event().wait(0.001)  # a slow detector
    reader.close()
    assert seen == sorted(set(seen))
    assert seen[-1] == 199
    assert reader.dropped == 200 - len(seen)


# ---------------------------------------------------------------- the rendered clip end to end

def _scorer():
    """The real photo pipeline when present; else a stand-in that only echoes the tiles."""
    try:
        from vision.stream.live import pipeline_scorer
        return pipeline_scorer(CONTEXT), True
    except ImportError:
        return (lambda image, dets: {"request": None, "result": None, "warnings": []}), False


def test_clip_through_stream_pipeline_to_overlay_websocket(tmp_path):
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from vision.stream.overlay import OverlayHub, create_overlay_app

    path = tmp_path / "clip.avi"
    write_clip(path, clip_frames())
    hub = OverlayHub()
    scorer, real = _scorer()
    source = FrameSource(str(path))
    runner = StreamRunner(GreyReader(), HandStabiliser(stable_frames=5), scorer, hub.publish)
    with TestClient(create_overlay_app(hub)) as client:
        assert "WebSocket" in client.get("/overlay.js").text
        with client.websocket_connect("/ws") as ws:
            assert ws.receive_json()["hand"] is None  # the current (empty) state on connect
            stats = runner.run(source)
            source.close()
            hub.publish({"type": "end"})
            messages = []
            while (m := ws.receive_json())["type"] != "end":
                messages.append(m)
    assert stats.frames == stats.detected == 50
    assert [m["hand"]["tiles"] for m in messages] == [HAND_A, HAND_B]
    # A joins the hand at its 3rd frame (12) and holds 5 frames: not before 16; B not before 30.
    assert 16 <= messages[0]["frame"] < 30 <= messages[1]["frame"] < 50
    if real:
        a, b = (m["hand"]["result"] for m in messages)
        # Dealer menzen tsumo: A = tsumo 1 han, 20 + 2 (tsumo) + 2 (dragon pair) -> 30 fu,
        # 500 all; B = tsumo + pinfu 2 han 20 fu, 700 all (riichi scoring table).
        assert (a["han"], a["fu"], a["payment"]["total"]) == (1, 30, 1500)
        assert (b["han"], b["fu"], b["payment"]["total"]) == (2, 20, 2100)


def test_annotated_copy_keeps_every_frame(tmp_path):
    src, out = tmp_path / "in.avi", tmp_path / "out.avi"
    frames = [render(None)] * 3 + [render(HAND_A)] * 15
    write_clip(src, frames)
    writer = cv2.VideoWriter(str(out), cv2.VideoWriter_fourcc(*"MJPG"), 10, (640, 360))
    source = FrameSource(str(src), every=3)
    runner = StreamRunner(GreyReader(), HandStabiliser(stable_frames=2), None, None, writer)
    stats = runner.run(source)
    source.close()
    writer.release()
    assert (stats.frames, stats.detected) == (18, 6)  # every 3rd frame detected
    cap = cv2.VideoCapture(str(out))
    written = []
    while (r := cap.read())[0]:
        written.append(r[1])
    assert len(written) == 18
    # The hand is detected at frames 3, 6, 9 (joins), 12 (2nd still frame: reported); frames 12
    # onwards carry the banner: bright text on the bottom strip.
    assert runner.banner == " ".join(HAND_A)
    assert written[-1][-40:].max() > 200 and written[0][-40:].max() < 50


def test_progress_is_plain_lines_when_stderr_is_not_a_terminal(tmp_path, capsys, monkeypatch):
    # a log file or CI: one line each PLAIN_EVERY_S (0 here: each frame), never tqdm's \r bar
    from vision.common.progress import Progress

    monkeypatch.setattr(Progress, "PLAIN_EVERY_S", 0.0)
    src = tmp_path / "in.avi"
    write_clip(src, [render(None)] * 4)
    source = FrameSource(str(src))
    StreamRunner(GreyReader(), HandStabiliser(stable_frames=2), None, None).run(source, progress=True)
    source.close()
    err = capsys.readouterr().err
    assert "\r" not in err
    lines = err.splitlines()
    assert [x.split(" (")[0] for x in lines] == [f"tilescope stream: {n}/4 frames" for n in (1, 2, 3, 4)]
    assert lines[-1].startswith("tilescope stream: 4/4 frames (100%), ") and lines[-1].endswith(" 0:00 left")


class FramesKept:
    """A stand-in for cv2.VideoWriter that keeps the frames written."""

    def __init__(self):
        self.frames = []

    def write(self, frame):
        self.frames.append(frame.copy())


def test_the_annotated_video_draws_nothing_of_a_hand_taken_away_over_the_next():
    # hand A (row at y 160..200) is swept off at frame 20 and hand B laid 100 px lower: A's
    # boxes stayed while its tracks left the hand (seen 1 of the last 5 frames: the 4th frame
    # without them, TileTracker leave=1) and its outlines until B held still (a clip's frames
    # 180-189 kept them). The frame is black there, so any colour in A's band is drawing of A
    lower = np.zeros_like(render(HAND_B))
    lower[100:] = render(HAND_B)[:-100]
    frames = [render(HAND_A)] * 20 + [lower] * 20
    scorer, real = _scorer()
    writer = FramesKept()
    runner = StreamRunner(GreyReader(), HandStabiliser(stable_frames=5), scorer, None, writer)
    for i, image in enumerate(frames):
        runner.step(Frame(i, image, i / 10))
    band = slice(130, 235)                          # A's boxes, labels and outlines
    assert writer.frames[19][band].any()            # A drawn while on the table
    # frame 20 still draws A's boxes (one frame's missed detection must not make a box
    # flicker); from frame 21 nothing of A is drawn
    assert [i for i in range(21, 40) if writer.frames[i][band].any()] == []
    assert writer.frames[39][230:320].any()         # B drawn where it lies
    if real:                    # A's winning tile was outlined (magenta) while it lay there
        from vision.photo.annotate import WINNING

        assert (writer.frames[19][band].reshape(-1, 3) == WINNING).all(axis=1).any()


def test_labels_of_a_hand_cameras_small_tiles_never_cover_one_another(monkeypatch):
    # a broadcast frame's row: 14 tiles 22 x 30 px, 2 px apart, in 1280 x 720 (the riichi
    # broadcast sample). A label ("5m", about 32 px wide at this size) is wider than a tile:
    # side by side above the row they ran into one strip. Each label's filled rectangle must
    # stand clear of every other, and every tile keep its label (every second one below)
    import vision.photo.annotate as annotate

    filled = []

    class Recorder:               # cv2, recording the filled rectangles (the label grounds)
        def __getattr__(self, name):
            return getattr(cv2, name)

        def rectangle(self, img, p1, p2, colour, thickness, *a):
            if thickness < 0:
                filled.append((*p1, *p2))
            return cv2.rectangle(img, p1, p2, colour, thickness, *a)

    monkeypatch.setattr(annotate, "cv2", Recorder())
    codes = ["2m", "3m", "4m", "0p", "6p", "7p", "4s", "4s", "5s", "7s", "6m", "7m", "8m", "6s"]
    tiles = [Detection(c, (400 + 24 * i, 500, 422 + 24 * i, 530), 0.9) for i, c in enumerate(codes)]
    annotate.draw(np.zeros((720, 1280, 3), np.uint8), tiles)
    assert len(filled) == 14
    overlapping = [(a, b) for i, a in enumerate(filled) for b in filled[i + 1:]
                   if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]]
    assert overlapping == []
    above = [r[3] <= 500 for r in filled]
    assert above == [True, False] * 7               # alternately above and below the row


def test_stream_help_explains_the_video_s_colours_and_marks(capsys):
    # every colour and mark the annotated video draws (vision/photo/annotate.py's colours, the
    # outlines layout_groups makes, the banner) is said in `tilescope stream --help`
    from vision.cli.dispatch import main

    with pytest.raises(SystemExit):
        main(["stream", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for said in ("green: read surely", "orange: read unsure (confidence under 0.5)",
                 "grey: face down", "* marks a sideways (turned) tile", 'yellow "meld"',
                 'magenta "win"', 'pink "dora"', 'orange "guessed X?"', "amber",
                 "docs/overlay-json.md"):
        assert said in text, said


def test_hand_message_for_an_empty_table():
    assert hand_message(None, None, 1.234) == {"type": "hand", "frame": None, "time_s": 1.23, "hand": None}


# ---------------------------------------------------------------- the command line

def test_stream_command_rejects_bad_sources(tmp_path, capsys):
    from vision.cli.dispatch import main

    assert main(["stream", str(tmp_path / "missing.mp4")]) == 2
    assert "no such video file" in capsys.readouterr().err
    # a still photo never holds still for --stable frames: said to be a photo, for `score`
    photo = tmp_path / "hand.jpg"
    cv2.imwrite(str(photo), np.zeros((40, 60, 3), np.uint8))
    assert main(["stream", str(photo)]) == 2
    assert "is a photo, not a video: score it with `tilescope score" in capsys.readouterr().err
    text = tmp_path / "notes.mp4"
    text.write_text("not a video")
    assert main(["stream", str(text)]) == 2
    assert "cannot open video source" in capsys.readouterr().err
    assert main(["stream", str(text), "--stable", "0"]) == 2
    assert "--stable" in capsys.readouterr().err
    clip = tmp_path / "c.avi"
    write_clip(clip, [render(None)] * 2)
    before = clip.read_bytes()
    assert main(["stream", str(clip), "--out", str(clip)]) == 2     # would truncate the source
    assert "that is the source video itself" in capsys.readouterr().err
    assert clip.read_bytes() == before
    assert main(["stream", str(clip), "--overlay", "99999"]) == 2
    assert "not a TCP port" in capsys.readouterr().err


def test_stream_command_rejects_bad_context(tmp_path, capsys):
    from vision.cli.dispatch import main

    clip = tmp_path / "c.avi"
    write_clip(clip, [render(None)] * 2)
    assert main(["stream", str(clip), "--context", "{oops"]) == 2
    assert "--context" in capsys.readouterr().err


def test_layout_groups_for_the_outlines():
    scored = {"tiles": [{"tile": "1m", "box": [0, 0, 10, 14]}, {"tile": "2m", "box": [10, 0, 20, 14]},
                        {"tile": "4s", "box": [30, 2, 40, 16]}, {"tile": "7z", "box": [50, 0, 64, 10]}],
              "layout": {"groups": [{"kind": "concealed", "tiles": [1, 2]},
                                    {"kind": "win", "tiles": [3]},
                                    {"kind": "meld", "type": "pon", "tiles": [2, 4]}]}}
    groups = layout_groups(scored)
    assert [(g.kind, [d.tile for d in g.detections]) for g in groups] == [("win", ["4s"]), ("meld", ["2m", "7z"])]
    assert groups[0].detections[0].box == (30, 2, 40, 16)
    assert layout_groups({"layout": None}) == []
    # tile 3 re-read from the reader's next guess: outlined on the video with what it was taken for
    scored["warnings"] = [{"code": "corrected", "tiles": [3]}, {"code": "low_confidence", "tiles": [1]}]
    guessed = [g for g in layout_groups(scored) if g.kind == "guessed"]
    assert [(g.label, g.detections[0].box) for g in guessed] == [("guessed 4s?", (30, 2, 40, 16))]



def test_stream_command_rejects_a_context_the_scorer_would_refuse(tmp_path, capsys):
    from vision.cli.dispatch import main

    clip = tmp_path / "c.avi"
    write_clip(clip, [render(None)] * 2)
    assert main(["stream", str(clip), "--context", '{"seat_wind": "X"}']) == 2
    err = capsys.readouterr().err
    assert "--context" in err and "seat_wind" in err


def test_stream_command_prints_each_stable_hand_and_writes_the_annotated_copy(tmp_path, capsys, monkeypatch):
    import json

    import vision.photo.pipeline
    from vision.cli.dispatch import main

    monkeypatch.setattr(vision.photo.pipeline, "get_reader", lambda weights=None: GreyReader())
    clip, out = tmp_path / "clip.avi", tmp_path / "annotated.mp4"
    write_clip(clip, clip_frames())
    assert main(["stream", str(clip), "--json", "--out", str(out), "--context", json.dumps(CONTEXT)]) == 0
    captured = capsys.readouterr()
    lines = [json.loads(x) for x in captured.out.splitlines()]
    assert [m["hand"]["tiles"] for m in lines[:-1]] == [HAND_A, HAND_B]
    assert lines[-1] == {"type": "end"}                 # the file ended
    assert "50 frames, 50 detected" in captured.err
    cap = cv2.VideoCapture(str(out))
    assert int(cap.get(cv2.CAP_PROP_FRAME_COUNT)) == 50
    cap.release()


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _documented_messages() -> list[dict]:
    """The example messages of docs/overlay-json.md (its ```json blocks)."""
    import json
    import re
    from pathlib import Path

    doc = (Path(__file__).parent.parent / "docs" / "overlay-json.md").read_text()
    return [json.loads(block) for block in re.findall(r"```json\n(.*?)```", doc, re.S)]


def _fits(sent, doc) -> bool:
    """Whether ``sent`` has the shape of the documented ``doc``: the same keys (a doc object
    with a "…" key may have more), the same JSON kinds (null, bool, number, string, list,
    object) all the way down; "…" in the doc stands for anything."""
    if doc == "…":
        return True
    if isinstance(doc, dict):
        if not isinstance(sent, dict):
            return False
        keys = set(doc) - {"…"}
        if not (keys <= set(sent) if "…" in doc else keys == set(sent)):
            return False
        return all(_fits(sent[k], doc[k]) for k in keys)
    if isinstance(doc, list):
        # a doc list's items are alternatives: each item sent fits one of them
        return isinstance(sent, list) and (not doc or doc[0] == "…"
                                           or all(any(_fits(x, d) for d in doc) for x in sent))
    kind = lambda v: "null" if v is None else "bool" if isinstance(v, bool) else \
        "number" if isinstance(v, (int, float)) else type(v).__name__
    return kind(sent) == kind(doc)


def test_the_documented_messages_are_the_ones_sent(tmp_path, capsys, monkeypatch):
    # docs/overlay-json.md against what `tilescope stream --json` prints for a rendered clip
    # (empty table, hand A, hand B, empty table) and what the overlay sends a client before
    # the first hand. --json printed no "end", and the first message's "frame": null was
    # undocumented
    import json

    import vision.photo.pipeline
    from vision.cli.dispatch import main
    from vision.stream.overlay import OverlayHub

    monkeypatch.setattr(vision.photo.pipeline, "get_reader", lambda weights=None: GreyReader())
    clip = tmp_path / "clip.avi"
    # ... then hand B less its winning tile (a hand in play: its waits), then an empty table;
    # with a game kept (--game), whose table messages tests/test_control.py follows through
    # a game (proposals, confirmations): here the scoreboard at the start and the proposal
    # refused while no winner is named
    write_clip(clip, clip_frames() + [render(HAND_B[:-1])] * 20 + [render(None)] * 20)
    game = tmp_path / "game.jsonl"
    game.write_text(json.dumps({"type": "game", "players": ["Ann", "Bob", "Cai", "Dan"]}) + "\n")
    assert main(["stream", str(clip), "--json", "--context", json.dumps(CONTEXT),
                 "--overlay", str(_free_port()), "--game", str(game), "--exit-at-end"]) == 0
    sent = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    hands = [m for m in sent if m["type"] == "hand"]
    assert [m["type"] for m in sent if m["type"] != "table"] == ["hand", "hand", "hand", "hand", "end"]
    assert [m["hand"] is None for m in hands] == [False, False, False, True]
    assert [m["hand"]["waits"] is None for m in hands[:3]] == [True, True, False]
    tables = [m for m in sent if m["type"] == "table"]
    assert tables[0]["proposal"] is None and "who won" in tables[1]["proposal"]["error"]
    sent.append(OverlayHub().current)           # a client connecting before the first hand
    documented = _documented_messages()
    for m in sent:
        assert any(_fits(m, d) for d in documented), f"undocumented message shape: {m}"
    for d in documented:                        # and nothing documented that is never sent
        if d["type"] != "table":                # (tests/test_control.py sends each table)
            assert any(_fits(m, d) for m in sent), f"documented but not sent: {d}"
    assert {m["type"] for m in sent} == {d["type"] for d in documented} == {"hand", "table", "end"}


# the values of the two hands under CONTEXT (dealer tsumo, East round; ../shared/rules riichi):
# A = 123m 456p 789s 23s+4s, pair 5z (White, a dragon): menzen tsumo 1 han; fu 20 + 2 tsumo
# + 2 dragon pair = 24 -> 30; dealer 1 han 30 fu tsumo: 500 all = 1500.
# B = the same with pair 5p: pinfu + menzen tsumo 2 han 20 fu; dealer tsumo: 700 all = 2100
VALUE_A = "1 han 30 fu · 1500"
VALUE_B = "2 han 20 fu · 2100"


def test_a_clip_with_an_overlay_keeps_serving_the_last_hand_until_stopped(tmp_path, capsys, monkeypatch):
    # a 30-frame clip with --overlay stopped after ~2 s: / and /control could not be opened.
    # Now the pages stay up, showing the last hand, until Ctrl-C / kill (SIGTERM here, sent
    # once the pages were read after the end); stdout says each hand change in words
    import json
    import os
    import signal
    import threading
    import time
    import urllib.request

    import vision.photo.pipeline
    from vision.cli.dispatch import main

    monkeypatch.setattr(vision.photo.pipeline, "get_reader", lambda weights=None: GreyReader())
    clip, port = tmp_path / "clip.avi", _free_port()
    write_clip(clip, clip_frames())
    seen, returned = {}, threading.Event()

    def visit():
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not returned.is_set():
            try:
                current = json.loads(urllib.request.urlopen(url + "/api/current", timeout=2).read())
            except OSError:
                current = None
            if current and current["hand"] and current["hand"]["tiles"] == HAND_B:
                break
            time.sleep(0.1)
        time.sleep(1.5)             # the 50-frame clip has long ended: the pages still answer
        seen["page"] = urllib.request.urlopen(url + "/", timeout=2).status
        seen["control"] = urllib.request.urlopen(url + "/control", timeout=2).status
        seen["current"] = json.loads(urllib.request.urlopen(url + "/api/current", timeout=2).read())
        if not returned.is_set():   # (a stream that returned has put back pytest's SIGTERM)
            os.kill(os.getpid(), signal.SIGTERM)    # as Ctrl-C (the command's handler)

    visitor = threading.Thread(target=visit)
    visitor.start()
    try:
        code = main(["stream", str(clip), "--overlay", str(port), "--context", json.dumps(CONTEXT)])
    finally:
        returned.set()
    visitor.join()
    assert code == 0
    captured = capsys.readouterr()
    assert seen.get("page") == seen.get("control") == 200, "the pages were gone after the clip"
    assert seen["current"]["hand"]["tiles"] == HAND_B           # the last hand, still shown
    assert "clip ended; the overlay stays up — Ctrl-C to stop" in captured.err
    assert "50 frames, 50 detected" in captured.err and "2 hand changes" in captured.err
    # one human line per hand change: hand A, from frame 10, is tracked after 3 frames (the
    # tracker's enter) and held still 8 more: frame 19,
    # 1.90 s at the clip's 10 fps (VALUE_A, VALUE_B: worked out where they are defined)
    lines = captured.out.splitlines()
    assert len(lines) == 2 and all(not x.startswith("{") for x in lines)
    assert lines[0] == "1.90 s  " + " ".join(HAND_A) + "  " + VALUE_A
    assert lines[1].endswith(" ".join(HAND_B) + "  " + VALUE_B)


def test_stream_prints_words_by_default_json_with_the_flag_and_one_hand_change(tmp_path, capsys,
                                                                                 monkeypatch):
    # --help said --json printed the hands, yet stdout was JSON without it (and nothing with
    # --out); the summary said "1 hand changes"
    import json

    import vision.photo.pipeline
    from vision.cli.dispatch import main

    monkeypatch.setattr(vision.photo.pipeline, "get_reader", lambda weights=None: GreyReader())
    clip = tmp_path / "clip.avi"
    write_clip(clip, [render(None)] * 10 + [render(HAND_A)] * 20)
    assert main(["stream", str(clip), "--out", str(tmp_path / "a.mp4"),
                 "--context", json.dumps(CONTEXT)]) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines() == [f"1.90 s  {' '.join(HAND_A)}  {VALUE_A}"]
    assert "1 hand change" in captured.err and "1 hand changes" not in captured.err
    assert main(["stream", str(clip), "--json", "--context", json.dumps(CONTEXT)]) == 0
    sent = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [m["type"] for m in sent] == ["hand", "end"] and sent[0]["hand"]["tiles"] == HAND_A


def test_stream_takes_the_win_flags_of_tilescope_score(tmp_path, capsys, monkeypatch):
    # --win/--seat/--round as in tilescope score, instead of a --context object; what is left
    # to its default is said on stderr
    import json

    import vision.photo.pipeline
    from vision.cli.dispatch import main

    monkeypatch.setattr(vision.photo.pipeline, "get_reader", lambda weights=None: GreyReader())
    clip = tmp_path / "clip.avi"
    write_clip(clip, clip_frames())
    assert main(["stream", str(clip), "--json", "--win", "ron", "--seat", "S"]) == 0
    captured = capsys.readouterr()
    first = json.loads(captured.out.splitlines()[0])["hand"]
    assert first["request"]["win"] == "ron" and first["request"]["seat_wind"] == "S"
    assert "assumed riichi rules" in captured.err and "round East (--round)" in captured.err
    assert "--seat" not in captured.err.split("assumed")[1].split("\n")[0]


def test_stream_turns_sets_the_readers_quarter_turns(tmp_path, capsys, monkeypatch):
    import vision.photo.pipeline
    from vision.cli.dispatch import main

    class TurningReader(GreyReader):
        turns = 4

    reader = TurningReader()
    monkeypatch.setattr(vision.photo.pipeline, "get_reader", lambda weights=None: reader)
    clip = tmp_path / "clip.avi"
    write_clip(clip, clip_frames()[:5])
    assert main(["stream", str(clip), "--turns", "2"]) == 0
    assert reader.turns == 2


def test_runner_reads_through_the_last_frames_windows_and_refreshes():
    from vision.stream.live import REFRESH_FRAMES, Frame

    window = (100, 200, 400, 500)

    class ZoomingReader:
        """Answers like a TileReader that had to zoom: its detections name one window."""

        def __init__(self):
            self.hints = []

        def read(self, image, windows=()):
            self.hints.append(tuple(windows))
            return Detections(1280, 720, [], windows=(window,))

    reader = ZoomingReader()
    runner = StreamRunner(reader, HandStabiliser(stable_frames=2))
    img = np.zeros((720, 1280, 3), np.uint8)
    for i in range(REFRESH_FRAMES + 2):
        runner.step(Frame(i, img, i / 30))
    # the first frame and every REFRESH_FRAMES-th are read whole; the others through the window
    want = [() if i % REFRESH_FRAMES == 0 else (window,) for i in range(REFRESH_FRAMES + 2)]
    assert reader.hints == want


def test_stream_without_the_dev_and_serve_extras(tmp_path, capsys, monkeypatch):
    # `pip install .` alone: no tqdm (a progress bar of the dev extra) and no FastAPI. --out
    # still writes its copy without a progress bar; --overlay names the extra it needs
    import builtins
    import json

    import vision.photo.pipeline
    from vision.cli.dispatch import main

    real_import = builtins.__import__

    def without(name, *a, **k):
        if name.split(".")[0] in ("tqdm", "fastapi", "uvicorn") or name == "vision.stream.overlay":
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", without)
    monkeypatch.delitem(__import__("sys").modules, "vision.stream.overlay", raising=False)
    monkeypatch.setattr(vision.photo.pipeline, "get_reader", lambda weights=None: GreyReader())
    clip, out = tmp_path / "clip.avi", tmp_path / "annotated.mp4"
    write_clip(clip, clip_frames())
    assert main(["stream", str(clip), "--out", str(out), "--context", json.dumps(CONTEXT)]) == 0
    cap = cv2.VideoCapture(str(out))
    assert int(cap.get(cv2.CAP_PROP_FRAME_COUNT)) == 50
    cap.release()
    capsys.readouterr()
    assert main(["stream", str(clip), "--overlay", "8799"]) == 2
    assert "--overlay needs the 'serve' extra" in capsys.readouterr().err


def test_stream_says_when_no_hand_held_still_and_refuses_an_out_file_it_cannot_write(tmp_path, capsys,
                                                                                      monkeypatch):
    import vision.photo.pipeline
    from vision.cli.dispatch import main

    monkeypatch.setattr(vision.photo.pipeline, "get_reader", lambda weights=None: GreyReader())
    clip = tmp_path / "empty.avi"
    write_clip(clip, [render(None)] * 5)             # an empty table: exit 0, and it says so
    assert main(["stream", str(clip), "--json"]) == 0
    assert "no hand was shown: none held still long enough (--stable 8)" in capsys.readouterr().err
    assert main(["stream", str(clip), "--out", str(tmp_path / "a.txt")]) == 2
    assert "give a .mp4 or .avi file name" in capsys.readouterr().err


def test_annotated_copy_keeps_frames_when_the_camera_changes_resolution(tmp_path):
    # a webcam switching to a smaller mode mid-stream: its frames are scaled to the video's
    # first size (OpenCV would drop every one of them silently)
    from vision.stream.live import Frame

    out = tmp_path / "out.avi"
    writer = cv2.VideoWriter(str(out), cv2.VideoWriter_fourcc(*"MJPG"), 10, (640, 360))
    runner = StreamRunner(GreyReader(), HandStabiliser(stable_frames=2), None, None, writer)
    big, small = render(HAND_A), cv2.resize(render(HAND_A), (320, 180))
    for i, image in enumerate([big] * 3 + [small] * 3):
        runner.step(Frame(i, image, i / 10), detect=False)
    writer.release()
    cap = cv2.VideoCapture(str(out))
    written = 0
    while cap.read()[0]:
        written += 1
    assert written == 6


def test_a_killed_stream_leaves_a_playable_video(tmp_path):
    # `kill` (SIGTERM) ends the run as Ctrl-C does: the .mp4 gets its index and plays
    import signal
    import subprocess
    import sys
    import time

    clip, out = tmp_path / "clip.avi", tmp_path / "out.mp4"
    write_clip(clip, [render(HAND_A)] * 400)
    proc = subprocess.Popen([sys.executable, "-m", "vision.cli", "stream", str(clip), "--out", str(out)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while (not out.exists() or out.stat().st_size < 20_000) and time.monotonic() < deadline \
            and proc.poll() is None:
        time.sleep(0.2)
    proc.send_signal(signal.SIGTERM)
    err = proc.communicate(timeout=60)[1]
    assert proc.returncode == 0, err
    # said in one line, before the summary (issue 40); stderr a pipe: no \r progress bar
    frames = int(err.split("interrupted (Ctrl-C or kill) after ")[1].split()[0])
    assert f"tilescope stream: interrupted (Ctrl-C or kill) after {frames} frames; {out} holds " \
           "the frames up to there (playable)\ntilescope stream: " + str(frames) + " frames" in err
    assert "\r" not in err
    cap = cv2.VideoCapture(str(out))
    assert cap.read()[0] and int(cap.get(cv2.CAP_PROP_FRAME_COUNT)) > 0
    cap.release()


def test_a_live_source_that_stops_is_said_to_have_stopped(capsys, monkeypatch):
    import vision.photo.pipeline
    import vision.stream.live
    from vision.cli.dispatch import main
    from vision.stream.live import Frame

    class StoppedFeed:            # a network stream that gives three frames, then nothing
        live, frame_count, dropped = True, 0, 0

        def __init__(self, source, every=1):
            pass

        def frames(self):
            for i in range(3):
                yield Frame(i, render(HAND_A), i / 10), True

        def close(self):
            pass

    monkeypatch.setattr(vision.stream.live, "FrameSource", StoppedFeed)
    monkeypatch.setattr(vision.photo.pipeline, "get_reader", lambda weights=None: GreyReader())
    assert main(["stream", "http://127.0.0.1:9/feed", "--json"]) == 0
    err = capsys.readouterr().err
    assert "the live source stopped giving frames" in err and "no hand was shown" in err


def test_message_tiles_are_numbered_as_the_warnings_number_them():
    # the scorer read the row the other way round (a camera across the table): its warnings
    # say "tile 1" of its own order, so the message lists its tiles, not the tracker's
    from vision.stream.live import HandEvent

    event = HandEvent(9, dets_of(HAND_A), tuple((t, False) for t in HAND_A))
    scored = {"tiles": [{"tile": t} for t in reversed(HAND_A)], "result": {"error": "x"},
              "warnings": [{"code": "low_confidence", "tiles": [1]}]}
    assert hand_message(event, scored, 1.0)["hand"]["tiles"] == list(reversed(HAND_A))
    assert hand_message(event, None, 1.0)["hand"]["tiles"] == HAND_A


def test_a_bad_flag_is_not_blamed_on_a_context_that_was_not_given(tmp_path, capsys):
    from vision.cli.dispatch import main

    clip = tmp_path / "c.avi"
    write_clip(clip, [render(None)] * 2)
    assert main(["stream", str(clip), "--dora", "9x"]) == 2
    err = capsys.readouterr().err
    assert "dora" in err and "--context" not in err


def test_annotated_copy_of_a_live_source_plays_in_real_time():
    # a live camera at 30 frames/s whose frames the reader took at 0 s, 0.5 s and 1.1 s: the
    # video at 30 frames/s must last as long as the session (34 frames = 1.1 s + one frame),
    # not three frames; a frame of a file (time = index / fps) is written exactly once
    from vision.stream.live import Frame

    class Count:
        frames = 0

        def write(self, image):
            self.frames += 1

    live = Count()
    runner = StreamRunner(GreyReader(), HandStabiliser(stable_frames=2), None, None, live, 30.0)
    image = render(HAND_A)
    for i, t in enumerate([0.0, 0.5, 1.1]):
        runner.step(Frame(i, image, t), detect=False)
    assert live.frames == round(1.1 * 30) + 1
    runner.step(Frame(3, image, 1.1), detect=False)      # no time passed: nothing to add
    assert live.frames == 34
    from_file = Count()
    runner = StreamRunner(GreyReader(), HandStabiliser(stable_frames=2), None, None, from_file, 29.97)
    for i in range(100):
        runner.step(Frame(i, image, i / 29.97), detect=False)
    assert from_file.frames == 100
    # a frame an hour after the last (a stalled feed): 10 s of copies, not an hour's
    stalled = Count()
    runner = StreamRunner(GreyReader(), HandStabiliser(stable_frames=2), None, None, stalled, 30.0)
    runner.step(Frame(0, image, 0.0), detect=False)
    runner.step(Frame(1, image, 3600.0), detect=False)
    assert stalled.frames == 1 + 300
    runner.step(Frame(2, image, 3600.0 + 1 / 30), detect=False)     # and on from there: one
    assert stalled.frames == 1 + 300 + 1
    # a camera claiming 90000 frames/s (OpenCV reports such rates for some streams) is not
    # paced at all: each frame written once, as before
    from vision.stream.live import writer_rate
    assert writer_rate(30.0) == 30.0 and writer_rate(90000.0) is None and writer_rate(0.0) is None


def test_a_long_banner_stays_inside_the_frame():
    # a 1280x720 hand camera and a banner with a long guessed note: set smaller, then cut with
    # "...", never drawn past the right edge (the last columns stay as the frame had them)
    from vision.stream.live import draw_frame

    frame = np.zeros((720, 1280, 3), np.uint8)
    long = "mangan (5 han) · 12000 (guessed: tiles 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13 unsure)" * 2
    out = draw_frame(frame, None, long)
    assert out[620:, 1280 - 8:].max() == 0          # the right margin untouched
    assert out[620:, :200].max() > 0                 # the banner's start was drawn
    short = draw_frame(frame, None, "2 han 30 fu · 2000")
    assert short[620:, 400:].max() == 0              # a short banner keeps its size


def test_a_network_feed_that_answers_nothing_gives_up_within_the_timeout(monkeypatch):
    # a server that accepts the connection and sends nothing: OpenCV's own default waits 30 s
    import socket
    import time

    import vision.stream.live
    from vision.stream.live import FrameSource, SourceError

    monkeypatch.setattr(vision.stream.live, "NETWORK_TIMEOUT_S", 1.0)
    with socket.create_server(("127.0.0.1", 0)) as silent:
        silent.listen(4)
        port = silent.getsockname()[1]
        t0 = time.monotonic()
        with pytest.raises(SourceError, match=r"answered as a video feed within 1 s"):
            FrameSource(f"http://127.0.0.1:{port}/feed")
        assert time.monotonic() - t0 < 10


def test_closing_the_hub_closes_each_overlay_socket_before_the_server_stops():
    # an OBS browser source keeps its WebSocket open: the stopping server cancelled the
    # waiting handler, and uvicorn printed "Exception in ASGI application" at every stop
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient
    from starlette.websockets import WebSocketDisconnect

    from vision.stream.overlay import OverlayHub, create_overlay_app

    hub = OverlayHub()
    with TestClient(create_overlay_app(hub)) as client:
        with client.websocket_connect("/ws") as ws:
            assert ws.receive_json()["hand"] is None
            hub.close()
            with pytest.raises(WebSocketDisconnect):
                ws.receive_json()
    assert hub.client_count == 0


def test_a_hand_partly_covered_keeps_its_value_and_grain_is_no_hand():
    # an arm resting over the hand read as 9 tiles that make no hand: the overlay showed "not
    # scored" over a scored hand; a frame of grain read as 300 boxes is no hand at all
    from vision.stream.live import Frame

    def row(n):
        return Detections(640, 360, [Detection("1m", (10.0 + 30 * i, 100.0, 35.0 + 30 * i, 140.0), 0.9)
                                     for i in range(n)])

    frames = ([row(14)] * 4 + [Detections(640, 360, crowded=300)] * 4 + [row(9)] * 10
              + [row(14)] * 10 + [Detections(640, 360)] * 10)

    class Replay:
        def __init__(self):
            self.i = -1

        def read(self, image, windows=()):
            self.i += 1
            return frames[self.i]

    def scorer(image, dets):
        ok = len(dets.tiles) == 14
        return {"request": {}, "warnings": [],
                "result": {"valid": True, "han": 1} if ok else {"valid": False, "error": "no hand"}}

    sent = []
    runner = StreamRunner(Replay(), HandStabiliser(stable_frames=2), scorer, sent.append)
    blank = np.zeros((360, 640, 3), np.uint8)
    for i in range(len(frames)):
        runner.step(Frame(i, blank, i / 10))
    shown = [None if m["hand"] is None else len(m["hand"]["tiles"]) for m in sent]
    # the 14 tiles (frame 1), the same again when the arm leaves, then the empty table
    assert shown == [14, 14, None]


def test_a_hand_in_play_shows_its_shanten_or_its_waits_under_the_context():
    from vision.stream.live import HandEvent, pipeline_scorer

    def message(tiles, context):
        dets = dets_of(tiles)
        scored = pipeline_scorer(context)(None, dets)
        return hand_message(HandEvent(9, dets, tuple((t, False) for t in tiles)), scored, 0.9)["hand"]

    south = {"ruleset": "riichi", "win": "ron", "seat_wind": "S", "round_wind": "E"}
    # 123m 123p 55z, 79s a partial set, 2s 1z 9m alone: 8 − 2×2 (sets) − 1 (partial) − 1
    # (pair) = 2 shanten for the regular shape; seven pairs 6 − 1 = 5; orphans 13 − 5 − 1 = 7
    far = message(["1m", "2m", "3m", "1p", "2p", "3p", "2s", "7s", "9s", "5z", "5z", "1z", "9m"], south)
    assert far["waits"]["shanten"] == 2 and far["waits"]["waits"] == []
    assert far["summary"].startswith("2 shanten (") and far["request"] is None
    # 123m 123p 23s 789s 55z waits on 1s/4s; with dora indicator 4p (dora 5p, none held) the
    # 1s ron stays mangan; the context's dora string is read as tiles: 4p is one copy seen, and
    # none of 1s/4s, so each keeps 4 left
    tenpai = ["1m", "2m", "3m", "1p", "2p", "3p", "2s", "3s", "7s", "8s", "9s", "5z", "5z"]
    near = message(tenpai, {**south, "dora_indicators": "4p"})["waits"]
    assert [(w["tile"], w["left"]) for w in near["waits"]] == [("1s", 4), ("4s", 4)]
    # the dealer (East seat) is paid 1.5×: sanshoku 2 + junchan 2 = mangan, 12000 by ron
    dealer = message(tenpai, {**south, "seat_wind": "E"})["waits"]
    assert dealer["waits"][0]["ron"]["points"] == 12000
    # a riichi stick and a counter on the table go to whoever wins, apart from each wait's
    # own payment: the dealer's mangan ron stays 12000, + 300 a counter + 1000 a stick
    table = message(tenpai, {**south, "seat_wind": "E", "honba": 1, "riichi_sticks": 1})["waits"]
    assert table["waits"][0]["ron"]["points"] == 12000
    assert (table["honba_points"], table["stick_points"]) == (300, 1000)
    assert table["waits"][0]["ron"]["value"] == "mangan (4 han) · 12000 + 300 honba + 1000 sticks"
    # dora indicator 7z (the dragons wrap: 7z shows 5z): two dora for the 55z pair, but « les
    # doras ne sont pas des yakus » (rules text, line 9): ron on 4s is still no win
    wrap = message(tenpai, {**south, "dora_indicators": "7z"})["waits"]
    assert wrap["waits"][1]["ron"]["valid"] is False and "no yaku" in wrap["waits"][1]["note"]


def test_a_stream_interrupted_before_a_hand_held_still_says_so_not_an_empty_table(capsys):
    """Ctrl-C 7 frames in said "no hand was shown: none held still long enough (--stable 8),
    the table was empty, or the reader found no tiles"; at frame 0 "no frame could be read
    ... not a video" and exit 2. Interrupted, it says it was stopped before a hand was shown."""
    from types import SimpleNamespace

    from vision.cli.commands.stream import _report

    args = SimpleNamespace(out=None, stable=8, source="clip.mp4")
    source = SimpleNamespace(live=False)
    for frames in (7, 0):
        stats = SimpleNamespace(frames=frames, detected=frames, detect_fps=2.9, full_reads=frames,
                                dropped=0, events=0)
        assert _report(stats, source, True, args) == 0
        err = capsys.readouterr().err
        assert f"interrupted (Ctrl-C or kill) after {frames} frames" in err
        assert "no hand was shown before the interruption" in err
        assert "the table was empty" not in err and "not a video" not in err
    stats.frames = 7                   # the file ended without a hand: the reasons, as before
    assert _report(stats, source, False, args) == 0
    assert "none held still long enough (--stable 8)" in capsys.readouterr().err


def test_a_source_that_cannot_be_opened_says_why_in_one_line(tmp_path, capsys):
    """A text file named .mp4, an empty file and a folder all said just "cannot open video
    source 'X'": each now says which it is, on one line, exit 2."""
    from vision.cli.dispatch import main

    (tmp_path / "notes.mp4").write_text("not a video")
    (tmp_path / "empty.mp4").write_bytes(b"")
    (tmp_path / "clips.mp4").mkdir()
    for name, why in (("notes.mp4", "not a video OpenCV can read"), ("empty.mp4", "the file is empty"),
                      ("clips.mp4", "a folder, not a video file")):
        assert main(["stream", str(tmp_path / name)]) == 2
        err = capsys.readouterr().err
        assert "cannot open video source" in err and why in err and len(err.splitlines()) == 1, err
