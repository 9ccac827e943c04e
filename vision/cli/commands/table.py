"""``tilescope table``: MCR table points of one table for one session, under the EMA's MCR
tournament rules (not riichi: riichi's uma, oka and chombo are not scored here).

Input (JSON, a file argument or stdin)::

    {
      "players": [                          # exactly 4, session scores before penalties, sum 0
        {"name": "Ann", "score": 62}, {"name": "Bob", "score": -8},
        {"name": "Cai", "score": -8}, {"name": "Dan", "score": -46}
      ],
      "events": [                           # optional, in order; one of each kind shown
        {"type": "substitute", "player": "Cai", "replaces": "Eve"},    # before the session (§4)
        {"type": "replaced", "player": "Dan", "reason": "illness"},    # during the session (§4)
        {"type": "disqualified", "player": "Dan", "scope": "tournament", "reason": "..."},
                                                    # scope: tournament (default) | session
        {"type": "penalty", "player": "Ann", "kind": "infraction", "reason": "..."},
                                                                # kind: infraction | delay_of_game
        {"type": "late", "player": "Bob", "minutes": 7}         # §2.2
      ],
      "prior_delay_of_game": {"Ann": 1}     # optional: delay-of-game penalties in earlier
    }                                       # sessions, warnings included (a first one is no. 1)

Output (JSON on stdout)::

    {"players": [{"name": "Ann", "score": 62, "penalty_points": 0, "final_score": 62,
                  "place": 1, "tied": false, "table_points": 4.0, "table_points_exact": "4",
                  "disqualified_from_tournament": false, "reasons": ["..."]}, ...]}

(Ann's infraction is her first: a warning, no points; the ladder is warning, 5, 10, 20, 30,
then 10 more each.)

``place`` is null for a player out of the ranking (replaced, disqualified, over 15 minutes
late); ``table_points`` is rounded to 2 decimals (three players tied for first show 2.33 each:
add up ``table_points_exact``, a fraction such as "7/3", for totals). A disqualification is from
the tournament unless ``"scope": "session"`` is given (§4: a disqualified player gets 0 for the
whole tournament); ``disqualified_from_tournament: true`` then means the player's table points of
the earlier sessions are 0 too (Python: ``scoring.tournament.ema.tournament_table_points`` sums
several tables so).
Rules: :mod:`scoring.tournament.ema`. Bad input: message on stderr, exit code 2.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Annotated, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, StrictInt, ValidationError

from scoring.request import json_kind
from vision.common.validation import Name, format_validation_error
from scoring.tournament import ema

HELP = "MCR table points of one table, EMA MCR tournament rules (JSON in, JSON out)"



class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class PlayerIn(_Strict):
    """A seat: the player's name and session score (MCR points, before penalties)."""

    name: Name
    score: StrictInt


class SubstituteIn(_Strict):
    """§4: ``player`` sits in for ``replaces`` from the start of the session."""

    type: Literal["substitute"]
    player: Name
    replaces: Name


class ReplacedIn(_Strict):
    """§4: ``player`` was replaced during the session (0 table points)."""

    type: Literal["replaced"]
    player: Name
    reason: str = "illness"


class DisqualifiedIn(_Strict):
    """§4: ``player`` was disqualified, from the tournament unless ``scope`` is "session"."""

    type: Literal["disqualified"]
    player: Name
    scope: Literal["session", "tournament"] = "tournament"
    reason: str = ""


class PenaltyIn(_Strict):
    """§3.1: one penalty to ``player`` (its points come from the escalation ladder)."""

    type: Literal["penalty"]
    player: Name
    kind: Literal["infraction", "delay_of_game"] = "infraction"
    reason: str = ""


class LateIn(_Strict):
    """§2.2: ``player`` arrived ``minutes`` late."""

    type: Literal["late"]
    player: Name
    minutes: Annotated[float, Field(ge=0, allow_inf_nan=False, strict=True)]


EventIn = Annotated[Union[SubstituteIn, ReplacedIn, DisqualifiedIn, PenaltyIn, LateIn],
                    Field(discriminator="type")]


class TableIn(_Strict):
    """The input document of ``tilescope table`` (see the module docstring)."""

    players: list[PlayerIn]
    events: list[EventIn] = []
    prior_delay_of_game: dict[Name, Annotated[StrictInt, Field(ge=0)]] = {}


