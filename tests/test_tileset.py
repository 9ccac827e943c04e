"""Set profiles (``tilescope set``, ``--set``, ``--learn``): the file, learning from a sheet,
the checks that keep a wrong sheet from being learned, and reading with a set.

Ground truth: the bundled sheet ``vision/samples/set_sheet.jpg`` is rendered by
``datasets.make_samples`` with the default ``--tiles`` in rows of 9, 9, 9, 7 and 4 (the red
fives and a face-down tile), so its tiles in reading order are exactly ``DEFAULT_SHEET``; the rendered samples' sidecar JSON give
their true tiles.
"""
from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from vision.cli.dispatch import main
from vision.read.classes import CLASS_INDEX, TILE_CLASSES
from vision.read.set_learning import Disagreement, disagreements, parse_sheet, sheet_rows, swapped
from vision.read.tileset import (DEFAULT_SHEET, FLOWER_SHEET, OVERRULE, UNLIKE_SET, VERSION, WEIGHT_FAMILIAR,
                                 WEIGHT_UNFAMILIAR, Calibration, SetError, TileSet, calibrate, combine, is_name,
                                 looks)

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

def test_file_round_trip_keeps_crops_kinds_embeddings_and_calibration(tmp_path):
    ts = _profile(("1m", "7z", "0p"))
    cal = _overruling("5z", 37.5, misread=(("5z", "back"),), haku_not_back=True, familiar=0.79, separation=0.31)
    path = TileSet("test", ts.kinds, ts.crops, ts.embeddings, ts.model, ts.sources, cal).save(tmp_path / "club")
    assert path == tmp_path / "club"                   # written as named (set learn --out FILE)
    back = TileSet.load(path)
    assert back.kinds == ("1m", "7z", "0p") and back.sources == ("s0", "s1", "s2")
    assert np.array_equal(back.crops, ts.crops) and back.model == "model-a"
    assert np.allclose(back.embeddings, ts.embeddings, atol=1e-3)   # stored as float16
    assert back.held() == ["1m", "7z", "0p"]           # TILE_CLASSES order: 1m .. 7z, 0m 0p 0s
    assert back.calibration == cal


def _rewrite_meta(path, change):
    with np.load(path) as data:
        meta = json.loads(str(data["meta"]))
        arrays = {k: data[k] for k in ("crops", "embeddings")}
    change(meta)
    with open(path, "wb") as f:
        np.savez(f, meta=np.array(json.dumps(meta)), **arrays)


def test_a_file_of_another_version_is_refused_by_its_version(tmp_path):
    path = _profile().save(tmp_path / "old.npz")
    _rewrite_meta(path, lambda meta: meta.update(version=VERSION + 1))
    with pytest.raises(SetError, match=f"version {VERSION + 1}.*reads versions 1 and {VERSION}"):
        TileSet.load(path)


def test_a_version_1_file_loads_without_a_calibration(tmp_path):
    """Version 1 kept no calibration: the file loads with none, and the reader decides it from
    the crops (TileReader.with_set, tested with the models below)."""
    path = _profile().save(tmp_path / "v1.npz")
    _rewrite_meta(path, lambda meta: meta.update(version=1))
    assert TileSet.load(path).calibration is None and TileSet.load(path).kinds == ("1m", "2m")


def test_a_calibration_out_of_range_is_refused(tmp_path):
    path = _profile().save(tmp_path / "bad.npz")
    _rewrite_meta(path, lambda meta: meta.update(calibration={"weight": 1e9}))
    with pytest.raises(SetError, match="not a readable tilescope set"):
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
    from vision.read.tileset import load

    assert is_name("club-green_2") and not is_name("sets/club.npz") and not is_name("club.npz")
    monkeypatch.chdir(tmp_path)
    _profile().save("myset.npz")              # a file given without .npz is found with it
    assert load("myset").kinds == ("1m", "2m") and load("myset.npz").kinds == ("1m", "2m")
    with pytest.raises(SetError, match="no set named 'other'"):
        load("other")


# ---------------------------------------------------------------------------- the reading

def _one_crop(classifier: dict, like: dict) -> tuple[np.ndarray, np.ndarray]:
    """One crop: the classifier's probabilities (the rest share what is left) and its likeness
    to the profile's kinds (-1: a kind the profile lacks)."""
    probs = np.full((1, len(TILE_CLASSES)), 1e-4, np.float32)
    for kind, p in classifier.items():
        probs[0, CLASS_INDEX[kind]] = p
    probs /= probs.sum()
    likeness = np.full((1, len(TILE_CLASSES)), -1.0, np.float32)
    for kind, v in like.items():
        likeness[0, CLASS_INDEX[kind]] = v
    return probs, likeness


