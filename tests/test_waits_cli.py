"""``tilescope waits --text`` (vision/commands/waits.py)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from vision.cli import main


def run(capsys, *argv):
    code = main(["waits", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_tenpai_report(capsys):
    code, out, _ = run(capsys, "--text", "123456789m1122p")
    assert code == 0
    assert "Shanten: 0 (tenpai)" in out and "Waits:   1p 2p  (4 tiles left)" in out
    assert "ron 3900 (2 han 40 fu: ittsu)" in out     # dealer ron 2 han 40 fu = 3900


def test_json_matches_doc_keys(capsys):
    code, out, _ = run(capsys, "--text", "123456m789p1122s", "--seat", "S", "--discards", "2s", "--json")
    assert code == 0
    obj = json.loads(out)
    assert obj["shanten"] == 0 and obj["tenpai"] and obj["furiten"] is True
    assert [w["tile"] for w in obj["waits"]] == ["1s", "2s"] and obj["waits_left"] == 3
    assert obj["waits"][0]["note"].startswith("no yaku by ron")


def test_fourteen_tiles_discards(capsys):
    code, out, _ = run(capsys, "--text", "123456789m1122p5z", "--json")
    obj = json.loads(out)
    assert code == 0 and obj["tiles"] == 14 and obj["discards"][0]["discard"] == "5z"
    assert obj["discards"][0]["shanten"] == 0 and obj["discards"][0]["accept_left"] == 4


def test_riichi_flag_and_dora(capsys):
    code, out, _ = run(capsys, "--text", "123456m789p1122s", "--riichi", "--dora", "1s", "--json")
    obj = json.loads(out)
    assert code == 0 and all(w["note"] is None for w in obj["waits"])
    assert obj["waits"][1]["ron"]["dora"]["dora"] == 3       # 2s wins: three 2s


def test_bad_input_one_line_exit_2(capsys):
    for argv in (["--text", "123m"], ["--text", "11111m23456789p"], ["--text", "12x"], []):
        code, out, err = run(capsys, *argv)
        assert code == 2 and out == "" and err.count("\n") == 1, (argv, err)


SAMPLES = Path(__file__).parent.parent / "vision" / "samples"
WEIGHTS = Path(__file__).parent.parent / "vision" / "weights"


def test_the_waiting_sample_s_truth_by_hand():
    # riichi, seat South, round East, dora indicator 3s (dora 4s): 234m 067p 567s + 44s 22z,
    # a shanpon on 4s or 2z. Worked out by hand with the standard riichi fu and limits (4 han 40
    # fu and 5 han are mangan: 8000 for a non-dealer; ../shared/rules/001_riichi_fr.txt, line 120):
    # - 4s by ron: closed, no riichi, no yaku (no tanyao: 22z; no sanshoku): no win
    # - 4s by tsumo: menzen tsumo 1 + dora 3 (444s) + aka 1 (0p) = 5 han: mangan, 2000/4000 = 8000
    # - 2z by ron: yakuhai seat wind 1 + dora 2 (44s) + aka 1 = 4 han; fu 20 + 10 closed ron + 4
    #   (222z completed by ron counts open) = 34 -> 40: 4 han 40 fu = mangan 8000 (non-dealer)
    # - 2z by tsumo: menzen tsumo 1 + yakuhai 1 + dora 2 + aka 1 = 5 han: mangan 8000
    truth = json.loads((SAMPLES / "riichi_waiting.json").read_text())["request"]
    assert truth["concealed"] == "234m067p44567s22z" and "win_tile" not in truth
    obj = _waits_json(["--text", truth["concealed"], "--seat", "S", "--dora", "3s"])
    _check_waiting_sample(obj)


def _waits_json(argv):
    import contextlib
    import io
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["waits", *argv, "--json"]) == 0
    return json.loads(out.getvalue())


def _check_waiting_sample(obj):
    assert obj["shanten"] == 0 and [w["tile"] for w in obj["waits"]] == ["4s", "2z"]
    four, south = obj["waits"]
    assert four["left"] == 2 and south["left"] == 2
    assert four["ron"]["valid"] is False and four["note"].startswith("no yaku by ron")
    assert four["tsumo"]["han"] == 5 and four["tsumo"]["payment"]["total"] == 8000
    assert (south["ron"]["han"], south["ron"]["fu"], south["ron"]["payment"]["total"]) == (4, 40, 8000)
    assert south["tsumo"]["han"] == 5 and south["tsumo"]["payment"]["total"] == 8000


@pytest.mark.skipif(not (WEIGHTS / "detector.onnx").is_file() or not (WEIGHTS / "classifier.onnx").is_file(),
                    reason="no trained weights in vision/weights")
def test_the_waiting_sample_photo_end_to_end(monkeypatch):
    # the README's command line on the photo: the bundled models read the 13 tiles, the red
    # five included, and the waits are those worked out above
    monkeypatch.chdir(SAMPLES.parent.parent)
    obj = _waits_json(["vision/samples/riichi_waiting.jpg", "--seat", "S", "--dora", "3s"])
    assert obj["concealed"] == "234m067p44567s22z" and obj["warnings"] == []
    _check_waiting_sample(obj)
