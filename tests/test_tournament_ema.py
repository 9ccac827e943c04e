"""MCR/EMA table bookkeeping: seed 000 (EMA MCR tournament rules) as quoted in issue 7."""
from fractions import Fraction

import pytest

from scoring.tournament.ema import (Disqualified, Late, Penalty, Replaced, Seat, Substitute,
                                    TableError, escalated_penalty, lateness_penalty,
                                    score_table, shared_table_points, tournament_table_points)

F = Fraction


def seats(*scores, names="ABCD"):
    return [Seat(n, s) for n, s in zip(names, scores)]


def points(result):
    return {r.name: r.table_points for r in result.seats}


def places(result):
    return {r.name: r.place for r in result.seats}


# --- table points 4/2/1/0, shared on ties (seed 000 table points) --------------------------

def test_distinct_scores_get_4_2_1_0():
    r = score_table(seats(40, -30, 10, -20))
    assert points(r) == {"A": 4, "B": 0, "C": 2, "D": 1}
    assert places(r) == {"A": 1, "B": 4, "C": 2, "D": 3}


def test_two_tied_for_second_share_2_plus_1_over_2():
    r = score_table(seats(30, -5, -5, -20))
    assert points(r) == {"A": 4, "B": F(3, 2), "C": F(3, 2), "D": 0}  # (2+1)/2 = 1.5
    assert [x.tied for x in r.seats] == [False, True, True, False]


@pytest.mark.parametrize("scores, expected", [
    ((10, 10, -10, -10), [3, 3, F(1, 2), F(1, 2)]),       # (4+2)/2, (1+0)/2
    ((30, -10, -10, -10), [4, 1, 1, 1]),                  # (2+1+0)/3
    ((5, 5, 5, -15), [F(7, 3)] * 3 + [0]),                # (4+2+1)/3
    ((0, 0, 0, 0), [F(7, 4)] * 4),                        # (4+2+1+0)/4
])
def test_tie_groups_share_the_points_of_the_places_they_cover(scores, expected):
    assert [p for _, _, p in shared_table_points(scores)] == expected


# --- §4 substitutes, replacement, disqualification ----------------------------------------

def test_substitute_before_session_wins_table_points_seed000_s4():
    r = score_table(seats(25, 5, -10, -20, names=["Sub", "B", "C", "D"]),
                    [Substitute("Sub", replaces="Eve")])
    assert points(r)["Sub"] == 4
    assert "substitute for Eve" in r.seats[0].reasons[0]


def test_player_replaced_during_session_gets_0_others_4_2_1_seed000_s4():
    # A led the table when taken ill; the substitute's play still counts in A's seat score
    r = score_table(seats(50, -10, -15, -25), [Replaced("A", "illness")])
    assert points(r) == {"A": 0, "B": 4, "C": 2, "D": 1}
    assert places(r) == {"A": None, "B": 1, "C": 2, "D": 3}


def test_disqualified_player_gets_0_others_4_2_1_seed000_s4():
    r = score_table(seats(-10, 30, -20, 0), [Disqualified("D", "session", "abuse")])
    assert points(r) == {"A": 2, "B": 4, "C": 1, "D": 0}
    assert not r.seats[3].disqualified_from_tournament


def test_a_disqualification_is_for_the_whole_tournament_unless_scoped_seed000_s4():
    # issue 7 quoting §4: "a disqualified player gets 0 for the whole tournament"
    r = score_table(seats(-10, 30, -20, 0), [Disqualified("D")])
    assert points(r)["D"] == 0 and r.seats[3].disqualified_from_tournament


@pytest.mark.parametrize("record, message", [
    ((seats(10, 8, -5, -13), [Penalty("A", "delay"), Penalty("A", "delay")]),
     "penalty kind must be infraction or delay_of_game, got 'delay'"),
    ((seats(10, 8, -5, -13), [Disqualified("A", "tourney")]), "scope must be tournament or session"),
    ((seats(10, 8, -5, -13), [Late("A", float("nan"))]), "must be a number of minutes, got nan"),
    ((seats(10, 8, -5, -13), [Late("A", "7")]), "must be a number of minutes, got '7'"),
    ((seats(10, 8, -5, -13, names=["A ", "B", "C", "D"]), []), "'A ' has spaces around it"),
    ((seats("10", 8, -5, -13), []), "must be a whole number of MCR points, got '10'"),
    ((seats(10, 8, -5, -13), [Penalty("A", "delay_of_game")], {"A": "3"}), "must be a whole number, got '3'"),
])
def test_a_mistyped_record_is_refused_not_scored_as_another_rule(record, message):
    with pytest.raises(TableError, match=message):
        score_table(*record)


def test_tied_among_the_remaining_three_share_4_and_2_seed000_s4():
    r = score_table(seats(10, 10, -5, -15), [Replaced("D")])
    assert points(r) == {"A": 3, "B": 3, "C": 1, "D": 0}