def _overruling(kind: str, weight: float = WEIGHT_FAMILIAR, **kw) -> Calibration:
    """A calibration in which ``kind`` (misread on the sheet) weighs OVERRULE, the rest ``weight``."""
    weights = [OVERRULE if k == kind else weight for k in TILE_CLASSES]
    return Calibration(weight, overrule=(kind,), weights=tuple(weights), **kw)


def _named(probs, likeness, calibration) -> str:
    return TILE_CLASSES[combine(probs, likeness, calibration)[0][0].argmax()]


def test_the_sets_weight_decides_between_a_wrong_classifier_and_a_right_reference():
    """The crop is 1s: its reference is 0.1 more alike than 2p's; the classifier says 2p at
    e^3 (20x) the odds of 1s. log-linear: 1s gains weight x 0.1 — 1 under a familiar set's
    weight (10: the classifier keeps 2p), 5 under an unfamiliar set's (50: the set names 1s)."""
    probs, likeness = _one_crop({"2p": 0.95, "1s": 0.95 / np.e ** 3}, {"1s": 0.9, "2p": 0.8, "1m": 0.5})
    assert _named(probs, likeness, Calibration(WEIGHT_FAMILIAR)) == "2p"
    assert _named(probs, likeness, Calibration(WEIGHT_UNFAMILIAR)) == "1s"
    # a kind whose own reference the classifier misread on the sheet: the set names it
    assert _named(probs, likeness, _overruling("1s")) == "1s"
    assert np.allclose(combine(probs, likeness, Calibration(10.0))[0].sum(), 1.0, atol=1e-5)


def test_a_haku_the_profile_holds_is_not_a_back_unless_the_haku_is_dark():
    """The classifier calls the crop a back at 0.95; it is 0.9 like the profile's haku, 0.7
    at most like another kind. A light haku (haku_not_back) with the haku misread on the sheet:
    the set names it 5z. A dark haku (rendered riichi-black: its backs are as like it as its
    own crops, 0.91 against 0.88 median): the classifier's back stands."""
    probs, likeness = _one_crop({"back": 0.95, "5z": 0.02}, {"5z": 0.9, "7z": 0.7, "1m": 0.6})
    light = _overruling("5z", misread=(("5z", "back"),), haku_not_back=True)
    dark = Calibration(WEIGHT_FAMILIAR, misread=(("5z", "back"),), haku_not_back=False)
    assert _named(probs, likeness, light) == "5z"
    assert _named(probs, likeness, dark) == "back"


def test_a_profile_holding_a_back_reads_a_back_by_likeness():
    """Held backs are a kind like any other: a crop most like the back reference is a back
    even where the classifier said haku; one most like the haku is the haku."""
    cal = Calibration(WEIGHT_UNFAMILIAR, haku_not_back=True)
    probs, likeness = _one_crop({"5z": 0.9, "back": 0.05}, {"back": 0.92, "5z": 0.80, "1m": 0.5})
    assert _named(probs, likeness, cal) == "back"
    probs, likeness = _one_crop({"back": 0.9, "5z": 0.05}, {"back": 0.80, "5z": 0.92, "1m": 0.5})
    assert _named(probs, likeness, cal) == "5z"


def test_a_kind_the_profile_lacks_keeps_the_classifiers_word_when_the_crop_is_like_none():
    """A flower against a sheet of suits (the profile holds no 1f): the crop is under
    UNLIKE_SET like every reference, so 1f, the classifier's reading, stands even at the
    strongest weight; a crop clearly like a held kind is that kind."""
    probs, likeness = _one_crop({"1f": 0.99, "1m": 0.005}, {"1m": UNLIKE_SET - 0.1, "2m": UNLIKE_SET - 0.2})
    assert _named(probs, likeness, Calibration(OVERRULE)) == "1f"
    probs, likeness = _one_crop({"1f": 0.6, "1m": 0.3}, {"1m": 0.95, "2m": 0.6})
    assert _named(probs, likeness, Calibration(WEIGHT_UNFAMILIAR)) == "1m"


