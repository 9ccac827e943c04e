"""The bundled sample of real tiles (vision/samples/mcr_real_tiles.jpg): its truth, and the
bundled models scoring it as its README line says."""
from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from scoring.api import score_json

SAMPLES = Path(__file__).parent.parent / "vision" / "samples"
REAL = SAMPLES / "mcr_real_tiles"
WEIGHTS = Path(__file__).parent.parent / "vision" / "weights"


def _readme_try(photo: str) -> tuple[list[str], str]:
    """The README's `tilescope score …` command line for ``photo`` (arguments after
    ``tilescope``) and the value it says follows the arrow."""
    for line in (SAMPLES / "README.md").read_text().splitlines():
        if line.startswith(f"| `{photo}`"):
            cell = line.split("|")[3]
            command = cell.split("`")[1]
            return shlex.split(command)[1:], cell.split("→")[1].strip()
    raise AssertionError(f"no README line for {photo}")


def test_the_real_tiles_sample_s_truth_is_worth_11_points():
    # 123m 234p 444p 22z 777z, self-drawn on 7z, seat South, round South, no flowers. MCR
    # (Green Book): Fully Concealed Hand 4 (concealed, self-drawn), Dragon Pung 2 (777z), Tile
    # Hog 2 (all four 4p, no kong), Two Concealed Pungs 2 (444p, 777z), One Voided Suit 1 (no
    # bamboo) = 11; self-drawn: each other player pays 8 + 11 = 19, 57 in all
    truth = json.loads(REAL.with_suffix(".json").read_text())
    assert truth["request"]["concealed"] == "123m234444p2277z" and truth["request"]["win_tile"] == "7z"
    assert "MIT" in truth["credit"] and "Esmond Wong" in truth["credit"]
    result = score_json(truth["request"])
    assert {f["name"]: f["points"] for f in result["fans"]} == {
        "Fully Concealed Hand": 4, "Dragon Pung": 2, "Tile Hog": 2, "Two Concealed Pungs": 2,
        "One Voided Suit": 1}
    assert result["total"] == 11
    assert result["payment"] == {"total": 57, "from_each": 19}
    assert len(truth["tiles"]) == 14 and all(t["crop"].endswith(".jpg") for t in truth["tiles"])


@pytest.mark.skipif(not (WEIGHTS / "detector.onnx").is_file() or not (WEIGHTS / "classifier.onnx").is_file(),
                    reason="no trained weights in vision/weights")
def test_the_bundled_models_score_the_real_tiles_sample_as_its_readme_says(capsys, monkeypatch):
    from vision.cli.dispatch import main

    argv, said = _readme_try("mcr_real_tiles.jpg")
    assert said.startswith("11 points") and said.endswith("19 from each, 57")
    monkeypatch.chdir(SAMPLES.parent.parent)         # the README's path is from the clone's root
    assert main(argv + ["--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    truth = json.loads(REAL.with_suffix(".json").read_text())["request"]
    assert got["result"] == score_json(truth)           # 11 points, 57 (worked out above)
    assert got["warnings"] == []                        # read right, and sure of it
