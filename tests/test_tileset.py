"""Set profiles (``tilescope set``, ``--set``, ``--learn``): the file, learning from a sheet,
the checks that keep a wrong sheet from being learned, and reading with a set.

Ground truth: the bundled sheet ``vision/samples/set_sheet.jpg`` is rendered by
``datasets.make_samples`` with the default ``--tiles`` in rows of 9, 9, 9, 7 and 3, so its
tiles in reading order are exactly ``DEFAULT_SHEET``; the rendered samples' sidecar JSON give
their true tiles.
"""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from vision.cli import main
from vision.classes import CLASS_INDEX, TILE_CLASSES
from vision.set_learning import Disagreement, disagreements, parse_sheet, swapped
from vision.tileset import (BACK_ALIKE, DECIDES, DEFAULT_SHEET, NOT_HELD, VERSION, SetError, TileSet, combine,
                            is_name, looks)

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "vision" / "samples"
SHEET = SAMPLES / "set_sheet.jpg"
WEIGHTS = ROOT / "vision" / "weights"
needs_models = pytest.mark.skipif(not (WEIGHTS / "classifier.onnx").is_file() or not SHEET.is_file(),
                                  reason="needs the bundled models and vision/samples/set_sheet.jpg")


@pytest.fixture(autouse=True)
def data_dir(tmp_path, monkeypatch):
    """Named sets go to a fresh folder, never the user's own."""
    monkeypatch.setenv("TILESCOPE_DATA", str(tmp_path / "data"))
    return tmp_path / "data"


def _profile(kinds=("1m", "2m"), dim=4) -> TileSet:
    emb = np.eye(dim, dtype=np.float32)[:len(kinds)]
    crops = np.arange(len(kinds) * 48 * 48 * 3, dtype=np.int64).reshape(len(kinds), 48, 48, 3) % 251
    return TileSet("test", tuple(kinds), crops.astype(np.uint8), emb, "model-a", tuple(f"s{i}" for i in range(len(kinds))))


# ---------------------------------------------------------------------------- the file

def test_file_round_trip_keeps_crops_kinds_and_embeddings(tmp_path):
    ts = _profile(("1m", "7z", "0p"))
    path = ts.save(tmp_path / "club")
    assert path.name == "club.npz"                     # the suffix is added
    back = TileSet.load(path)
    assert back.kinds == ("1m", "7z", "0p") and back.sources == ("s0", "s1", "s2")
    assert np.array_equal(back.crops, ts.crops) and back.model == "model-a"
    assert np.allclose(back.embeddings, ts.embeddings, atol=1e-3)   # stored as float16
    assert back.held() == ["1m", "7z", "0p"]           # TILE_CLASSES order: 1m .. 7z, 0m 0p 0s


def test_a_file_of_another_version_is_refused_by_its_version(tmp_path):
    path = _profile().save(tmp_path / "old.npz")
    with np.load(path) as data:
        meta = json.loads(str(data["meta"]))
        arrays = {k: data[k] for k in ("crops", "embeddings")}
    meta["version"] = VERSION + 1
    np.savez(path, meta=np.array(json.dumps(meta)), **arrays)
    with pytest.raises(SetError, match=f"version {VERSION + 1}.*reads version {VERSION}"):
        TileSet.load(path)


@pytest.mark.parametrize("content, message", [
    (b"not a zip at all", "not a readable tilescope set"),
    (None, "no set file"),
])
def test_a_file_that_is_no_set_is_named(tmp_path, content, message):
    path = tmp_path / "x.npz"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(SetError, match=message):
        TileSet.load(path)


def test_altered_looks_are_the_same_for_the_same_seed():
    crops = _profile(("1m", "2m")).crops
    a, index = looks(crops, n=3)
    assert a.shape == (8, 48, 48, 3) and index.tolist() == [0, 0, 0, 0, 1, 1, 1, 1]
    assert np.array_equal(a, looks(crops, n=3)[0]) and np.array_equal(a[0], crops[0])


def test_names_and_paths(tmp_path, monkeypatch):
    from vision.tileset import load

    assert is_name("club-green_2") and not is_name("sets/club.npz") and not is_name("club.npz")
    monkeypatch.chdir(tmp_path)
    _profile().save("myset")                 # set learn --out myset writes myset.npz
    assert load("myset").kinds == ("1m", "2m") and load("myset.npz").kinds == ("1m", "2m")
    with pytest.raises(SetError, match="no set named 'other'"):
        load("other")


# ---------------------------------------------------------------------------- the reading

