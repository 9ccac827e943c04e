"""scoring.api: score_hand / score_json (result shape of docs/hand-json.md)."""

import pytest

from scoring.api import ErrorResult, score_hand, score_json
from scoring.hand import HandError, check
from scoring.request import parse_request
from scoring.riichi import score_riichi

SPEC = {"ruleset": "riichi", "concealed": "234m456p678s8s",
        "melds": [{"type": "pon", "tiles": "777z", "from": "across"}],
        "win_tile": "8s", "win": "tsumo", "seat_wind": "E", "round_wind": "E"}


@pytest.mark.parametrize("junk", [None, [], "hand", 3, {"ruleset": "riichi"},
                                  {**SPEC, "melds": ["777z"]}, {**SPEC, "concealed": 234},
                                  {**SPEC, "rules": {"kazoe": "maybe"}}])
def test_score_json_never_raises(junk):
    out = score_json(junk)
    assert out["valid"] is False and isinstance(out["error"], str) and out["error"]


def test_result_keys_follow_the_spec():
    out = score_json(SPEC)
    assert list(out) == ["valid", "han", "fu", "limit", "yaku", "dora", "fu_breakdown", "payment", "error"]
    ron = score_json({**SPEC, "win": "ron", "seat_wind": "S"})
    assert set(ron["payment"]) == {"total", "from_discarder"}
    tsumo = score_json({**SPEC, "seat_wind": "S"})
    assert set(tsumo["payment"]) == {"total", "from_dealer", "from_non_dealer"}


def test_no_yaku_result_has_a_reason():
    out = score_json({"ruleset": "riichi", "concealed": "123m456p789s13s99m", "win_tile": "2s", "win": "ron"})
    assert out["valid"] is False and out["error"] is None and "no yaku" in out["reason"]


def test_score_hand_returns_error_results_not_exceptions():
    req = parse_request({**SPEC, "win_tile": "9s"})
    res = score_hand(req)
    assert isinstance(res, ErrorResult) and "not a complete hand" in res.error


def test_score_riichi_alone_checks_the_request():
    req = parse_request({**SPEC, "riichi": "riichi"})       # riichi on an open hand
    with pytest.raises(HandError, match="open hand"):
        score_riichi(req)
    good = parse_request(SPEC)
    assert score_riichi(good, check(good)).han == 1


def test_a_library_caller_may_write_tiles_as_mpsz_text():
    # a string where a tuple of Tile goes was counted character by character ("wrong tile
    # count: 14") or raised AttributeError; it is parsed now, and a bad code is named.
    # 234m 456p 678s 8s8s + pon 777z, East (dealer) ron: yakuhai 1 han, 30 fu: 1500 (seed 001)
    from scoring.api import score_hand
    from scoring.hand import HandError, HandRequest, Meld
    from scoring.verdict import check

    req = HandRequest(concealed="234m456p678s8s", win_tile="8s", win="ron",
                      melds=[Meld("pon", "777z")], dora_indicators="1p")
    res = score_hand(req)
    assert res.valid and res.han == 1 and res.fu == 30 and res.payment.total == 1500
    assert check(req, discards="8s").ruling == "chombo: furiten ron"
    with pytest.raises(HandError, match="concealed: unknown tile code 'x'"):
        HandRequest(concealed="234m456p678s8x", win_tile="8s", win="ron")
    with pytest.raises(HandError, match="win_tile must be a tile"):
        HandRequest(concealed="234m456p678s8s", win_tile=5, win="ron")


@pytest.mark.parametrize("key, rules", [("honba", False), ("riichi_sticks", False),
                                        ("flowers", False), ("double_wind_pair_fu", True)])
def test_every_count_is_a_json_integer(key, rules):
    # one rule for numbers (docs/hand-json.md): 2.0 is refused as 1.0 always was for honba
    req = {**SPEC, "rules": {key: 2.0}} if rules else {**SPEC, key: 2.0}
    out = score_json(req)
    assert out["error"] and "valid integer (got 2.0)" in out["error"] and key in out["error"]
    ok = {**SPEC, "rules": {key: 2}} if rules else {**SPEC, key: 2 if key != "flowers" else 0}
    assert score_json(ok)["error"] is None


def test_errors_do_not_repeat_a_huge_request():
    # a meld of 500,000 tiles, 100,000 unknown keys: the message names the problem briefly
    meld = score_json({**SPEC, "melds": [{"type": "pon", "tiles": "7z" * 500_000}]})["error"]
    assert len(meld) < 200 and "500,000 tiles" in meld and "a pon has 3 tiles" in meld
    keys = score_json({**SPEC, **{f"k{i}": 1 for i in range(100_000)}})["error"]
    assert len(keys) < 200 and "unknown key 'k0'" in keys and "99,997 more" in keys


def test_score_hand_takes_a_request_dict_and_refuses_other_types():
    """Issue 34: ``score_hand({...})`` died with AttributeError deep in scoring/hand.py.
    123m 456p 789s 22z 55z + 5z by ron, the dealer (seat and round East by default): haku
    1 han; fu 20 + 10 (closed ron) + 4 (555z completed by ron counts as open) = 34 -> 40;
    dealer ron 40 x 2^(2+1) x 6 = 1920 -> 2000."""
    import pytest

    import scoring

    res = scoring.score_hand({"ruleset": "riichi", "concealed": "123m456p789s2255z",
                              "win_tile": "5z", "win": "ron"})
    assert (res.han, res.fu, res.to_json()["payment"]["total"]) == (1, 40, 2000)
    assert "missing key 'win'" in scoring.score_hand({"ruleset": "riichi", "concealed": "12m"}).error
    with pytest.raises(TypeError, match="HandRequest or a request dict"):
        scoring.score_hand("123m456p789s2255z")
