"""Gouji team match scoring: seed 002 (Gouji competition rules) as quoted in issue 7."""
import pytest

from scoring.tournament.gouji import (PLACE_POINTS, Game, GoujiError, Team, game_places,
                                      score_game, score_match)

TEAMS = [Team("East", ("e1", "e2", "e3")), Team("West", ("w1", "w2", "w3"))]
SWEEP_EAST = Game(("e1", "e2", "e3", "w1", "w2", "w3"))
EVEN = Game(("e1", "w1", "w2", "e2", "w3", "e3"))   # East 7+3+1 = 11, West 5+4+2 = 11
WEST_13 = Game(("w1", "e1", "w2", "e2", "w3", "e3"))  # East 5+3+1 = 9, West 7+4+2 = 13


def test_place_points_seed002():
    assert PLACE_POINTS == (7, 5, 4, 3, 2, 1)
    g = score_game(TEAMS, Game(("e1", "w1", "e2", "w2", "e3", "w3")))
    assert g.team_scores == {"East": 7 + 4 + 2, "West": 5 + 3 + 1}
    assert g.sweep is None


def test_sweep_scores_32_to_the_winning_side_seed002_sweep():
    g = score_game(TEAMS, SWEEP_EAST)
    assert g.sweep == "East"
    assert g.team_scores == {"East": 2 * (7 + 5 + 4), "West": 0}


def test_sweep_in_any_order_of_the_first_three_seed002_sweep():
    g = score_game(TEAMS, Game(("w3", "w1", "w2", "e2", "e1", "e3")))
    assert g.team_scores == {"East": 0, "West": 32}


def test_match_is_three_games_summed_seed002_match():
    m = score_match(TEAMS, [SWEEP_EAST, EVEN, WEST_13])
    assert m.totals == {"East": 32 + 11 + 9, "West": 0 + 11 + 13}
    assert (m.status, m.winner, m.decided_by) == ("won", "East", "score")


def test_fewer_than_three_games_is_in_progress():
    m = score_match(TEAMS, [WEST_13])
    assert (m.status, m.winner, m.totals) == ("in_progress", None, {"East": 9, "West": 13})


def test_tie_after_three_games_means_one_more_game_seed002_tie():
    m = score_match(TEAMS, [EVEN, EVEN, EVEN])
    assert m.totals == {"East": 33, "West": 33}
    assert (m.status, m.winner) == ("play_one_more_game", None)


def test_extra_game_decides_seed002_tie():
    m = score_match(TEAMS, [EVEN, EVEN, EVEN, WEST_13])
    assert (m.status, m.winner, m.decided_by) == ("won", "West", "extra game")
    assert m.totals == {"East": 33 + 9, "West": 33 + 13}


def test_still_tied_after_extra_game_goes_to_lots_seed002_tie():
    m = score_match(TEAMS, [EVEN] * 4)
    assert (m.status, m.winner) == ("draw_lots", None)
    m = score_match(TEAMS, [EVEN] * 4, lots_winner="West")
    assert (m.status, m.winner, m.decided_by) == ("won", "West", "lots")


@pytest.mark.parametrize("games, lots, message", [
    ([SWEEP_EAST, EVEN, EVEN, EVEN], None, "only when the first 3 are tied"),
    ([EVEN] * 5, None, "at most one tie-break"),
    ([EVEN] * 3, "East", "lots are drawn only"),
    ([EVEN] * 4, "North", "not a team"),
])
def test_bad_match_records_are_refused(games, lots, message):
    with pytest.raises(GoujiError, match=message):
        score_match(TEAMS, games, lots)


def test_two_points_off_per_cheating_offence_seed002_cheating():
    g = score_game(TEAMS, Game(EVEN.order, cheating=("w2", "w2", "e1")))
    assert g.team_scores == {"East": 11 - 2, "West": 11 - 4}


def test_cheating_after_a_sweep_can_go_below_zero_seed002_cheating():
    g = score_game(TEAMS, Game(SWEEP_EAST.order, cheating=("w1",)))
    assert g.team_scores == {"East": 32, "West": -2}


def test_revolution_counts_as_third_seed002_revolution():
    # w2 folds; the rest finish e1, w1, e2, w3, e3 and take places 1, 2, 4, 5, 6
    g = Game(("e1", "w1", "e2", "w3", "e3"), revolution="w2")
    assert game_places(g, [p for t in TEAMS for p in t.players]) == {
        "e1": 1, "w1": 2, "w2": 3, "e2": 4, "w3": 5, "e3": 6}
    assert score_game(TEAMS, g).team_scores == {"East": 7 + 3 + 1, "West": 5 + 4 + 2}


def test_revolution_third_completes_a_sweep_seed002_revolution():
    g = score_game(TEAMS, Game(("e1", "e2", "w1", "w2", "w3"), revolution="e3"))
    assert g.sweep == "East"
    assert g.team_scores == {"East": 32, "West": 0}


@pytest.mark.parametrize("game, message", [
    (Game(("e1", "e2", "e3", "w1", "w2")), "missing \\['w3'\\]"),
    (Game(("e1", "e2", "e3", "w1", "w2", "w3", "x")), "unknown \\['x'\\]"),
    (Game(("e1", "e1", "e3", "w1", "w2", "w3")), "twice \\['e1'\\]"),
    (Game(("e1", "e2", "e3", "w1", "w2", "w3"), revolution="w3"), "twice \\['w3'\\]"),
    (Game(("e1", "e2", "e3", "w1", "w2", "w3"), cheating=("x",)), "'x'"),
])
def test_bad_games_are_refused(game, message):
    with pytest.raises(GoujiError, match=message):
        score_game(TEAMS, game)


@pytest.mark.parametrize("teams, message", [
    ([TEAMS[0]], "2 teams"),
    ([TEAMS[0], Team("East", ("w1", "w2", "w3"))], "different names"),
    ([TEAMS[0], Team("West", ("e1", "w2", "w3"))], "twice"),
    ([TEAMS[0], Team("West", ("w1", "w2"))], "3 players"),
])
def test_bad_teams_are_refused(teams, message):
    with pytest.raises(GoujiError, match=message):
        score_game(teams, SWEEP_EAST)


@pytest.mark.parametrize("teams, game, message", [
    ([Team("East", "abc"), TEAMS[1]], SWEEP_EAST, "players of team 'East' must be a list"),
    (TEAMS, Game(("e1", "e2", "e3", "w1", "w2", "w3"), cheating="e1"), "cheating offences must be a list"),
    (TEAMS, Game("e1e2e3w1w2w3"), "finishing order must be a list"),
])
def test_one_string_for_a_list_of_names_is_refused(teams, game, message):
    # "abc" read letter by letter would be the players a, b and c
    with pytest.raises(GoujiError, match=message):
        score_match(teams, [game])
