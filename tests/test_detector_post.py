"""Detector post-processing on hand-computed cases (ultralytics YOLOv8 ONNX conventions).

The worked example: a 640x320 photo read at imgsz 320 is scaled by r = min(320/320, 320/640)
= 0.5 to 320x160 and padded (320 - 160) / 2 = 80 px top and bottom, 0 left and right. A tile at
x 100..160, y 60..140 in the photo is therefore at x 50..80, y 110..150 in the letterbox:
centre (65, 130), size 30x40.
"""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.read.classes import TILE_CLASSES
from vision.read.detector import (Letterbox, box_iou, decode_end2end, decode_yolo, letterbox,
                                  mark_sideways, nms, reading_order, unletterbox_boxes)

LB = Letterbox(scale=0.5, pad_x=0, pad_y=80)


def test_letterbox_scale_padding_and_rgb_order():
    img = np.zeros((320, 640, 3), np.uint8)
    img[:, :320] = (0, 0, 255)          # left half red (BGR)
    blob, lb = letterbox(img, 320)
    assert blob.shape == (1, 3, 320, 320) and blob.dtype == np.float32
    assert lb == LB
    # padding rows are ultralytics grey 114
    assert blob[0, :, 0, 0] == pytest.approx([114 / 255] * 3)
    assert blob[0, :, 319, 319] == pytest.approx([114 / 255] * 3)
    # image rows 80..239: channel 0 is R, so the red left half reads (1, 0, 0)
    assert blob[0, :, 160, 10] == pytest.approx([1.0, 0.0, 0.0])
    assert blob[0, :, 160, 310] == pytest.approx([0.0, 0.0, 0.0])


def test_letterbox_keeps_a_row_of_a_photo_thinner_than_one_input_pixel():
    # 2 x 3000 px scales to 0.28 x 416: one row, not an empty image for cv2.resize
    blob, lb = letterbox(np.zeros((2, 3000, 3), np.uint8), 416)
    assert blob.shape == (1, 3, 416, 416) and lb.pad_y == 207


def test_letterbox_tall_image_pads_left_and_right():
    blob, lb = letterbox(np.zeros((400, 100, 3), np.uint8), 200)
    # r = min(200/400, 200/100) = 0.5 -> 50x200; (200 - 50) / 2 = 75 px each side
    assert lb == Letterbox(0.5, 75, 0)
    assert blob[0, 0, 100, 74] == pytest.approx(114 / 255)
    assert blob[0, 0, 100, 75] == 0.0


def test_boxes_found_in_a_mirrored_photo_map_back():
    from vision.read.detector import _flipped_back

    box = np.array([[10.0, 5.0, 30.0, 25.0]])       # in a 100 x 80 photo mirrored ...
    np.testing.assert_allclose(_flipped_back(box, "x", 100, 80), [[70, 5, 90, 25]])   # left-right
    np.testing.assert_allclose(_flipped_back(box, "y", 100, 80), [[10, 55, 30, 75]])  # top-bottom
    assert _flipped_back((), "x", 100, 80).shape == (0, 4)


def test_decode_yolo_converts_centres_and_filters_by_confidence():
    raw = np.zeros((1, 6, 3), np.float32)
    raw[0, :, 0] = (65, 130, 30, 40, 0.9, 0.1)     # a tile
    raw[0, :, 1] = (200, 135, 40, 30, 0.2, 0.7)    # a back
    raw[0, :, 2] = (10, 10, 4, 4, 0.1, 0.2)        # below conf 0.25
    boxes, scores, cls = decode_yolo(raw, conf=0.25)
    np.testing.assert_allclose(boxes, [[50, 110, 80, 150], [180, 120, 220, 150]])
    np.testing.assert_allclose(scores, [0.9, 0.7], rtol=1e-6)
    assert cls.tolist() == [0, 1]


def test_decode_yolo_rejects_wrong_layout():
    with pytest.raises(ValueError, match=r"\(1, 4\+nc, N\)"):
        decode_yolo(np.zeros((6, 10), np.float32), 0.25)