def one_object(data: object, keys: str) -> dict:
    """``data`` if it is a JSON object; InputError naming the ``keys`` it should have otherwise."""
    if not isinstance(data, dict):
        raise InputError(f"the input must be one JSON object with {keys}, "
                         f"not {json_kind(data)}")
    return data


def named_twice(mapping: object) -> str | None:
    """A key of a JSON object given twice once the spaces around it are stripped (as
    :data:`Name` strips them), or None."""
    if not isinstance(mapping, dict):
        return None
    names = [k.strip() for k in mapping if isinstance(k, str)]
    return next((n for n in names if names.count(n) > 1), None)


def _event(ev: EventIn) -> ema.Event:
    fields = ev.model_dump(exclude={"type"})
    return {"substitute": ema.Substitute, "replaced": ema.Replaced,
            "disqualified": ema.Disqualified, "penalty": ema.Penalty,
            "late": ema.Late}[ev.type](**fields)


def table_json(data: object) -> dict:
    """Validate a decoded input document and return the output document (see module doc).

    Raises pydantic.ValidationError for malformed input, ema.TableError for records the rules
    cannot score.
    """
    twice = named_twice(one_object(data, "'players'").get("prior_delay_of_game"))
    if twice is not None:       # "Ann" and "Ann " would give one count without a word
        raise ema.TableError(f"prior_delay_of_game names {twice!r} twice")
    doc = TableIn.model_validate(data)
    result = ema.score_table([ema.Seat(p.name, p.score) for p in doc.players],
                             [_event(e) for e in doc.events], doc.prior_delay_of_game)
    return {"players": [{
        "name": r.name, "score": r.score, "penalty_points": r.penalty_points,
        "final_score": r.final_score, "place": r.place, "tied": r.tied,
        "table_points": round(float(r.table_points), 2),
        "table_points_exact": str(r.table_points),
        "disqualified_from_tournament": r.disqualified_from_tournament,
        "reasons": list(r.reasons)} for r in result.seats]}


def add_json_input(parser: argparse.ArgumentParser, doc: str, what: str) -> None:
    """The one argument of the JSON-in, JSON-out verbs (table, gouji, xiangqi): the document
    ``what`` from a file or stdin; the module's ``doc`` as the epilog."""
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    from vision.cli.commands import doc_epilog

    parser.epilog = doc_epilog(doc)
    parser.add_argument("input", nargs="?", default="-",
                        help=f"{what} JSON file ('-' or absent: stdin)")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_json_input(parser, __doc__, "table")


class InputError(ValueError):
    """The input document could not be read or decoded."""


def read_json(path: str) -> object:
    """Decoded JSON from ``path`` ('-': stdin). Raises InputError naming the problem."""
    try:
        # utf-8-sig: a file saved by Windows Notepad starts with a byte-order mark
        text = sys.stdin.read().lstrip("\ufeff") if path == "-" else open(path, encoding="utf-8-sig").read()
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text ({exc.reason})") from None
    from vision.common.jsontext import load_json

    try:
        return load_json(text)
    except ValueError as exc:
        raise InputError(f"{'stdin' if path == '-' else path}: not valid JSON ({exc})") from None


def fail(verb: str, message: str) -> int:
    """Print ``tilescope VERB: message`` on stderr and return exit code 2."""
    print(f"tilescope {verb}: {message}", file=sys.stderr)
    return 2


def run_json_command(verb: str, path: str, compute, rule_error: type[Exception]) -> int:
    """Read JSON from ``path`` (``-``: stdin), print ``compute(obj)`` as JSON; any input or
    rule problem (``InputError``, pydantic's ValidationError, ``rule_error``) → stderr, exit 2."""
    try:
        out = compute(read_json(path))
    except ValidationError as exc:
        return fail(verb, "invalid input:\n" + format_validation_error(exc))
    except (InputError, rule_error) as exc:
        return fail(verb, str(exc))
    json.dump(out, sys.stdout, indent=2, ensure_ascii=False)
    print()
    return 0


def run(args: argparse.Namespace) -> int:
    return run_json_command("table", args.input, table_json, ema.TableError)
