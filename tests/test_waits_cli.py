"""``tilescope waits --text`` (vision/cli/commands/waits.py)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from vision.cli.dispatch import main


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


# ---- issue 30, a tester's findings (rules: ../shared/rules/001_riichi_fr.txt, "RULES" below:
# line 90 yakuman 48000 dealer, lines 116-133 base points and who pays, line 22 furiten) ----

def test_benchmark_help_is_argparse():
    from benchmarks.waits import parse_args
    with pytest.raises(SystemExit) as exc:
        parse_args(["--help"])
    assert exc.value.code == 0
    assert parse_args(["50"]).n == 50 and parse_args([]).n == 2000


def test_no_copy_left_said_plainly_riichi(capsys):
    # 23m234567p234s99s waits on 1m and 4m; four 1m indicators leave no 1m: no copy left, no
    # "None points" nor MCR's "under 8"
    code, out, _ = run(capsys, "--text", "23m234567p234s99s", "--seat", "S", "--dora", "1m1m1m1m")
    assert code == 0
    assert "  1m  0 left   no copy left: all four are in sight, no win on it" in out
    assert "None" not in out and "under 8" not in out


def test_no_copy_left_said_plainly_mcr(capsys):
    # MCR 1122334455667m waits 1m 4m 7m (seven shifted pairs on 7m); the hand holds one 7m and
    # three 7m are among the discards: no 7m left
    code, out, _ = run(capsys, "--ruleset", "mcr", "--text", "1122334455667m", "--discards", "7m7m7m")
    assert code == 0 and "  7m  0 left   no copy left" in out and "None" not in out


def test_last_copies_in_own_discards_are_no_copy_left_and_furiten(capsys):
    # three 1m indicators and one 1m discarded: 0 left, shown as no copy left (not valued); the
    # discarded 1m makes the hand furiten (RULES line 22): 4m's ron is no ron, its tsumo is
    # 234m 234p 567p 234s 99s: menzen tsumo 1 + pinfu 1 + sanshoku 2 + dora 3 (indicator 1m ->
    # 2m, three indicators) = 7 han: haneman, base 3000; dealer (seat East) tsumo 2 x 3000 = 6000 all
    code, out, _ = run(capsys, "--text", "23m234567p234s99s", "--dora", "1m1m1m", "--discards", "1m")
    assert code == 0
    assert "  1m  0 left   no copy left" in out
    assert "  4m  4 left   ron furiten: no ron   tsumo 18000 = 6000 all (7 han 20 fu = haneman:" in out
    obj = _waits_json(["--text", "23m234567p234s99s", "--dora", "1m1m1m", "--discards", "1m"])
    one, four = obj["waits"]
    assert one["no_copy_left"] is True and one["note"].startswith("no copy left")
    assert four["no_copy_left"] is False and four["furiten"] is True and one["furiten"] is True


def test_furiten_on_every_ron_line_tsumo_still_valued(capsys):
    # 123456m789p1122s, 2s discarded: furiten on both waits (RULES line 22, "quelle que soit la
    # tuile"); 1s by tsumo, non-dealer: menzen tsumo 1 han, 20 + 2 tsumo + 8 (111s closed
    # terminal pung) = 30 fu; base 30 x 2^3 = 240: 300 from each non-dealer, 500 from the dealer
    code, out, _ = run(capsys, "--text", "123456m789p1122s", "--seat", "S", "--discards", "2s")
    assert code == 0
    assert out.count("ron furiten: no ron") == 2
    assert "  1s  2 left   ron furiten: no ron   tsumo 1100 = 300/500 (1 han 30 fu: menzen tsumo)" in out
    obj = _waits_json(["--text", "123456m789p1122s", "--seat", "S", "--discards", "2s"])
    assert [w["furiten"] for w in obj["waits"]] == [True, True]
    obj = _waits_json(["--text", "123456m789p1122s", "--seat", "S"])
    assert [w["furiten"] for w in obj["waits"]] == [False, False]


def test_riichi_on_a_hand_not_tenpai_is_said(capsys):
    # 12356m789p1122s5z is 1-shanten: riichi needs tenpai (RULES line 20, "Un joueur tenpai")
    obj = _waits_json(["--text", "12356m789p1122s5z", "--riichi"])
    assert obj["shanten"] == 1 and any(n.startswith("riichi: the hand is not tenpai") for n in obj["notes"])
    obj = _waits_json(["--text", "12356m789p1122s5z"])
    assert not any(n.startswith("riichi") for n in obj["notes"])
    obj = _waits_json(["--text", "123456m789p1122s", "--riichi"])       # tenpai: riichi is fine
    assert not any(n.startswith("riichi") for n in obj["notes"])


def test_refused_by_name(capsys):
    mcr = ["--ruleset", "mcr", "--text"]
    for argv, words in (([*mcr, "1122334455667m", "--dora", "7m"], "--dora: MCR has no dora"),
                        ([*mcr, "11223344556m777z", "--dora", "7z7z"], "--dora: MCR has no dora"),
                        (["--text", "123456m789p1122s", "--riichi", "--discards", "1f"], "1f is a flower"),
                        (["--text", "123456m789p1122s", "--fix", "1=1m"], "--fix corrects a photo")):
        code, out, err = run(capsys, *argv)
        assert code == 2 and out == "" and err.count("\n") == 1 and words in err, (argv, err)


def test_kokushi_said_once_and_tsumo_split(capsys):
    # thirteen-sided kokushi, dealer: yakuman, 48000 (RULES line 90); by tsumo 2 x 8000 = 16000 all
    code, out, _ = run(capsys, "--text", "19m19p19s1234567z")
    line = next(x for x in out.splitlines() if x.startswith("  1m "))
    assert line.count("kokushi musou") == 2           # once for ron, once for tsumo
    assert "tsumo 48000 = 16000 all (yakuman (kokushi musou (13-sided)))" in line
    # non-dealer mangan by tsumo (the waiting sample's 4s, worked out above): 2000/4000
    code, out, _ = run(capsys, "--text", "234m067p44567s22z", "--seat", "S", "--dora", "3s")
    assert "tsumo 8000 = 2000/4000 (5 han 30 fu = mangan:" in out


def test_tile_row_shows_the_melds(capsys):
    code, out, _ = run(capsys, "--text", "123m789p1122s+pon 555z")
    assert code == 0 and "\U0001F007\U0001F008\U0001F009" in out and "  \U0001F006\U0001F006\U0001F006" in out


@pytest.mark.skipif(not (WEIGHTS / "detector.onnx").is_file() or not (WEIGHTS / "classifier.onnx").is_file(),
                    reason="no trained weights in vision/weights")
def test_photo_numbers_tiles_and_takes_fix_and_meld(capsys, monkeypatch):
    monkeypatch.chdir(SAMPLES.parent.parent)
    code, out, _ = run(capsys, "vision/samples/riichi_waiting.jpg", "--seat", "S", "--dora", "3s")
    assert code == 0 and "  concealed     1-13   234m067p44567s22z" in out
    # tile 13 (the last 2z) fixed to 3z: 234m067p44567s2z3z is no longer tenpai
    obj = _waits_json(["vision/samples/riichi_waiting.jpg", "--fix", "13=3z"])
    assert obj["concealed"] == "234m067p44567s23z" and obj["shanten"] == 1
    obj = _waits_json(["vision/samples/riichi_waiting.jpg", "--meld", "1-3=chi"])
    assert obj["melds"] == [{"type": "chi", "tiles": "234m"}] and obj["concealed"] == "067p44567s22z"
    code, out, err = run(capsys, "vision/samples/riichi_waiting.jpg", "--fix", "x")
    assert code == 2 and "--fix x" in err
