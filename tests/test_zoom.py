"""The closer look at small tiles (vision/read/zoom.py), on hand-computed cases.

Worked example: a 1280×720 broadcast frame read at imgsz 416 (first-pass scale 416/1280 =
0.325) with 14 tiles 22×30 px in a row, x 400..708, y 600..630. Tile height h = 30 px, 9.75 px
in the letterbox: under ZOOM_BELOW_PX (24), so zoom. Region = tiles ± 2h = x 340..768,
y 540..690 (inside the frame). Window side = 416 · 30 / 44 = 283.6 px, overlap 1.6h = 48 px:
x needs ceil((428 − 48) / (283.6 − 48)) = 2 windows, y one. Starts x 340 and 340 + (428 −
283.6) = 484.4; y centred at 540 + (150 − 283.6) / 2 = 473.2, then slid up to 720 − 283.6 =
436.4 so the window stays whole inside the frame. Gain = (416 / 284) / 0.325 ≈ 4.5 ≥ 1.4.
"""
from __future__ import annotations

import numpy as np
import pytest

from vision.read.zoom import MAX_WINDOWS, cut_by_window, plan_windows, span, tile_height, within


def _row(n=14, x0=400.0, y0=600.0, w=22.0, h=30.0):
    return np.array([[x0 + k * w, y0, x0 + (k + 1) * w, y0 + h] for k in range(n)])


def test_broadcast_row_gets_two_windows():
    assert plan_windows(_row(), 1280, 720, 416) == [(340, 436, 624, 720), (484, 436, 768, 720)]


def test_tile_height_is_the_median_long_side():
    boxes = np.array([[0, 0, 22, 30], [0, 0, 30, 22], [0, 0, 10, 40]])   # upright, sideways, odd
    assert tile_height(boxes) == 30.0
    assert tile_height(np.zeros((0, 4))) == 0.0


def test_no_zoom_for_big_tiles_or_no_tiles():
    # 90 px tiles in a 1280 frame are 29 px in the letterbox: the first pass saw them well
    assert plan_windows(_row(w=66, h=90, x0=100), 1280, 720, 416) == []
    assert plan_windows(np.zeros((0, 4)), 1280, 720, 416) == []


def test_no_zoom_when_windows_would_not_enlarge_enough(monkeypatch):
    # tiny tiles in the four corners of a 4000x3000 photo; allowed one window only, it must
    # cover the whole photo: no enlargement, so no second pass
    import vision.read.zoom

    monkeypatch.setattr(vision.read.zoom, "MAX_WINDOWS", 1)
    assert plan_windows(_corners(), 4000, 3000, 416) == []


def _corners():
    return np.array([[10, 10, 24, 30], [3970, 10, 3984, 30], [10, 2960, 24, 2980],
                     [3970, 2960, 3984, 2980]], float)


def test_scattered_tiles_are_capped_at_max_windows():
    # tiny tiles in all four corners of a 4000x3000 photo: the region is the whole photo
    wins = plan_windows(_corners(), 4000, 3000, 416)
    assert 1 <= len(wins) <= MAX_WINDOWS
    covered = np.zeros((3000, 4000), bool)
    for x1, y1, x2, y2 in wins:
        assert 0 <= x1 < x2 <= 4000 and 0 <= y1 < y2 <= 3000
        covered[y1:y2, x1:x2] = True
    assert covered.all()                                     # every tile's surroundings are seen


def test_windows_cover_every_first_pass_tile_with_its_margin():
    # 30 tiles, x 20..680: region x 0..740 (the margin stops at the frame), so
    # ceil((740 - 48) / (283.6 - 48)) = 3 windows, the first at the frame's left edge
    boxes = _row(n=30, x0=20)
    wins = plan_windows(boxes, 1280, 720, 416)
    assert [w[0] for w in wins] == [0, 228, 456]
    for b in boxes:
        assert any(x1 <= b[0] and b[2] <= x2 and y1 <= b[1] and b[3] <= y2 for x1, y1, x2, y2 in wins)


def test_cut_by_window_only_on_inner_edges():
    win = (100, 0, 400, 300)                                 # touches the photo's top edge
    boxes = np.array([
        [101, 50, 130, 90],    # at the window's left edge, inside the photo: cut
        [200, 0, 230, 40],     # at the window's top, which is the photo's top: whole
        [370, 100, 399, 140],  # at the right edge (within 2 px): cut
        [200, 100, 230, 140],  # inside: whole
        [200, 270, 230, 299],  # at the bottom edge (y2 = 299 >= 300 - 2): cut
    ])
    assert cut_by_window(boxes, win, 1000, 800).tolist() == [True, False, True, False, True]