def test_decode_end2end_keeps_rows_over_conf():
    raw = np.array([[[50, 110, 80, 150, 0.9, 0], [1, 1, 2, 2, 0.1, 1]]], np.float32)
    boxes, scores, cls = decode_end2end(raw, 0.25)
    np.testing.assert_allclose(boxes, [[50, 110, 80, 150]])
    assert cls.tolist() == [0] and scores[0] == pytest.approx(0.9)


def test_box_iou_hand_computed():
    # overlap 9x10 = 90, union 100 + 100 - 90 = 110
    iou = box_iou(np.array([0, 0, 10, 10.]), np.array([[1, 0, 11, 10.], [20, 20, 30, 30.]]))
    np.testing.assert_allclose(iou, [90 / 110, 0.0])


def test_nms_class_aware_and_agnostic():
    boxes = np.array([[0, 0, 10, 10], [1, 0, 11, 10], [20, 20, 30, 30]], np.float32)
    scores = np.array([0.8, 0.9, 0.5], np.float32)
    # same class: IoU 0.82 > 0.5, the better box (index 1) wins
    assert nms(boxes, scores, np.array([0, 0, 0]), 0.5).tolist() == [1, 2]
    # different classes survive class-aware NMS ...
    assert nms(boxes, scores, np.array([0, 1, 0]), 0.5).tolist() == [1, 0, 2]
    # ... but not class-agnostic NMS
    assert nms(boxes, scores, None, 0.5).tolist() == [1, 2]
    # a looser threshold keeps both
    assert nms(boxes, scores, None, 0.85).tolist() == [1, 0, 2]
    assert nms(np.zeros((0, 4)), np.zeros(0), None, 0.5).tolist() == []


def test_unletterbox_maps_back_and_clips():
    out = unletterbox_boxes(np.array([[50, 110, 80, 150], [-10, 70, 330, 250]]), LB, 640, 320)
    np.testing.assert_allclose(out, [[100, 60, 160, 140], [0, 0, 640, 320]])


def test_reading_order_rows_top_to_bottom_then_left_to_right():
    boxes = np.array([
        [100, 200, 160, 280],   # second row
        [200, 60, 260, 140],
        [360, 80, 440, 140],    # sideways, sits lower in the first row
        [100, 60, 160, 140],
    ], np.float32)
    assert reading_order(boxes).tolist() == [3, 1, 2, 0]


def test_reading_order_keeps_a_tilted_row_together():
    # 6 tiles 60x80 stepping 20 px down per tile (a 15-degree roll): the row spans 100 px in y,
    # more than the 48 px row gap (0.6 x 80), but each step is 20 px. A tile 100 px below the
    # row's last one starts a second row.
    row = [[x * 62, 100 + 20 * x, x * 62 + 60, 180 + 20 * x] for x in range(6)]
    below = [[0, 300, 60, 380]]
    boxes = np.array(below + row[::-1], np.float32)     # input order scrambled
    assert reading_order(boxes).tolist() == [6, 5, 4, 3, 2, 1, 0]


def test_mark_sideways_against_row_median():
    # row of four upright 60x80 tiles (aspect 0.75) and one 80x60 (1.33 = 1.78 x median)
    row = [[x, 60, x + 60, 140] for x in (0, 70, 140, 210)] + [[280, 80, 360, 140]]
    # a lone squat tile (aspect 70/60 = 1.17 < 1.2) is not called sideways
    lone = [[0, 300, 70, 360]]
    flags = mark_sideways(np.array(row + lone, np.float32))
    assert flags.tolist() == [False, False, False, False, True, False]
    # a low camera squeezes every tile's height alike: still only the turned tile is sideways
    squeezed = [[x, 60, x + 60, 100] for x in (0, 70, 140, 210)] + [[280, 70, 360, 100]]
    assert mark_sideways(np.array(squeezed, np.float32)).tolist() == [False] * 4 + [True]


# ---- the whole reader on fake ONNX models (tests/onnx_fakes.py) ----

