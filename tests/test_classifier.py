"""The bundled crop classifier names the tiles in the ground-truth boxes of the bundled rendered
photos (``tests/data/*.json``), so the crop pipeline (``vision.read.tile_crops``) and the exported
model agree. Rendered photos, not real ones: the real-photo numbers are in models/README.md."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from vision.read.classes import TILE_CLASSES
from vision.read.tile_crops import CONTEXT, crop_boxes, fit_square

REPO = Path(__file__).resolve().parents[1]
MODEL = REPO / "vision" / "weights" / "classifier.onnx"
DATA = Path(__file__).resolve().parent / "data"


def test_fit_square_keeps_aspect_and_centres():
    crop = np.full((40, 20, 3), 255, np.uint8)           # portrait 20x40 -> 24x48 in 48
    sq = fit_square(crop, 48)
    assert sq.shape == (48, 48, 3)
    assert sq[24, 12:36].min() == 255 and sq[24, :12].max() == 127 and sq[24, 36:].max() == 127


def test_crop_boxes_widens_by_context_and_clips():
    img = np.zeros((100, 100, 3), np.uint8)
    img[40:60, 40:60] = 255
    t = crop_boxes(img, np.array([[40, 40, 60, 60], [-5, -5, 10, 10]]), 48)
    assert t.shape == (2, 3, 48, 48) and t.dtype == np.float32
    # a 20 px box widened by 4% per side is 21.6 -> 22 px: the white square fills most of it
    assert CONTEXT == 0.04 and t[0, :, 24, 24].tolist() == [1.0, 1.0, 1.0]
    assert t[1].max() == 0.0                               # clipped box, all black


@pytest.mark.skipif(not MODEL.is_file() or not list(DATA.glob("*.json")),
                    reason="needs vision/weights/classifier.onnx and tests/data samples")
def test_bundled_classifier_on_ground_truth_boxes():
    ort = pytest.importorskip("onnxruntime")
    from vision.read.imageio import load_image

    sess = ort.InferenceSession(str(MODEL), providers=["CPUExecutionProvider"])
    size = sess.get_inputs()[0].shape[2]
    right = total = 0
    for sidecar in sorted(DATA.glob("*.json")):
        truth = json.loads(sidecar.read_text())
        image = load_image(sidecar.with_suffix(".jpg"))
        boxes = np.array([t["box"] for t in truth["tiles"]], np.float32)
        probs = sess.run(None, {sess.get_inputs()[0].name: crop_boxes(image, boxes, size)})[0]
        assert probs.shape == (len(boxes), len(TILE_CLASSES))
        np.testing.assert_allclose(probs.sum(1), 1.0, atol=1e-4)
        got = [TILE_CLASSES[i] for i in probs.argmax(1)]
        right += sum(g == t["tile"] for g, t in zip(got, truth["tiles"]))
        total += len(got)
    assert right >= 0.8 * total, f"{right}/{total} ground-truth boxes named right"


def test_scene_crops_are_cut_like_the_reader_cuts_them(tmp_path):
    """models/train_classifier.py --scenes: crops of rendered scene photos carry the class of the
    tile under the box; with no box jitter and no turn, a crop equals the reader's own crop."""
    pytest.importorskip("torch", reason="the classifier trainer needs the train extra")
    import sys

    sys.path.insert(0, str(REPO))
    from models.train_classifier import scene_crops, scene_index

    ann_dir, img_dir = tmp_path / "annotations" / "train", tmp_path / "images" / "train"
    ann_dir.mkdir(parents=True)
    img_dir.mkdir(parents=True)
    img = np.zeros((80, 120, 3), np.uint8)
    img[10:50, 10:40] = (0, 0, 255)                       # a "red" tile and a "blue" one
    img[10:50, 60:90] = (255, 0, 0)
    import cv2

    cv2.imwrite(str(img_dir / "train_000000.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, 100])
    (ann_dir / "train_000000.json").write_text(json.dumps({"tiles": [
        {"tile": "0m", "box": [10, 10, 40, 50], "visible": 1.0},
        {"tile": "1p", "box": [60, 10, 90, 50], "visible": 1.0},
        {"tile": "9s", "box": [100, 60, 110, 70], "visible": 0.3},   # mostly hidden: left out
    ]}))
    index = scene_index(tmp_path)
    assert len(index) == 1 and [TILE_CLASSES[c] for c in index[0][2]] == ["0m", "1p"]

    class NoJitter:  # rng stand-in: no box jitter, never turned, boxes in order
        def integers(self, *a, **k):
            return 0

        def choice(self, n, size, replace):
            return np.arange(size)

        def uniform(self, lo, hi, size):
            return np.zeros(size)

        def random(self):
            return 0.9

    xs, ys = scene_crops(index, 2, NoJitter())
    assert [TILE_CLASSES[y] for y in ys] == ["0m", "1p"]
    assert xs[0][24, 24, 2] > 200 and xs[1][24, 24, 0] > 200        # red centre, blue centre (BGR)
    reader_crop = (crop_boxes(cv2.imread(str(img_dir / "train_000000.jpg")),
                              np.array([[10, 10, 40, 50]], np.float32)).transpose(0, 2, 3, 1) * 255).round()
    np.testing.assert_array_equal(xs[0], reader_crop[0].astype(np.uint8))
    with pytest.raises(FileNotFoundError):
        scene_index(tmp_path / "nothing")


def test_recolour_paints_the_body_dark_with_light_ink_when_asked():
    """train_classifier --recolour/--dark-share: with every body repainted dark, a white tile
    with black ink comes out with a darker body and lighter ink than it went in."""
    pytest.importorskip("torch", reason="the classifier trainer needs the train extra")
    import sys

    sys.path.insert(0, str(REPO))
    from models.train_classifier import recolour_body

    tile = np.full((40, 30, 4), 255, np.uint8)              # white body, opaque
    tile[15:25, 10:20, :3] = 0                              # black ink
    rng = np.random.default_rng(0)
    dark = recolour_body(tile, rng, dark_share=1.0)
    assert dark[2, 2, :3].mean() < 120                      # body now dark
    assert dark[20, 15, :3].mean() > 100                    # ink now light
    assert (dark[..., 3] == 255).all()
    light = recolour_body(tile, rng, dark_share=0.0)        # a tint keeps the ink black
    assert light[20, 15, :3].max() < 30 and light[2, 2, :3].mean() > 150


def test_outline_keeps_thin_strokes_and_hollows_thick_ink():
    """train_classifier._outlined (line-art sets draw circles and sticks hollow): a 20 px blob
    loses its middle, a 1 px stroke is kept whole."""
    pytest.importorskip("torch", reason="the classifier trainer needs the train extra")
    import sys

    sys.path.insert(0, str(REPO))
    from models.train_classifier import _outlined

    ink = np.zeros((60, 60, 1), np.float32)
    ink[10:30, 10:30] = 1                                   # thick blob
    ink[40:55, 45] = 1                                      # thin stroke
    out = _outlined(ink, np.random.default_rng(3))
    assert out[20, 20, 0] == 0 and out[10, 20, 0] == 1      # hollow middle, edge kept
    assert (out[40:55, 45, 0] == 1).all()


def test_dark_repaint_of_a_red_five_keeps_its_ink_red():
    """recolour_body(keep_ink_hue=True), as render_crop asks for 0m/0p/0s: on any dark body the
    ink stays redder than it is blue or green (a white-ink red five would teach the wrong name)."""
    pytest.importorskip("torch", reason="the classifier trainer needs the train extra")
    import sys

    sys.path.insert(0, str(REPO))
    from models.train_classifier import recolour_body

    tile = np.full((40, 30, 4), 255, np.uint8)
    tile[10:30, 8:22, :3] = (40, 30, 215)                   # red ink (BGR), thick
    rng = np.random.default_rng(0)
    for _ in range(30):
        out = recolour_body(tile, rng, dark_share=1.0, keep_ink_hue=True)
        b, g, r = out[..., :3].reshape(-1, 3).astype(int).T
        bright = np.maximum(np.maximum(b, g), r) > 170      # the ink (dark bodies stay under)
        assert bright.any()
        assert (r[bright] - np.maximum(b, g)[bright] > 80).all()   # red, not pink or white


def test_grey_crops_never_take_a_red_five_s_red():
    """train_classifier --grey: a plain crop is drawn grey at share 1 and kept at share 0; a red
    five's crop is never greyed (its red ink is all that tells it from its five)."""
    pytest.importorskip("torch", reason="the classifier trainer needs the train extra")
    import sys

    sys.path.insert(0, str(REPO))
    from models.train_classifier import greyed

    crop = np.zeros((48, 48, 3), np.uint8)
    crop[..., 2] = 200                                       # red (BGR)
    rng = np.random.default_rng(0)
    grey = greyed(crop, "5m", rng, 1.0)
    assert (grey[..., 0] == grey[..., 2]).all() and grey[0, 0, 0] > 0
    np.testing.assert_array_equal(greyed(crop, "5m", rng, 0.0), crop)
    for red in ("0m", "0p", "0s"):
        np.testing.assert_array_equal(greyed(crop, red, rng, 1.0), crop)


def test_contrast_training_crops_are_the_reader_s_contrast_views():
    """train_classifier --contrast: a crop drawn at share 1 is what the reader's contrast view
    makes of it (white ink on a dark red body comes out dark ink on a light body); a red five
    is never drawn so (its red, decided by the colour views, is all that tells it apart)."""
    pytest.importorskip("torch", reason="the classifier trainer needs the train extra")
    import sys

    sys.path.insert(0, str(REPO))
    from models.train_classifier import contrasted

    crop = np.zeros((48, 48, 3), np.uint8)
    crop[...] = (30, 30, 140)                                # dark red body (BGR)
    crop[16:32, 20:28] = (250, 250, 250)                     # a white stroke of ink
    rng = np.random.default_rng(0)
    out = contrasted(crop, "5m", rng, 1.0)
    assert out.shape == crop.shape and out.dtype == np.uint8
    assert out[0, 0, 0] > 200 and out[24, 24, 0] < 50        # body light, ink dark
    assert (out[..., 0] == out[..., 2]).all()
    np.testing.assert_array_equal(contrasted(crop, "5m", rng, 0.0), crop)
    for red in ("0m", "0p", "0s"):
        np.testing.assert_array_equal(contrasted(crop, red, rng, 1.0), crop)


def test_contrast_only_training_draws_every_crop_so_and_a_red_five_as_its_five():
    """train_classifier --contrast-only (c1, not bundled): every crop of the batch becomes the
    reader's contrast view, a red five's too, labelled as its five (the view keeps a five's
    shape, not its red)."""
    pytest.importorskip("torch", reason="the classifier trainer needs the train extra")
    import sys

    sys.path.insert(0, str(REPO))
    from models.train_classifier import CLASS_INDEX, all_contrasted

    crops = np.zeros((2, 48, 48, 3), np.uint8)
    crops[...] = (30, 30, 140)                               # dark red body (BGR)
    crops[:, 16:32, 20:28] = (250, 250, 250)                 # white ink
    labels = np.array([CLASS_INDEX["0p"], CLASS_INDEX["7z"]])
    out, ys = all_contrasted(crops, labels)
    assert out.shape == crops.shape and out.dtype == np.uint8
    assert (out[:, 0, 0, 0] > 200).all() and (out[:, 24, 24, 0] < 50).all()
    assert ys.tolist() == [CLASS_INDEX["5p"], CLASS_INDEX["7z"]]


def test_random_convolution_keeps_the_shape_and_halves_a_convolved_five_s_label():
    """train_classifier --randconv (v28, not bundled): a convolved crop is 0..1 with new colours;
    a convolved five is labelled half five, half red five (its red is no longer told), other
    tiles keep their one-hot label, and share 0 changes nothing."""
    torch = pytest.importorskip("torch", reason="the classifier trainer needs the train extra")
    from models.train_classifier import CLASS_INDEX, random_convolution

    gen = torch.Generator().manual_seed(0)
    x = torch.rand(4, 3, 48, 48, generator=gen)
    y = torch.tensor([CLASS_INDEX["5m"], CLASS_INDEX["0p"], CLASS_INDEX["1z"], CLASS_INDEX["9s"]])
    same, target = random_convolution(x, y, 0.0, gen)
    assert same is x and target.argmax(1).tolist() == y.tolist()
    out, target = random_convolution(x, y, 1.0, gen)
    assert out.shape == x.shape and 0 <= float(out.min()) and float(out.max()) <= 1
    assert not torch.allclose(out, x)
    assert target[0, CLASS_INDEX["5m"]] == target[0, CLASS_INDEX["0m"]] == 0.5
    assert target[1, CLASS_INDEX["5p"]] == target[1, CLASS_INDEX["0p"]] == 0.5
    assert target[2, CLASS_INDEX["1z"]] == 1 and target[3, CLASS_INDEX["9s"]] == 1
