"""One vocabulary on every path a newcomer takes (issue 40, finding 4): ``kan`` is
``daiminkan`` everywhere, ``--context`` on every verb that takes the table's facts, a folder
or several photos given to a one-photo verb said as such, and a form whose photo field has
another name told which field is expected."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from scoring import request_from_json, score_hand
from vision.cli.dispatch import main
from vision.layout.fixspec import melds_from_json, melds_from_python, parse_melds
from vision.layout import check_declared
from vision.layout.declared import meld_type

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "vision" / "samples" / "riichi_open_red.jpg"


# ---- kan = daiminkan ----

def test_kan_is_daiminkan_in_meld_flags_api_fields_and_python():
    # before: "--meld 9-12=kan: unknown group type 'kan' (use chi, pon, daiminkan, ...)"
    for declared in (parse_melds(["11-14=kan"]), melds_from_json({"11-14": "kan"}),
                     melds_from_python({(11, 14): "kan"})):
        check_declared(declared, 14)                        # a kan is 4 tiles: no error
    assert meld_type("kan") == meld_type("minkan") == "daiminkan" and meld_type("chi") == "chi"
    # an error names the word the user wrote
    with pytest.raises(ValueError, match=r"^--meld 9-11=kan: a kan is 4 tiles, not 3$"):
        check_declared(parse_melds(["9-11=kan"]), 14)


def test_a_kan_declared_on_a_photo_is_read_as_a_daiminkan():
    # the sample's tiles 11-14 (the winning 4m and the pon of 7z) declared an open kan: the
    # same reading, request and refusal as --meld 11-14=daiminkan (before: "unknown group type")
    import vision

    ctx = {"win": "ron", "seat_wind": "S", "dora_indicators": "1p"}
    kan = vision.score_photo(str(SAMPLE), ctx, melds={(11, 14): "kan"}).to_json()
    daiminkan = vision.score_photo(str(SAMPLE), ctx, melds={(11, 14): "daiminkan"}).to_json()
    assert kan["layout"] == daiminkan["layout"] and kan["result"] == daiminkan["result"]
    assert "daiminkan" in json.dumps(kan["layout"])


def test_kan_is_daiminkan_in_a_json_request():
    # open kan of 1m, pon of haku, 456p 789s, tanki on 2z; the dealer's ron: haku 1 han;
    # fu 20 + open kan of terminals 16 + open pon of honours 4 + tanki 2 = 42 -> 50;
    # 50 x 2^3 = 400, x 6 = 2400 (before the fix: "melds[0].type: ... 'kan'" refused)
    req = request_from_json({"ruleset": "riichi", "concealed": "456p789s2z", "win_tile": "2z",
                             "melds": [{"type": "kan", "tiles": "1111m"}, {"type": "pon", "tiles": "555z"}],
                             "win": "ron"})
    assert [m.type for m in req.melds] == ["daiminkan", "pon"]
    result = score_hand(req)
    assert (result.han, result.fu, result.payment.total) == (1, 50, 2400)


# ---- --context on hand, check --text and waits ----

def _out(capsys, argv) -> tuple[int, str, str]:
    code = main(argv)
    got = capsys.readouterr()
    return code, got.out, got.err


def test_hand_takes_context_as_its_flags(capsys):
    text = ["hand", "--text", "234m456p678s8s8s +pon 777z"]
    code, out, _ = _out(capsys, text + ["--context", json.dumps(
        {"win": "tsumo", "seat_wind": "S", "dora_indicators": "1m", "rules": {"aka": False}})])
    assert code == 0
    # chun 1 + dora (2m) 1 = 2 han 30 fu, a non-dealer's tsumo: 500 / 1000
    assert "Payment: from dealer 1000, from non-dealer 500; total 2000" in out
    assert out == _out(capsys, text + ["--win", "tsumo", "--seat", "S", "--dora", "1m", "--no-aka"])[1]
    # a flag given wins over --context
    code, out, _ = _out(capsys, text + ["--context", '{"win": "tsumo"}', "--win", "ron"])
    assert "Win:   ron on 8s" in out


def test_waits_and_check_text_take_context(capsys):
    text = ["waits", "--text", "23m406p678s88s777z"]
    with_context = _out(capsys, text + ["--context", '{"seat_wind": "W", "dora_indicators": "3s"}'])
    assert with_context[0] == 0
    assert with_context[1] == _out(capsys, text + ["--seat", "W", "--dora", "3s"])[1]
    code, out, err = _out(capsys, ["check", "--text", "234m456p678s8s8s +pon 777z", "--context",
                                   '{"win": "tsumo", "seat_wind": "S"}'])
    assert code == 0 and "Ruling: VALID" in out and err == ""


def test_a_context_key_that_is_no_table_fact_is_named(capsys):
    code, _, err = _out(capsys, ["hand", "--text", "234m456p678s8s8s", "--context", '{"honba": "x"}'])
    assert (code, err) == (2, 'tilescope hand: --context: honba: "x" is not a whole number\n')
    code, _, err = _out(capsys, ["waits", "--text", "23m406p678s88s777z", "--context", '{"concealed": "1m"}'])
    assert (code, err) == (2, "tilescope waits: --context: 'concealed' is the hand, not a table "
                              "fact: type the hand with --text\n")


# ---- a folder, several photos ----

def test_check_of_a_folder_says_folder_as_score_does(capsys):
    folder = str(REPO / "vision" / "samples")
    code, _, err = _out(capsys, ["check", folder])
    assert (code, err) == (2, f"tilescope check: {folder}: is a folder, not an image file or JSON "
                              f"Lines file (a folder of photos: tilescope batch {folder} --out "
                              "results.jsonl)\n")


def test_score_of_several_photos_points_to_batch(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["score", "a.jpg", "b.jpg", "c.png"])
    assert stop.value.code == 2
    assert capsys.readouterr().err == (
        "tilescope score: score reads one photo, and b.jpg c.png are more: score several with "
        "tilescope batch PHOTO... --out results.jsonl (tilescope score --help)\n")
    with pytest.raises(SystemExit):          # any other stray word: argparse's words
        main(["score", "a.jpg", "--bogus"])
    assert "unrecognized arguments: --bogus" in capsys.readouterr().err


# ---- the API's form field ----

def test_a_photo_under_another_form_field_is_told_the_field_is_image():
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from vision.server.app import create_app

    client = TestClient(create_app())
    r = client.post("/api/score", files={"photo": ("x.jpg", SAMPLE.read_bytes(), "image/jpeg")})
    assert r.status_code == 422
    assert r.json() == {"error": "image: the photo goes in the form field 'image' (curl -F "
                                 "image=@photo.jpg); this form's fields are 'photo'",
                        "code": "invalid_request"}
    r = client.post("/api/score", content=SAMPLE.read_bytes(), headers={"content-type": "image/jpeg"})
    assert "not as the raw body" in r.json()["error"]
