"""The synthetic scene renderer: boxes hug the drawn tiles, layouts follow the request, same
seed gives the same photo. Needs the tile artwork (../shared/art or $TILESCOPE_ART)."""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from datasets.art import ArtError, list_styles

try:
    list_styles()
    HAVE_ART = True
except ArtError:
    HAVE_ART = False

pytestmark = pytest.mark.skipif(not HAVE_ART, reason="tile artwork not found (../shared/art or $TILESCOPE_ART)")

MAGENTA = (255, 0, 255)  # a table colour no tile art uses


def _ink_box(img: np.ndarray) -> tuple[int, int, int, int]:
    """Bounding box (x1, y1, x2 exclusive, y2 exclusive) of pixels that are not the table."""
    ys, xs = np.nonzero((img.astype(int) - np.array(MAGENTA)).any(axis=2))
    return int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1


def _plain(pitch, yaw, roll):
    from datasets.render import Look

    return Look(pitch=pitch, yaw=yaw, roll=roll, effects=False, table_bgr=MAGENTA)


@pytest.mark.parametrize("tile,pitch,yaw,roll", [
    ("5m", 90, 0, 0),        # straight down
    ("0p", 35, 20, 5),       # low camera, turned
    ("7z", 60, 180, 0),      # from across the table: upside down
    ("back", 45, -30, 90),   # a face-down tile, camera rolled
    ("9s", 25, 0, -10),
])
def test_single_tile_box_hugs_drawn_pixels(tile, pitch, yaw, roll):
    from datasets.render import render_rows

    rng = np.random.default_rng(7)
    img, ann = render_rows(rng, "riichi-regular", imgsz=(320, 240), rows=1, per_row=1, tiles=[tile],
                           grid=False, flip_share=0.0, look=_plain(pitch, yaw, roll), jpeg=False)
    assert len(ann["tiles"]) == 1
    t = ann["tiles"][0]
    assert t["tile"] == tile
    # Anti-aliased edges may tint one pixel beyond the hard mask the box is taken from.
    ink = _ink_box(img)
    assert all(abs(a - b) <= 1 for a, b in zip(t["box"], ink)), (t["box"], ink)


def test_every_box_edge_touches_its_tile_and_boxes_cover_all_tiles():
    from datasets.render import render_rows

    rng = np.random.default_rng(3)
    img, ann = render_rows(rng, "kmahjongg-default", imgsz=(416, 312), rows=3, per_row=6, grid=False,
                           look=_plain(70, 10, 0), jpeg=False)
    assert len(ann["tiles"]) == 18
    drawn = (img.astype(int) - np.array(MAGENTA)).any(axis=2)
    covered = np.zeros_like(drawn)
    for t in ann["tiles"]:
        x1, y1, x2, y2 = t["box"]
        covered[y1:y2, x1:x2] = True
        # each side of the box has a drawn pixel on it: the box is not loose
        assert drawn[y1:y2, x1].any() and drawn[y1:y2, x2 - 1].any()
        assert drawn[y1, x1:x2].any() and drawn[y2 - 1, x1:x2].any()
    # AA fringe aside (1 px), nothing is drawn outside the boxes
    outside = drawn & ~covered
    assert outside.sum() <= 0.01 * drawn.sum()


def test_hand_layout_follows_the_request():
    from datasets.render import render_hand

    req = {"ruleset": "riichi", "concealed": "1230m", "win_tile": "5m", "win": "ron",
           "seat_wind": "E", "round_wind": "E", "dora_indicators": "3p",
           "melds": [{"type": "chi", "tiles": "456s", "called": "5s", "from": "left"},
                     {"type": "kakan", "tiles": "7777z", "called": "7z", "from": "across"},
                     {"type": "ankan", "tiles": "1111p"}]}
    rng = np.random.default_rng(5)
    img, ann = render_hand(req, rng, "riichi-regular", imgsz=(800, 600), standing=False,
                           look=_plain(90, 0, 0), jpeg=False, dora_flip=False, melds_in_front=False)
    by_group: dict[str, list[dict]] = {}
    for t in ann["tiles"]:
        by_group.setdefault(t["group"], []).append(t)
    assert [t["tile"] for t in by_group["concealed"]] == ["1m", "2m", "3m", "0m"]
    assert [t["tile"] for t in by_group["win"]] == ["5m"]
    assert [t["tile"] for t in by_group["dora"]] == ["3p"]
    # chi: the called 5s is sideways and first (taken from the left)
    chi = by_group["meld0"]
    assert [(t["tile"], t["sideways"]) for t in chi] == [("5s", True), ("4s", False), ("6s", False)]
    # added kan: two sideways 7z (called + added), two upright
    kakan = by_group["meld1"]
    assert Counter(t["sideways"] for t in kakan) == {True: 2, False: 2}
    assert {t["tile"] for t in kakan} == {"7z"}
    # closed kan: backs outside, faces inside
    assert [t["tile"] for t in by_group["meld2"]] == ["back", "1p", "1p", "back"]
    # top-down, no roll: the hand reads left to right, the winning tile set apart to the right
    xs = [t["box"][0] for t in by_group["concealed"]]
    assert xs == sorted(xs)
    gap_win = by_group["win"][0]["box"][0] - by_group["concealed"][-1]["box"][2]
    gap_tiles = by_group["concealed"][1]["box"][0] - by_group["concealed"][0]["box"][2]
    assert gap_win > gap_tiles + 3
    # a sideways tile is wider than tall, an upright one taller than wide
    w = lambda t: t["box"][2] - t["box"][0]  # noqa: E731
    h = lambda t: t["box"][3] - t["box"][1]  # noqa: E731
    assert w(chi[0]) > h(chi[0]) and h(chi[1]) > w(chi[1])
    assert not any(t["upside_down"] for t in ann["tiles"])
    assert ann["request"] == req