def test_the_classifier_breaks_a_near_tie_between_references():
    probs, likeness = _one_crop({"2p": 0.9}, {"1s": 0.900, "2p": 0.895})
    assert _named(probs, likeness, Calibration(WEIGHT_UNFAMILIAR)) == "2p"


def _sheet(kinds, own: float, embeddings=None, grey: int = 230):
    """A sheet's evidence: the classifier gives each reference's kind ``own`` and the rest to
    1m; crops of one grey; orthogonal embeddings (kinds far apart) unless given."""
    probs = np.full((len(kinds), len(TILE_CLASSES)), 1e-4, np.float32)
    for i, k in enumerate(kinds):
        probs[i, CLASS_INDEX["1m" if k != "1m" else "2m"]] = 1 - own
        probs[i, CLASS_INDEX[k]] = own
    crops = np.full((len(kinds), 48, 48, 3), grey, np.uint8)
    emb = np.eye(len(kinds), 64, dtype=np.float32) if embeddings is None else embeddings
    return list(kinds), probs, crops, emb


def test_calibration_follows_how_the_classifier_reads_the_sheet():
    """A set the classifier names surely (0.98 on every reference) keeps the familiar weight;
    one it names at 0.7 (unfamiliar, as real and procedural sets are) gets the unfamiliar
    weight; one it is lost on (0.5: its features, the same network's, fail too) falls back to
    the familiar weight. A kind misread on a sheet whose kinds the features hold close together
    (cosine 0.95) is not overruled; held far apart (orthogonal), it is."""
    kinds = ["1m", "2m", "3m", "5z", "7z"]
    assert calibrate(*_sheet(kinds, 0.98)).weight == WEIGHT_FAMILIAR
    assert calibrate(*_sheet(kinds, 0.7)).weight == WEIGHT_UNFAMILIAR
    assert calibrate(*_sheet(kinds, 0.5)).weight == WEIGHT_FAMILIAR
    close = np.hstack([np.eye(5, dtype=np.float32) * (1 - 0.95) ** 0.5, np.ones((5, 1), np.float32) * 0.95 ** 0.5])
    for embeddings, overruled in ((close, ()), (None, ("2m",))):
        sheet = _sheet(kinds, 0.8, embeddings=embeddings)
        sheet[1][1, CLASS_INDEX["2m"]], sheet[1][1, CLASS_INDEX["3m"]] = 0.2, 0.7     # 2m read as 3m
        cal = calibrate(*sheet)
        assert cal.misread == (("2m", "3m"),) and cal.overrule == overruled
    assert cal.kind_weights()[CLASS_INDEX["2m"]] == OVERRULE and cal.weight == WEIGHT_UNFAMILIAR
    assert calibrate(*_sheet(kinds, 0.7, embeddings=close)).separation == pytest.approx(0.05, abs=1e-3)


def test_the_joined_reading_is_tempered_as_the_set_weighs_more():
    """The classifier even between 1m and 2m, the crop 0.9 like 1m and 0.8 like 2m: the set
    adds weight x 0.1 to 1m's log-odds over 2m. At WEIGHT_FAMILIAR (10) nothing is tempered:
    log-odds 1. At WEIGHT_UNFAMILIAR (30) the log-odds 3 are halved (TEMPER 2): 1.5, so 1m is
    less sure than the set alone would make it and a hand that is not complete still looks at
    it again (vision.photo.joint_fix). The kind named is the same."""
    probs, likeness = _one_crop({"1m": 0.5, "2m": 0.5}, {"1m": 0.9, "2m": 0.8})
    familiar = combine(probs, likeness, Calibration(WEIGHT_FAMILIAR))[0][0]
    unfamiliar = combine(probs, likeness, Calibration(WEIGHT_UNFAMILIAR))[0][0]
    assert TILE_CLASSES[int(unfamiliar.argmax())] == TILE_CLASSES[int(familiar.argmax())] == "1m"
    odds = lambda p: float(np.log(p[CLASS_INDEX["1m"]] / p[CLASS_INDEX["2m"]]))  # noqa: E731
    assert odds(familiar) == pytest.approx(1.0, abs=1e-3)
    assert odds(unfamiliar) == pytest.approx(1.5, abs=1e-3)


