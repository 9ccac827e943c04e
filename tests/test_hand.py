"""Hand model, validation with named errors, and the JSON request side
(scoring/hand.py, scoring/request.py; format: docs/hand-json.md)."""
import pytest

from scoring.hand import HandError, HandRequest, Meld, RiichiRules, validate
from scoring.request import parse_request, parse_text_hand, request_to_json
from scoring.tiles import parse_tile, parse_tiles

SPEC_EXAMPLE = {
    "ruleset": "riichi", "concealed": "234m456p678s8s",
    "melds": [{"type": "pon", "tiles": "777z", "from": "across"}],
    "win_tile": "8s", "win": "tsumo", "seat_wind": "E", "round_wind": "E",
}


def req(**kw):
    base = dict(SPEC_EXAMPLE)
    base.update(kw)
    return parse_request(base)


def test_spec_example_parses_and_round_trips():
    r = req()
    assert len(r.concealed) == 10 and r.win_tile == parse_tile("8s")
    assert r.melds == (Meld("pon", tuple(parse_tiles("777z")), None, "across"),)
    assert r.is_dealer and not r.is_closed and len(r.all_tiles) == 14
    validate(r)
    assert parse_request(request_to_json(r)) == r


def test_round_trip_with_every_field():
    obj = {
        "ruleset": "riichi", "concealed": "1230m45p", "win_tile": "6p", "win": "ron",
        "melds": [{"type": "chi", "tiles": "0s46s", "called": "4s", "from": "left"},
                  {"type": "ankan", "tiles": "1111z"}],
        "seat_wind": "S", "round_wind": "W", "riichi": "double", "ippatsu": False,
        "last_wall_tile": True, "dora_indicators": "1z2z", "ura_dora_indicators": "3m4m",
        "honba": 2, "riichi_sticks": 3,
        "rules": {"aka": False, "open_tanyao": False, "kiriage": True, "double_yakuman": True,
                  "kazoe": "none", "double_wind_pair_fu": 2},
    }
    r = parse_request(obj)
    assert r.rules == RiichiRules(False, False, True, True, "none", 2)
    assert parse_request(request_to_json(r)) == r


@pytest.mark.parametrize("change,message", [
    ({"colour": "red"}, "unknown key 'colour'$"),
    # the command line's --dora/--seat are what a caller guesses first: the message names the key
    ({"dora": "1p"}, r"unknown key 'dora' \(the key is 'dora_indicators'\)"),
    ({"seat": "S"}, r"unknown key 'seat' \(the key is 'seat_wind'\)"),
    ({"win": "draw"}, "win"),
    ({"honba": "2"}, "honba"),
    ({"concealed": "234m456p678s8x"}, "unknown tile code"),
    ({"melds": [{"type": "pong", "tiles": "777z"}]}, "melds.0.type"),
])
def test_bad_requests_get_readable_errors(change, message):
    with pytest.raises(HandError, match=message) as exc:
        req(**change)
    assert "pydantic" not in str(exc.value) and "\n" not in str(exc.value)


def test_missing_key_is_named():
    obj = dict(SPEC_EXAMPLE)
    del obj["win_tile"]
    with pytest.raises(HandError, match="missing key 'win_tile'"):
        parse_request(obj)


def test_not_an_object():
    with pytest.raises(HandError, match="JSON object"):
        parse_request(["234m"])
    for value, said in ((None, "got null"), ([1], "got an array"), ("x", "got a string"), (3, "got a number")):
        with pytest.raises(HandError, match=f"a request is a JSON object, {said}$"):
            parse_request(value)