def test_reader_replaces_the_first_pass_with_the_windows_boxes(tmp_path, monkeypatch):
    pytest.importorskip("onnxruntime")
    from onnx_fakes import write_fake_weights
    from vision.read.detector import TileReader, letterbox, unletterbox_boxes

    # The fake detector answers every input with the same three 10x14 boxes (letterbox px).
    # On a 1280x720 frame (scale 0.325) they are 43 px tiles, 14 px in the letterbox: small,
    # so the reader looks again through one window and keeps what that pass finds.
    raw = np.zeros((1, 6, 3), np.float32)
    for k, cx in enumerate((200, 212, 224)):
        raw[0, :, k] = (cx, 208, 10, 14, 0.9, 0.0)
    reader = TileReader(write_fake_weights(tmp_path, raw, 416), threads=1, turns=1, zoom=False)
    img = np.full((720, 1280, 3), 90, np.uint8)
    first, _, _ = reader.detect(img)
    np.testing.assert_allclose(first[0], [195 / 0.325, 110 / 0.325, 205 / 0.325, 124 / 0.325], atol=0.01)
    windows = plan_windows(first, 1280, 720, 416)
    assert len(windows) == 1
    x1, y1, x2, y2 = windows[0]

    reader.zoom = True
    shapes = []
    once = reader._detect_once
    monkeypatch.setattr(reader, "_detect_once", lambda image: shapes.append(image.shape[:2]) or once(image))
    boxes, scores, cls = reader.detect(img)
    assert shapes == [(720, 1280), (y2 - y1, x2 - x1)]
    lb = letterbox(np.zeros((y2 - y1, x2 - x1, 3), np.uint8), 416)[1]
    inside = unletterbox_boxes(np.array([[195, 201, 205, 215], [207, 201, 217, 215], [219, 201, 229, 215]]),
                               lb, x2 - x1, y2 - y1)
    got = boxes[np.argsort(boxes[:, 0])]
    np.testing.assert_allclose(got, inside + [x1, y1, x1, y1], atol=0.01)
    assert scores == pytest.approx([0.9] * 3) and (cls == 0).all()


def _fake_reader(tmp_path):
    """The fake of the test above: three 43 px tiles in a 1280x720 frame, one zoom window."""
    from onnx_fakes import write_fake_weights
    from vision.read.detector import TileReader

    raw = np.zeros((1, 6, 3), np.float32)
    for k, cx in enumerate((200, 212, 224)):
        raw[0, :, k] = (cx, 208, 10, 14, 0.9, 0.0)
    return TileReader(write_fake_weights(tmp_path, raw, 416), threads=1, turns=1)


def test_read_names_its_windows_and_a_stream_reads_through_them(tmp_path, monkeypatch):
    pytest.importorskip("onnxruntime")
    reader = _fake_reader(tmp_path)
    img = np.full((720, 1280, 3), 90, np.uint8)
    first = reader.read(img)
    [window] = first.windows                    # the one window of the test above
    x1, y1, x2, y2 = window
    shapes = []
    once = reader._detect_once
    monkeypatch.setattr(reader, "_detect_once", lambda image: shapes.append(image.shape[:2]) or once(image))
    again = reader.read(img, windows=first.windows)
    # the next frame: no pass over the whole frame, the same tiles from the window alone
    assert shapes == [(y2 - y1, x2 - x1)]
    assert again.windows == first.windows
    assert [d.box for d in again.tiles] == [d.box for d in first.tiles]


def test_windows_that_show_nothing_give_a_full_read(tmp_path, monkeypatch):
    pytest.importorskip("onnxruntime")
    reader = _fake_reader(tmp_path)
    img = np.full((720, 1280, 3), 90, np.uint8)
    first = reader.read(img)
    shapes = []
    once = reader._detect_once

    def blind_first(image):                     # the hand left the old window
        shapes.append(image.shape[:2])
        if len(shapes) == 1:
            return np.zeros((0, 4)), np.zeros(0, np.float32), np.zeros(0, np.int64)
        return once(image)

    monkeypatch.setattr(reader, "_detect_once", blind_first)
    again = reader.read(img, windows=((0, 0, 300, 300),))
    assert shapes[1] == (720, 1280) and len(again.tiles) == 3 and again.windows == first.windows


def test_blind_windows_cover_a_large_frame_in_double_inputs():
    from vision.read.zoom import blind_windows

    # 1920x1080 at imgsz 416: windows of 832 px overlapping by 83.2 -> ceil(1836.8 / 748.8) = 3
    # across, ceil(996.8 / 748.8) = 2 down, spread evenly (x steps of 544, y of 248)
    assert blind_windows(1920, 1080, 416) == [
        (0, 0, 832, 832), (544, 0, 1376, 832), (1088, 0, 1920, 832),
        (0, 248, 832, 1080), (544, 248, 1376, 1080), (1088, 248, 1920, 1080)]
    # 1280x720: two across; the frame is lower than a window, so a window is the frame's height
    assert blind_windows(1280, 720, 416) == [(0, 0, 832, 720), (448, 0, 1280, 720)]
    # a photo under 1.2 windows across: the first pass saw it at more than half its size
    assert blind_windows(960, 720, 416) == []