def test_a_sheet_the_classifier_reads_surely_as_other_kinds_weighs_nothing():
    """The classifier gives each reference's named kind 0.3 and another kind 0.7 (0.4 surer of
    another kind: beyond CONTRADICTED_HIGH 0.30; benchmarks.set_unseen's procedural-103 sheet
    measured 0.35, its nearest reference right on 36% of its hands' tiles where the classifier
    names 75%): the set's pictures weigh nothing, decide nothing, and `set show` says to
    photograph the sheet again. At 0.1 surer (real crops 0.02-0.11) the weight is untouched."""
    kinds = ["1m", "2m", "3m", "5z", "7z"]
    doubted = calibrate(*_sheet(kinds, 0.3))
    assert doubted.contradicted == pytest.approx(0.4, abs=1e-3)
    assert doubted.weight == 0 and not doubted.kind_weights().any()
    assert "its pictures are not used" in doubted.words()[0]
    probs, likeness = _one_crop({"1m": 0.9, "2m": 0.1}, {"1m": 0.5, "2m": 0.95})
    fused, decided = combine(probs, likeness, doubted)
    assert TILE_CLASSES[int(fused[0].argmax())] == "1m" and not decided.any()
    sheet = _sheet(kinds, 0.45)                         # 0.55 on another kind: 0.1 surer of it
    assert calibrate(*sheet).contradicted == pytest.approx(0.1, abs=1e-3)
    assert calibrate(*sheet).weight == pytest.approx(calibrate(*_sheet(kinds, 0.55)).weight) == WEIGHT_FAMILIAR
    again = Calibration.from_meta(doubted.to_meta())
    assert again.contradicted == pytest.approx(0.4, abs=1e-3) and again.weight == 0


def test_calibration_on_a_sheet_whose_haku_the_classifier_calls_a_back():
    """The sheet's haku read as a back (0.61 back, as on the real set of issue 44): a light
    haku is the set's to name (overrule) and said so; a dark one stays the classifier's; a
    profile that holds a back lets the set decide haku or back."""
    kinds = ["1m", "2m", "5z"]
    light = _sheet(kinds, 0.98)
    light[1][2, CLASS_INDEX["5z"]], light[1][2, CLASS_INDEX["back"]] = 0.3, 0.61
    cal = calibrate(*light)
    assert cal.misread == (("5z", "back"),) and cal.overrule == ("5z",) and cal.haku_not_back
    assert "the classifier reads its haku as a back: the set names it" in cal.words()
    dark = (light[0], light[1], light[2].copy(), light[3])
    dark[2][:] = 120                # a dark body's faces: bright drawings on black
    dark[2][2] = 40                 # its haku: the blank black body (rendered riichi-black 0.14-0.48 of its faces)
    cal = calibrate(*dark)
    assert cal.misread == (("5z", "back"),) and cal.overrule == () and not cal.haku_not_back
    # light is told against the set's own faces, not an absolute grey: a dim photo of a real
    # set (Camerash crops: a haku of grey 135 beside faces of 155) still has a light haku
    dim = (light[0], light[1], light[2].copy(), light[3])
    dim[2][:] = 155
    dim[2][2] = 135
    assert calibrate(*dim).haku_not_back and calibrate(*dim).overrule == ("5z",)
    with_back = _sheet(kinds + ["back"], 0.98, grey=40)
    with_back[1][2, CLASS_INDEX["5z"]], with_back[1][2, CLASS_INDEX["back"]] = 0.3, 0.61
    assert calibrate(*with_back).haku_not_back and calibrate(*with_back).overrule == ("5z",)


# ---------------------------------------------------------------------------- the sheet

def test_the_default_sheet_names_the_34_kinds_three_red_fives_and_a_back():
    kinds = parse_sheet(DEFAULT_SHEET)
    assert len(kinds) == 38 and len(set(kinds)) == 38
    assert kinds[:3] == ["1m", "2m", "3m"] and kinds[-4:] == ["0m", "0p", "0s", "back"]
    assert sheet_rows(DEFAULT_SHEET) == [9, 9, 9, 7, 4]      # the back ends the red fives' row
    flowers = parse_sheet(FLOWER_SHEET)                      # MCR: a sixth row of 1f..8f
    assert flowers[:38] == kinds and flowers[38:] == [f"{n}f" for n in range(1, 9)]
    assert sheet_rows(FLOWER_SHEET) == [9, 9, 9, 7, 4, 8]
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
    assert "38 references of 38 kinds" in capsys.readouterr().out
    ts = TileSet.load(out)
    assert list(ts.kinds) == parse_sheet(DEFAULT_SHEET)
    assert ts.crops.shape == (38, 48, 48, 3) and ts.embeddings.shape[0] == 38
    # a rendered training style: the classifier names its references surely (familiar weight)
    assert ts.calibration.weight == WEIGHT_FAMILIAR and ts.calibration.haku_not_back
    # the same photo again is said and skipped (issue 40); --again learns it once more
    assert main(["set", "learn", str(SHEET), "--out", str(out)]) == 0
    assert capsys.readouterr().out == ("set_sheet.jpg was learned into the set 'club' already (38 "
                                       "references from it; the set holds 38): nothing added "
                                       "(--again learns it once more)\n")
    assert len(TileSet.load(out)) == 38
    assert main(["set", "learn", str(SHEET), "--out", str(out), "--again"]) == 0
    assert len(TileSet.load(out)) == 76