def test_tournament_disqualification_zeroes_whole_tournament_seed000_s4():
    s1 = score_table(seats(40, -30, 10, -20))                       # A wins: 4
    s2 = score_table(seats(-10, 30, -20, 0), [Disqualified("A", "tournament")])
    s3 = score_table(seats(5, -5, 20, -20))
    assert tournament_table_points([s1, s2, s3]) == {"A": 0, "B": 0 + 4 + 1, "C": 2 + 1 + 4,
                                                     "D": 1 + 2 + 0}


# --- §3.1 penalty escalation ---------------------------------------------------------------

def test_escalation_ladder_seed000_s3_1():
    assert [escalated_penalty(n) for n in range(7)] == [0, 5, 10, 20, 30, 40, 50]
    with pytest.raises(TableError):
        escalated_penalty(-1)


def test_five_infractions_in_a_session_cost_65_seed000_s3_1():
    r = score_table(seats(100, -20, -30, -50), [Penalty("A")] * 5)
    a = r.seats[0]
    assert a.penalty_points == -(0 + 5 + 10 + 20 + 30)
    assert a.final_score == 35
    assert "warning" in a.reasons[0]


def test_penalties_can_change_places_seed000_s3_1():
    # A: 10 - (0 + 5 + 10) = -5, tied with C for 2nd: (2+1)/2 each; B moves up to 1st
    r = score_table(seats(10, 5, -5, -10), [Penalty("A")] * 3)
    assert points(r) == {"A": F(3, 2), "B": 4, "C": F(3, 2), "D": 0}


def test_infraction_count_resets_each_session_seed000_s3_1():
    session1 = score_table(seats(10, 0, 0, -10), [Penalty("A"), Penalty("A")])
    session2 = score_table(seats(10, 0, 0, -10), [Penalty("A")])
    assert session1.seats[0].penalty_points == -5
    assert session2.seats[0].penalty_points == 0  # a warning again


def test_delay_of_game_count_carries_over_sessions_seed000_s3_1():
    # two delay-of-game penalties earlier in the tournament: the next one is the third, 10
    r = score_table(seats(10, 0, 0, -10), [Penalty("B", "delay_of_game")],
                    prior_delay_of_game={"B": 2})
    assert r.seats[1].penalty_points == -10


def test_delay_of_game_has_its_own_ladder():
    # interpretation (module docstring): the two ladders escalate separately
    r = score_table(seats(10, 0, 0, -10), [Penalty("C"), Penalty("C", "delay_of_game"),
                                           Penalty("C")])
    assert r.seats[2].penalty_points == -(0 + 0 + 5)


# --- §2.2 lateness -------------------------------------------------------------------------

@pytest.mark.parametrize("minutes, penalty", [
    (0, 0), (0.5, 10), (9, 10), (9.99, 10), (10, 20), (14, 20), (15, 20), (15.01, None), (40, None),
])
def test_lateness_bands_seed000_s2_2(minutes, penalty):
    assert lateness_penalty(minutes) == penalty


def test_late_player_loses_points_seed000_s2_2():
    r = score_table(seats(10, 5, -5, -10), [Late("A", 7), Late("B", 12)])
    assert [x.final_score for x in r.seats] == [0, -15, -5, -10]
    assert points(r) == {"A": 4, "B": 0, "C": 2, "D": 1}


def test_over_15_minutes_late_is_out_of_the_session_seed000_s2_2():
    r = score_table(seats(10, 5, -5, -10), [Late("D", 20)])
    assert points(r) == {"A": 4, "B": 2, "C": 1, "D": 0}
    assert r.seats[3].place is None
    assert r.seats[3].penalty_points == 0


# --- bad records ---------------------------------------------------------------------------

@pytest.mark.parametrize("table, events, message", [
    (seats(10, 0, -10), [], "4 players"),
    ([Seat("A", 1), Seat("A", -1), Seat("B", 0), Seat("C", 0)], [], "distinct"),
    (seats(10, 0, 0, 0), [], "sum to 0"),
    (seats(10, 0, 0, -10), [Penalty("Z")], "'Z'"),
    (seats(10, 0, 0, -10), [Substitute("A", replaces="B")], "seated"),
    (seats(10, 0, 0, -10), [Late("A", 3), Late("A", 4)], "two lateness"),
    (seats(10, 0, 0, -10), [Late("A", -1)], ">= 0"),
    # §4: one substitute sits in for one absent player
    (seats(10, 0, 0, -10), [Substitute("A", replaces="Eve"), Substitute("B", replaces="Eve")],
     "'Eve' has two substitutes"),
    (seats(10, 0, 0, -10), [Substitute("A", replaces="Eve"), Substitute("A", replaces="Fay")],
     "'A' substitutes for two players"),
    (seats(10, 0, 0, -10), [Replaced("A", "ill"), Replaced("A", "ill")], "two 'replaced' records"),
])
def test_bad_records_are_refused(table, events, message):
    with pytest.raises(TableError, match=message):
        score_table(table, events)


def test_prior_count_for_unknown_player_is_refused():
    with pytest.raises(TableError, match="not at this table"):
        score_table(seats(10, 0, 0, -10), prior_delay_of_game={"Z": 1})
