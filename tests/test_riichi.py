"""Riichi valuation from worked examples (scoring/riichi).

Sources: the standard riichi rules as taught in the seed rules text and published in the
JPML / WRC / Tenhou rule books (seven pairs 25 fu, pinfu tsumo 20 fu, closed ron +10, open
no-fu hand 30 fu, base points = fu x 2^(2+han), payments rounded up to 100) and the standard
scoring table (e.g. 3 han 30 fu: 3900 ron / 1000-2000 tsumo; dealer 5800).
"""
import pytest

from scoring.api import score_hand
from scoring.hand import HandRequest, RiichiRules
from scoring.request import parse_text_hand
from scoring.riichi.limits import base_points, payment
from scoring.tiles import parse_tiles


def score(text, rules=None, **kw):
    concealed, melds, win = parse_text_hand(text)
    kw.setdefault("win", "ron")
    kw.setdefault("seat_wind", "S")
    kw.setdefault("round_wind", "E")
    for key in ("dora_indicators", "ura_dora_indicators"):
        if key in kw:
            kw[key] = tuple(parse_tiles(kw[key]))
    req = HandRequest(concealed=concealed, melds=melds, win_tile=win, rules=rules or RiichiRules(), **kw)
    result = score_hand(req)
    out = result.to_json()
    assert out["error"] is None, out["error"]
    return out


def names(out):
    return [y["name"] for y in out["yaku"]]


def test_seven_pairs_25_fu():
    out = score("1199m2233p4455s66z")
    assert names(out) == ["chiitoitsu"] and out["fu"] == 25 and out["han"] == 2
    assert out["fu_breakdown"] == [{"reason": "seven pairs", "fu": 25}]
    assert out["payment"] == {"total": 1600, "from_discarder": 1600}    # 25 x 2^4 x 4


def test_pinfu_tsumo_20_fu():
    # riichi + menzen tsumo + pinfu, 3 han 20 fu: dealer pays 1300, others 700
    out = score("234789m12345666p", win="tsumo", riichi="riichi")
    assert sorted(names(out)) == ["menzen tsumo", "pinfu", "riichi"]
    assert (out["han"], out["fu"]) == (3, 20)
    assert out["payment"] == {"total": 2700, "from_dealer": 1300, "from_non_dealer": 700}


def test_closed_pinfu_ron_30_fu():
    out = score("234789m12345666p", riichi="riichi")
    assert (out["han"], out["fu"]) == (2, 30)
    assert out["fu_breakdown"] == [{"reason": "base", "fu": 20}, {"reason": "closed ron", "fu": 10}]
    assert out["payment"]["from_discarder"] == 2000                     # 1920 rounded up


def test_open_no_fu_hand_counts_30():
    out = score("23m456p55s4m +chi 678s +chi 345m")
    assert names(out) == ["tanyao"] and (out["han"], out["fu"]) == (1, 30)
    assert out["payment"]["from_discarder"] == 1000


def test_open_tanyao_rule_option():
    out = score("23m456p55s4m +chi 678s +chi 345m", rules=RiichiRules(open_tanyao=False))
    assert out["valid"] is False and "no yaku" in out["reason"] and out["payment"] is None


def test_spec_example_dealer_tsumo():
    # docs/hand-json.md: 1 han 30 fu, dealer tsumo, 500 from each
    out = score("234m456p678s8s8s +pon 777z", win="tsumo", seat_wind="E")
    assert names(out) == ["yakuhai (chun)"] and (out["han"], out["fu"]) == (1, 30)
    assert out["payment"] == {"total": 1500, "from_each": 500}


def test_ryanpeikou_beats_seven_pairs():
    # 22334455667788p: ryanpeikou 3 + pinfu 1 + tanyao 1 + chinitsu 6 = 11 (sanbaiman) beats
    # chiitoitsu 2 + tanyao 1 + chinitsu 6 = 9
    out = score("22334455667788p")
    assert "ryanpeikou" in names(out) and "chiitoitsu" not in names(out) and "iipeikou" not in names(out)
    assert out["han"] == 11 and out["limit"] == "sanbaiman"
    assert out["payment"]["from_discarder"] == 24000


