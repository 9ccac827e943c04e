"""`tilescope table` and `tilescope gouji`: JSON in, JSON out, clear errors with exit code 2."""
import io
import json

import pytest

from vision.cli.dispatch import main


def run_cli(argv, capsys, monkeypatch, stdin=None):
    if stdin is not None:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


TABLE = {
    "players": [{"name": "Ann", "score": 62}, {"name": "Bob", "score": -8},
                {"name": "Cai", "score": -8}, {"name": "Dan", "score": -46}],
    "events": [{"type": "substitute", "player": "Cai", "replaces": "Eve"},
               {"type": "penalty", "player": "Ann", "reason": "touched the wall"},
               {"type": "penalty", "player": "Ann"},
               {"type": "late", "player": "Dan", "minutes": 7}],
}


def test_table_from_file(tmp_path, capsys, monkeypatch):
    path = tmp_path / "table.json"
    path.write_text(json.dumps(TABLE))
    code, out, err = run_cli(["table", str(path)], capsys, monkeypatch)
    assert code == 0, err
    players = {p["name"]: p for p in json.loads(out)["players"]}
    # seed 000: Ann 62 - (warning + 5) = 57 first; Bob and Cai tied for 2nd share (2+1)/2
    assert players["Ann"]["final_score"] == 57 and players["Ann"]["table_points"] == 4
    assert players["Bob"]["table_points"] == 1.5 and players["Cai"]["table_points_exact"] == "3/2"
    assert players["Dan"]["penalty_points"] == -10 and players["Dan"]["place"] == 4


def test_table_from_stdin_with_replacement(capsys, monkeypatch):
    doc = dict(TABLE, events=[{"type": "replaced", "player": "Ann", "reason": "illness"}])
    code, out, _ = run_cli(["table"], capsys, monkeypatch, stdin=json.dumps(doc))
    assert code == 0
    pts = {p["name"]: p["table_points"] for p in json.loads(out)["players"]}
    assert pts == {"Ann": 0, "Bob": 3, "Cai": 3, "Dan": 1}  # Bob, Cai share (4+2)/2


@pytest.mark.parametrize("doc, message", [
    (dict(TABLE, referee="Zoe"), "referee: Extra inputs are not permitted"),
    (dict(TABLE, events=[{"type": "late", "player": "Bob", "minutes": -3}]), "minutes"),
    (dict(TABLE, events=[{"type": "yellow_card", "player": "Bob"}]), "yellow_card"),
    (dict(TABLE, players=TABLE["players"][:3]), "a table has 4 players"),
    (dict(TABLE, players=[{"name": "Ann", "score": "62"}] + TABLE["players"][1:]),
     "players.#1.score"),                       # counted from 1, as players are
    (dict(TABLE, events=[{"type": "late", "player": "Bob", "minutes": "7"}]), "events.#1.late.minutes"),
    ([1, 2], "the input must be one JSON object with 'players', not an array"),
    # two counts for one player would keep whichever came last, without a word
    (dict(TABLE, prior_delay_of_game={"Ann": 3, "Ann ": 0}), "prior_delay_of_game names 'Ann' twice"),
    # "Ann " is Ann (in prior_delay_of_game too): a trailing space does not make a second player
    (dict(TABLE, prior_delay_of_game={"Zed ": 1}), "'Zed', who is not at this table"),
    (dict(TABLE, players=[{"name": "Ann ", "score": -8}] + TABLE["players"][:1] + TABLE["players"][2:]),
     "player names must be distinct"),
])
def test_table_bad_input_exits_2(doc, message, capsys, monkeypatch):
    code, out, err = run_cli(["table", "-"], capsys, monkeypatch, stdin=json.dumps(doc))
    assert code == 2 and out == ""
    assert message in err and "Traceback" not in err


def test_table_not_json_and_missing_file_exit_2(tmp_path, capsys, monkeypatch):
    code, _, err = run_cli(["table"], capsys, monkeypatch, stdin="{")
    assert code == 2 and "not valid JSON" in err
    code, _, err = run_cli(["table"], capsys, monkeypatch, stdin="\n")
    assert code == 2 and "empty: no JSON value at all" in err
    # json would keep the last of two equal keys (Ann scored 1, not 62) without a word
    twice = json.dumps(TABLE).replace('"score": 62', '"score": 62, "score": 1')
    assert twice.count('"score"') == 5
    code, out, err = run_cli(["table"], capsys, monkeypatch, stdin=twice)
    assert code == 2 and out == "" and "key 'score' is given twice in one object" in err
    code, _, err = run_cli(["gouji", str(tmp_path / "nope.json")], capsys, monkeypatch)
    assert code == 2 and "cannot read" in err