def test_the_set_decides_where_one_kind_stands_out_and_not_elsewhere():
    """Crop 0 is more than DECIDES more like the profile's haku than any other kind: named 5z although
    the classifier said back at 0.95 (a blank haku read as a back). Crop 1 is like none of the
    profile's kinds (all under NOT_HELD): the classifier's back stands (a back against a
    sheet of faces; a kind the profile lacks)."""
    probs = np.full((2, len(TILE_CLASSES)), 1e-4, np.float32)
    probs[:, CLASS_INDEX["back"]] = 0.95
    probs /= probs.sum(axis=1, keepdims=True)
    likeness = np.full((2, len(TILE_CLASSES)), -1.0, np.float32)
    held = [CLASS_INDEX[k] for k in ("5z", "7z", "1m")]
    likeness[:, held] = NOT_HELD - 0.15
    likeness[0, CLASS_INDEX["5z"]] = BACK_ALIKE    # its reference: a real set's crops are that alike
    out, decided = combine(probs, likeness)
    assert TILE_CLASSES[out[0].argmax()] == "5z" and decided.tolist() == [True, False]
    assert TILE_CLASSES[out[1].argmax()] == "back"
    assert np.allclose(out.sum(axis=1), 1.0, atol=1e-5)


def test_a_profile_without_backs_moves_a_back_to_a_face_only_when_the_face_is_unmistakable():
    """A tile back of a dark set is as like the profile's blank haku as a haku is (rendered
    riichi-black: 0.83 against 0.89 median, at most 0.957): at 0.85 the classifier's back
    stands; a crop BACK_ALIKE like the haku reference is the haku (a real set's haku read
    as a back by the classifier, issue 31)."""
    probs = np.full((1, len(TILE_CLASSES)), 1e-3, np.float32)
    probs[0, CLASS_INDEX["back"]] = 0.6
    probs /= probs.sum()
    likeness = np.full((1, len(TILE_CLASSES)), -1.0, np.float32)
    likeness[0, [CLASS_INDEX[k] for k in ("5z", "7z", "1m")]] = 0.5
    likeness[0, CLASS_INDEX["5z"]] = 0.85
    assert TILE_CLASSES[combine(probs, likeness)[0].argmax()] == "back"
    likeness[0, CLASS_INDEX["5z"]] = BACK_ALIKE
    assert TILE_CLASSES[combine(probs, likeness)[0].argmax()] == "5z"


def test_the_classifier_breaks_a_near_tie_between_references():
    probs = np.full((1, len(TILE_CLASSES)), 1e-3, np.float32)
    probs[0, CLASS_INDEX["2p"]] = 0.9
    likeness = np.full((1, len(TILE_CLASSES)), -1.0, np.float32)
    likeness[0, CLASS_INDEX["1s"]] = 0.900
    likeness[0, CLASS_INDEX["2p"]] = 0.895
    assert TILE_CLASSES[combine(probs, likeness)[0].argmax()] == "2p"


# ---------------------------------------------------------------------------- the sheet

def test_the_default_sheet_names_the_34_kinds_and_three_red_fives():
    kinds = parse_sheet(DEFAULT_SHEET)
    assert len(kinds) == 37 and len(set(kinds)) == 37
    assert kinds[:3] == ["1m", "2m", "3m"] and kinds[-3:] == ["0m", "0p", "0s"]
    assert parse_sheet("11z back 1f") == ["1z", "1z", "back", "1f"]
    with pytest.raises(SetError, match="--tiles"):
        parse_sheet("123x")


def test_two_tiles_each_read_as_the_others_kind_are_a_swap():
    probs = np.full((3, len(TILE_CLASSES)), 1e-4, np.float32)
    for i, read in enumerate(("6m", "5m", "4m")):
        probs[i, CLASS_INDEX[read]] = 0.99
    found = disagreements(probs, ["4m", "5m", "6m"])
    assert [(d.index, d.read) for d in found] == [(0, "6m"), (2, "4m")]
    assert swapped(found) == [(found[0], found[1])]
    # one systematic misread (a haku read as a back) is named, not a swap
    assert swapped([Disagreement(4, "5z", "back", 0.95)]) == []


@needs_models
def test_learning_the_bundled_sheet_holds_one_reference_per_kind(tmp_path, capsys):
    out = tmp_path / "club.npz"
    assert main(["set", "learn", str(SHEET), "--out", str(out)]) == 0
    assert "37 references of 37 kinds" in capsys.readouterr().out
    ts = TileSet.load(out)
    assert list(ts.kinds) == parse_sheet(DEFAULT_SHEET)
    assert ts.crops.shape == (37, 48, 48, 3) and ts.embeddings.shape[0] == 37
    # the same photo again is said and skipped (issue 40); --again learns it once more
    assert main(["set", "learn", str(SHEET), "--out", str(out)]) == 0
    assert capsys.readouterr().out == ("set_sheet.jpg was learned into the set 'club' already (37 "
                                       "references from it; the set holds 37): nothing added "
                                       "(--again learns it once more)\n")
    assert len(TileSet.load(out)) == 37
    assert main(["set", "learn", str(SHEET), "--out", str(out), "--again"]) == 0
    assert len(TileSet.load(out)) == 74