def test_nine_gates_on_5m_is_pure_on_4m_is_not():
    # 11123455678999m: before a 5m win the hand was 1112345678999m (nine-sided): pure
    on5 = score("1112345678999m5m")
    on4 = score("1112355678999m4m")
    assert names(on5) == ["chuuren poutou (pure)"] and on5["han"] == 13
    assert names(on4) == ["chuuren poutou"] and on4["han"] == 13
    double = score("1112345678999m5m", rules=RiichiRules(double_yakuman=True))
    assert double["han"] == 26 and double["payment"]["from_discarder"] == 64000


def test_ron_completed_triplet_counts_open():
    # shanpon 88s/99s won on 9s: by ron the 999s is open (4 fu, no sanankou); by tsumo closed
    ron = score("222m678m555p88s99s9s", riichi="riichi")
    assert names(ron) == ["riichi"] and ron["fu"] == 50
    assert {"reason": "open pon of terminals (completed by ron)", "fu": 4} in ron["fu_breakdown"]
    tsumo = score("222m678m555p88s99s9s", riichi="riichi", win="tsumo")
    assert sorted(names(tsumo)) == ["menzen tsumo", "riichi", "sanankou"]
    assert tsumo["fu"] == 40 and tsumo["limit"] == "mangan"            # 4 han 40 fu
    assert tsumo["payment"] == {"total": 8000, "from_dealer": 4000, "from_non_dealer": 2000}


def test_sanshoku_doukou_with_a_kan():
    # 222m 222p + closed kan 2222s: sanshoku doukou 2 + sanankou 2; fu 20+10+4+4+16 = 54 -> 60
    out = score("222m222p34s99p5s +ankan 2222s")
    assert sorted(names(out)) == ["sanankou", "sanshoku doukou"]
    assert (out["han"], out["fu"], out["limit"]) == (4, 60, "mangan")


def test_double_wind_counts_twice_and_pair_fu_option():
    out = score("111z234m456p789s5s5s", seat_wind="E", round_wind="E")
    assert names(out).count("yakuhai (seat wind)") == 1 and "yakuhai (round wind)" in names(out)
    # pair of the double wind: 4 fu by default, 2 by option (dealer tsumo, kanchan)
    four = score("24m456p11z3m +chi 678s +pon 777z", seat_wind="E", round_wind="E", win="tsumo")
    assert four["fu"] == 40 and four["payment"]["from_each"] == 700
    two = score("24m456p11z3m +chi 678s +pon 777z", seat_wind="E", round_wind="E", win="tsumo",
                rules=RiichiRules(double_wind_pair_fu=2))
    assert two["fu"] == 30 and two["payment"]["from_each"] == 500


def test_no_yaku_is_not_valid_even_with_dora():
    out = score("123m456p789s13s99m2s", dora_indicators="8m")
    assert out["valid"] is False and "no yaku" in out["reason"] and out["payment"] is None


def test_dora_aka_ura():
    # indicator 9p -> dora 1p (one); red fives 0m 0s (two, aka rule); ura 4s -> 5s (the 0s)
    hand = "123p406m789s340s1z1z"
    out = score(hand, riichi="riichi", dora_indicators="9p", ura_dora_indicators="4s")
    assert out["dora"] == {"dora": 1, "aka": 2, "ura": 1}
    assert names(out) == ["riichi"] and out["han"] == 5 and out["limit"] == "mangan"
    no_aka = score(hand, riichi="riichi", dora_indicators="9p", rules=RiichiRules(aka=False))
    assert no_aka["dora"]["aka"] == 0 and no_aka["han"] == 2
    # ura dora count only with riichi
    no_riichi = score(hand, win="tsumo", dora_indicators="9p", ura_dora_indicators="4s")
    assert no_riichi["dora"] == {"dora": 1, "aka": 2, "ura": 0}


def test_honba_and_riichi_sticks():
    # 1 han 30 fu non-dealer ron 1000, +300 per honba, +1000 per stick
    out = score("23m456p55s4m +chi 678s +chi 345m", honba=2, riichi_sticks=1)
    assert out["payment"] == {"total": 2600, "from_discarder": 1600}
    tsumo = score("23m456p55s4m +chi 678s +chi 345m", win="tsumo", honba=1)
    # 1 han 30 fu tsumo: 300 / 500, +100 each per honba
    assert tsumo["payment"] == {"total": 1400, "from_dealer": 600, "from_non_dealer": 400}


