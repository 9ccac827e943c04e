"""``tilescope read``: bad inputs exit 2 with a message; JSON shape; annotated copy; the bundled
models on a bundled rendered photo (when both are present)."""
from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.cli.dispatch import main

REPO = Path(__file__).resolve().parents[1]
WEIGHTS = REPO / "vision" / "weights"
DATA = Path(__file__).resolve().parent / "data"


def _run(capsys, *argv):
    code = main(["read", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("content, message", [
    (None, "no such file"),
    (b"", "empty file"),
    (b"1m 2m 3m 4p\n", "not an image"),
    (b"\xff\xd8\xff\xe0" + b"\0" * 100, "truncated JPEG"),
])
def test_bad_image_exits_2_with_message(tmp_path, capsys, content, message):
    path = tmp_path / "photo.jpg"
    if content is not None:
        path.write_bytes(content)
    code, out, err = _run(capsys, path, "--json")
    assert code == 2 and out == ""
    assert message in err and err.startswith("tilescope read: ")
    assert "Traceback" not in err


def test_missing_weights_exit_2(tmp_path, capsys):
    ok, enc = cv2.imencode(".png", np.zeros((32, 32, 3), np.uint8))
    (tmp_path / "p.png").write_bytes(enc.tobytes())
    code, _, err = _run(capsys, tmp_path / "p.png", "--weights", tmp_path / "none")
    assert code == 2 and "cannot load the tile models" in err


def test_bad_conf_and_annotate_name(tmp_path, capsys):
    assert _run(capsys, tmp_path / "p.png", "--conf", "1.5")[0] == 2
    assert _run(capsys, tmp_path / "p.png", "--annotate", tmp_path / "out.txt")[0] == 2


def test_json_shape_and_annotation_with_fake_models(tmp_path, capsys):
    pytest.importorskip("onnx", reason="onnx (dev extra) builds the fake models")
    from onnx_fakes import write_fake_weights, yolo_raw

    # 640x320 photo read at 320: scale 0.5, 80 px padding top (see test_detector_post)
    img = np.zeros((320, 640, 3), np.uint8)
    cv2.rectangle(img, (100, 60), (159, 139), (0, 0, 255), -1)
    cv2.rectangle(img, (200, 60), (259, 139), (255, 0, 0), -1)
    ok, enc = cv2.imencode(".png", img)
    (tmp_path / "hand.png").write_bytes(enc.tobytes())
    weights = write_fake_weights(tmp_path / "w", yolo_raw([
        (115, 130, 30, 40, 0.8, 0.0), (65, 130, 30, 40, 0.9, 0.0)]), 320)

    code, out, err = _run(capsys, tmp_path / "hand.png", "--json", "--weights", weights,
                          "--annotate", tmp_path / "seen.jpg")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["image"] == {"width": 640, "height": 320}
    assert [t["tile"] for t in doc["tiles"]] == ["0m", "1p"]          # left to right
    assert doc["tiles"][0]["box"] == [100.0, 60.0, 160.0, 140.0]
    assert set(doc["tiles"][0]) == {"tile", "box", "confidence", "sideways"}
    assert 0.85 < doc["tiles"][0]["confidence"] <= 0.9
    seen = cv2.imread(str(tmp_path / "seen.jpg"))
    assert seen.shape == (320, 640, 3) and not np.array_equal(seen, img)

    code, out, _ = _run(capsys, tmp_path / "hand.png", "--weights", weights)
    assert code == 0 and out.startswith("2 tiles in 640x320 px")


def _bundled_samples():
    if not (WEIGHTS / "detector.onnx").is_file() or not (WEIGHTS / "classifier.onnx").is_file():
        return []
    return sorted(p for p in DATA.glob("*.jpg") if p.with_suffix(".json").is_file())


@pytest.mark.skipif(not _bundled_samples(),
                    reason="needs vision/weights/{detector,classifier}.onnx and tests/data/*.jpg "
                           "with ground-truth .json sidecars")
def test_bundled_models_find_the_tiles_of_the_rendered_photos(capsys):
    """Over all bundled photos: >= 90% of the true boxes are found (IoU >= 0.5 with a reported
    box) and >= 80% of the tiles are named right (multiset overlap, as tile F1 counts them)."""
    from collections import Counter

    from vision.read.detector import box_iou

    found = named = total = 0
    for photo in _bundled_samples():
        truth = json.loads(photo.with_suffix(".json").read_text())["tiles"]
        code, out, err = _run(capsys, photo, "--json")
        assert code == 0, err
        doc = json.loads(out)
        boxes = np.array([t["box"] for t in doc["tiles"]], np.float64).reshape(-1, 4)
        found += sum(len(boxes) > 0 and box_iou(np.array(t["box"], float), boxes).max() >= 0.5
                     for t in truth)
        named += sum((Counter(t["tile"] for t in doc["tiles"])
                      & Counter(t["tile"] for t in truth)).values())
        total += len(truth)
    assert found >= 0.9 * total, f"{found}/{total} true boxes found"
    assert named >= 0.8 * total, f"{named}/{total} tiles named right"