@needs_models
def test_a_count_that_does_not_match_is_refused_with_a_picture(tmp_path, capsys, monkeypatch):
    import shutil

    monkeypatch.chdir(tmp_path)
    import tempfile

    shutil.copy(SHEET, tmp_path / "set_sheet.jpg")
    assert main(["set", "learn", "set_sheet.jpg", "--tiles", "123456789m", "--out", "x.npz"]) == 2
    err = capsys.readouterr().err
    assert "found 37 tiles in the photo, but --tiles names 9" in err
    # the picture goes to the temporary folder, said where, never beside the photo (issue 40)
    picture = Path(tempfile.gettempdir()) / "set_sheet.tiles-found.jpg"
    assert err.endswith(f"\n  the tiles found, numbered in reading order: {picture}\n")
    assert picture.is_file() and not (tmp_path / "x.npz").exists()
    assert not (tmp_path / "set_sheet.tiles-found.jpg").exists()


@needs_models
def test_a_hand_learned_without_tiles_is_told_the_default_sheet_was_assumed(tmp_path, capsys):
    # issue 40: "--tiles names 37" though no --tiles was given; the picture beside the sample
    hand = SAMPLES / "riichi_open_red.jpg"
    assert main(["set", "learn", str(hand), "--out", str(tmp_path / "oops")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tilescope set: found 14 tiles in the photo, but the reference sheet has "
                          "37 (no --tiles given, so the reference sheet was assumed: every kind "
                          "once): lay the tiles apart")
    assert "--tiles names" not in err and "; for a photo of other tiles, name them with --tiles\n" in err
    assert not (SAMPLES / "riichi_open_red.tiles-found.jpg").exists()


@needs_models
def test_two_tiles_named_in_each_others_place_are_said_first(tmp_path, capsys):
    """--tiles with 4m and 6m exchanged is the sheet with those two tiles swapped on the table:
    learned as named (an unfamiliar set may confuse two kinds both ways), but said first."""
    tiles = DEFAULT_SHEET.replace("123456789m", "123654789m")
    assert main(["set", "learn", str(SHEET), "--tiles", tiles, "--out", str(tmp_path / "x")]) == 0
    err = capsys.readouterr().err
    assert "LOOK: tiles 4 and 6 may be swapped: 4 was named 6m and reads as 4m" in err
    assert TileSet.load(tmp_path / "x.npz").kinds[3:6] == ("6m", "5m", "4m")


@needs_models
def test_a_sheet_named_in_another_order_is_refused(tmp_path, capsys, monkeypatch):
    """The bundled sheet named with its pin and bamboo rows exchanged: 18 of 37 tiles read as
    other kinds than named (more than a quarter) — the order, not the set's look."""
    import shutil

    monkeypatch.chdir(tmp_path)
    shutil.copy(SHEET, tmp_path / "set_sheet.jpg")
    tiles = "123456789m 123456789s 123456789p 1234567z 0m0p0s"
    assert main(["set", "learn", "set_sheet.jpg", "--tiles", tiles, "--out", str(tmp_path / "x")]) == 2
    assert "of the 37 tiles read surely as other kinds" in capsys.readouterr().err
    assert main(["set", "learn", "set_sheet.jpg", "--tiles", tiles, "--out", str(tmp_path / "x"),
                 "--trust-order"]) == 0


@needs_models
def test_set_show_list_and_the_contact_sheet(tmp_path, capsys):
    import cv2

    assert main(["set", "learn", str(SHEET), "--name", "club"]) == 0
    capsys.readouterr()
    assert main(["set", "list"]) == 0
    assert "club" in capsys.readouterr().out
    assert main(["set", "show", "club", "--out", str(tmp_path / "sheet.png")]) == 0
    assert "37 references of 37 kinds" in capsys.readouterr().out
    assert cv2.imread(str(tmp_path / "sheet.png")).shape[0] == 37 * 68 + 4     # a row per kind
    assert main(["set", "show", "nosuch"]) == 2
    assert "no set named 'nosuch'" in capsys.readouterr().err


# ---------------------------------------------------------------------------- --set everywhere

def _sample_truth(name: str) -> Counter:
    return Counter(t["tile"] for t in json.loads((SAMPLES / f"{name}.json").read_text())["tiles"])


@needs_models
def test_read_with_the_set_names_the_sample_right(capsys):
    assert main(["set", "learn", str(SHEET), "--name", "regular"]) == 0
    capsys.readouterr()
    for name in ("riichi_open_red", "riichi_broadcast"):
        assert main(["read", str(SAMPLES / f"{name}.jpg"), "--set", "regular", "--json"]) == 0
        tiles = Counter(t["tile"] for t in json.loads(capsys.readouterr().out)["tiles"])
        assert tiles == _sample_truth(name), name


@needs_models
def test_a_kind_the_set_lacks_keeps_the_classifiers_reading(tmp_path):
    """A profile of the sheet's faces holds no back: the sheet's crops read with it keep their
    kinds, and a back (its crop: the bundled riichi-regular Back, as the renderer draws it) is
    still a back."""
    from vision.detector import TileReader
    from vision.set_learning import learn_sheet
    from vision.imageio import load_image

    reader = TileReader()
    image = load_image(str(SHEET))
    ts = learn_sheet(reader, image, parse_sheet(DEFAULT_SHEET)).tileset
    assert "back" not in ts.held()
    grey = np.full((48, 48, 3), 127, np.uint8)
    back = grey.copy()
    back[4:44, 10:38] = (40, 150, 230)                   # an orange tile back, face down
    probs, likeness = reader.with_set(ts)._classify(np.ascontiguousarray(back), np.array([[0, 0, 48, 48.]]))
    assert TILE_CLASSES[probs[0].argmax()] == "back"
    assert TILE_CLASSES[combine(probs, likeness)[0][0].argmax()] == "back"


@needs_models
@pytest.mark.parametrize("verb", ["read", "score", "check"])
def test_every_photo_verb_takes_set_and_names_a_missing_one(verb, capsys):
    assert main([verb, str(SAMPLES / "riichi_open_red.jpg"), "--set", "nosuch"]) == 2
    assert "no set named 'nosuch'" in capsys.readouterr().err


@needs_models
def test_stream_and_serve_take_set_and_name_a_missing_one(tmp_path, capsys):
    import cv2

    clip = tmp_path / "clip.avi"
    frame = cv2.imread(str(SAMPLES / "riichi_broadcast.jpg"))
    out = cv2.VideoWriter(str(clip), cv2.VideoWriter_fourcc(*"MJPG"), 5, frame.shape[1::-1])
    for _ in range(3):
        out.write(frame)
    out.release()
    assert main(["stream", str(clip), "--json", "--set", "nosuch"]) == 2
    assert "no set named 'nosuch'" in capsys.readouterr().err
    import socket

    with socket.socket() as sock:            # a port free here (the set is looked at first)
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    assert main(["serve", "--set", "nosuch", "--port", str(port)]) == 2
    assert "no set named 'nosuch'" in capsys.readouterr().err


@needs_models
def test_learn_keeps_a_corrected_tile_in_the_set(data_dir, capsys):
    """``score --fix 1=2m --learn club``: tile 1 of the open-red sample is 2m (its sidecar's
    first concealed tile), and the set gains that crop as a 2m reference."""
    assert main(["score", str(SAMPLES / "riichi_open_red.jpg"), "--win", "ron", "--seat", "S",
                 "--dora", "1p", "--fix", "1=2m", "--learn", "club"]) in (0, 1)
    err = capsys.readouterr().err
    assert "learned 1=2m into the set 'club' (now 1 reference)" in err
    ts = TileSet.load(data_dir / "sets" / "club.npz")
    assert ts.kinds == ("2m",) and ts.sources == ("fix 1=2m",)
    assert main(["score", str(SAMPLES / "riichi_open_red.jpg"), "--learn", "club"]) == 2
    assert "--learn keeps the tiles you correct" in capsys.readouterr().err


@needs_models
def test_the_python_api_reads_with_a_set(tmp_path):
    """``vision.score_photo(..., tile_set=FILE)``: the open-red sample's value, 2 han 30 fu,
    2000 (vision/samples/README.md), read with the bundled sheet's profile."""
    import vision

    assert main(["set", "learn", str(SHEET), "--out", str(tmp_path / "club.npz")]) == 0
    photo = vision.score_photo(str(SAMPLES / "riichi_open_red.jpg"),
                               {"win": "ron", "seat_wind": "S", "dora_indicators": "1p"},
                               tile_set=tmp_path / "club.npz")
    assert (photo.result.han, photo.result.fu, photo.result.payment.total) == (2, 30, 2000)