@needs_models
def test_a_count_that_does_not_match_is_refused_with_a_picture(tmp_path, capsys, monkeypatch):
    import shutil

    monkeypatch.chdir(tmp_path)
    import tempfile

    shutil.copy(SHEET, tmp_path / "set_sheet.jpg")
    assert main(["set", "learn", "set_sheet.jpg", "--tiles", "123456789m", "--out", "x.npz"]) == 2
    err = capsys.readouterr().err
    assert "found 38 tiles in the photo, but --tiles names 9" in err
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
                          "38 (no --tiles given, so the reference sheet was assumed: every kind "
                          "once, then one face down): lay the tiles apart")
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
    assert TileSet.load(tmp_path / "x").kinds[3:6] == ("6m", "5m", "4m")     # --out x: written as named


@needs_models
def test_a_sheet_named_in_another_order_is_refused(tmp_path, capsys, monkeypatch):
    """The bundled sheet named with its pin and bamboo rows exchanged: 18 of 38 tiles read as
    other kinds than named (more than a quarter) — the order, not the set's look."""
    import shutil

    monkeypatch.chdir(tmp_path)
    shutil.copy(SHEET, tmp_path / "set_sheet.jpg")
    tiles = "123456789m 123456789s 123456789p 1234567z 0m0p0s back"
    assert main(["set", "learn", "set_sheet.jpg", "--tiles", tiles, "--out", str(tmp_path / "x")]) == 2
    assert "of the 38 tiles read surely as other kinds" in capsys.readouterr().err
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
    out = capsys.readouterr().out
    assert "38 references of 38 kinds" in out
    # riichi-regular, a training style: the classifier knows it surely (the familiar weight)
    assert "this set: the classifier leads and the set's pictures help: the classifier knows this look" in out
    # a grid of 10 to a row: 4 rows of a 64-px crop under its 18-px name
    assert cv2.imread(str(tmp_path / "sheet.png")).shape[:2] == (4 * (64 + 18 + 4) + 4, 4 + 10 * 68)
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
    """The bundled sheet's profile less its face-down tile holds no back: a back (an orange
    tile back, face down) is still a back; the version-1 file of that profile is calibrated
    by the reader as the learner calibrates it."""
    from vision.read.detector import TileReader
    from vision.read.set_learning import calibrated, learn_sheet
    from vision.read.imageio import load_image

    reader = TileReader()
    image = load_image(str(SHEET))
    ts = calibrated(reader, learn_sheet(reader, image, parse_sheet(DEFAULT_SHEET)).tileset.without_last(1))
    assert "back" not in ts.held()
    grey = np.full((48, 48, 3), 127, np.uint8)
    back = grey.copy()
    back[4:44, 10:38] = (40, 150, 230)                   # an orange tile back, face down
    with_set = reader.with_set(ts)
    probs, likeness = with_set._classify(np.ascontiguousarray(back), np.array([[0, 0, 48, 48.]]))
    assert TILE_CLASSES[probs[0].argmax()] == "back"
    assert TILE_CLASSES[combine(probs, likeness, ts.calibration)[0][0].argmax()] == "back"
    path = ts.save(tmp_path / "v1.npz")
    _rewrite_meta(path, lambda meta: (meta.update(version=1), meta.pop("calibration")))
    again = reader.with_set(TileSet.load(path)).tileset.calibration     # embeddings kept as float16
    assert again.weight == ts.calibration.weight and again.overrule == ts.calibration.overrule
    assert again.separation == pytest.approx(ts.calibration.separation, abs=1e-3)


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


# ---------------------------------------------------------------------------- an MCR sheet