@pytest.mark.parametrize("change,message", [
    ({"concealed": "234m456p678s8s9s"}, "wrong tile count"),
    ({"concealed": "111m1m456p678s8s", "melds": []}, "wrong tile count"),
    ({"concealed": "2222m456p678s", "win_tile": "2m"}, "5 copies of 2m"),
    ({"concealed": "234m406p678s8s", "win_tile": "0p"}, "red fives"),
    ({"melds": [{"type": "pon", "tiles": "776z"}]}, "identical"),
    ({"melds": [{"type": "chi", "tiles": "891m"}]}, "consecutive"),
    ({"melds": [{"type": "chi", "tiles": "123z"}]}, "consecutive"),
    ({"melds": [{"type": "daiminkan", "tiles": "777z"}]}, "4 tiles"),
    ({"melds": [{"type": "ankan", "tiles": "7777z", "called": "7z"}]}, "no called tile"),
    ({"melds": [{"type": "pon", "tiles": "777z", "called": "1z"}]}, "not in the meld"),
    ({"riichi": "riichi"}, "open hand"),
    ({"ippatsu": True}, "ippatsu without riichi"),
    ({"replacement_tile": True}, "needs a kan"),
    ({"robbing_kong": True, "win": "ron"}, "cannot hold another"),
    ({"tenhou": True, "seat_wind": "S"}, "not East"),
    ({"chiihou": True}, "seat wind is East"),
    ({"flowers": 2}, "MCR"),
    # indicators are tiles of the same set: 777z in the pon + two 7z indicators is five
    ({"dora_indicators": "7z7z"}, "5 copies of 7z .* and the dora indicators"),
    ({"dora_indicators": "1z", "ura_dora_indicators": "8s8s8s"}, "6 copies of 8s"),  # 678s 8s 8s
    ({"concealed": "234m406p678s8s", "dora_indicators": "0p"}, "2 red fives of p.*dora indicators"),
    # a set with red fives has one in each suit: all four 5p, none red, lost an aka dora
    ({"concealed": "234m345555p8s", "win_tile": "8s"}, "all four 5p and none red"),
    ({"honba": 100}, "honba must be 0..99"),
    # riichi needs 4 tiles left in the wall (EMA/WRC): the riichi player's own next draw
    # comes no later than the last tile, so an ippatsu houtei, or any ippatsu on the last
    # tile after a double riichi, cannot happen
    ({"concealed": "234m456p678s23s44z", "win_tile": "1s", "melds": [], "win": "ron",
      "riichi": "riichi", "ippatsu": True, "last_wall_tile": True}, "ippatsu with last_wall_tile by ron"),
    ({"concealed": "234m456p678s23s44z", "win_tile": "1s", "melds": [], "riichi": "double",
      "ippatsu": True, "last_wall_tile": True}, "after a double riichi"),
    # an ura indicator lies under each dora indicator
    ({"concealed": "234m456p678s23s44z", "win_tile": "1s", "melds": [], "riichi": "riichi",
      "dora_indicators": "1m", "ura_dora_indicators": "1p3m"}, "2 ura dora indicators but 1 dora indicator"),
    ({"riichi_sticks": 10 ** 9}, "riichi_sticks must be 0..99"),
])
def test_impossible_hands_are_named(change, message):
    r = req(**change)
    with pytest.raises(HandError, match=message):
        validate(r)


def test_flag_combinations_on_a_kan_hand():
    kan = {"concealed": "234m456p8s", "win_tile": "8s",
           "melds": [{"type": "ankan", "tiles": "7777z"}, {"type": "pon", "tiles": "111z"}]}
    with pytest.raises(HandError, match="not a ron"):
        validate(req(**kan, win="ron", replacement_tile=True))
    with pytest.raises(HandError, match="cannot go together"):
        validate(req(**kan, replacement_tile=True, last_wall_tile=True))
    with pytest.raises(HandError, match="not a tsumo"):
        validate(req(concealed="234m456p67s99s", win_tile="8s", robbing_kong=True))
    validate(req(**kan, replacement_tile=True))


def test_tenhou_needs_a_dealer_tsumo_without_calls():
    closed = {"concealed": "234m456p678s111z8s", "melds": [], "win_tile": "8s"}
    validate(req(**closed, tenhou=True))
    with pytest.raises(HandError, match="not a ron"):
        validate(req(**closed, tenhou=True, win="ron"))
    with pytest.raises(HandError, match="before any riichi"):
        validate(req(**closed, tenhou=True, riichi="riichi"))


def test_mcr_rejects_riichi_fields():
    with pytest.raises(HandError, match="riichi field"):
        validate(req(ruleset="mcr", dora_indicators="1m"))


def test_meld_properties():
    assert not Meld("ankan", tuple(parse_tiles("1111m"))).is_open
    assert Meld("kakan", tuple(parse_tiles("1111m"))).is_kan
    assert Meld("chi", tuple(parse_tiles("213m"))).kind == 0


def test_text_hand_last_tile_wins():
    concealed, melds, win = parse_text_hand("234m456p678s8s8s +pon 777z +kan 1111m")
    assert win == parse_tile("8s") and len(concealed) == 10
    assert [m.type for m in melds] == ["pon", "daiminkan"]
    with pytest.raises(HandError, match="without its winning tile"):
        parse_text_hand("234m456p678s8s +pon 777z")
    with pytest.raises(HandError, match=r"\+chi, \+pon"):
        parse_text_hand("234m456p678s8s8s +pong 777z")
    concealed, _, win = parse_text_hand("234m456p678s8s +pon 777z", win_tile="8s")
    assert len(concealed) == 10


def test_request_is_a_plain_value():
    r = HandRequest(concealed=tuple(parse_tiles("123456789m1122z")), win_tile=parse_tile("2z"), win="ron")
    assert r.ruleset == "riichi" and r.seat_wind == "E" and r.rules == RiichiRules()
    validate(r)


def test_four_plain_fives_are_a_set_without_red_fives():
    """With ``rules.aka`` off the set may have no red five: 5555p is then four plain tiles."""
    validate(req(concealed="234m345555p8s", win_tile="8s", rules={"aka": False}))
    validate(req(concealed="234m345550p8s", win_tile="8s"))       # one of the four is red
    validate(req(honba=99, riichi_sticks=99, dora_indicators="7z"))  # the limits themselves


def test_ippatsu_on_the_last_tile_by_tsumo_is_possible():
    # riichi with exactly 4 tiles left: the riichi player draws the last one (haitei) within
    # the go-around
    r = req(concealed="234m456p678s23s44z", win_tile="1s", melds=[], riichi="riichi", ippatsu=True,
            last_wall_tile=True)
    validate(r)