def test_reader_looks_blind_when_the_first_pass_finds_nothing(tmp_path, monkeypatch):
    pytest.importorskip("onnxruntime")
    from onnx_fakes import write_fake_weights
    from vision.read.detector import TileReader

    raw = np.zeros((1, 6, 1), np.float32)
    raw[0, :, 0] = (208, 208, 10, 14, 0.9, 0.0)
    reader = TileReader(write_fake_weights(tmp_path, raw, 416), threads=1, turns=1)
    shapes = []
    once = reader._detect_once

    def first_blind(image):
        shapes.append(image.shape[:2])
        if len(shapes) == 1:                       # the whole frame: nothing seen
            return np.zeros((0, 4)), np.zeros(0, np.float32), np.zeros(0, np.int64)
        return once(image)

    monkeypatch.setattr(reader, "_detect_once", first_blind)
    boxes, _, _ = reader.detect(np.full((1080, 1920, 3), 90, np.uint8))
    # whole frame, then the six blind windows of 832 px, then closer windows around what they found
    assert shapes[0] == (1080, 1920) and shapes[1:7] == [(832, 832)] * 6
    assert len(shapes) > 7 and all(max(s) < 832 for s in shapes[7:])
    assert len(boxes) >= 1


BROADCAST = __import__("pathlib").Path(__file__).with_name("data") / "riichi_broadcast.jpg"
WEIGHTS = __import__("pathlib").Path(__file__).resolve().parents[1] / "vision" / "weights" / "classifier.onnx"


@pytest.mark.skipif(not WEIGHTS.is_file(), reason="no trained weights in vision/weights")
def test_broadcast_sample_scores_right_only_with_the_closer_look():
    """tests/data/riichi_broadcast.jpg: a 1280x720 frame, tiles about 22x30 px. The hand
    234m 0(5)67p 44s 57s + chi 678m, ron on 6s (kanchan), West seat, East round, dora indicator
    3s (dora 4s). Riichi rules: tanyao 1 (open tanyao allowed) + dora 2 + aka 1 = 4 han; fu 20 +
    2 (kanchan) = 22 -> 30 (an open hand gets no closed-ron 10); non-dealer ron: base 30 x 2^6
    = 1920, x4 = 7680 -> 7700. Read in one pass, the tiles are 7 px high in the detector's input
    and most are missed."""
    from vision.read.detector import TileReader
    from vision.photo.pipeline import score_photo

    context = {"ruleset": "riichi", "win": "ron", "seat_wind": "W", "round_wind": "E",
               "dora_indicators": "3s"}
    zoomed = score_photo(str(BROADCAST), context, reader=TileReader())
    assert len(zoomed.detections.tiles) == 14
    assert (zoomed.result.to_json()["han"], zoomed.result.to_json()["fu"], zoomed.result.to_json()["payment"]["total"]) == (4, 30, 7700)
    one_pass = score_photo(str(BROADCAST), context, reader=TileReader(zoom=False))
    assert len(one_pass.detections.tiles) < 14 and not one_pass.result.to_json().get("valid")


def test_span_and_within():
    assert span([(0, 436, 284, 720), (228, 436, 512, 720)]) == (0, 436, 512, 720)
    assert within((10, 10, 20, 20), (0, 0, 20, 20)) and not within((10, 10, 21, 20), (0, 0, 20, 20))


def test_reader_keeps_the_first_pass_when_the_windows_see_nothing(tmp_path, monkeypatch):
    pytest.importorskip("onnxruntime")
    from onnx_fakes import write_fake_weights
    from vision.read.detector import TileReader

    raw = np.zeros((1, 6, 1), np.float32)
    raw[0, :, 0] = (208, 208, 10, 14, 0.9, 0.0)
    reader = TileReader(write_fake_weights(tmp_path, raw, 416), threads=1, turns=1)
    once = reader._detect_once
    calls = []

    def first_only(image):
        calls.append(image.shape[:2])
        if len(calls) == 1:
            return once(image)
        return np.zeros((0, 4)), np.zeros(0, np.float32), np.zeros(0, np.int64)

    monkeypatch.setattr(reader, "_detect_once", first_only)
    boxes, _, _ = reader.detect(np.full((720, 1280, 3), 90, np.uint8))
    assert len(calls) == 2 and len(boxes) == 1        # one window looked, nothing there: keep
