"""A fresh user's findings on the command line. README: bad input gets one line naming the
problem and exit code 2; a photo that cannot be scored gets "Cannot score: …" and exit 1."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from vision.cli.dispatch import COMMANDS, main

REPO = Path(__file__).resolve().parents[1]
WAITING = str(REPO / "vision" / "samples" / "riichi_waiting.jpg")   # 13 tiles: 234m067p44567s22z


def run(capsys, *argv):
    try:
        code = main(list(argv))
    except SystemExit as exc:       # argparse's errors and --help leave by SystemExit
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def notes(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("table 3: Ann won twice\nBob dealt in\n", encoding="utf-8")
    return str(path)


# ---- 1. waits: bad input is 2, as score, read and check say it ----

@pytest.mark.parametrize("verb", ["waits", "score"])
def test_a_missing_or_non_image_photo_is_bad_input_on_waits_as_on_score(verb, notes, tmp_path, capsys):
    code, out, err = run(capsys, verb, str(tmp_path / "nope.jpg"))
    assert (code, out) == (2, "") and err.strip().endswith("nope.jpg: no such file")
    code, out, err = run(capsys, verb, notes)
    assert (code, out) == (2, "") and "notes.txt: not an image" in err and len(err.splitlines()) == 1


def test_a_fix_the_photo_has_no_tile_for_is_bad_input_on_waits(capsys):
    code, out, err = run(capsys, "waits", WAITING, "--fix", "99=1m")
    assert (code, out) == (2, "")
    assert err == "tilescope waits: --fix 99=1m: the photo has tiles 1..13\n"


# ---- 2. argparse's errors: one line on every verb ----

def test_a_bad_choice_is_one_line_naming_the_flag_and_the_choices(capsys):
    code, out, err = run(capsys, "score", "x.jpg", "--seat", "X")
    assert (code, out) == (2, "")
    assert err == "tilescope score: --seat: 'X' is not one of E, S, W, N (tilescope score --help)\n"


@pytest.mark.parametrize("verb", ["score", "hand", "waits", "batch", "check", "stream"])
def test_seat_x_is_one_line_on_every_verb_that_has_seat(verb, capsys):
    code, _, err = run(capsys, verb, "x.jpg", "--seat", "X")
    assert code == 2 and err.splitlines() == [
        f"tilescope {verb}: --seat: 'X' is not one of E, S, W, N (tilescope {verb} --help)"]


@pytest.mark.parametrize("verb", sorted(COMMANDS))
def test_an_unknown_option_is_one_line_on_every_verb(verb, capsys):
    code, out, err = run(capsys, verb, "--no-such-flag")
    assert (code, out) == (2, "")
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"tilescope {verb}: ")
    assert lines[0].endswith(f"(tilescope {verb} --help)") and "usage:" not in err


def test_the_subcommands_of_set_and_an_unknown_verb_are_one_line_too(capsys):
    code, _, err = run(capsys, "set", "learn")
    assert code == 2 and err.splitlines() == [
        "tilescope set learn: the following arguments are required: PHOTO (tilescope set learn --help)"]
    code, _, err = run(capsys, "game", "f.jsonl", "--new", "A", "B", "C")
    assert code == 2 and err.splitlines() == [
        "tilescope game: --new: expected 4 arguments (tilescope game --help)"]
    code, _, err = run(capsys, "scroe", "x.jpg")
    assert code == 2 and len(err.splitlines()) == 1 and "unknown command 'scroe'" in err


# ---- 3. a photo that cannot be scored says why, standing alone ----

@pytest.mark.parametrize("verb", ["score", "check"])
def test_a_hand_in_play_is_named_and_sent_to_waits(verb, capsys):
    code, out, err = run(capsys, verb, WAITING)
    assert code == 1, err
    assert ("Cannot score: 13 tiles read, one short of a win — this looks like a hand in play: "
            "`tilescope waits PHOTO` shows its waits") in out
    assert "see the warnings" not in out


def test_no_hand_why_points_at_warnings_only_when_there_are_some():
    from vision.read.detections import Detection
    from vision.photo.judging import no_hand_why
    from vision.layout import Layout, LayoutWarning, TileRequest

    det = Detection("1m", (0.0, 0.0, 10.0, 14.0), 0.9)
    twelve = Layout(groups=[], order=[det] * 12, hand=TileRequest(concealed="123456789m123p"[:-1]))
    assert no_hand_why(twelve) == ("no winning hand could be formed from the tiles seen; "
                                   "pass --fix N=TILE or --win-tile TILE")
    warned = no_hand_why(twelve, [LayoutWarning("unsure", "tile 3 is unsure", "--fix 3=TILE")])
    assert "(see the warnings)" in warned
    empty = Layout(groups=[], order=[], hand=TileRequest())
    assert no_hand_why(empty) == "no tiles could be read in the photo"


# ---- 4. a file that is no JSON Lines; an empty one ----

@pytest.mark.parametrize("verb", ["hand", "check"])
def test_a_text_file_is_not_json_lines_in_one_line(verb, notes, capsys):
    code, out, err = run(capsys, verb, notes)
    assert (code, out) == (2, "")
    assert err.splitlines() == [f"tilescope {verb}: {notes} is not JSON Lines (line 1: not JSON: "
                                "Expecting value at column 1; docs/hand-json.md)"]


@pytest.mark.parametrize("verb", ["hand", "check"])
def test_an_empty_file_says_no_hand(verb, tmp_path, capsys):
    path = tmp_path / "empty.jsonl"
    path.write_text("\n\n", encoding="utf-8")
    code, out, err = run(capsys, verb, str(path))
    assert (code, out, err) == (0, "", f"tilescope {verb}: no hand in {path}\n")


def test_one_bad_line_in_json_lines_keeps_its_error_line(tmp_path, capsys):
    # a real JSON Lines file with one bad line: that line's error, then the next hand's value.
    # 123m456p789s11z22z tsumo on 2z, East seat and round (the defaults): menzen tsumo 1 han;
    # fu 20 + 2 (tsumo) + 8 (closed pon of honours) + 4 (East pair, seat and round wind) = 34
    # -> 40; dealer tsumo, base 40 x 2^3 = 320, each pays 2 x 320 = 640 -> 700: 2100
    path = tmp_path / "hands.jsonl"
    good = {"ruleset": "riichi", "concealed": "123m456p789s11z22z", "win_tile": "2z", "win": "tsumo"}
    path.write_text('{"bad"\n' + json.dumps(good) + "\n", encoding="utf-8")
    code, out, err = run(capsys, "hand", str(path))
    lines = [json.loads(x) for x in out.splitlines()]
    assert code == 0 and err == "" and len(lines) == 2
    assert lines[0] == {"valid": False, "error": "not JSON: Expecting ':' delimiter at column 7"}
    assert (lines[1]["han"], lines[1]["fu"], lines[1]["payment"]) == (1, 40, {"total": 2100, "from_each": 700})


# ---- 6. serve --help lists every endpoint ----

def test_serve_help_lists_every_route_of_the_app_and_of_the_readme(capsys):
    pytest.importorskip("fastapi")
    from vision.server.app import create_app

    code, out, _ = run(capsys, "serve", "--help")
    assert code == 0
    app = create_app(reader=object())
    paths = {r.path.replace("{game_id}", "ID") for r in app.routes
             if r.path.startswith(("/api/", "/table")) or r.path == "/"}
    assert len(paths) >= 17
    for path in paths:
        assert f" {path} " in out, path
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    serve_row = next(line for line in readme.splitlines() if line.startswith("| `tilescope serve`"))
    for said in ("/api/waits", "/api/set/", "/api/games", "/table"):
        assert said in serve_row and said in out


# ---- 7. game: MCR named; refusals in English with a short citation ----

def test_help_says_game_keeps_mcr_sessions_too(capsys):
    _, top, _ = run(capsys, "--help")
    _, game, _ = run(capsys, "game", "--help")
    for text in (top, " ".join(game.split())):
        assert "riichi game's" in text and "MCR session's" in text


def test_a_refused_value_cites_the_rule_without_quoting_french(tmp_path, capsys):
    # seed 001: « Une victoire sur 7 paires vaut 25 mini-points » — 25 fu is chiitoitsu,
    # 2 han, 3 with menzen tsumo: a 1 han 25 fu tsumo does not exist
    path = str(tmp_path / "game.jsonl")
    assert run(capsys, "game", path, "--new", "Ann", "Bob", "Cai", "Dan")[0] == 0
    code, out, err = run(capsys, "game", path, "--add",
                         json.dumps({"type": "tsumo", "player": "Bob", "han": 1, "fu": 25}))
    assert (code, out) == (2, "") and len(err.splitlines()) == 1
    assert "25 fu is seven pairs: chiitoitsu is 2 han, 3 with menzen tsumo (riichi rules, fu)" in err
    assert "«" not in err


def test_no_refusal_of_the_riichi_ledger_quotes_french():
    # the seed's French stays in the comments beside each rule, as sources
    import ast

    source = (REPO / "scoring" / "tournament" / "riichi_game.py").read_text(encoding="utf-8")
    tree = ast.parse(source)
    docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                  if isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.Module)) and n.body
                  and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    said = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
            and id(n) not in docstrings and "«" in n.value]
    assert said == []


# ---- 8. waits PHOTO: score's header ----

def test_waits_photo_header_is_scores(capsys):
    code, out, err = run(capsys, "waits", WAITING)
    assert code == 0, err
    assert out.splitlines()[0] == "riichi_waiting.jpg: 960x720 px, 13 tiles read"
    _, score_out, _ = run(capsys, "score", WAITING)
    assert score_out.splitlines()[0] == out.splitlines()[0]


# ---- Ctrl-C while a verb still loads: no traceback ----

def test_ctrl_c_while_a_verb_loads_or_reads_its_arguments_is_a_quiet_130(monkeypatch, capsys):
    """Ctrl-C a second after `tilescope stream clip.mp4` (OpenCV, onnxruntime and pydantic
    still importing) printed a 30-line traceback; during the run it was already a quiet 130."""
    import vision.cli.commands.stream as stream

    def interrupted(parser):
        raise KeyboardInterrupt

    monkeypatch.setattr(stream, "add_arguments", interrupted)
    code, out, err = run(capsys, "stream", "clip.mp4")
    assert (code, out, err) == (130, "", "")