def test_table_disqualification_is_for_the_tournament_unless_said(capsys, monkeypatch, tmp_path):
    # issue 7 quoting seed 000 §4: "a disqualified player gets 0 for the whole tournament"
    doc = dict(TABLE, events=[{"type": "disqualified", "player": "Dan"}])
    path = tmp_path / "notepad.json"          # saved with a byte-order mark, as Notepad does
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(doc).encode())
    code, out, err = run_cli(["table", str(path)], capsys, monkeypatch)
    assert code == 0, err
    dan = json.loads(out)["players"][3]
    assert dan["disqualified_from_tournament"] is True and dan["table_points"] == 0
    doc["events"][0]["scope"] = "session"
    code, out, err = run_cli(["table"], capsys, monkeypatch, stdin=json.dumps(doc))
    assert code == 0 and json.loads(out)["players"][3]["disqualified_from_tournament"] is False


def _help_example(verb: str, capsys) -> dict:
    """The input example of ``tilescope VERB --help``, its # comments taken out."""
    with pytest.raises(SystemExit):
        main([verb, "--help"])
    text = capsys.readouterr().out
    block = text.split("Input (JSON, a file argument or stdin):", 1)[1].split("\n\n")[1]
    return json.loads("\n".join(line.split("#")[0] for line in block.splitlines()))


@pytest.mark.parametrize("verb, want", [("table", "Ann"), ("gouji", "East")])
def test_help_examples_run_as_written(verb, want, capsys, monkeypatch):
    doc = _help_example(verb, capsys)
    code, out, err = run_cli([verb], capsys, monkeypatch, stdin=json.dumps(doc))
    assert code == 0, err
    result = json.loads(out)
    if verb == "gouji":        # the help's output example: East 51 : West 23
        assert result["totals"] == {"East": 51, "West": 23} and result["winner"] == want
    else:
        assert result["players"][0]["name"] == want


GOUJI = {
    "teams": {"East": ["Li", "Wang", "Zhao"], "West": ["Chen", "Liu", "Sun"]},
    "games": [
        {"order": ["Li", "Wang", "Zhao", "Chen", "Liu", "Sun"]},
        {"order": ["Chen", "Li", "Liu", "Sun", "Wang"], "revolution": "Zhao",
         "cheating": ["Sun"]},
        {"order": ["Liu", "Li", "Chen", "Zhao", "Sun", "Wang"]},
    ],
}


def test_gouji_match(capsys, monkeypatch):
    code, out, err = run_cli(["gouji"], capsys, monkeypatch, stdin=json.dumps(GOUJI))
    assert code == 0, err
    doc = json.loads(out)
    # seed 002: game 1 sweep 32:0; game 2 East 5+4+1 = 10, West 7+3+2-2 = 10;
    # game 3 East 5+3+1 = 9, West 7+4+2 = 13
    assert [g["team_scores"] for g in doc["games"]] == [
        {"East": 32, "West": 0}, {"East": 10, "West": 10}, {"East": 9, "West": 13}]
    assert doc["games"][1]["places"]["Zhao"] == 3
    assert doc["totals"] == {"East": 51, "West": 23}
    assert (doc["status"], doc["winner"], doc["decided_by"]) == ("won", "East", "score")


@pytest.mark.parametrize("doc, message", [
    (dict(GOUJI, note="x"), "note: Extra inputs are not permitted"),
    (dict(GOUJI, teams={"East": ["Li", "Wang", "Zhao"], "East ": ["Chen", "Liu", "Sun"]}),
     "team name 'East' is given twice"),
    (dict(GOUJI, teams={"East": ["Li", "Wang"], "West": ["Chen", "Liu", "Sun"]}),
     "team 'East' needs 3 players, got 2"),
    (dict(GOUJI, teams={"East": ["Li", "Wang", "Zhao", "Ma"], "West": ["Chen", "Liu", "Sun"]}),
     "team 'East' needs 3 players, got 4"),
    (dict(GOUJI, games=[{"order": ["Li"]}]), "missing"),
    (dict(GOUJI, teams={"": ["Li", "Wang", "Zhao"], "West": ["Chen", "Liu", "Sun"]}),
     'teams."".(name): String should have at least 1 character'),
])
def test_gouji_bad_input_exits_2(doc, message, capsys, monkeypatch):
    code, out, err = run_cli(["gouji"], capsys, monkeypatch, stdin=json.dumps(doc))
    assert code == 2 and out == ""
    assert message in err and "Traceback" not in err