def _style_with_flowers():
    try:
        from datasets.art import load_style
        return load_style("kmahjongg-default")
    except Exception:            # no artwork here (../shared/art or $TILESCOPE_ART)
        return None


@needs_models
@pytest.mark.skipif(_style_with_flowers() is None, reason="tile artwork not found (../shared/art or $TILESCOPE_ART)")
def test_an_mcr_sheet_with_the_flowers_in_a_sixth_row_is_learned(tmp_path):
    """FLOWER_SHEET rendered as a user lays it (rows of 9, 9, 9, 7, 4 and the eight flowers,
    kmahjongg-default art, which has flowers): 46 references, the flowers among the kinds."""
    from datasets.render import render_sheet
    from vision.read.detector import TileReader
    from vision.read.set_learning import learn_sheet

    style = _style_with_flowers()
    kinds = parse_sheet(FLOWER_SHEET)
    image, _ = render_sheet(np.random.default_rng(0), style, kinds, imgsz=1280, row_lengths=sheet_rows(FLOWER_SHEET))
    ts = learn_sheet(TileReader(), image, kinds).tileset
    assert list(ts.kinds) == kinds and len(ts.held()) == 46
    assert {f"{n}f" for n in range(1, 9)} <= set(ts.held()) and ts.calibration is not None


# ---------------------------------------------------------------------------- hostile files (issue 39)

def _crafted(path, crops_shape, emb_shape, crops_dtype="|u1", emb_dtype="<f2", kinds=2):
    """A profile file whose arrays' headers declare these shapes, with no data behind them (as a
    crafted file would: a few hundred bytes that claim gigabytes)."""
    import zipfile

    def npy(shape, dtype):
        header = "{'descr': '%s', 'fortran_order': False, 'shape': %r, }" % (dtype, tuple(shape))
        header += " " * (63 - (len(header) + 10) % 64) + "\n"
        return b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode()

    meta = json.dumps({"format": "tilescope-set", "version": VERSION, "name": "x",
                       "kinds": ["1m"] * kinds, "model": ""})
    buf = __import__("io").BytesIO()
    np.save(buf, np.array(meta))
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("meta.npy", buf.getvalue())
        z.writestr("crops.npy", npy(crops_shape, crops_dtype))
        z.writestr("embeddings.npy", npy(emb_shape, emb_dtype))
    return path


@pytest.mark.parametrize("crops, emb, what", [
    ((2, 12000, 12000, 3), (2, 120), "crops of shape (2, 12000, 12000, 3)"),   # 864 MB of pixels
    ((2, 48, 48, 3), (2, 25_000_000_000), "embeddings of shape"),               # 186 GiB declared
    ((2, 1, 1, 3), (2, 120), "crops of shape (2, 1, 1, 3)"),                    # 1x1 crops
    ((5000, 48, 48, 3), (5000, 120), "at most 2000 crops"),
])
def test_a_crafted_profile_is_refused_from_its_headers(tmp_path, crops, emb, what):
    """Each file is under 2 KB: refused by the arrays' declared shapes before any is read
    (no MemoryError, no onnxruntime error on 1x1 crops), with the shape named."""
    path = _crafted(tmp_path / "bad.npz", crops, emb)
    assert path.stat().st_size < 2048
    with pytest.raises(SetError, match=re.escape(what)):
        TileSet.load(path)


def test_a_link_planted_where_a_set_is_written_is_not_followed(tmp_path):
    """A symlink at the old temporary name (``club.npz.part``) and a FIFO-free folder: saving
    writes a fresh file opened exclusively, so the link's target is untouched."""
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    (tmp_path / "club.npz.part").symlink_to(victim)
    _profile().save(tmp_path / "club.npz")
    assert victim.read_text() == "keep me" and TileSet.load(tmp_path / "club.npz").kinds == ("1m", "2m")


