"""Gouji (够级) team match scoring.

Source: seed text ``002`` (Gouji competition rules) as quoted in issue 7.

* Six players in two teams of three (teammates sit alternately; seating is not checked).
* Places in one game score 7, 5, 4, 3, 2, 1 (头科, 二科, 三科, 四科, 二落, 大落); a team's
  game score is the sum over its three players (the two teams share 22).
* Sweep (串三户): one team takes places 1, 2 and 3; its score doubles, 2 × (7 + 5 + 4) = 32.
* Cheating: 2 points off the offender's team per offence.
* Revolution (革命): a player holding no big cards may fold; the folded player counts as
  third (三科, 4 points) and the others take places 1, 2, 4, 5, 6 in finishing order.
* A match is 3 games, team scores summed; on a tie one more game is played, and if still
  tied the winner is drawn by lots.

Where the quoted text is silent this module follows common Gouji competition practice and
says so:

* In a sweep the swept team scores 0 (the 32 is the whole game's score going to one side).
* The cheating deduction applies to the game in which the offence happened, after the sweep
  doubling, and may take a team's game score below 0.
* The folded player's third place counts toward a sweep like any other third place.
* Only one revolution per game is accepted (two folders cannot both be third).
* The extra game's score is added to the three-game total, so the match goes to whoever wins
  the extra game; lots decide only if the extra game is tied too.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Sequence

PLACE_POINTS: tuple[int, ...] = (7, 5, 4, 3, 2, 1)
"""Points for places 1..6 of one game."""
PLACE_NAMES: tuple[str, ...] = ("头科", "二科", "三科", "四科", "二落", "大落")
SWEEP_POINTS = 2 * sum(PLACE_POINTS[:3])      # 32
CHEATING_POINTS = 2
REVOLUTION_PLACE = 3
GAMES_PER_MATCH = 3

MatchStatus = Literal["in_progress", "won", "play_one_more_game", "draw_lots"]


class GoujiError(ValueError):
    """A match record that cannot be scored (wrong team sizes, a player missing from a game,…)."""


@dataclass(frozen=True, slots=True)
class Team:
    """A team: its ``name`` and its three ``players``."""

    name: str
    players: tuple[str, str, str]


@dataclass(frozen=True, slots=True)
class Game:
    """One game. ``order``: players who played out, first out first (six names, or five when
    one folded). ``revolution``: the player who folded under the revolution rule, or None.
    ``cheating``: one entry per cheating offence, naming the offender."""

    order: tuple[str, ...]
    revolution: str | None = None
    cheating: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class GameScore:
    """Scores of one game. ``places``: player → place 1..6. ``team_scores``: team → points
    (int, may be negative after cheating deductions). ``sweep``: the sweeping team or None.
    ``reasons``: one line per rule applied."""

    places: dict[str, int]
    team_scores: dict[str, int]
    sweep: str | None
    reasons: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class MatchResult:
    """A match. ``totals``: team → summed game scores. ``status``: "in_progress" (fewer than 3
    games), "won", "play_one_more_game" (tied after 3), "draw_lots" (tied after the extra
    game, lots not yet drawn). ``winner``: team name when won, else None. ``decided_by``:
    "score", "extra game" or "lots" when won, else None."""

    games: tuple[GameScore, ...]
    totals: dict[str, int]
    status: MatchStatus
    winner: str | None
    decided_by: str | None
    reasons: tuple[str, ...]


def _check_teams(teams: Sequence[Team]) -> dict[str, str]:
    """player → team name; raises GoujiError unless two teams of three distinct players."""
    if len(teams) != 2:
        raise GoujiError(f"a Gouji match has 2 teams, got {len(teams)}")
    for team in teams:
        if not isinstance(team, Team) or not isinstance(team.name, str):
            raise GoujiError(f"a team must be a Team(name, players), got {team!r}")
        _check_names(team.players, f"the players of team {team.name!r}")
    if teams[0].name == teams[1].name:
        raise GoujiError(f"the two teams need different names, both are {teams[0].name!r}")
    team_of: dict[str, str] = {}
    for team in teams:
        if len(team.players) != 3:
            raise GoujiError(f"team {team.name!r} needs 3 players, got {len(team.players)}")
        for p in team.players:
            if p in team_of:
                raise GoujiError(f"player {p!r} is listed twice in the teams")
            team_of[p] = team.name
    return team_of


def _check_names(names: object, what: str) -> None:
    """GoujiError unless ``names`` is a sequence of player names (not one string: "abc" is not
    the players a, b and c)."""
    if isinstance(names, str) or not isinstance(names, (tuple, list)) \
            or not all(isinstance(n, str) for n in names):
        raise GoujiError(f"{what} must be a list of player names, got {names!r}")


def game_places(game: Game, players: Sequence[str]) -> dict[str, int]:
    """Place 1..6 of each player in one game (revolution: folded player is third).

    ``players``: all six players. Raises GoujiError when the order and the folded player do
    not name each of the six exactly once.
    """
    _check_names(game.order, "a game's finishing order")
    _check_names(game.cheating, "a game's cheating offences")
    everyone = list(game.order) + ([game.revolution] if game.revolution is not None else [])
    if sorted(everyone) != sorted(players) or len(set(everyone)) != len(everyone):
        missing = sorted(set(players) - set(everyone))
        extra = sorted(set(everyone) - set(players))
        twice = sorted({p for p in everyone if everyone.count(p) > 1})
        raise GoujiError("finishing order (plus the folded player) must name each of the six "
                         f"players once; missing {missing}, unknown {extra}, twice {twice}")
    free = [p for p in range(1, 7) if game.revolution is None or p != REVOLUTION_PLACE]
    places = dict(zip(game.order, free))
    if game.revolution is not None:
        places[game.revolution] = REVOLUTION_PLACE
    return dict(sorted(places.items(), key=lambda item: item[1]))


def score_game(teams: Sequence[Team], game: Game) -> GameScore:
    """Team scores of one game (see module docstring for the rules).

    Raises GoujiError for bad teams, an order that does not cover the six players, or a
    cheating entry naming someone not playing.
    """
    team_of = _check_teams(teams)
    places = game_places(game, list(team_of))
    reasons: list[str] = []
    if game.revolution is not None:
        reasons.append(f"revolution: {game.revolution} folded, counts as third "
                       f"({PLACE_NAMES[2]}, {PLACE_POINTS[2]} points)")
    scores = {t.name: sum(PLACE_POINTS[places[p] - 1] for p in t.players) for t in teams}
    sweep = next((t.name for t in teams if {places[p] for p in t.players} == {1, 2, 3}), None)
    if sweep is not None:
        scores = {name: SWEEP_POINTS if name == sweep else 0 for name in scores}
        reasons.append(f"sweep (串三户): {sweep} took places 1-3, scores double: "
                       f"{SWEEP_POINTS}, the other team 0")
    for who in game.cheating:
        if who not in team_of:
            raise GoujiError(f"cheating offence names {who!r}, who is not playing")
        scores[team_of[who]] -= CHEATING_POINTS
        reasons.append(f"cheating by {who}: {team_of[who]} -{CHEATING_POINTS}")
    reasons.append(", ".join(f"{name} {pts}" for name, pts in scores.items()))
    return GameScore(places=places, team_scores=scores, sweep=sweep, reasons=tuple(reasons))


def score_match(teams: Sequence[Team], games: Sequence[Game],
                lots_winner: str | None = None) -> MatchResult:
    """Result of a match: three games summed; tie → one more game; still tied → lots.

    ``games``: in playing order, 0 to 4 (the 4th only after a tie). ``lots_winner``: the team
    that won the draw, given only once the extra game is tied too.

    Raises GoujiError for bad teams or games, more than 4 games, a 4th game without a tie,
    or a lots winner given when no lots were needed or naming an unknown team.
    """
    _check_teams(teams)
    names = [t.name for t in teams]
    if len(games) > GAMES_PER_MATCH + 1:
        raise GoujiError(f"a match is {GAMES_PER_MATCH} games plus at most one tie-break "
                         f"game, got {len(games)}")
    scored = [score_game(teams, g) for g in games]
    totals = _total(scored, names, len(scored))
    reasons = [f"after {len(scored)} game(s): {_fmt_totals(totals, names)}"]
    status: MatchStatus
    winner = decided_by = None
    if len(scored) < GAMES_PER_MATCH:
        status = "in_progress"
        reasons.append(f"{GAMES_PER_MATCH - len(scored)} game(s) still to play")
    elif len(scored) == GAMES_PER_MATCH:
        status, winner, decided_by = _after_three_games(totals, names, reasons)
    else:
        status, winner, decided_by = _after_extra_game(scored, totals, names, lots_winner, reasons)
    needs_lots = status == "draw_lots" or decided_by == "lots"
    if lots_winner is not None and not needs_lots:
        raise GoujiError("lots are drawn only when the extra game is tied too; "
                         "remove lots_winner")
    return MatchResult(games=tuple(scored), totals=totals, status=status, winner=winner,
                       decided_by=decided_by, reasons=tuple(reasons))


def _total(scored: Sequence[GameScore], names: list[str], upto: int) -> dict[str, int]:
    """Each team's points over the first ``upto`` games."""
    return {n: sum(g.team_scores[n] for g in scored[:upto]) for n in names}


