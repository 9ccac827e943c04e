"""YOLO label lines from annotations, and the 2-class collapse of the detector training."""
from __future__ import annotations

import numpy as np
import pytest

from datasets.make_dataset import yolo_lines
from models.train_detector import collapse_line


def test_yolo_line_is_normalised_centre_and_size():
    ann = {"image": {"width": 400, "height": 200},
           "tiles": [{"tile": "0m", "box": [100, 50, 140, 110]}, {"tile": "back", "box": [0, 0, 20, 30]}]}
    from vision.read.classes import CLASS_INDEX

    # box 100..140 x 50..110 in a 400x200 image: centre (120, 80) -> (0.3, 0.4), size 40x60 -> (0.1, 0.3)
    lines = yolo_lines(ann)
    assert lines[0] == f"{CLASS_INDEX['0m']} 0.300000 0.400000 0.100000 0.300000"
    assert lines[1] == "45 0.025000 0.075000 0.050000 0.150000"


def test_collapse_to_tile_and_back():
    assert collapse_line("45 0.5 0.5 0.1 0.2") == "1 0.5 0.5 0.1 0.2"
    assert collapse_line("0 0.5 0.5 0.1 0.2") == "0 0.5 0.5 0.1 0.2"
    assert collapse_line("36 0.1 0.1 0.1 0.1") == "0 0.1 0.1 0.1 0.1"
    with pytest.raises(ValueError):
        collapse_line("46 0.1 0.1 0.1 0.1")
    with pytest.raises(ValueError):
        collapse_line("3 0.1 0.1")


def _need_art() -> None:
    from datasets.art import ArtError, list_styles

    try:
        list_styles()
    except ArtError:
        pytest.skip("tile artwork not found (../shared/art or $TILESCOPE_ART)")


def test_make_dataset_writes_yolo_layout(tmp_path):
    _need_art()
    from datasets.make_dataset import main

    out = tmp_path / "ds"
    args = ["--out", str(out), "--n", "2", "--val", "1", "--test", "1", "--imgsz", "128", "--workers", "1",
            "--styles", "xmahjongg-dorwhite"]
    assert main(args) == 0
    for split, n in (("train", 2), ("val", 1), ("test", 1)):
        assert len(list((out / "images" / split).glob("*.jpg"))) == n
        assert len(list((out / "labels" / split).glob("*.txt"))) == n
    import json

    ann = json.loads((out / "annotations" / "test" / "test_000000.json").read_text())
    assert ann["style"] == "kmahjongg-jade"          # the held-out style, test split only
    lines = (out / "labels" / "test" / "test_000000.txt").read_text().split()
    assert len(lines) == 5 * len(ann["tiles"])
    yaml = (out / "data.yaml").read_text()
    assert "nc: 46" in yaml and "45: 'back'" in yaml


def test_make_dataset_refuses_bad_counts(capsys):
    from datasets.make_dataset import main

    assert main(["--out", "/tmp/never", "--n", "-1"]) == 2
    assert "must be >= 0" in capsys.readouterr().err
    assert main(["--out", "/tmp/never", "--n", "1", "--glass", "1.5"]) == 2
    assert "--glass is a share" in capsys.readouterr().err


def test_glass_share_zero_renders_the_scenes_as_before_and_one_puts_all_on_glass(monkeypatch):
    _need_art()
    import datasets.render as render

    styles = render.training_styles()
    before, _ = render.random_scene(np.random.default_rng(5), styles, imgsz=160, jpeg=False)
    again, _ = render.random_scene(np.random.default_rng(5), styles, imgsz=160, jpeg=False, glass=0.0)
    assert np.array_equal(before, again)         # no extra random number drawn at share 0
    seen, real = [], render._render

    def spy(blocks, style, rng, size, look, *args, **kwargs):
        seen.append(look.glass)
        return real(blocks, style, rng, size, look, *args, **kwargs)

    monkeypatch.setattr(render, "_render", spy)
    for seed in range(6):
        render.random_scene(np.random.default_rng(seed), styles, imgsz=160, jpeg=False, glass=1.0)
    assert seen and all(0.1 <= g <= 0.45 for g in seen)