def test_upside_down_photo_flags_rows():
    from datasets.render import render_hand

    req = {"ruleset": "riichi", "concealed": "123456789m1122p", "win_tile": "2p", "win": "tsumo",
           "seat_wind": "E", "round_wind": "E", "riichi": "riichi"}
    look = _plain(80, 0, 0)
    look.yaw = None  # upside_down sets the yaw to 180 +- 30
    img, ann = render_hand(req, np.random.default_rng(2), "riichi-regular", imgsz=(640, 480),
                           look=look, upside_down=True, jpeg=False)
    assert len(ann["tiles"]) == 14
    assert all(t["upside_down"] for t in ann["tiles"])
    # seen from across the table the row runs right to left in the image
    conc = [t for t in ann["tiles"] if t["group"] == "concealed"]
    assert conc[0]["box"][0] > conc[-1]["box"][0]


def test_same_seed_same_photo_and_different_seed_differs():
    from datasets.render import random_scene, training_styles

    styles = training_styles()
    a_img, a_ann = random_scene(np.random.default_rng([0, 0, 11]), styles, imgsz=256)
    b_img, b_ann = random_scene(np.random.default_rng([0, 0, 11]), styles, imgsz=256)
    c_img, c_ann = random_scene(np.random.default_rng([0, 0, 12]), styles, imgsz=256)
    assert np.array_equal(a_img, b_img) and a_ann == b_ann
    assert a_img.shape != c_img.shape or not np.array_equal(a_img, c_img)


def test_boxes_are_inside_the_frame_on_random_scenes():
    from datasets.render import random_scene, training_styles

    styles = training_styles()
    for i in range(6):
        img, ann = random_scene(np.random.default_rng([1, i]), styles, imgsz=320)
        h, w = img.shape[:2]
        assert (ann["image"]["width"], ann["image"]["height"]) == (w, h)
        for t in ann["tiles"]:
            x1, y1, x2, y2 = t["box"]
            assert 0 <= x1 < x2 <= w and 0 <= y1 < y2 <= h
            assert t["visible"] >= 0.4


def test_style_without_flowers_refuses_a_flower_hand():
    from datasets.hands import HandSpec
    from datasets.render import render_hand

    spec = HandSpec({"ruleset": "mcr", "concealed": "123456789m1122p", "win_tile": "2p", "win": "tsumo",
                     "seat_wind": "E", "round_wind": "E", "flowers": 1}, ["1f"])
    with pytest.raises(KeyError, match="1f"):
        render_hand(spec, np.random.default_rng(0), "riichi-regular", imgsz=256)


def test_closeup_fills_the_frame_with_the_tiles_it_labels():
    from datasets.render import render_closeup

    for i in range(5):
        img, ann = render_closeup(np.random.default_rng([7, i]), "riichi-regular", imgsz=320)
        h, w = img.shape[:2]
        assert ann["scene"] == "closeup" and max(w, h) == 320
        boxes = np.array([t["box"] for t in ann["tiles"]], float)
        assert len(boxes) >= 3
        # frame-filling: the labelled tiles span at least 80% of the image's long side
        span = (boxes[:, 2].max() - boxes[:, 0].min()) if w >= h else (boxes[:, 3].max() - boxes[:, 1].min())
        assert span >= 0.8 * max(w, h)
        # big tiles: the median box is at least 1/8 of the short side... of a 3..12-tile row
        assert np.median(boxes[:, 3] - boxes[:, 1]) >= 0.1 * min(w, h)


def test_real_mix_draws_closeups_and_default_mix_never_does():
    from datasets.render import random_scene

    styles = ["riichi-regular"]
    real = [random_scene(np.random.default_rng([3, i]), styles, imgsz=160, mix="real")[1]["scene"]
            for i in range(30)]
    default = [random_scene(np.random.default_rng([3, i]), styles, imgsz=160)[1]["scene"] for i in range(30)]
    assert "closeup" in real
    assert "closeup" not in default
    with pytest.raises(KeyError):
        random_scene(np.random.default_rng(0), styles, imgsz=160, mix="nonsense")


def test_broadcast_mix_draws_small_centred_hands():
    from datasets.render import random_scene

    for i in range(4):
        img, ann = random_scene(np.random.default_rng([5, i]), ["riichi-regular"], imgsz=(1280, 720),
                                mix="broadcast")
        assert ann["scene"] in ("hand_lying", "hand_standing") and img.shape[:2] == (720, 1280)
        boxes = np.array([t["box"] for t in ann["tiles"]], float)
        # face heights 14..32 px (±15%) in a 1280-px frame: boxes, with the tile's thickness,
        # stay well under 60 px high, far below a fitted hand's (about 90 px at 1280)
        assert 10 <= np.median(boxes[:, 3] - boxes[:, 1]) <= 60
        # centred: the tiles' middle within a tenth of the frame's middle
        mid = ((boxes[:, 0].min() + boxes[:, 2].max()) / 2, (boxes[:, 1].min() + boxes[:, 3].max()) / 2)
        assert abs(mid[0] - 640) < 128 and abs(mid[1] - 360) < 72
        assert not any(t["upside_down"] for t in ann["tiles"])
