"""Episodic training for set features (models/train_sets.py): a set drawn consistently, the
colour transform, the prototype loss, one training step on CPU and the exported ONNX model's two
outputs. Needs the artwork ($TILESCOPE_ART or ../shared/art); skipped without it."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="needs the train extra (torch)")

from datasets import art  # noqa: E402
from models import train_sets as ts  # noqa: E402
from models.train_classifier import TileNet, _scaled  # noqa: E402
from vision.read.classes import CLASS_INDEX, TILE_CLASSES  # noqa: E402
from vision.read.tile_crops import CROP_SIZE  # noqa: E402


@pytest.fixture(scope="module")
def faces():
    try:
        style = art.load_style("riichi-black")
    except art.ArtError:
        pytest.skip("no artwork ($TILESCOPE_ART)")
    out = {c: _scaled(img) for c, img in style.faces.items()}
    if style.back is not None:
        out["back"] = _scaled(style.back)
    return out


def test_paint_is_the_same_on_every_face(faces):
    paint = {"dark": True, "body": np.float32([120, 20, 40]), "grain_seed": None,
             "ink": ("white", 230.0, np.ones(3)), "red": (1.0, 0.0), "outline": 0}
    body = ts.set_body(faces)
    for c in ("1m", "9p", "7z"):
        out = ts.paint_face(faces[c], paint, False, body)
        was_body = (np.abs(faces[c][..., :3].astype(float) - body).max(axis=2) < 20) & (faces[c][..., 3] > 200)
        # wherever a face showed the set's body (9p too, whose dots cover most of it), the new body
        assert was_body.sum() > 500
        assert np.abs(out[was_body][:, :3].astype(float) - paint["body"]).max() <= 1
    assert ts.paint_face(faces["1m"], None, red=False) is faces["1m"]
    look = ts.set_look(np.random.default_rng(3), repaint=1.0, dark_share=1.0)
    assert look["paint"]["dark"] and look["back"].shape[2] == 4 and len(look["side"]) == 3


def test_episode_shapes_and_kinds(faces):
    rng = np.random.default_rng(0)
    kinds = ["1m", "5p", "0p", "7z", "back"]
    sub = {c: faces[c] for c in kinds if c != "back"}
    painted, look, got = ts.draw_set(sub, rng, repaint=1.0)
    assert set(got) == {"1m", "5p", "0p", "7z", "back"}
    x, mask = ts.render_episode(painted, look, got, 3, rng)
    assert x.shape == (len(TILE_CLASSES), 3, CROP_SIZE, CROP_SIZE, 3) and x.dtype == np.uint8
    assert mask.sum() == 5 and mask[CLASS_INDEX["back"]]
    assert x[CLASS_INDEX["9s"]].max() == 0 and x[CLASS_INDEX["1m"]].std() > 0


def test_colour_transform_and_prototype_loss():
    gen = torch.Generator().manual_seed(1)
    x = torch.rand(10, 3, 8, 8)
    for _ in range(5):
        y, changed = ts.colour_transform(x, gen, identity=0.0)
        assert changed and y.shape == x.shape and 0 <= float(y.min()) and float(y.max()) <= 1
    assert ts.colour_transform(x, gen, identity=1.0) == (x, False)
    # two well separated kinds: the loss is small and every query is named right
    emb = torch.zeros(1, len(TILE_CLASSES), 3, 4)
    mask = torch.zeros(1, len(TILE_CLASSES), dtype=torch.bool)
    emb[0, 0, :, 0] = 1
    emb[0, 1, :, 1] = 1
    mask[0, :2] = True
    loss, acc = ts.prototype_loss(emb, mask, 1, 16.0)
    assert float(acc) == 1.0 and float(loss) < 1e-3


def test_one_step_and_export(tmp_path, monkeypatch, faces):
    """A short run from random weights: two rendered items, steps on CPU, checkpoint and ONNX."""
    import onnxruntime as ort

    torch.manual_seed(0)
    init = tmp_path / "init.pt"
    torch.save({"model": TileNet().state_dict()}, init)
    out = tmp_path / "out"
    monkeypatch.setattr(ts, "load_all_styles", lambda _art: {"riichi-black": faces})
    threads, cv_threads = torch.get_num_threads(), ts.cv2.getNumThreads()
    try:
        rc = ts.main(["--init", str(init), "--out", str(out), "--workers", "0", "--max-items", "1",
                      "--episodes", "2", "--steps-per-item", "1", "--n-per", "2", "--ce-batch", "8",
                      "--procedural-share", "0", "--val-episodes", "0", "--hold-out", "none",
                      "--threads", "1"])
    finally:
        torch.set_num_threads(threads)
        ts.cv2.setNumThreads(cv_threads)
    assert rc == 0
    state = torch.load(out / "classifier.pt", map_location="cpu", weights_only=False)
    assert state["step"] >= 1 and all(torch.isfinite(v).all() for v in state["model"].values()
                                      if v.is_floating_point())
    sess = ort.InferenceSession(str(out / "classifier.onnx"), providers=["CPUExecutionProvider"])
    assert [o.name for o in sess.get_outputs()] == ["probs", "embedding"]
    assert sess.get_inputs()[0].name == "crops"
    probs, emb = sess.run(None, {"crops": np.random.rand(2, 3, CROP_SIZE, CROP_SIZE).astype(np.float32)})
    assert probs.shape == (2, len(TILE_CLASSES)) and emb.shape == (2, 120)
    assert np.allclose(probs.sum(1), 1, atol=1e-5) and np.allclose(np.linalg.norm(emb, axis=1), 1, atol=1e-5)


def test_ordinary_crops_cut_from_scenes(tmp_path, faces):
    """With --scenes, a share of each item's ordinary crops comes from rendered scenes."""
    from datasets.make_dataset import main as make_dataset

    out = tmp_path / "scenes"
    assert make_dataset(["--out", str(out), "--n", "2", "--val", "0", "--test", "0", "--imgsz", "256",
                         "--workers", "1", "--styles", "riichi-black"]) == 0
    stream = ts.EpisodeStream({"riichi-black": faces}, "none", 0, n_per=2, ce_batch=10,
                              procedural_share=0.0, scenes=[out], scene_share=0.5)
    ex, mask, cx, cy = next(iter(stream))
    assert cx.shape == (10, CROP_SIZE, CROP_SIZE, 3) and cy.shape == (10,)
    assert ex.shape[:2] == (len(TILE_CLASSES), 2) and int(mask.sum()) == 38