def test_remove_unfinished_drops_images_without_annotation(tmp_path):
    from datasets.make_dataset import SPLITS, remove_unfinished

    for kind in ("images", "labels", "annotations"):
        for split in SPLITS:
            (tmp_path / kind / split).mkdir(parents=True)
    for stem, done in (("train_000000", True), ("train_000001", False)):
        (tmp_path / "images" / "train" / f"{stem}.jpg").write_bytes(b"x")
        (tmp_path / "labels" / "train" / f"{stem}.txt").write_text("0 0.5 0.5 0.1 0.1\n")
        if done:
            (tmp_path / "annotations" / "train" / f"{stem}.json").write_text("{}")
    assert remove_unfinished(tmp_path) == 1
    assert [p.name for p in (tmp_path / "images" / "train").iterdir()] == ["train_000000.jpg"]
    assert [p.name for p in (tmp_path / "labels" / "train").iterdir()] == ["train_000000.txt"]


def test_time_cap_keeps_val_and_test_complete(tmp_path):
    _need_art()
    from datasets.make_dataset import main

    out = tmp_path / "ds"
    args = ["--out", str(out), "--n", "50", "--val", "1", "--test", "1", "--imgsz", "96", "--workers", "1",
            "--styles", "xmahjongg-dorwhite", "--max-seconds", "0", "--mix", "real"]
    assert main(args) == 0
    assert len(list((out / "images" / "val").glob("*.jpg"))) == 1
    assert len(list((out / "images" / "test").glob("*.jpg"))) == 1
    n_train = len(list((out / "images" / "train").glob("*.jpg")))
    assert 1 <= n_train < 50   # stopped after the first training image past the deadline
    assert n_train == len(list((out / "labels" / "train").glob("*.txt")))
    assert (out / "data.yaml").exists()


def test_the_two_class_copy_follows_a_dataset_rendered_again_at_the_same_path(tmp_path):
    # the copy hard-links each image once; a dataset rendered again in the same folder kept
    # the old images beside its new labels (boxes on the wrong photos, without a word)
    import os

    from models.train_detector import make_two_class

    src, dst = tmp_path / "D", tmp_path / "D_2cls"
    (src / "images" / "train").mkdir(parents=True)
    (src / "labels" / "train").mkdir(parents=True)
    (src / "images" / "train" / "0.jpg").write_bytes(b"old")
    (src / "labels" / "train" / "0.txt").write_text("45 0.5 0.5 0.1 0.1\n")
    make_two_class(src, dst)
    (src / "images" / "train" / "0.jpg").unlink()          # rendered again: a new file
    (src / "images" / "train" / "0.jpg").write_bytes(b"new image")
    (src / "labels" / "train" / "0.txt").write_text("3 0.5 0.5 0.1 0.1\n")
    make_two_class(src, dst)
    assert (dst / "images" / "train" / "0.jpg").read_bytes() == b"new image"
    assert (dst / "labels" / "train" / "0.txt").read_text() == "0 0.5 0.5 0.1 0.1\n"
    assert os.path.samefile(src / "images" / "train" / "0.jpg", dst / "images" / "train" / "0.jpg")


def test_resuming_a_finished_detector_run_is_refused_in_words(tmp_path, capsys):
    # ultralytics strips the optimizer from a finished run's last.pt; resuming it started a new
    # training on coco8 (and tried to download it)
    torch = pytest.importorskip("torch")
    pytest.importorskip("ultralytics")
    from models.train_detector import main

    weights = tmp_path / "runs" / "run" / "weights"
    weights.mkdir(parents=True)
    torch.save({"epoch": -1, "optimizer": None, "model": None}, weights / "last.pt")
    assert main(["--data", str(tmp_path / "D"), "--project", str(tmp_path / "runs"), "--name", "run",
                 "--resume"]) == 2
    assert "is a finished run (no optimizer state left to resume)" in capsys.readouterr().err
