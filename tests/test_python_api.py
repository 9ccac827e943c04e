"""The Python API a user guesses: ``scoring.request_from_text`` / ``request_from_json`` and
``vision.score_photo``'s arguments, refused with a message naming the parameter."""

import json

import pytest

import scoring
import vision
from scoring import HandError, HandRequest, request_from_json, request_from_text, score_hand
from scoring.request import parse_request
from test_pipeline import RIICHI, RIICHI_CONTEXT, FakeReader, tiles, truth
from vision.photo.judging import PhotoError

HAND = "234m456p678s8s8s +pon 777z"
# the same hand as docs/hand-json.md writes it: 8s won, a called pon of red dragons
JSON = {"ruleset": "riichi", "concealed": "234m456p678s8s", "melds": [{"type": "pon", "tiles": "777z"}],
        "win_tile": "8s", "win": "tsumo", "seat_wind": "S", "round_wind": "E"}


def test_top_level_names():
    assert {"request_from_text", "request_from_json", "score_hand", "HandRequest"} <= set(scoring.__all__)
    assert {"score_photo", "check_photo", "PhotoError"} == set(vision.__all__)
    assert vision.PhotoError is PhotoError


def test_request_from_text_is_the_json_request():
    req = request_from_text(HAND, win="tsumo", seat_wind="S")
    assert isinstance(req, HandRequest) and req == parse_request(JSON)
    # riichi rules (scoring/riichi/RULES.md; JPML/WRC fu table): yakuhai (chun) 1 han; fu 20
    # base + 2 tsumo + 4 open pon of honours + 2 single wait = 28 -> 30; a non-dealer's
    # 1 han 30 fu tsumo: base 30 x 2^3 = 240 -> 300 from each non-dealer, 500 from the dealer
    out = score_hand(req).to_json()
    assert (out["han"], out["fu"]) == (1, 30)
    assert out["payment"] == {"total": 1100, "from_dealer": 500, "from_non_dealer": 300}


def test_request_from_text_table_facts():
    req = request_from_text("123m456p789s1z2z2z +ankan 0555m", win_tile="1z", win="ron",
                            riichi="riichi", dora_indicators="4m", honba=2, rules={"aka": False})
    assert str(req.win_tile) == "1z" and req.melds[0].type == "ankan"
    assert [str(t) for t in req.dora_indicators] == ["4m"] and req.honba == 2
    assert req.riichi == "riichi" and req.rules.aka is False


def test_request_from_json_takes_a_dict_or_its_text():
    assert request_from_json(JSON) == request_from_json(json.dumps(JSON)) == parse_request(JSON)


def test_score_hand_takes_a_request_dict():
    assert score_hand(JSON).to_json() == score_hand(request_from_json(JSON)).to_json()


@pytest.mark.parametrize("kwargs, error, words", [
    ({"win": "draw"}, HandError, "win: one of 'tsumo', 'ron', got 'draw'"),
    ({"win": "ron", "seat_wind": "east"}, HandError, "seat_wind: one of"),
    ({"win": "ron", "honba": "2"}, TypeError, "honba: a whole number, got str"),
    ({"win": "ron", "riichi": True}, HandError, "riichi: one of 'none', 'riichi', 'double'"),
    ({"win": "ron", "tenhou": "yes"}, TypeError, "tenhou: True or False, got str"),
    ({"win": "ron", "dora_indicators": "9x"}, HandError, "dora_indicators: unknown tile code"),
    ({"win": "ron", "rules": {"aka": 1}}, HandError, "rules: aka:"),
    ({"win": "ron", "rules": "no aka"}, TypeError, "rules: a RiichiRules or a dict"),
    ({"win": "ron", "dora": "4m"}, TypeError, "'dora'"),
])
def test_request_from_text_refuses_naming_the_keyword(kwargs, error, words):
    with pytest.raises(error) as exc:
        request_from_text(HAND, **kwargs)
    assert words in str(exc.value)


def test_request_from_text_refuses_a_dict():
    with pytest.raises(TypeError, match="request_from_json"):
        request_from_text(JSON, win="ron")


@pytest.mark.parametrize("value, error, words", [
    (3, TypeError, "takes a request dict or its JSON text"),
    ("[1]", HandError, "a request is a JSON object, got an array"),
    ("{bad", HandError, "not JSON"),
    ({**JSON, "dora": "4m"}, HandError, "unknown key 'dora' (the key is 'dora_indicators')"),
])
def test_request_from_json_refuses(value, error, words):
    with pytest.raises(error) as exc:
        request_from_json(value)
    assert words in str(exc.value)