def _scene():
    """The photo and the raw detector output that boxes its tiles (see module docstring)."""
    img = np.zeros((320, 640, 3), np.uint8)
    paint = {"red": (0, 0, 255), "blue": (255, 0, 0), "green": (0, 255, 0)}
    tiles = [((100, 60, 160, 140), "red"), ((200, 60, 260, 140), "blue"),
             ((280, 60, 340, 140), "green"), ((360, 80, 440, 140), "red"),
             ((100, 200, 160, 280), "blue")]
    for (x1, y1, x2, y2), colour in tiles:
        cv2.rectangle(img, (x1, y1), (x2 - 1, y2 - 1), paint[colour], -1)
    cv2.rectangle(img, (500, 60), (559, 139), (150, 150, 150), -1)  # a face-down tile
    from onnx_fakes import yolo_raw

    raw = yolo_raw([
        (65, 130, 30, 40, 0.9, 0.0),      # red, upright
        (115, 130, 30, 40, 0.8, 0.0),     # blue
        (116, 131, 30, 40, 0.6, 0.0),     # duplicate of blue: NMS drops it
        (155, 130, 30, 40, 0.85, 0.0),    # green
        (200, 135, 40, 30, 0.7, 0.0),     # red, sideways
        (265, 130, 30, 40, 0.0, 0.8),     # the back
        (65, 200, 30, 40, 0.75, 0.0),     # blue, second row
        (300, 300, 10, 10, 0.1, 0.05),    # noise under conf
    ])
    return img, raw


def test_tile_reader_end_to_end_on_fake_models(tmp_path):
    pytest.importorskip("onnx", reason="onnx (dev extra) builds the fake models")
    pytest.importorskip("onnxruntime")
    from onnx_fakes import write_fake_weights
    from vision.read.detector import TileReader

    img, raw = _scene()
    # the fake classifier names tiles by colour: contrast views would hide it
    reader = TileReader(write_fake_weights(tmp_path, raw, 320), conf=0.25, threads=1, contrast=False)
    dets = reader.read(img)
    assert (dets.width, dets.height) == (640, 320)
    assert [d.tile for d in dets.tiles] == ["0m", "1p", "6z", "0m", "back", "1p"]
    assert [d.sideways for d in dets.tiles] == [False, False, False, True, False, False]
    np.testing.assert_allclose(dets.tiles[0].box, (100, 60, 160, 140), atol=1e-4)
    np.testing.assert_allclose(dets.tiles[3].box, (360, 80, 440, 140), atol=1e-4)
    # confidence = detector score x classifier probability (the fake classifier is sure)
    assert dets.tiles[0].confidence == pytest.approx(0.9, abs=0.01)
    assert dets.tiles[4].confidence == pytest.approx(0.8 * 0.5, abs=0.02)
    assert all(len(d.alternatives) <= 3 for d in dets.tiles)
    assert dets.to_json()["tiles"][3] == {"tile": "0m", "box": [360.0, 80.0, 440.0, 140.0],
                                         "confidence": round(dets.tiles[3].confidence, 4),
                                         "sideways": True}


def test_mark_sideways_with_thickness_in_the_boxes():
    # aspects of the ground-truth boxes of tests/data/mcr_flowers.json (boxes include the tile's
    # thickness, so a sideways tile is only 1.35x the row's median 0.77): called tiles 9 and 13
    aspects = [0.79, 0.8, 0.8, 0.8, 0.8, 0.78, 0.77, 0.75, 1.04, 0.74, 0.74, 0.74, 1.05, 0.75,
               0.77, 0.76]
    boxes = np.array([[i * 100, 0, i * 100 + 80 * a, 80] for i, a in enumerate(aspects)])
    assert np.flatnonzero(mark_sideways(boxes)).tolist() == [8, 12]


class _CornerClassifier:
    """Stub onnxruntime session: a crop whose top-left pixel is bright is class 0 with 0.7
    (else 0.3 on class 1); a dark top-left gives 0.2 / 0.8. Orientation decides the answer."""

    class _Input:
        name = "crops"
        shape = [None, 3, 4, 4]

    def get_inputs(self):
        return [self._Input()]

    def run(self, _outputs, feeds):
        crops = feeds["crops"]
        probs = np.zeros((len(crops), 46), np.float32)
        bright = crops[:, 0, 0, 0] > 0.5
        probs[bright, 0], probs[bright, 1] = 0.7, 0.3
        probs[~bright, 0], probs[~bright, 1] = 0.2, 0.8
        return [probs]


