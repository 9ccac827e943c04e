"""datasets.art: style loading, synthetic red fives, the missing-artwork message."""
from __future__ import annotations

import numpy as np
import pytest

from datasets.art import ArtError, list_styles, load_style, make_red_five
from vision.classes import TILE_CLASSES

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
