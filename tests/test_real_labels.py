"""The real-photo labels (ground truth of the per-tile F1) are well formed, and the benchmark's
multiset F1 gives the hand-computed numbers."""
from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import pytest

from benchmarks.real_photos import (
    CLASSES, FLOWERS, SUITS_HONOURS, align, label_sequence, load_labels, main, multiset_score,
)
from vision.read.classes import TILE_CLASSES

REPO = Path(__file__).resolve().parent.parent
LABELS = REPO / "datasets" / "real" / "camerash_labels.json"
# the real photos are validation material, never copied into the repository (../shared/README.md)
PHOTOS = Path(os.environ.get("TILESCOPE_REAL", REPO.parent / "shared" / "real")) / "camerash" / "photos"
DOC = json.loads(LABELS.read_text(encoding="utf-8"))
ENTRIES = sorted(DOC["photos"].items())


def test_benchmark_classes_are_the_detector_classes():
    assert sorted(CLASSES) == sorted(TILE_CLASSES)


def test_header_names_source_and_licence():
    assert DOC["licence"] == "MIT (Camerash/mahjong-dataset)"
    assert "Camerash/mahjong-dataset" in DOC["source"]
    assert load_labels(LABELS)["photos"].keys() == DOC["photos"].keys()
    assert len(DOC["photos"]) == 14


@pytest.mark.parametrize("name,entry", ENTRIES, ids=[n for n, _ in ENTRIES])
def test_photo_label_is_consistent(name, entry):
    tiles = entry["tiles"]
    assert tiles, "no tiles"
    assert set(tiles) <= set(TILE_CLASSES), set(tiles) - set(TILE_CLASSES)
    assert all(isinstance(c, int) and c > 0 for c in tiles.values())
    assert isinstance(entry["unknown"], int) and entry["unknown"] >= 0
    assert all(k not in TILE_CLASSES and c > 0 for k, c in entry["other"].items())
    assert entry["total"] == sum(tiles.values()) + entry["unknown"] + sum(entry["other"].values())
    assert isinstance(entry["tile_height_px"], int) and 20 <= entry["tile_height_px"] <= 1000
    assert entry["layout"] and isinstance(entry["notes"], str)
    # the row-by-row reading is the same multiset as the counts
    seq = Counter(label_sequence(entry))
    assert seq == Counter(tiles) + Counter(entry["other"]) + Counter({"unknown": entry["unknown"]})


@pytest.mark.parametrize("name,entry", ENTRIES, ids=[n for n, _ in ENTRIES])
def test_no_more_copies_than_the_sets_hold(name, entry):
    # a set has 4 of each suit/honour tile and one of each flower/season (MCR, HK sets);
    # a photo of several sets, or an American set with repeated seasons, says so in the label
    sets = entry.get("sets", 1)
    flower_copies = entry.get("flower_copies", 1)
    assert sets >= 1
    for k, c in entry["tiles"].items():
        if k in SUITS_HONOURS:
            assert c <= 4 * sets, f"{c} x {k}"
        elif k in FLOWERS:
            assert c <= flower_copies * sets, f"{c} x {k}"
    if sets > 1 or flower_copies > 1:
        assert "set" in entry["notes"].lower()


def test_the_six_table_photos_are_parts_of_one_set():
    # 1-1 .. 1-6 show one 144-tile set in parts: together no kind exceeds 4 and each flower
    # appears once; a misread tile would likely break this
    together = Counter()
    for n in range(1, 7):
        together.update(DOC["photos"][f"1-{n}.jpg"]["tiles"])
    assert all(c <= 4 for k, c in together.items() if k in SUITS_HONOURS)
    assert {k: together[k] for k in FLOWERS} == {k: 1 for k in FLOWERS}


def test_whole_set_photo_is_a_complete_set():
    tiles = DOC["photos"]["3.png"]["tiles"]
    assert tiles == {**{k: 4 for k in SUITS_HONOURS}, **{k: 1 for k in FLOWERS}}


@pytest.mark.skipif(not PHOTOS.is_dir(), reason="the real photos are not present: set TILESCOPE_REAL to the folder holding camerash/photos (default ../shared/real)")
def test_every_photo_is_labelled():
    assert sorted(p.name for p in PHOTOS.iterdir()) == sorted(DOC["photos"])


def test_f1_hand_computed():
    # true {1m:2, 5p:1, 7z:1, 9s:1} (5 tiles), predicted {1m:3, 5p:1} (4 tiles):
    # matched = min(3,2) + min(1,1) = 3, P = 3/4, R = 3/5, F1 = 2*(0.75*0.6)/(1.35) = 2/3
    s = multiset_score(Counter({"1m": 3, "5p": 1}), Counter({"1m": 2, "5p": 1, "7z": 1, "9s": 1}))
    assert (s.matched, s.predicted, s.true) == (3, 4, 5)
    assert s.precision == pytest.approx(0.75)
    assert s.recall == pytest.approx(0.6)
    assert s.f1 == pytest.approx(2 / 3)
    assert s.count_error == -1


def test_red_five_is_not_a_five():
    s = multiset_score(Counter({"0m": 1}), Counter({"5m": 1}))
    assert s.matched == 0 and s.f1 == 0.0


def test_predictions_on_unscored_tiles_are_excused_up_to_their_number():
    true = Counter({"1m": 2})  # plus one joker: unscored
    s = multiset_score(Counter({"1m": 2, "3p": 1}), true, unscored=1)
    assert (s.precision, s.recall, s.count_error) == (1.0, 1.0, 0)
    s = multiset_score(Counter({"1m": 2, "3p": 2}), true, unscored=1)
    assert s.precision == pytest.approx(2 / 3) and s.count_error == 1


def test_nothing_predicted_scores_zero():
    s = multiset_score(Counter(), Counter({"1m": 2}))
    assert s.recall == 0.0 and s.f1 == 0.0


def test_align_names_substitutions_misses_and_extras():
    assert align(["1m", "2m", "3m"], ["1m", "4m", "3m"]) == [("2m", "4m")]
    assert align(["1m", "2m", "3m"], ["1m", "3m"]) == [("2m", None)]
    assert align(["1m", "3m"], ["1m", "7z", "3m"]) == [(None, "7z")]
    assert align([], []) == []


def test_fake_run_end_to_end(capsys):
    assert main(["--fake", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["overall"]["f1"] == 1.0
    assert out["overall"]["true"] == sum(sum(e["tiles"].values()) for _, e in ENTRIES)
    assert out["worst_classes"] == [] and out["confusions"] == []
    assert main(["--fake", "--fake-noise", "0.1", "--json", "--only", "3.png"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert 0.5 < out["overall"]["f1"] < 1.0


def test_bad_input_exits_2(tmp_path, capsys):
    assert main(["--fake", "--labels", str(tmp_path / "none.json")]) == 2
    assert "not found" in capsys.readouterr().err
    assert main(["--fake", "--only", "nope.jpg"]) == 2
    assert main(["--photos", str(tmp_path / "missing")]) == 2
    assert "photos folder" in capsys.readouterr().err
