"""``tilescope waits --text`` (vision/commands/waits.py)."""
from __future__ import annotations

import json

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
