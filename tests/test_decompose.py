"""Readings of complete hands and waits (scoring/decompose.py).

Hand shapes from the standard rules (four sets + pair, seven *different* pairs, thirteen
orphans); the wait names are the riichi terms (ryanmen, kanchan, penchan, shanpon, tanki).
"""
from scoring.decompose import (RUN, TRIPLET, decompose_sets, is_complete, meld_groups,
                               readings, waits)
from scoring.hand import Meld
from scoring.tiles import counts34, kind_of, parse_tiles


def c(text):
    return counts34(parse_tiles(text))


def test_ryanpeikou_shape_reads_as_sets_and_as_seven_pairs():
    # 22334455667788p: three ways as four runs + pair, and seven different pairs
    rs = readings(c("22334455667788p"), (), kind_of("8p"))
    forms = sorted({r.form for r in rs})
    assert forms == ["seven_pairs", "standard"]
    assert len(decompose_sets(c("22334455667788p"))) == 3


def test_seven_pairs_need_seven_different_kinds():
    # four of a kind is not two pairs (standard rules; the classic edge case)
    assert readings(c("1111m2233p4455s66z"), (), 0) == []
    assert not is_complete(c("1111m2233p4455s66z"))
    assert [r.form for r in readings(c("1199m2233p4455s66z"), (), 0)] == ["seven_pairs"]


def test_nine_gates_shape_win_on_5m_vs_4m():
    # 11123455678999m: winning on 5m the 5m is the pair (tanki); on 4m it ends 234 (ryanmen)
    hand = c("11123455678999m")
    on5 = readings(hand, (), kind_of("5m"))
    on4 = readings(hand, (), kind_of("4m"))
    assert {r.wait for r in on5} == {"tanki"}
    assert {r.wait for r in on4} == {"ryanmen"}


def test_win_positions_give_all_waits():
    # 123m 345m ... win 3m: penchan (12+3) or ryanmen (45+3)
    rs = readings(c("123345m456p789s11z"), (), kind_of("3m"))
    assert sorted(r.wait for r in rs) == ["penchan", "ryanmen"]
    # 111m + 11p... shanpon vs the run 123m holding the 1m
    rs = readings(c("111123m456p789s22z"), (), kind_of("1m"))
    assert sorted(r.wait for r in rs) == ["ryanmen", "shanpon"]


def test_melds_are_fixed_sets():
    melds = (Meld("pon", tuple(parse_tiles("777z"))), Meld("ankan", tuple(parse_tiles("1111p"))))
    groups = meld_groups(melds)
    assert [(g.shape, g.kind, g.concealed) for g in groups] == [("triplet", 33, False), ("kan", 9, True)]
    rs = readings(c("234m678s88s"), groups, kind_of("8s"))
    # 8s completes the pair (tanki) or the run 678s (ryanmen)
    assert sorted(r.wait for r in rs) == ["ryanmen", "tanki"] and rs[0].sets[-2:] == groups
    assert [g.shape for g in rs[0].sets[:2]] == [RUN, RUN]


def test_thirteen_orphans_waits():
    rs = readings(c("19m19p19s12345677z"), (), kind_of("7z"))
    assert rs[0].form == "thirteen_orphans" and rs[0].wait == "thirteen-sided"
    rs = readings(c("19m19p19s12345677z"), (), kind_of("1m"))
    assert rs[0].wait == "tanki"
    # 13 different: waits on all 13 terminal/honour kinds
    assert len(waits(parse_tiles("19m19p19s1234567z"))) == 13


def test_pure_nine_gates_waits_on_nine_kinds():
    assert waits(parse_tiles("1112345678999m")) == list(range(9))


def test_waits_exclude_a_fifth_copy():
    # 1111m + 23m...: 1m would complete 123m but all four 1m are in the hand
    assert kind_of("1m") not in waits(parse_tiles("1111m23m456p789s1z"))
    # 111m + 123m leave the lone 1z: a tanki wait
    assert waits(parse_tiles("1111m23m456p789s1z")) == [kind_of("1z")]
    # 1m: 111m 123m + 11z pair; 4m: 111m 234m + 11z; 1z: 11m pair 123m + 111z
    assert waits(parse_tiles("111m23m456p789s11z")) == [kind_of("1m"), kind_of("4m"), kind_of("1z")]


def test_waits_count_meld_tiles():
    melds = (Meld("pon", tuple(parse_tiles("555m"))),)
    # 46m waits on 5m (kanchan) but the pon already holds three and the hand one more
    assert waits(parse_tiles("546m456p789s1z"), melds) == [kind_of("1z")]
    # three 5m in the pon: the fourth can still be drawn
    assert waits(parse_tiles("46m456p789s11z"), melds) == [kind_of("5m")]


def test_decompose_sets_values():
    assert decompose_sets(c("111222333m55p")) == [
        (13, (("run", 0), ("run", 0), ("run", 0))), (13, (("triplet", 0), ("triplet", 1), ("triplet", 2)))
    ] or sorted(decompose_sets(c("111222333m55p"))) == sorted([
        (13, ((RUN, 0), (RUN, 0), (RUN, 0))), (13, ((TRIPLET, 0), (TRIPLET, 1), (TRIPLET, 2)))])
    assert decompose_sets(c("123m")) == []
