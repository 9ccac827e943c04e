"""Tiles mirrored in a glass table top (vision.read.reflections): which boxes hang from a tile's
foot, which of them are its dim mirror image, and the reader leaving them out."""
from __future__ import annotations

import math

import numpy as np
import pytest

from vision.read.classes import TILE_CLASSES
from vision.read.reflections import hanging_pairs, ink_contrast, reflections
from vision.read.tile_crops import turned_over

N5Z, N1Z, N2S = (TILE_CLASSES.index(c) for c in ("5z", "1z", "2s"))


def _row(n: int, x0: float = 100.0, y0: float = 100.0, w: float = 40.0, h: float = 56.0):
    """Boxes of ``n`` touching tiles in a level row."""
    return np.array([[x0 + i * w, y0, x0 + (i + 1) * w, y0 + h] for i in range(n)], float)


def test_hanging_pairs_finds_the_box_below_each_tile_and_nothing_in_a_lone_row():
    tiles = _row(4)
    below = tiles + np.array([2, 57, 2, 57])        # touching the feet, shifted 2 px along
    pairs, theta = hanging_pairs(np.concatenate([tiles, below]))
    assert abs(theta) < 1e-6
    assert sorted(pairs) == [(0, 4), (1, 5), (2, 6), (3, 7), (4, 0), (5, 1), (6, 2), (7, 3)]
    assert hanging_pairs(tiles)[0] == []
    far = tiles + np.array([0, 120, 0, 120])        # a second row, two tile heights away
    assert hanging_pairs(np.concatenate([tiles, far]))[0] == []


def test_hanging_pairs_follows_a_slanted_row():
    # tiles 40 x 56 along a row at 20 degrees; their mirror images 56 beyond, across the row
    theta = math.radians(20)
    along = np.array([math.cos(theta), math.sin(theta)])
    across = np.array([-math.sin(theta), math.cos(theta)])
    c, s = math.cos(theta), math.sin(theta)
    half = np.array([(40 * c + 56 * s) / 2, (40 * s + 56 * c) / 2])    # half the axis-aligned box

    def box(centre):
        return [*(centre - half), *(centre + half)]

    centres = [np.array([200.0, 200.0]) + i * 40 * along for i in range(5)]
    boxes = np.array([box(p) for p in centres] + [box(p + 56 * across) for p in centres])
    pairs, got = hanging_pairs(boxes)
    assert abs(got - theta) < 0.02
    assert {(i, i + 5) for i in range(5)} <= set(pairs)
    assert all(abs(t - j) == 5 for t, j in pairs)      # never a neighbour in the row