@pytest.mark.parametrize("turns,expected_a", [
    (1, 0.7),
    # 0° bright, 180° dark: sqrt(0.7*0.2) vs sqrt(0.3*0.8) -> 0.374 / (0.374 + 0.490)
    (2, 0.374166 / (0.374166 + 0.489898)),
    # 0° bright; 180°, 90°, 270° each bring a dark corner to the top-left:
    # (0.7*0.2^3)^(1/4) = 0.27356 vs (0.3*0.8^3)^(1/4) = 0.62603
    (4, 0.273556 / (0.273556 + 0.626034)),
])
def test_classifier_turns_average_log_probabilities(monkeypatch, turns, expected_a):
    import vision.read.detector as det

    crop = np.zeros((1, 3, 4, 4), np.float32)
    crop[:, :, :2, :2] = 1.0                      # only the top-left quadrant is bright
    monkeypatch.setattr(det, "crop_boxes", lambda image, boxes, size: crop.copy())
    reader = object.__new__(det.TileReader)
    reader.classifier, reader.crop_size, reader.turns, reader.contrast = _CornerClassifier(), 4, turns, False
    probs = reader.classify(np.zeros((8, 8, 3), np.uint8), np.array([[0, 0, 8, 8]], np.float32))
    assert probs.shape == (1, 46)
    assert probs[0, 0] == pytest.approx(expected_a, abs=1e-4)
    assert probs[0].sum() == pytest.approx(1.0, abs=1e-5)


class _CountingClassifier(_CornerClassifier):
    """Stub session: a crop whose top-left pixel is bright is class 0 with 0.99 in every turn
    (sure), a dark one class 1 with 0.6; counts the crops it is fed."""

    def __init__(self):
        self.fed = 0

    def run(self, _outputs, feeds):
        crops = feeds["crops"]
        self.fed += len(crops)
        probs = np.full((len(crops), 46), 0.4 / 45, np.float32)
        sure = crops[:, 0, 0, 0] > 0.5
        probs[sure] = 0.01 / 45
        probs[sure, 0], probs[~sure, 1] = 0.99, 0.6
        return [probs]


def test_four_turns_skip_the_last_two_for_a_crop_sure_after_two(monkeypatch):
    """TileReader.classify with turns=4: a crop at >= SURE_AFTER_TWO_TURNS after 0° and 180°
    is not turned 90°/270°; an unsure one is. Two crops: 2 x 2 first turns + 2 more = 6 fed."""
    import vision.read.detector as det

    crops = np.zeros((2, 3, 4, 4), np.float32)
    crops[0] = 1.0                                   # sure in every turn
    monkeypatch.setattr(det, "crop_boxes", lambda image, boxes, size: crops.copy())
    reader = object.__new__(det.TileReader)
    reader.classifier, reader.crop_size, reader.turns, reader.contrast = _CountingClassifier(), 4, 4, True
    probs = reader.classify(np.zeros((8, 8, 3), np.uint8), np.zeros((2, 4), np.float32))
    assert reader.classifier.fed == 6
    assert probs[0, 0] == pytest.approx(0.99, abs=1e-3)
    assert probs[1, 1] == pytest.approx(0.6, abs=1e-3)


class _RedInkClassifier(_CornerClassifier):
    """Stub session: a crop with more red than green is unsure, 0m 0.3 / 5m 0.2 (the red ink
    shows); a grey one (channels equal, as contrast views are) is 5m 0.9 / 0m 0.05 (a five,
    its red unseen). The rest is spread over the other 44 classes."""

    def run(self, _outputs, feeds):
        crops = feeds["crops"]
        red = crops[:, 2, 0, 0] > crops[:, 1, 0, 0] + 0.1
        five, red_five = TILE_CLASSES.index("5m"), TILE_CLASSES.index("0m")
        probs = np.where(red[:, None], 0.5 / 44, 0.05 / 44).astype(np.float32).repeat(46, axis=1)
        probs[red, red_five], probs[red, five] = 0.3, 0.2
        probs[~red, five], probs[~red, red_five] = 0.9, 0.05
        return [probs]


