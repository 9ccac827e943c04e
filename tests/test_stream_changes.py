"""tilescope stream reading only what changed (vision.stream.read_plan): the same hands as reading
every frame, for a fraction of the reads.

The rendered grey clips of tests/test_stream.py, still and shaken, run through a StreamRunner
with a ReadPlanner and without one; the messages must be the same, frame for frame.
"""
from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from grey_tiles import GreyReader, render
from test_stream import CONTEXT, HAND_A, HAND_B, _scorer, clip_frames, dets_of, write_clip
from vision.stream.read_plan import ReadPlanner
from vision.stream.live import Frame, HandStabiliser, StreamRunner, TileTracker


def shaken(img: np.ndarray, i: int) -> np.ndarray:
    """Frame ``i`` of a hand-held camera: moved by up to 2.5 px across, 1.5 px up and down."""
    m = np.float32([[1, 0, 2.5 * np.sin(i / 5)], [0, 1, 1.5 * np.cos(i / 7)]])
    return cv2.warpAffine(img, m, (img.shape[1], img.shape[0]), borderMode=cv2.BORDER_REPLICATE)


class CountingReader(GreyReader):
    def __init__(self):
        self.reads = 0

    def read(self, img, windows=()):
        self.reads += 1
        return super().read(img)


def play(frames, planner: ReadPlanner | None, stable: int = 5):
    """The frames through a runner: (messages, reads, per-frame tracked hand)."""
    reader = CountingReader()
    scorer, _ = _scorer()
    messages, tracked = [], []
    runner = StreamRunner(reader, HandStabiliser(stable), scorer, messages.append, planner=planner)
    for i, img in enumerate(frames):
        runner.step(Frame(i, img, i / 10))
        tracked.append(runner.stabiliser.key)
    assert runner.stats.detected == len(frames)
    assert runner.stats.full_reads == reader.reads
    return messages, reader.reads, tracked


def _hands(messages):
    return [(m["frame"], m["hand"] and m["hand"]["tiles"], m["hand"] and m["hand"]["summary"])
            for m in messages]


def test_the_rendered_clip_gives_the_same_hands_frame_for_frame_with_fewer_reads():
    frames = clip_frames()
    full, full_reads, full_tracked = play(frames, None)
    changes, reads, tracked = play(frames, ReadPlanner(settle=5))
    assert [m["hand"]["tiles"] for m in full] == [HAND_A, HAND_B]
    assert _hands(changes) == _hands(full)
    assert tracked == full_tracked
    assert full_reads == 50 and reads < 40


def test_a_shaken_hand_is_held_between_reads_and_its_boxes_follow_the_shake():
    frames = [shaken(render(None), i) for i in range(10)] + [shaken(render(HAND_A), i) for i in range(10, 70)]
    full, _, full_tracked = play(frames, None)
    changes, reads, tracked = play(frames, ReadPlanner(settle=5))
    assert _hands(changes) == _hands(full) and [m["hand"]["tiles"] for m in changes] == [HAND_A]
    assert tracked == full_tracked
    assert reads <= 5 + 5 + 1        # the empty table settled, the hand settled, one more at most


def test_the_tracker_holds_its_tiles_moved_without_a_vote():
    tracker = TileTracker()
    for dx in (0, 1, 2):
        hand = tracker.update(dets_of(["1m", "2m", "3m"], dx))
    votes = [len(t.labels) for t in hand]
    before = [t.detection.box for t in hand]
    held = tracker.hold(1.5, -0.5)
    assert [t.label for t in held] == [("1m", False), ("2m", False), ("3m", False)]
    assert [len(t.labels) for t in held] == votes
    assert [t.detection.box for t in held] == [(x1 + 1.5, y1 - 0.5, x2 + 1.5, y2 - 0.5)
                                               for x1, y1, x2, y2 in before]
    for _ in range(10):               # a still hand stays in, however long it is held
        assert len(tracker.hold(0, 0)) == 3


def test_stream_reads_only_what_changed_unless_told_and_says_how_many_it_read(tmp_path, capsys,
                                                                             monkeypatch):
    import vision.photo.pipeline
    from vision.cli.dispatch import main

    monkeypatch.setattr(vision.photo.pipeline, "get_reader", lambda weights=None: GreyReader())
    clip = tmp_path / "clip.avi"
    write_clip(clip, clip_frames())
    lines = {}
    for flags in ([], ["--full-reads"]):
        assert main(["stream", str(clip), "--json", "--context", json.dumps(CONTEXT)] + flags) == 0
        captured = capsys.readouterr()
        lines[bool(flags)] = [json.loads(x) for x in captured.out.splitlines()]
        assert "50 frames, 50 detected" in captured.err
        reads = int(captured.err.split(" read in full")[0].rsplit(", ", 1)[1])
        assert (reads == 50) if flags else (reads < 40)
    assert lines[True] == lines[False]
    assert [m["hand"]["tiles"] for m in lines[False][:-1]] == [HAND_A, HAND_B]


def test_stream_threads_must_be_a_sensible_number(tmp_path, capsys):
    from vision.cli.dispatch import main

    clip = tmp_path / "c.avi"
    write_clip(clip, [render(None)] * 2)
    assert main(["stream", str(clip), "--threads", "0"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--threads 0" in err


WEIGHTS = Path(__file__).parent.parent / "vision" / "weights"
BROADCAST = Path(__file__).parent / "data" / "riichi_broadcast.jpg"


@pytest.mark.skipif(not (WEIGHTS / "detector.onnx").is_file(), reason="no bundled model")
def test_the_hand_camera_clip_is_worth_7700_with_a_handful_of_reads(tmp_path):
    # the README's broadcast sample (4 han 30 fu, 7700 by ron, seat W, dora indicator 3s),
    # shaken as a hand-held camera: 30 frames, of which only the settling ones are read
    from benchmarks.stream import make_video
    from vision.photo.pipeline import get_reader
    from vision.stream.live import FrameSource, pipeline_scorer

    clip = tmp_path / "hand.mp4"
    make_video(str(clip), 30, BROADCAST)
    messages = []
    runner = StreamRunner(get_reader(), HandStabiliser(), pipeline_scorer(
        {"win": "ron", "seat_wind": "W", "dora_indicators": "3s"}), messages.append,
        planner=ReadPlanner())
    source = FrameSource(str(clip))
    stats = runner.run(source)
    source.close()
    assert stats.frames == stats.detected == 30
    assert stats.full_reads <= 10
    assert len(messages) == 1 and messages[0]["hand"]["result"]["payment"]["total"] == 7700


def test_the_benchmark_says_differences_as_frame_ranges_the_doubt_note_apart():
    from benchmarks.stream import Run, differences

    a, b = Run("full", 1), Run("changes", 1)
    hand = (("1m", "2m"), "1 han 30 fu · 1000")
    unsure = (("1m", "2m"), "1 han 30 fu · 1000 (unsure: tile 2)")
    other = (("1m", "3m"), "2 han 30 fu · 2000")
    key = (("1m", False), ("2m", False))
    a.tracked, b.tracked = [key] * 6, [key] * 5 + [(("1m", False),)]
    a.shown = [(None, None), hand, hand, hand, other, hand]
    b.shown = [(None, None), hand, unsure, unsure, hand, hand]
    assert differences(a, b) == [
        "frames 2-3: same hand and value; its note full: none | changes: unsure: tile 2",
        "frame 4: shown full: 1m 3m 2 han 30 fu · 2000 | changes: 1m 2m 1 han 30 fu · 1000",
        "frame 5: tracked full: 1m 2m | changes: 1m"]
    assert differences(a, a) == []
