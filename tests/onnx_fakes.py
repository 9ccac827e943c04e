"""Tiny hand-made ONNX models with known outputs, to test the reader's plumbing without weights.

``write_fake_weights(folder, raw, imgsz)`` writes:

* ``detector.onnx``: input ``images (1, 3, imgsz, imgsz)``, output ``output0`` = the constant
  ``raw`` (shape ``(1, 4 + nc, N)``, YOLOv8 layout), whatever the image; ultralytics-style
  ``names`` metadata ``{0: 'tile', 1: 'back'}``.
* ``classifier.onnx``: input ``crops (N, 3, 64, 64)``, output ``probs (N, 46)`` = softmax of
  ``20 * mean colour (B, G, R) @ W``, where W sends a red crop to ``0m``, a blue one to ``1p`` and
  a green one to ``6z`` - so the class follows from the colour painted in the test image.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

onnx = __import__("pytest").importorskip("onnx", reason="onnx (dev extra) builds the fake models")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from vision.read.classes import CLASS_INDEX, TILE_CLASSES  # noqa: E402

COLOUR_CLASS = {"red": "0m", "blue": "1p", "green": "6z"}
BGR = {"red": (0, 0, 255), "blue": (255, 0, 0), "green": (0, 255, 0)}


def _save(graph, path: Path, names: str | None = None) -> None:
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    if names:
        entry = model.metadata_props.add()
        entry.key, entry.value = "names", names
    onnx.checker.check_model(model)
    path.write_bytes(model.SerializeToString())


def fake_detector(path: Path, raw: np.ndarray, imgsz: int) -> None:
    const = numpy_helper.from_array(raw.astype(np.float32), "raw")
    zero = numpy_helper.from_array(np.zeros((), np.float32), "zero")
    nodes = [
        helper.make_node("ReduceMean", ["images"], ["m"], keepdims=0),
        helper.make_node("Mul", ["m", "zero"], ["z"]),
        helper.make_node("Add", ["raw", "z"], ["output0"]),
    ]
    graph = helper.make_graph(
        nodes, "fake_yolo",
        [helper.make_tensor_value_info("images", TensorProto.FLOAT, [1, 3, imgsz, imgsz])],
        [helper.make_tensor_value_info("output0", TensorProto.FLOAT, list(raw.shape))],
        initializer=[const, zero])
    _save(graph, path, names="{0: 'tile', 1: 'back'}")


def fake_classifier(path: Path) -> None:
    w = np.zeros((3, len(TILE_CLASSES)), np.float32)
    for colour, cls in COLOUR_CLASS.items():
        b, g, r = (np.array(BGR[colour]) / 255.0 - 0.5) * 2  # +1 for the painted channel
        w[:, CLASS_INDEX[cls]] = (b, g, r)
    nodes = [
        helper.make_node("GlobalAveragePool", ["crops"], ["gap"]),
        helper.make_node("Flatten", ["gap"], ["flat"]),
        helper.make_node("MatMul", ["flat", "w"], ["logits"]),
        helper.make_node("Mul", ["logits", "k"], ["scaled"]),
        helper.make_node("Softmax", ["scaled"], ["probs"], axis=1),
    ]
    graph = helper.make_graph(
        nodes, "fake_classifier",
        [helper.make_tensor_value_info("crops", TensorProto.FLOAT, ["n", 3, 64, 64])],
        [helper.make_tensor_value_info("probs", TensorProto.FLOAT, ["n", len(TILE_CLASSES)])],
        initializer=[numpy_helper.from_array(w, "w"),
                     numpy_helper.from_array(np.array(20.0, np.float32), "k")])
    _save(graph, path)


def write_fake_weights(folder: Path, raw: np.ndarray, imgsz: int) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    fake_detector(folder / "detector.onnx", raw, imgsz)
    fake_classifier(folder / "classifier.onnx")
    return folder


def yolo_raw(rows: list[tuple[float, float, float, float, float, float]], n: int = 8) -> np.ndarray:
    """``(1, 6, n)`` YOLOv8 output from ``(cx, cy, w, h, tile score, back score)`` rows
    (letterbox pixels); unused anchors get score 0."""
    raw = np.zeros((1, 6, n), np.float32)
    for i, row in enumerate(rows):
        raw[0, :, i] = row
    return raw
