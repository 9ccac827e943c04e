"""Xiangqi knockout: seed 002, section 七 (二) 象棋比赛规则 and sections 六, 九; each test names
its line."""
import pytest

from scoring.tournament.xiangqi import (Result, XiangqiError, draw_bracket, run_knockout)

EIGHT = ["A", "B", "C", "D", "E", "F", "G", "H"]


def win(a, b, winner=None):
    return Result((a, b), winner=winner or a)


# 六: 比赛以抽签决定比赛顺序
def test_bracket_drawn_by_lots_is_reproducible():
    assert draw_bracket(EIGHT, 1) == draw_bracket(EIGHT, 1)
    assert draw_bracket(EIGHT, 1) == (("D", "G"), ("B", "F"), ("H", "A"), ("E", "C"))
    assert draw_bracket(EIGHT, 2) != draw_bracket(EIGHT, 1)
    assert sorted(p for pair in draw_bracket(EIGHT, 2) for p in pair) == EIGHT


# (3) 抽号轮空选手直接晋级
def test_byes_advance():
    bracket = draw_bracket(list("ABCDE"), 7)
    assert bracket == (("E", None), ("A", None), ("D", None), ("B", "C"))   # 8 places, 3 byes
    k = run_knockout(list("ABCDE"), 7, [])
    assert [m.winner for m in k.rounds[0]] == ["E", "A", "D", None]
    assert "(3) 抽号轮空选手直接晋级" in k.rounds[0][0].how
    assert [m.players for m in k.pending] == [("B", "C")]


# (1) 比赛采用每轮淘汰制，一局定胜负 ; 九: 比赛设一、二、三等奖各一名
def test_one_game_decides_each_round_to_places_1_to_3():
    results = [win("D", "G"), win("B", "F"), win("H", "A", "A"), win("E", "C"),   # round 1
               win("D", "B"), win("A", "E")]                                       # semis
    k = run_knockout(EIGHT, 1, results)
    assert [m.stage for m in k.rounds[1]] == ["semi-final", "semi-final", "third place"]
    assert {m.players for m in k.pending} == {("D", "A"), ("B", "E")}
    k = run_knockout(EIGHT, 1, results + [win("D", "A", "A"), win("B", "E", "E")])
    assert k.finished and k.places == {1: "A", 2: "D", 3: "E"}


def test_a_drawn_game_cannot_stand():
    with pytest.raises(XiangqiError, match="一局定胜负"):
        run_knockout(EIGHT, 1, [Result(("D", "G"))])


# (2) 比赛开始10分钟未进场的选手作弃权处理，对手直接晋级
def test_not_seated_10_minutes_after_the_start_forfeits():
    k = run_knockout(EIGHT, 1, [Result(("D", "G"), forfeit="D", reason="late", minutes=11)])
    m = k.rounds[0][0]
    assert (m.winner, m.loser) == ("G", "D") and "(2)" in m.how
    with pytest.raises(XiangqiError, match="10 minutes late"):
        run_knockout(EIGHT, 1, [Result(("D", "G"), forfeit="D", reason="late", minutes=10)])


# (4) 每局比赛限时30分钟，超时开始读秒，每15秒一步，超时两次除去比赛资格，对手直接晋级
def test_two_time_violations_forfeit():
    k = run_knockout(EIGHT, 1, [Result(("B", "F"), forfeit="F", reason="time", violations=2)])
    assert k.rounds[0][1].winner == "B" and "超时两次" in k.rounds[0][1].how
    with pytest.raises(XiangqiError, match="over time 1 time"):
        run_knockout(EIGHT, 1, [Result(("B", "F"), forfeit="F", reason="time", violations=1)])


# (5) 比赛过程中未经对方允许不许悔棋，悔棋者直接淘汰
def test_take_back_without_consent_is_out():
    k = run_knockout(EIGHT, 1, [Result(("H", "A"), forfeit="H", reason="takeback")])
    assert k.rounds[0][2].winner == "A" and "悔棋者直接淘汰" in k.rounds[0][2].how
    with pytest.raises(XiangqiError, match="consent"):
        run_knockout(EIGHT, 1, [Result(("H", "A"), forfeit="H", reason="takeback",
                                       consent=True)])


def test_three_players_third_is_the_semi_final_loser():
    assert draw_bracket(["A", "B", "C"], 3) == (("B", None), ("C", "A"))
    k = run_knockout(["A", "B", "C"], 3, [win("C", "A"), win("B", "C")])
    assert k.finished and k.places == {1: "B", 2: "C", 3: "A"}


@pytest.mark.parametrize("players, results, message", [
    (EIGHT, [win("D", "B")], "no game D v B is due"),
    (EIGHT, [win("D", "G", "X")], "not in this game"),
    (EIGHT, [Result(("D", "G"), winner="D", forfeit="G", reason="late", minutes=20)], "not both"),
    (EIGHT, [Result(("D", "G"), forfeit="G", reason="rude")], "late, time or takeback"),
    (["A"], [], "at least 2"),
    (["A", "A", "B"], [], "named twice"),
    ("ABCD", [], "list of names"),
])
def test_bad_records_are_refused(players, results, message):
    with pytest.raises(XiangqiError, match=message):
        run_knockout(players, 1, results)