@pytest.mark.parametrize("turns", [2, 4])
def test_an_unsure_photo_gets_contrast_views_and_keeps_its_red(monkeypatch, turns):
    """TileReader(contrast=True): a photo whose crops are named under GREY_BELOW is looked at again
    in contrast views, which see a five but not its red. The five-or-red-five total comes from
    all views; it is shared out as the colour views say (0m 0.3 : 5m 0.2, so 0.6 of it red)."""
    import vision.read.detector as det

    crop = np.zeros((1, 3, 4, 4), np.float32)
    crop[:, 2] = 0.8                                 # red ink everywhere (BGR: channel 2)
    monkeypatch.setattr(det, "crop_boxes", lambda image, boxes, size: crop.copy())
    reader = object.__new__(det.TileReader)
    reader.classifier, reader.crop_size, reader.turns, reader.contrast = _RedInkClassifier(), 4, turns, True
    probs = reader.classify(np.zeros((8, 8, 3), np.uint8), np.array([[0, 0, 8, 8]], np.float32))
    five, red_five = TILE_CLASSES.index("5m"), TILE_CLASSES.index("0m")
    assert probs[0].argmax() == red_five
    total = probs[0, five] + probs[0, red_five]
    assert total > 0.6                               # colour alone: 0.5
    assert probs[0, red_five] / total == pytest.approx(0.6, abs=1e-3)
    reader.contrast = False                              # colour only
    probs = reader.classify(np.zeros((8, 8, 3), np.uint8), np.array([[0, 0, 8, 8]], np.float32))
    assert probs[0, red_five] == pytest.approx(0.3, abs=1e-3)
    assert probs[0, five] + probs[0, red_five] == pytest.approx(0.5, abs=1e-3)


def test_contrast_views_draw_any_set_as_dark_ink_on_a_light_body():
    """vision.read.tile_crops.contrast_crops: black ink on ivory, white ink on dark red and red ink on
    a darker red all come out with a light body and dark ink; plain luminance would lose the
    red-on-red ink (0.299 R weighs both alike when R is all that differs)."""
    from vision.read.tile_crops import contrast_crops

    def tile(body, ink):
        c = np.empty((3, 20, 20), np.float32)
        c[:] = np.array(body, np.float32)[:, None, None]
        c[:, 8:12, 4:16] = np.array(ink, np.float32)[:, None, None]     # a stroke, 1/5 of the crop
        return c

    crops = np.stack([tile((0.8, 0.9, 0.95), (0.1, 0.1, 0.1)),        # BGR: ivory, black ink
                      tile((0.1, 0.1, 0.4), (0.95, 0.95, 0.95)),      # dark red, white ink
                      tile((0.1, 0.1, 0.45), (0.15, 0.15, 0.9))])     # red ink on red
    out = contrast_crops(crops)
    assert out.shape == crops.shape and (out[:, 0] == out[:, 2]).all()
    for c in out:
        assert c[0, 0, 0] > 0.9 and c[0, 10, 10] < 0.1                # body light, ink dark
    assert contrast_crops(np.zeros((0, 3, 4, 4), np.float32)).shape == (0, 3, 4, 4)


def test_classifier_turns_must_be_1_2_or_4():
    from vision.read.detector import TileReader

    with pytest.raises(ValueError, match="turns must be 1, 2 or 4"):
        TileReader(turns=3)


def test_at_most_max_boxes_are_kept_best_first_in_their_order():
    from vision.read.detector import _best
    boxes = np.arange(20, dtype=np.float64).reshape(5, 4)
    scores = np.array([0.1, 0.9, 0.3, 0.8, 0.2])
    cls = np.arange(5)
    b, s, c = _best(boxes, scores, cls, most=3)
    assert list(c) == [1, 2, 3] and list(s) == [0.9, 0.3, 0.8]    # the 3 best, order kept
    assert _best(boxes, scores, cls, most=5)[0] is boxes