def _leader(totals: dict[str, int], names: list[str]) -> str | None:
    """The team ahead on ``totals``; None when the two are tied."""
    a, b = names
    return None if totals[a] == totals[b] else (a if totals[a] > totals[b] else b)


def _fmt_totals(totals: dict[str, int], names: list[str]) -> str:
    return " : ".join(f"{n} {totals[n]}" for n in names)


def _after_three_games(totals: dict[str, int], names: list[str],
                       reasons: list[str]) -> tuple[MatchStatus, str | None, str | None]:
    """The three games played: won on the score, or tied → one more game. Returns (status,
    winner, decided by) and appends the reason to ``reasons``."""
    winner = _leader(totals, names)
    if winner is None:
        reasons.append("tied after 3 games: play one more game")
        return "play_one_more_game", None, None
    reasons.append(f"{winner} wins the match")
    return "won", winner, "score"


def _after_extra_game(scored: Sequence[GameScore], totals: dict[str, int], names: list[str],
                      lots_winner: str | None,
                      reasons: list[str]) -> tuple[MatchStatus, str | None, str | None]:
    """The extra game played (only after three tied games): won on it, or still tied → lots.
    Returns (status, winner, decided by) and appends the reason to ``reasons``."""
    after_three = _total(scored, names, GAMES_PER_MATCH)
    if _leader(after_three, names) is not None:
        raise GoujiError("a 4th game is played only when the first 3 are tied, but they "
                         f"are {_fmt_totals(after_three, names)}")
    winner = _leader(totals, names)
    if winner is not None:
        reasons.append(f"tied after 3 games; {winner} wins the extra game and the match")
        return "won", winner, "extra game"
    if lots_winner is None:
        reasons.append("still tied after the extra game: draw lots")
        return "draw_lots", None, None
    if lots_winner not in names:
        raise GoujiError(f"lots winner {lots_winner!r} is not a team {names}")
    reasons.append(f"still tied after the extra game; {lots_winner} wins by lots")
    return "won", lots_winner, "lots"
