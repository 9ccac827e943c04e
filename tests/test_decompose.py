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


# ---------------------------------------------------------------- the per-suit split table

def _search(counts, honours):
    """Reference: every split of one suit's counts by recursive search (the table's oracle)."""
    total = sum(counts)
    if total % 3 == 1:
        return ()
    need_pair = total % 3 == 2
    found = set()
    c = list(counts)
    n = len(c)

    def rec(i, pair, sets):
        while i < n and c[i] == 0:
            i += 1
        if i == n:
            if (pair >= 0) == need_pair:
                found.add((pair, tuple(sorted(sets))))
            return
        if pair < 0 and need_pair and c[i] >= 2:
            c[i] -= 2
            rec(i, i, sets)
            c[i] += 2
        if c[i] >= 3:
            c[i] -= 3
            rec(i, pair, sets + [(TRIPLET, i)])
            c[i] += 3
        if not honours and i + 2 < n and c[i + 1] and c[i + 2]:
            for j in (i, i + 1, i + 2):
                c[j] -= 1
            rec(i, pair, sets + [(RUN, i)])
            for j in (i, i + 1, i + 2):
                c[j] += 1

    rec(0, -1, [])
    return tuple(sorted(found))


def _table(honours):
    import scoring.decompose as d
    d._suit_decompositions(bytes(7 if honours else 9), honours)     # built on first use
    return d._SPLIT_TABLES[honours]


def test_split_table_on_hand_written_suits():
    from scoring.decompose import _suit_decompositions as splits
    assert splits(bytes((1, 1, 1, 1, 1, 1, 1, 1, 1)), False) == ((-1, ((RUN, 0), (RUN, 3), (RUN, 6))),)
    assert splits(bytes((3, 3, 3, 0, 0, 0, 0, 0, 0)), False) == (
        (-1, ((RUN, 0), (RUN, 0), (RUN, 0))), (-1, ((TRIPLET, 0), (TRIPLET, 1), (TRIPLET, 2))))
    # 11123455678999 (nine gates + 5): the 5 pair, or 55 from 345 567 ... one way each
    assert splits(bytes((3, 1, 1, 1, 2, 1, 1, 1, 3)), False) == (
        (4, ((RUN, 1), (RUN, 5), (TRIPLET, 0), (TRIPLET, 8))),)
    assert splits(bytes((1, 1, 0, 0, 0, 0, 0, 0, 0)), False) == ()        # two tiles, no pair
    assert splits(bytes((1, 1, 0, 0, 0, 0, 0)), True) == ()               # honours: no runs
    assert splits(bytes((3, 2, 0, 0, 0, 0, 0)), True) == ((1, ((TRIPLET, 0),)),)
    assert splits(bytes((2, 1, 1, 1, 1, 1, 1, 2, 4)), False) == ()        # 14 tiles, no split


def test_split_table_equals_a_search_on_every_pattern_it_holds():
    for honours in (False, True):
        table = _table(honours)
        assert len(table) == (498 if honours else 21_743)
        for key, value in table.items():
            assert value == _search(tuple(key), honours), key


def test_patterns_missing_from_the_split_table_do_not_split():
    import random
    rng = random.Random("split-table")
    for honours in (False, True):
        table = _table(honours)
        n = 7 if honours else 9
        for _ in range(3000):
            counts = [0] * n
            for _ in range(rng.randrange(15)):      # up to 14 tiles, at most 4 of a kind
                k = rng.randrange(n)
                if counts[k] < 4:
                    counts[k] += 1
            if bytes(counts) not in table:
                assert _search(tuple(counts), honours) == (), counts
