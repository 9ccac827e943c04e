"""Naming the tiles of a photo within one set's counts (vision/read/tile_counts.py).

A set holds four of each tile (a red five counts as its five), one of each flower and season
and, in a riichi set, one red five per suit — the limits the scoring core enforces too
(scoring/riichi/RULES.md: at most four of a tile and one red five per suit).
"""
from __future__ import annotations

import numpy as np
import pytest

from vision.read.classes import CLASS_INDEX, TILE_CLASSES
from vision.read.tile_counts import assign_within_counts


def probs(*rows: dict[str, float]) -> np.ndarray:
    """One row per tile from {class: probability}; the rest of the mass spread thinly."""
    out = np.zeros((len(rows), len(TILE_CLASSES)))
    for r, row in zip(out, rows):
        for name, v in row.items():
            r[CLASS_INDEX[name]] = v
        rest = 1.0 - r.sum()
        r[r == 0] = rest / (r == 0).sum()
    return out


def names(p: np.ndarray) -> list[str]:
    return [TILE_CLASSES[i] for i in assign_within_counts(p)]


def test_a_photo_within_the_counts_reads_as_the_classifier_said():
    p = probs({"1m": 0.9}, {"1m": 0.8}, {"0p": 0.7, "5p": 0.2}, {"3f": 0.6}, {"back": 0.95})
    assert names(p) == ["1m", "1m", "0p", "3f", "back"]


def test_a_fifth_copy_goes_to_the_least_sure_tiles_next_guess():
    p = probs({"1m": 0.9, "7m": 0.05}, {"1m": 0.8, "7m": 0.1}, {"1m": 0.95, "7m": 0.01},
              {"1m": 0.5, "7m": 0.3}, {"1m": 0.7, "7m": 0.2})
    # sure first: 0.95, 0.9, 0.8, 0.7 keep 1m; the 0.5 one becomes its next guess
    assert names(p) == ["1m", "1m", "1m", "7m", "1m"]


def test_a_red_five_counts_against_its_five():
    # four plain 5s and a "red 5s": five fives. The red one is the least sure, so it moves on
    p = probs(*[{"5s": 0.9}] * 4, {"0s": 0.6, "6s": 0.3})
    assert names(p)[-1] == "6s"


def test_one_red_five_per_suit():
    # the American set's red dragons read as red 5m: the surest keeps 0m, the others move to
    # their next guess, the red dragon
    p = probs({"0m": 0.8, "7z": 0.15}, {"0m": 0.7, "7z": 0.25}, {"0m": 0.9, "7z": 0.05})
    assert names(p) == ["7z", "7z", "0m"]
    # a red five of another suit is not affected
    assert names(probs({"0m": 0.8}, {"0p": 0.7}, {"0s": 0.9})) == ["0m", "0p", "0s"]


def test_one_of_each_flower():
    p = probs({"3f": 0.6, "8f": 0.3}, {"3f": 0.7, "5f": 0.2})
    assert names(p) == ["8f", "3f"]


def test_no_face_up_tile_is_called_face_down_to_make_room():
    # the fifth 2z has only "back" left as a likely name (p 0.05 < 0.1): it keeps 2z, the
    # limit stays broken and the hand's validation reports five copies
    p = probs(*[{"2z": 0.93, "back": 0.05}] * 5)      # the other 44 names: 0.00045 each
    assert names(p) == ["2z"] * 5
    # a name under 0.001 is not given either
    p = probs(*[{"2z": 0.99}] * 5)
    assert names(p) == ["2z"] * 5


def test_more_tiles_than_one_set_count_as_two_sets():
    # 161 tiles: two sets, so eight 9p may stand
    rows = [{"9p": 0.9, "9s": 0.05}] * 9 + [{"back": 0.99}] * 152
    got = names(probs(*rows))
    assert got[:9].count("9p") == 8 and got[:9].count("9s") == 1


def test_bad_shape_is_an_error():
    with pytest.raises(ValueError, match=r"\(K, 46\)"):
        assign_within_counts(np.zeros((3, 45)))


@pytest.mark.parametrize("counts, expected", [(True, ["0m", "5m"]), (False, ["0m", "0m"])])
def test_reader_names_within_the_counts(tmp_path, monkeypatch, counts, expected):
    pytest.importorskip("onnxruntime")
    from onnx_fakes import write_fake_weights
    from vision.read.detector import TileReader

    raw = np.zeros((1, 6, 2), np.float32)
    raw[0, :, 0] = (100, 160, 30, 40, 0.9, 0.0)
    raw[0, :, 1] = (140, 160, 30, 40, 0.9, 0.0)
    reader = TileReader(write_fake_weights(tmp_path, raw, 320), threads=1, turns=1, counts=counts)
    # two tiles the classifier calls red 5m; the right one less surely, 5m its next guess
    monkeypatch.setattr(reader, "classify", lambda img, boxes: probs({"0m": 0.9}, {"0m": 0.6, "5m": 0.35}))
    dets = reader.read(np.full((320, 320, 3), 200, np.uint8))
    assert [d.tile for d in dets.tiles] == expected
    if counts:   # the moved tile says how unsure it is, and offers the classifier's own call
        assert dets.tiles[1].confidence == pytest.approx(0.9 * 0.35, abs=1e-3)
        assert dets.tiles[1].alternatives[0][0] == "0m"