@pytest.mark.parametrize("verb, key", [("table", "prior_delay_of_game"), ("gouji", "revolution")])
def test_help_documents_the_json_format(verb, key, capsys):
    with pytest.raises(SystemExit) as exc:
        main([verb, "--help"])
    assert exc.value.code == 0
    assert key in capsys.readouterr().out


def test_help_text_is_plain_and_one_table_point_is_singular(capsys, monkeypatch):
    with pytest.raises(SystemExit):
        main(["table", "--help"])
    out = capsys.readouterr().out
    assert "::" not in out and ":mod:" not in out and "``" not in out
    assert "scoring/tournament/ema.py" in out and "not JSON: leave them out" in out
    # EMA (seed 000): places 1..4 take 4 / 2 / 1 / 0 table points; the third takes one point
    doc = {"players": [{"name": "Ann", "score": 30}, {"name": "Bob", "score": 10},
                       {"name": "Cai", "score": -10}, {"name": "Dan", "score": -30}]}
    code, out, err = run_cli(["table"], capsys, monkeypatch, stdin=json.dumps(doc))
    assert code == 0, err
    cai = {p["name"]: p for p in json.loads(out)["players"]}["Cai"]
    assert cai["reasons"] == ["place 3 on -10: 1 table point"]


XIANGQI = {"players": ["Li", "Wang", "Zhao", "Chen", "Liu"], "seed": 7, "results": [
    {"players": ["Wang", "Zhao"], "winner": "Zhao"},
    {"players": ["Liu", "Li"], "forfeit": "Liu", "reason": "late", "minutes": 12},
    {"players": ["Chen", "Zhao"], "forfeit": "Zhao", "reason": "time", "violations": 2},
    {"players": ["Liu", "Zhao"], "winner": "Zhao"}]}


def test_xiangqi_help_example_runs_as_written(capsys, monkeypatch):
    doc = _help_example("xiangqi", capsys)
    assert doc == XIANGQI
    code, out, err = run_cli(["xiangqi"], capsys, monkeypatch, stdin=json.dumps(doc))
    assert code == 0, err
    result = json.loads(out)
    # seed 002 (二): (3) the three byes advance; (2) Liu late 12 minutes; (4) Zhao over time twice
    assert result["bracket"] == [["Liu", None], ["Li", None], ["Chen", None], ["Wang", "Zhao"]]
    assert [m["players"] for m in result["pending"]] == [["Li", "Chen"]]
    assert result["places"] == {"1": None, "2": None, "3": "Zhao"} and not result["finished"]
    doc["results"].append({"players": ["Chen", "Li"], "winner": "Chen"})
    code, out, err = run_cli(["xiangqi"], capsys, monkeypatch, stdin=json.dumps(doc))
    assert json.loads(out)["places"] == {"1": "Chen", "2": "Li", "3": "Zhao"}


@pytest.mark.parametrize("change, message", [
    ({"seed": "7"}, "seed: Input should be a valid integer"),
    ({"results": [{"players": ["Wang", "Zhao"], "forfeit": "Wang"}]}, "needs a reason"),
    ({"results": [{"players": ["Wang", "Zhao"], "forfeit": "Wang", "reason": "late",
                   "minutes": 5}]}, "a forfeit only after 10"),
    ({"results": [{"players": ["Li", "Zhao"], "winner": "Li"}]}, "no game Li v Zhao is due"),
])
def test_xiangqi_bad_input_exits_2(change, message, capsys, monkeypatch):
    code, out, err = run_cli(["xiangqi"], capsys, monkeypatch, stdin=json.dumps(dict(XIANGQI, **change)))
    assert code == 2 and out == "" and message in err and "Traceback" not in err