# ---- vision.score_photo's arguments ----

def _photo(**kwargs):
    dets, _ = truth(RIICHI)
    return vision.score_photo(dets, RIICHI_CONTEXT, reader=FakeReader(dets), **kwargs)


@pytest.mark.parametrize("kwargs, error, words", [
    ({"fixes": ["3=5p"]}, TypeError, "fixes: a dict {tile number: tile code}, e.g. {3: '5p'}, got list"),
    ({"fixes": {"three": "5p"}}, ValueError, "fixes: key 'three' is not a tile number"),
    ({"fixes": {True: "5p"}}, ValueError, "fixes: key True is not a tile number"),
    ({"fixes": {3: 5}}, TypeError, "fixes: tile 3: a tile code such as '5p', got int"),
    ({"melds": ["9-11=chi"]}, TypeError, "melds: a dict {(first, last): type}"),
    ({"melds": {9: "chi"}}, ValueError, "melds: key 9 is not (first, last) tile numbers"),
    # the photo's tiles 1..14 (tests/data/riichi_open_red.json): no 15th to fix
    ({"fixes": {15: "1p"}}, PhotoError, "fixes {15: '1p'}: the photo has tiles 1..14"),
    ({"fixes": {3: "5x"}}, PhotoError, "fixes {3: '5x'}: unknown tile code '5x'"),
    ({"melds": {(1, 2): "chi"}}, PhotoError, "melds {(1, 2): 'chi'}: a chi is 3 tiles, not 2"),
    ({"win_tile": "9x"}, PhotoError, "win_tile '9x': "),
])
def test_score_photo_refuses_naming_the_argument(kwargs, error, words):
    with pytest.raises(error) as exc:
        _photo(**kwargs)
    assert words in str(exc.value) and "--" not in str(exc.value)


def test_the_pipeline_keeps_the_command_line_words():
    # tilescope score calls vision.photo.pipeline.score_photo: its message names the flag given
    from vision.photo.pipeline import score_photo
    dets, _ = truth(RIICHI)
    with pytest.raises(PhotoError, match=r"^--fix 15=1p: the photo has tiles 1\.\.14"):
        score_photo(dets, RIICHI_CONTEXT, reader=FakeReader(dets), fixes={15: "1p"})


def test_score_photo_takes_fixes_by_number():
    # tile 3 in reading order is the 4p (tests/test_pipeline.py): fixed to 1p, as there
    photo = _photo(fixes={"3": "1p"})
    assert tiles(photo.request.to_json()["concealed"]) == tiles("23m106p678s88s")


def test_verdict_takes_a_request_dict():
    from scoring.verdict import check
    # the hand above, declared: a complete hand with a yaku (chun), so the win stands
    assert check(JSON).to_json() == check(parse_request(JSON)).to_json()
    assert check(JSON).valid is True


@pytest.mark.parametrize("call", ["score_hand", "check"])
def test_a_request_of_another_type_is_refused_saying_what_to_pass(call):
    from scoring.verdict import check
    with pytest.raises(TypeError, match=rf"^{call} takes a HandRequest or a request dict .*got str .*request_from_text"):
        {"score_hand": score_hand, "check": check}[call](HAND)


def test_the_readme_python_example_shows_the_refused_hand(capsys):
    # issue 40: the README never showed .valid/.error, and .han on an ErrorResult was a bare
    # "'ErrorResult' object has no attribute 'han'"
    import re
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```python\n(from scoring import .*?)```", readme, re.S).group(1)
    assert ".valid" in block and ".error" in block
    scope: dict = {}
    exec(block, scope)                  # noqa: S102 - the README's own example
    assert capsys.readouterr().out == ("2 30 3000\nFalse wrong tile count: 10 concealed tiles "
                                       "(without the winning tile) with 0 meld(s); expected 13\n")
    with pytest.raises(AttributeError, match=r"^'han': the hand was not valued \(an ErrorResult: "
                                             r"check result\.valid first; result\.error says why: "
                                             r"wrong tile count"):
        scope["refused"].han
    assert getattr(scope["refused"], "ruling", None) is None       # getattr's default still works
