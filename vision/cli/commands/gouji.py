"""``tilescope gouji``: Gouji (够级) team scores of a match from finishing orders.

Input (JSON, a file argument or stdin)::

    {
      "teams": {"East": ["Li", "Wang", "Zhao"], "West": ["Chen", "Liu", "Sun"]},
      "games": [                                  # in playing order: 3, plus 1 after a tie
        {"order": ["Li", "Wang", "Zhao", "Chen", "Liu", "Sun"]},       # first out first
        {"order": ["Chen", "Li", "Liu", "Sun", "Wang"], "revolution": "Zhao",
         "cheating": ["Sun"]},                    # folded player (counts as third); offences
        {"order": ["Liu", "Li", "Chen", "Zhao", "Sun", "Wang"]}
      ]
    }

``order`` names the six players (five when one folded under the revolution rule and is
given as ``revolution``); ``cheating`` lists one offender per offence (2 points off that
player's team in that game). Fewer than 3 games is a match in progress. When the extra
game is tied too, lots are drawn: give the winning team as ``"lots_winner": "East"`` (refused
before then).

Output (JSON on stdout)::

    {"games": [{"game": 1, "places": {"Li": 1, ...}, "team_scores": {"East": 32, "West": 0},
                "sweep": "East", "reasons": ["..."]}, ...],
     "totals": {"East": 51, "West": 23}, "status": "won", "winner": "East",
     "decided_by": "score", "reasons": ["..."]}

``status``: "in_progress", "won", "play_one_more_game" (tied after 3 games) or "draw_lots"
(tied after the extra game too); ``winner`` and ``decided_by`` ("score", "extra game",
"lots") are null unless won. Rules: :mod:`scoring.tournament.gouji`. Bad input: message on
stderr, exit code 2.
"""
from __future__ import annotations

import argparse

from pydantic import BaseModel, ConfigDict

from scoring.tournament import gouji
from .table import add_json_input, named_twice, one_object, run_json_command
from vision.common.validation import Name

HELP = "Gouji team match scoring from finishing orders (JSON in, JSON out)"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class GameIn(_Strict):
    """One game: the finishing order, a folded player, cheating offences."""

    order: list[Name]
    revolution: Name | None = None
    cheating: list[Name] = []


class MatchIn(_Strict):
    """The input document of ``tilescope gouji`` (see the module docstring)."""

    teams: dict[Name, list[Name]]        # three each: gouji.score_match says so in words
    games: list[GameIn]
    lots_winner: Name | None = None


def gouji_json(data: object) -> dict:
    """Validate a decoded input document and return the output document (see module doc).

    Raises pydantic.ValidationError for malformed input, gouji.GoujiError for records the
    rules cannot score.
    """
    teams = one_object(data, "'teams' and 'games'").get("teams")
    twice = named_twice(teams)
    if twice is not None:      # "East" and "East " would merge into one team without a word
        raise gouji.GoujiError(f"team name {twice!r} is given twice")
    doc = MatchIn.model_validate(data)
    teams = [gouji.Team(name, tuple(players)) for name, players in doc.teams.items()]
    games = [gouji.Game(tuple(g.order), g.revolution, tuple(g.cheating)) for g in doc.games]
    result = gouji.score_match(teams, games, doc.lots_winner)
    return {
        "games": [{"game": i, "places": g.places, "team_scores": g.team_scores,
                   "sweep": g.sweep, "reasons": list(g.reasons)}
                  for i, g in enumerate(result.games, 1)],
        "totals": result.totals, "status": result.status, "winner": result.winner,
        "decided_by": result.decided_by, "reasons": list(result.reasons)}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_json_input(parser, __doc__, "match")


def run(args: argparse.Namespace) -> int:
    return run_json_command("gouji", args.input, gouji_json, gouji.GoujiError)