@needs_models
def test_parallel_learns_into_one_named_set_keep_every_sheet(data_dir):
    """Four `set learn --name club` at once (processes): each rereads the set under its lock,
    so the set holds 4 x 38 references and every learn said so (issue 39: 4 of 14 were lost)."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "TILESCOPE_DATA": str(data_dir), "PYTHONPATH": str(ROOT)}
    procs = [subprocess.Popen([sys.executable, "-m", "vision.cli", "set", "learn", str(SHEET), "--name", "club",
                               "--again"],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(4)]
    outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0] * 4, [o[1] for o in outs]
    assert len(TileSet.load(data_dir / "sets" / "club.npz")) == 4 * 38
    assert sorted(int(o[0].split("now holds ")[1].split()[0]) for o in outs) == [38, 76, 114, 152]


@needs_models
@pytest.mark.skipif(_style_with_flowers() is None, reason="tile artwork not found (../shared/art or $TILESCOPE_ART)")
def test_a_closed_kan_of_a_set_whose_profile_holds_a_back_reads_as_backs():
    """One physical set (riichi-regular drawn with its own back in every photo): its default
    sheet learned, face-down tile included, then a hand with a closed kan of East (drawn as
    riichi shows it: two backs between two faces) photographed 4 times: each photo's two
    backs read as backs with the profile, none as a haku (the truth: the renderer's labels)."""
    from dataclasses import replace

    from datasets.art import load_style
    from datasets.render import Look, render_hand, render_sheet
    from vision.read.detector import TileReader
    from vision.read.set_learning import learn_sheet

    style = replace(load_style("riichi-regular"), back_share=1.0)
    kinds = parse_sheet(DEFAULT_SHEET)
    sheet, _ = render_sheet(np.random.default_rng(505), style, kinds, imgsz=(960, 720),
                            row_lengths=sheet_rows(DEFAULT_SHEET))
    reader = TileReader()
    with_set = reader.with_set(learn_sheet(reader, sheet, kinds).tileset)
    hand = {"ruleset": "riichi", "concealed": "234m456p678s8s", "win_tile": "8s", "win": "tsumo",
            "melds": [{"type": "ankan", "tiles": "1111z"}], "seat_wind": "E", "round_wind": "E"}
    for seed in range(4):
        image, truth = render_hand(hand, np.random.default_rng(seed), style, imgsz=960,
                                   look=Look(occlude=0.0), upside_down=False)
        read = Counter(d.tile for d in with_set.read(image).tiles)
        assert Counter(t["tile"] for t in truth["tiles"])["back"] == 2
        assert (read["back"], read["5z"]) == (2, 0), seed


# ---------------------------------------------------------------------------- a newcomer's findings

@needs_models
def test_learn_says_the_sets_weight_as_set_show_does(tmp_path, capsys):
    """`set learn` said "learned 37 tiles" of a sheet whose pictures `set show` then said were
    not used; learn now says the weight decided, in `set show`'s words."""
    assert main(["set", "learn", str(SHEET), "--out", str(tmp_path / "club.npz")]) == 0
    out = capsys.readouterr().out
    assert "\n  this set: the classifier leads and the set's pictures help" in out
    assert out.index("this set:") < out.index("read with it:")


@needs_models
def test_a_sheet_one_tile_short_without_tiles_names_the_sheet_without_the_back(tmp_path, capsys, monkeypatch):
    """The bundled sheet with its face-down tile painted out: 37 found of the 38 assumed; the
    message gives the --tiles that names that sheet, and that --tiles learns it."""
    import cv2

    truth = json.loads(SHEET.with_suffix(".json").read_text())["tiles"][-1]
    assert truth["tile"] == "back"
    img = cv2.imread(str(SHEET))
    x1, y1, x2, y2 = (int(round(v)) for v in truth["box"])
    mask = np.zeros(img.shape[:2], np.uint8)
    mask[max(0, y1 - 12):y2 + 12, max(0, x1 - 12):x2 + 12] = 255
    photo = tmp_path / "sheet.jpg"
    cv2.imwrite(str(photo), cv2.inpaint(img, mask, 5, cv2.INPAINT_TELEA))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))   # the tiles-found picture goes there
    assert main(["set", "learn", str(photo), "--out", str(tmp_path / "x.npz")]) == 2
    err = capsys.readouterr().err
    no_back = DEFAULT_SHEET.removesuffix(" back")
    assert "found 37 tiles in the photo, but the reference sheet has 38" in err
    assert f'a sheet without the face-down tile: --tiles "{no_back}"' in err
    assert main(["set", "learn", str(photo), "--tiles", no_back, "--out", str(tmp_path / "x.npz")]) == 0


def test_set_show_names_the_honours_red_fives_and_back_in_a_players_words():
    """`set show` listed 1z..7z and 0m 0p 0s by code alone: a player looks for haku, not 5z."""
    from vision.cli.commands.set import _kind_word

    assert [_kind_word(k) for k in ("1z", "5z", "7z", "0p", "back", "3f", "4m")] == [
        "East", "haku", "chun", "red 5p", "face down", "flower 3", ""]