def _face(rng: np.random.Generator, h: int = 56, w: int = 40) -> np.ndarray:
    """A light tile face with dark, top-heavy ink (not symmetric top to bottom)."""
    face = np.full((h, w), 225.0)
    for _ in range(14):
        y, x = int(rng.integers(3, h // 2)), int(rng.integers(3, w - 8))
        face[y:y + 3, x:x + int(rng.integers(4, 12))] = 40.0
    face[h // 2:h // 2 + 4, 5:w - 5] = 60.0
    return face


def _scene(below: str, rng: np.random.Generator):
    """A grey photo with one tile at (100, 100) and, just beneath it, its mirror image at 30%
    contrast (``mirror``), another face as faint (``faint``: no mirror image), the same face
    as crisp (``copy``) or nothing."""
    img = np.full((300, 300), 110.0)
    face = _face(rng)
    img[100:156, 100:140] = face
    if below == "mirror":
        img[156:212, 100:140] = 110.0 + 0.3 * (face[::-1] - 110.0)
    elif below == "faint":
        img[156:212, 100:140] = 110.0 + 0.3 * (_face(rng) - 110.0)
    elif below == "copy":
        img[156:212, 100:140] = face
    bgr = np.repeat(np.clip(img, 0, 255).astype(np.uint8)[..., None], 3, axis=2)
    # the row the tile stands in: three more tiles to its left give the direction and width
    boxes = np.array([[100 - 40 * k, 100, 140 - 40 * k, 156] for k in (3, 2, 1)] + [[100, 100, 140, 156], [100, 156, 140, 212]], float)
    return bgr, boxes


def test_ink_contrast_is_lower_for_the_mirror_image():
    bgr, boxes = _scene("mirror", np.random.default_rng(1))
    grey = bgr[..., 0].astype(np.float32)
    assert ink_contrast(grey, boxes[4]) < 0.4 * ink_contrast(grey, boxes[3])


@pytest.mark.parametrize("below,turned_name,tile_name,expected", [
    ("mirror", N1Z, N1Z, True),      # dim, and read as its tile once turned over
    ("mirror", N2S, N1Z, True),      # dim, read as another tile, but its detail is the mirror's
    ("faint", N2S, N1Z, False),      # dim, another tile turned over, and no mirror image
    ("faint", N1Z, N1Z, True),       # dim and read as its tile turned over: the classifier says so
    ("copy", N1Z, N1Z, False),       # a crisp tile below (a grid): not dim
    ("mirror", N5Z, N5Z, False),     # a white dragon is blank either way up: no test
])
def test_reflections_needs_a_dim_box_that_is_its_tiles_mirror_image(below, turned_name, tile_name, expected):
    bgr, boxes = _scene(below, np.random.default_rng(1))
    names = np.array([N2S, N2S, N2S, tile_name, N2S])
    asked = []

    def name_turned_over(idx, theta):
        asked.append((list(idx), theta))
        return np.full(len(idx), turned_name)

    marked = reflections(bgr, boxes, names, name_turned_over)
    assert marked.tolist() == [False, False, False, False, expected]
    if below != "copy" and tile_name != N5Z:
        assert asked and asked[0][0] == [4] and abs(asked[0][1]) < 1e-6   # level row: top to bottom


def test_a_turned_tile_is_never_a_reflection_but_a_reflection_boxed_short_is():
    bgr, boxes = _scene("mirror", np.random.default_rng(1))
    names = np.array([N2S, N2S, N2S, N1Z, N2S])
    side = np.array([False, False, False, False, True])
    turned = boxes.copy()
    turned[4] = [100, 156, 156, 196]       # a tile lying across the row: longer along it
    assert not reflections(bgr, turned, names, lambda idx, t: np.full(len(idx), N1Z), side).any()
    # a fading reflection boxed only near the foot is wider than high, but no longer along the
    # row than its tile: it is tested (a real glass-table photo's reflections were all kept)
    short = boxes.copy()
    short[4] = [100, 156, 140, 186]
    assert reflections(bgr, short, names, lambda idx, t: np.full(len(idx), N2S), side).tolist() == \
        [False, False, False, False, True]


def test_mirror_likeness_tells_a_mirror_image_from_another_faint_face():
    from vision.read.reflections import mirror_likeness
    for below, low, high in (("mirror", 0.6, 1.01), ("faint", -1.0, 0.3)):
        bgr, boxes = _scene(below, np.random.default_rng(2))
        assert low < mirror_likeness(bgr[..., 0].astype(np.float32), boxes, 3, 4) < high


def test_turned_over_mirrors_in_the_row_line():
    crops = np.random.default_rng(0).random((2, 3, 48, 48)).astype(np.float32)
    assert np.allclose(turned_over(crops, 0.0), crops[:, :, ::-1, :], atol=1e-5)
    assert np.allclose(turned_over(crops, math.pi / 2), crops[:, :, :, ::-1], atol=1e-5)
    # in the diagonal running down to the right (45 degrees, y down), x and y trade places
    blob = np.zeros((1, 3, 48, 48), np.float32)
    blob[0, :, 24, 10] = 1.0                          # row 24, column 10
    moved = turned_over(blob, math.pi / 4)[0, 0]
    assert np.unravel_index(moved.argmax(), moved.shape) == (10, 24)


# --- with the renderer (needs the tile artwork) and the bundled models -----------------------

def _have_art() -> bool:
    from datasets.art import ArtError, list_styles

    try:
        list_styles()
        return True
    except ArtError:
        return False


needs_art = pytest.mark.skipif(not _have_art(), reason="tile artwork not found (../shared/art or $TILESCOPE_ART)")


def _glass_hand(seed: int, glass: float):
    from datasets.hands import random_hand
    from datasets.render import Look, render_hand

    rng = np.random.default_rng(seed)
    spec = random_hand(rng, "riichi")
    return render_hand(spec, rng, "riichi-regular", imgsz=960, standing=True,
                       look=Look(pitch=40, yaw=0, roll=0, occlude=0.0, glass=glass))


@needs_art
def test_glass_draws_the_mirror_image_below_the_feet_and_labels_nothing_new():
    plain, ann = _glass_hand(4, 0.0)
    glass, ann_glass = _glass_hand(4, 0.35)
    assert ann_glass["tiles"] == ann["tiles"]
    changed = np.abs(glass.astype(int) - plain.astype(int)).max(axis=2) > 8
    ys = np.nonzero(changed)[0]
    assert len(ys) > 1000
    # a level camera facing standing tiles: the reflection lies below the feet of the row
    # (the lying dora tiles mirror slivers of their sides), and the tiles are drawn over it
    feet = min(t["box"][3] for t in ann["tiles"] if t["group"] == "concealed")
    assert (ys >= feet - 3).mean() > 0.9
    for t in ann["tiles"]:
        x1, y1, x2, y2 = t["box"]
        assert changed[y1:y2, x1:x2].mean() < 0.1


@needs_art
def test_reader_leaves_out_reflections_and_no_tile():
    from vision.read.detector import TileReader, box_iou

    img, ann = _glass_hand(4, 0.35)          # 16 tiles; the detector also boxes 14 reflections
    truth = np.array([t["box"] for t in ann["tiles"]], float)
    reader = TileReader(mirrors=False)
    seen = reader.read(img)
    reader.mirrors = True
    kept = reader.read(img)
    assert len(seen.tiles) - len(truth) >= 10
    assert len(kept.reflections) >= 8 and len(kept.tiles) == len(seen.tiles) - len(kept.reflections)
    assert all(box_iou(np.array(b), truth).max() < 0.3 for b in kept.reflections)


def test_read_report_lists_the_reflections_left_out():
    from vision.cli.commands.read import _text_report
    from vision.read.detections import Detection, Detections

    dets = Detections(200, 100, [Detection("1z", (10.0, 10.0, 50.0, 66.0), 0.9)],
                      reflections=((10.0, 66.0, 50.0, 110.0),))
    assert _text_report(dets).splitlines()[-1] == "not tiles: 1 mirror image(s) in the table top [10, 66, 50, 110]"
    assert "not tiles" not in _text_report(Detections(200, 100, dets.tiles))
