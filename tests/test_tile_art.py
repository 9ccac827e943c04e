"""datasets.art: style loading, synthetic red fives, the missing-artwork message."""
from __future__ import annotations

import numpy as np
import pytest

from datasets.art import ArtError, bare_body, list_styles, load_style, make_red_five
from vision.read.classes import TILE_CLASSES

try:
    list_styles()
    HAVE_ART = True
except ArtError:
    HAVE_ART = False
needs_art = pytest.mark.skipif(not HAVE_ART, reason="tile artwork not found (../shared/art or $TILESCOPE_ART)")


def test_missing_art_folder_says_where_to_get_it(tmp_path):
    with pytest.raises(ArtError, match="FluffyStuff/riichi-mahjong-tiles"):
        list_styles(tmp_path / "nowhere")


def test_red_five_turns_only_the_ink_red():
    body = np.zeros((4, 4, 4), np.uint8)
    body[...] = (240, 240, 240, 255)
    five = body.copy()
    five[1, 1] = (20, 20, 20, 255)   # black ink
    red = make_red_five(five, body)
    assert (red[0, 0] == body[0, 0]).all()              # background untouched
    b, g, r, a = (int(v) for v in red[1, 1])
    assert r > 2 * max(b, g) and a == 255              # ink is now red


def test_bare_body_is_bare_where_most_faces_have_ink():
    # four 2x2 faces on a red body (BGR 30, 20, 150); white ink at pixel (0, 0) on three of
    # them, as the dots of most pin tiles share their places: a per-pixel median is ink there
    red, white = (30, 20, 150, 255), (250, 250, 250, 255)
    faces = [np.full((2, 2, 4), red, np.uint8) for _ in range(4)]
    for f in faces[:3]:
        f[0, 0] = white
    assert (np.median(np.stack(faces), axis=0)[0, 0] == white).all()
    body = bare_body(faces)
    assert (body == np.array(red, np.uint8)).all()
    # so a five's white ink there turns red
    b, g, r, _ = (int(v) for v in make_red_five(faces[0], body)[0, 0])
    assert r > 2 * max(b, g)


@needs_art
def test_jade_red_pin_five_is_red_where_the_five_has_ink():
    # jade (white ink on a grained red body): every white ink pixel of 5p is red in 0p
    # (until 2 Dec 2026 most stayed white: the 0p was drawn as a plain 5p)
    art = load_style("kmahjongg-jade")
    five, red = art.faces["5p"].astype(int), art.faces["0p"].astype(int)
    ink = five[..., :3].min(axis=2) > 200
    b, g, r = red[..., 0][ink], red[..., 1][ink], red[..., 2][ink]
    assert ink.sum() > 1000 and ((r > 2 * np.maximum(b, g)).mean() > 0.9)


@needs_art
def test_riichi_regular_has_every_tile_but_flowers():
    art = load_style("riichi-regular")
    assert set(art.faces) == {c for c in TILE_CLASSES if not c.endswith("f") and c != "back"}
    assert art.back is not None and art.front is not None
    shapes = {im.shape for im in art.faces.values()}
    assert len(shapes) == 1 and shapes.pop()[2] == 4
    assert not art.synthetic_red
    # the red five differs from the plain five (source art, not recoloured)
    assert not np.array_equal(art.faces["0p"], art.faces["5p"])


@needs_art
def test_mpsz_style_gets_red_fives_and_flowers():
    art = load_style("kmahjongg-default")
    assert art.synthetic_red
    for c in ("0m", "0p", "0s", "1f", "8f"):
        assert c in art.faces
    five, red = art.faces["5p"].astype(int), art.faces["0p"].astype(int)
    changed = np.abs(five - red).max(axis=2) > 0
    assert 0.01 < changed.mean() < 0.6   # the dots changed, not the whole tile


@needs_art
def test_unknown_style_lists_the_known_ones():
    with pytest.raises(ArtError, match="riichi-regular"):
        load_style("no-such-style")
