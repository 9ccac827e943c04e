"""``tilescope xiangqi``: a Xiangqi (象棋) knockout from drawn lots and game results.

Input (JSON, a file argument or stdin)::

    {
      "players": ["Li", "Wang", "Zhao", "Chen", "Liu"],
      "seed": 7,                                  # the lots: the same seed, the same bracket
      "results": [                                # any order; each names a game now due
        {"players": ["Wang", "Zhao"], "winner": "Zhao"},
        {"players": ["Liu", "Li"], "forfeit": "Liu", "reason": "late", "minutes": 12},
        {"players": ["Chen", "Zhao"], "forfeit": "Zhao", "reason": "time", "violations": 2},
        {"players": ["Liu", "Zhao"], "winner": "Zhao"}      # third place
      ]
    }

A forfeit's ``reason``: "late" (not seated ``minutes`` after the start, over 10), "time"
(``violations`` of the byo-yomi, 2 or more) or "takeback" (without the opponent's consent;
``"consent": true`` is no forfeit). Byes go to the first players drawn and advance; the two
semi-final losers play for third place.

Output (JSON on stdout)::

    {"bracket": [["Liu", null], ["Li", null], ["Chen", null], ["Wang", "Zhao"]],
     "rounds": [[{"stage": "round 1", "players": ["Liu", null], "winner": "Liu",
                  "loser": null, "how": "bye: ..."}, ...], ...],
     "pending": [{"stage": "final", "players": ["Li", "Chen"], ...}],
     "places": {"1": null, "2": null, "3": "Zhao"}, "finished": false}

Rules: :mod:`scoring.tournament.xiangqi`. Bad input: message on stderr, exit code 2.
"""
from __future__ import annotations

import argparse
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt

from scoring.tournament import xiangqi
from .table import add_json_input, run_json_command
from vision.common.validation import Name

HELP = "Xiangqi knockout: bracket by lots, byes, forfeits, places 1-3 (JSON in, JSON out)"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ResultIn(_Strict):
    """One game: its two players, and the winner or the forfeit."""

    players: Annotated[list[Name], Field(min_length=2, max_length=2)]
    winner: Name | None = None
    forfeit: Name | None = None
    reason: Literal["late", "time", "takeback"] | None = None
    minutes: Annotated[float, Field(ge=0, allow_inf_nan=False, strict=True)] | None = None
    violations: Annotated[StrictInt, Field(ge=0)] | None = None
    consent: StrictBool = False


class KnockoutIn(_Strict):
    """The input document of ``tilescope xiangqi`` (see the module docstring)."""

    players: list[Name]
    seed: StrictInt
    results: list[ResultIn] = []


def _match(m: xiangqi.Match) -> dict:
    return {"stage": m.stage, "players": list(m.players), "winner": m.winner,
            "loser": m.loser, "how": m.how}


def xiangqi_json(data: object) -> dict:
    """Validate a decoded input document and return the output document (see module doc).

    Raises pydantic.ValidationError for malformed input, xiangqi.XiangqiError for records the
    rules refuse."""
    doc = KnockoutIn.model_validate(data)
    for r in doc.results:
        if r.forfeit is not None and r.reason is None:
            raise xiangqi.XiangqiError(f"{r.forfeit}'s forfeit needs a reason: late, time or "
                                       "takeback")
    results = [xiangqi.Result(tuple(r.players), r.winner, r.forfeit, r.reason, r.minutes,
                              r.violations, r.consent) for r in doc.results]
    k = xiangqi.run_knockout(doc.players, doc.seed, results)
    return {"bracket": [list(p) for p in k.bracket],
            "rounds": [[_match(m) for m in rnd] for rnd in k.rounds],
            "pending": [_match(m) for m in k.pending],
            "places": {str(p): k.places.get(p) for p in (1, 2, 3)},
            "finished": k.finished}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_json_input(parser, __doc__, "knockout")


def run(args: argparse.Namespace) -> int:
    return run_json_command("xiangqi", args.input, xiangqi_json, xiangqi.XiangqiError)
