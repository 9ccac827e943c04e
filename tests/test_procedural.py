"""datasets.procedural: procedural Chinese-style tile faces for the classifier's training.

Needs CJK TrueType fonts (``sh datasets/get_fonts.sh`` puts them in .devkit/fonts, or set
$TILESCOPE_FONTS) and Pillow; without them the face tests skip (CI has no CJK font)."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from datasets.procedural import CLASSES, HEIGHT, load_fonts, procedural_style
from vision.read.classes import TILE_CLASSES

FONTS = load_fonts()
needs_fonts = pytest.mark.skipif(
    not FONTS, reason="no CJK font found (run `sh datasets/get_fonts.sh` or set $TILESCOPE_FONTS; "
                      "CI has none) or Pillow missing")
SEEDS = (0, 1, 2, 3, 4, 5)


@pytest.fixture(scope="module")
def styles():
    return {s: procedural_style(np.random.default_rng(s), FONTS) for s in SEEDS}


def test_without_fonts_it_says_how_to_get_them(tmp_path):
    assert load_fonts([tmp_path / "missing.ttf"]) == []
    with pytest.raises(ValueError, match="get_fonts.sh"):
        procedural_style(np.random.default_rng(0), [])


def test_classes_are_the_tile_classes_but_back():
    assert set(CLASSES) == set(TILE_CLASSES) - {"back"} and len(CLASSES) == 45


@needs_fonts
def test_every_face_is_a_tile_shaped_bgra_image(styles):
    for seed, faces in styles.items():
        assert set(faces) == set(CLASSES), seed
        shapes = {f.shape for f in faces.values()}
        assert len(shapes) == 1, f"seed {seed}: faces differ in shape {shapes}"
        h, w, ch = shapes.pop()
        assert (h, ch) == (HEIGHT, 4) and 0.68 <= w / h <= 0.84, (seed, h, w)
        for cls, f in faces.items():
            assert f.dtype == np.uint8, cls
            a = f[..., 3]
            assert a[0, 0] < 128 and a[-1, -1] < 128, f"seed {seed} {cls}: corners not rounded off"
            assert a[h // 2, w // 2] == 255 and (a > 250).mean() > 0.9, f"seed {seed} {cls}: body not opaque"
            body = f[h // 2 - 2:h // 2 + 2, 1:3, :3].astype(int)     # inner left edge: tile body
            assert body.mean() > 120, f"seed {seed} {cls}: tile body is not light"


@needs_fonts
def test_faces_carry_ink_and_differ_between_classes(styles):
    for seed, faces in styles.items():
        for cls, f in faces.items():
            if cls == "5z":
                continue                               # the white dragon may be blank
            lum = f[..., :3].astype(np.float32).mean(axis=2)
            opaque = f[..., 3] == 255
            ref = np.median(lum[opaque])
            assert (np.abs(lum - ref)[opaque] > 60).sum() > 40, f"seed {seed} {cls}: no face drawn"
        for a, b in (("1m", "2m"), ("2p", "3p"), ("2s", "3s"), ("1z", "2z"), ("6z", "7z"), ("1f", "5f"),
                     ("1f", "2f")):
            assert not np.array_equal(faces[a], faces[b]), (seed, a, b)


@needs_fonts
def test_same_seed_same_style_new_seed_new_style():
    a = procedural_style(np.random.default_rng(11), FONTS)
    b = procedural_style(np.random.default_rng(11), FONTS)
    c = procedural_style(np.random.default_rng(12), FONTS)
    assert all(np.array_equal(a[k], b[k]) for k in CLASSES)
    assert any(a[k].shape != c[k].shape or not np.array_equal(a[k], c[k]) for k in CLASSES)


@needs_fonts
def test_red_fives_differ_from_fives_only_in_red_pixels(styles):
    for seed, faces in styles.items():
        for red, five in (("0m", "5m"), ("0p", "5p"), ("0s", "5s")):
            r = faces[red][..., :3].astype(int)
            f = faces[five][..., :3].astype(int)
            assert np.array_equal(faces[red][..., 3], faces[five][..., 3])
            changed = np.abs(r - f).max(axis=2) > 30
            assert changed.sum() > 20, f"seed {seed}: {red} looks like {five}"
            # red-ish: red the strongest channel, hue within about 45 degrees of red (pink and
            # dark red count: anti-aliased edges and gloss mix the red with the light body)
            px = faces[red][..., :3][changed]
            hue = cv2.cvtColor(px[None], cv2.COLOR_BGR2HSV)[0, :, 0].astype(int)
            b, g, rr = px.astype(int).T
            reddish = (rr >= np.maximum(g, b) + 10) & ((hue <= 22) | (hue >= 155))
            assert reddish.all(), (f"seed {seed}: {red} differs from {five} in {int((~reddish).sum())} "
                                   f"pixels that are not red")


def _trainer():
    pytest.importorskip("torch", reason="the classifier trainer needs the train extra")
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from models import train_classifier

    return train_classifier


def test_trainer_refuses_procedural_without_fonts(tmp_path, monkeypatch, capsys):
    tc = _trainer()
    monkeypatch.setenv("TILESCOPE_FONTS", str(tmp_path))          # an empty font folder
    assert tc.main(["--procedural", "4", "--ckpt", str(tmp_path / "x.pt")]) == 2
    assert "get_fonts.sh" in capsys.readouterr().err
    assert not (tmp_path / "x.pt").exists()


@needs_fonts
def test_trainer_renders_crops_of_procedural_sets():
    tc = _trainer()
    rng = np.random.default_rng(0)
    styles = {f"procedural-{i}": procedural_style(rng, FONTS) for i in range(2)}
    xs, ys = tc.sample_batch(styles, 24, rng)
    assert xs.shape == (24, tc.CROP_SIZE, tc.CROP_SIZE, 3) and xs.dtype == np.uint8
    assert set(ys.tolist()) <= set(range(len(TILE_CLASSES)))