def test_kuisagari_open_values():
    closed = {y["name"]: y["han"] for y in score("123456789m22z777z")["yaku"]}
    assert closed == {"honitsu": 3, "ittsu": 2, "yakuhai (chun)": 1}
    opened = {y["name"]: y["han"] for y in score("456789m22z +chi 123m +pon 777z")["yaku"]}
    assert opened == {"honitsu": 2, "ittsu": 1, "yakuhai (chun)": 1}


def test_kokushi_thirteen_sided_double_option():
    single = score("19m19p19s12345677z")
    assert names(single) == ["kokushi musou (13-sided)"] and single["han"] == 13
    double = score("19m19p19s12345677z", rules=RiichiRules(double_yakuman=True))
    assert double["han"] == 26 and double["limit"] == "double yakuman"
    assert double["payment"]["from_discarder"] == 64000


def test_suuankou_tanki_and_ron_shanpon_is_not_suuankou():
    tanki = score("111m333p555s777z9s9s")
    assert names(tanki) == ["suuankou (tanki)"]
    shanpon = score("111m333p555s99s77z7z")
    assert "suuankou" not in names(shanpon) and "sanankou" in names(shanpon)
    assert names(score("111m333p555s99s77z7z", win="tsumo")) == ["suuankou"]


def test_yakuman_ignore_dora():
    out = score("19m19p19s12345677z", dora_indicators="6z")
    assert out["dora"] == {"dora": 0, "aka": 0, "ura": 0} and out["han"] == 13


@pytest.mark.parametrize("han,fu,ron,dealer_ron,tsumo", [
    (1, 30, 1000, 1500, (500, 300)),
    (2, 25, 1600, 2400, None),
    (3, 30, 3900, 5800, (2000, 1000)),
    (4, 30, 7700, 11600, (3900, 2000)),
    (4, 40, 8000, 12000, (4000, 2000)),     # mangan: base 2560 capped at 2000
    (3, 70, 8000, 12000, (4000, 2000)),
    (6, 30, 12000, 18000, (6000, 3000)),
    (8, 30, 16000, 24000, (8000, 4000)),
    (11, 30, 24000, 36000, (12000, 6000)),
])
def test_scoring_table(han, fu, ron, dealer_ron, tsumo):
    rules = RiichiRules()
    base, _ = base_points(han, fu, rules)
    assert payment(base, False, False).from_discarder == ron
    assert payment(base, True, False).from_discarder == dealer_ron
    if tsumo:
        p = payment(base, False, True)
        assert (p.from_dealer, p.from_non_dealer) == tsumo


def test_limits_and_options():
    r = RiichiRules()
    assert base_points(4, 30, RiichiRules(kiriage=True)) == (2000, "mangan")
    assert base_points(3, 60, RiichiRules(kiriage=True)) == (2000, "mangan")
    assert base_points(4, 30, r) == (1920, None)
    assert base_points(13, 30, r) == (8000, "kazoe yakuman")
    assert base_points(14, 30, RiichiRules(kazoe="sanbaiman")) == (6000, "sanbaiman")
    assert base_points(26, 30, RiichiRules(kazoe="none")) == (16000, "kazoe double yakuman")
    assert base_points(13, 30, r, yakuman=2) == (16000, "double yakuman")
    assert payment(8000, True, True).from_each == 16000


def test_win_events():
    out = score("234789m12345666p", win="tsumo", last_wall_tile=True)
    assert "haitei" in names(out)
    out = score("234789m12345666p", last_wall_tile=True)
    assert "houtei" in names(out)
    out = score("234m79m123456p66p8m", robbing_kong=True)
    assert "chankan" in names(out)
    out = score("234m456p789s1z1z +ankan 2222s", win="tsumo", replacement_tile=True)
    assert "rinshan kaihou" in names(out)
    out = score("234789m12345666p", win="tsumo", seat_wind="E", tenhou=True)
    assert names(out) == ["tenhou"]
