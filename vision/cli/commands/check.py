"""``tilescope check``: a referee's verdict on a declared win (false hu, dead hand, chombo,
no yaku, furiten), both rulesets.

Two ways in, as ``tilescope hand``:

- JSON Lines (``FILE`` or standard input): each line is a hand request
  (``docs/hand-json.md``) plus the table keys ``declared`` ("hu"), ``revealed``
  (default true), ``discards`` (the player's own discards, mpsz; riichi furiten),
  ``tournament`` (riichi chombo as a standings penalty), ``penalties`` (amounts, see
  ``scoring.verdict.PenaltyOptions``) and ``count_as_typed`` (a wrong tile count is what the
  player holds: rule on it). One verdict per line out; a bad line gets
  ``{"valid": false, "error": ...}`` and the run goes on.
- ``--text "HAND"`` with the ``tilescope hand`` options plus ``--not-revealed``,
  ``--discards``, ``--tournament`` and the penalty amounts: a readable verdict, or the JSON
  verdict with ``--json``.

Any source of a :class:`~scoring.hand.HandRequest` (a photo, later) can call
:func:`verdict_for` with it and the parsed arguments, then :func:`print_verdict`.
Exit codes: 0 when every hand was ruled on (a false win is a ruling), 2 for bad usage, an
unreadable file or an impossible typed hand, a typed tile count that is not a hand's included
unless ``--count-as-typed`` confirms it (message on stderr).
"""
from __future__ import annotations

import argparse
import json
import sys

from vision.photo.report import format_verdict

HELP = "verdict on a declared win: valid, false hu / dead hand (MCR), chombo / furiten (riichi)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from vision.cli.commands import hand

    hand.add_arguments(parser)
    for action in parser._actions:          # check prints JSON for a photo too
        if action.dest == "json":
            action.help = "print the JSON result, not the report (--text or a PHOTO)"
        elif action.dest == "file":
            action.metavar = "FILE|PHOTO"
            action.help = ("JSON Lines requests (default: standard input), or a photo of the hand "
                           "(the win's flags below then apply to it; exit 0 with a ruling, 1 when "
                           "the photo cannot be ruled on, 2 for bad input)")
    g = parser.add_argument_group("what happened at the table")
    from scoring.verdict import DECLARED_WINS
    g.add_argument("--declared", default="hu", choices=DECLARED_WINS,
                   help="what the player declared (default hu: a win; ron or tsumo also sets --win)")
    g.add_argument("--not-revealed", action="store_true",
                   help="the hand was not laid open (MCR: a false hu is then a dead hand, no penalty)")
    g.add_argument("--discards", default="", metavar="TILES", help="the player's own discards, mpsz (riichi furiten)")
    g.add_argument("--tournament", action="store_true",
                   help="riichi: chombo is a standings penalty instead of a reverse mangan")
    g.add_argument("--count-as-typed", action="store_true",
                   help="the hand's tile count, though not a hand's, is what the player holds: rule "
                        "on it (without this flag a wrong count is taken for a typing slip: exit 2)")
    g = parser.add_argument_group("penalty amounts")
    from scoring.verdict import PenaltyOptions
    d = PenaltyOptions()
    g.add_argument("--mcr-under-minimum", type=int, default=d.mcr_under_minimum, metavar="N",
                   help=f"MCR revealed false hu under 8 points: paid to each other player (default {d.mcr_under_minimum})")
    g.add_argument("--mcr-invalid-hand", type=int, default=d.mcr_invalid_hand, metavar="N",
                   help=f"MCR revealed invalid hand: paid to each other player (default {d.mcr_invalid_hand})")
    g.add_argument("--chombo-dealer", type=int, default=d.chombo_dealer_receives, metavar="N",
                   help=f"riichi chombo: paid to the dealer / by a dealer to each (default {d.chombo_dealer_receives})")
    g.add_argument("--chombo-non-dealer", type=int, default=d.chombo_non_dealer_receives, metavar="N",
                   help=f"riichi chombo: paid to each non-dealer (default {d.chombo_non_dealer_receives})")
    g.add_argument("--tournament-chombo", type=int, default=d.tournament_chombo, metavar="N",
                   help=f"riichi chombo in tournament mode (default {d.tournament_chombo})")
    from .score import add_check_photo_arguments
    add_check_photo_arguments(parser)   # tilescope check PHOTO: the verdict on a photographed hand


def verdict_for(req, args):
    """The :class:`scoring.verdict.Verdict` on ``req`` with the table options in ``args``.
    Raises HandError (impossible hand) or TileError (bad ``--discards``)."""
    from scoring.tiles import parse_tiles
    from scoring.verdict import PenaltyOptions, check

    for name in ("mcr_under_minimum", "mcr_invalid_hand", "chombo_dealer", "chombo_non_dealer", "tournament_chombo"):
        if getattr(args, name) < 0:
            from scoring.hand import HandError
            raise HandError(f"--{name.replace('_', '-')} cannot be negative")
    options = PenaltyOptions(args.mcr_under_minimum, args.mcr_invalid_hand, args.chombo_dealer,
                             args.chombo_non_dealer, args.tournament_chombo)
    return check(req, declared=args.declared, revealed=not args.not_revealed,
                 discards=tuple(parse_tiles(args.discards)), tournament=args.tournament, options=options,
                 count_as_typed=args.count_as_typed)


def print_verdict(verdict, as_json: bool, out=None) -> None:
    out = out or sys.stdout
    print(json.dumps(verdict.to_json(), ensure_ascii=False) if as_json else format_verdict(verdict), file=out)


def run(args) -> int:
    from .score import is_photo, run_check_photo

    problem = _win_from_declared(args)
    if problem is not None:
        return _fail(problem)
    if is_photo(args.file):
        problem = _photo_flags_problem(args)
        return _fail(problem) if problem else run_check_photo(args)
    if args.text is not None:
        problem = _text_flags_problem(args)
        return _fail(problem) if problem else _run_text(args)
    from scoring.verdict import check_json, no_ruling
    from .hand import run_json_file

    return run_json_file("check", args.file, check_json, lambda message: no_ruling(None, message))


def _fail(message: str) -> int:
    print(f"tilescope check: {message}", file=sys.stderr)
    return 2


def _win_from_declared(args) -> str | None:
    """A declared ron or tsumo says how the win came: ``args.win`` set from it; the problem
    when ``--win`` says otherwise."""
    if args.declared in ("ron", "tsumo"):
        if args.win is None:
            args.win = args.declared
        elif args.win != args.declared:
            return (f"--declared {args.declared} but --win {args.win}: give one of them, or the "
                    "same for both")
    return None


def _photo_flags_problem(args) -> str | None:
    """What is wrong with the flags given with a PHOTO, or None."""
    if args.text is not None:
        return "give either a PHOTO or --text, not both"
    if args.count_as_typed:
        # a photo's count is no typing: one that does not add up holds the ruling back
        return ("--count-as-typed goes with --text or FILE: a photo whose tiles do not add up is "
                "not ruled on; count them at the table and pass --text")
    return None


def _text_flags_problem(args) -> str | None:
    """What is wrong with the flags given with ``--text``, or None."""
    if args.file:
        from .hand import both_file_and_text
        return both_file_and_text(args.file)
    photo_only = [f"--{name}" for name in ("fix", "meld", "annotate", "weights")
                  if getattr(args, name, None)]
    if photo_only:
        verb = "goes" if len(photo_only) == 1 else "go"
        return f"{', '.join(photo_only)} {verb} with a PHOTO, not with --text"
    return None


def _run_text(args) -> int:
    """``--text``: the verdict on the typed hand, printed; 2 for a hand that cannot be ruled on."""
    from scoring.hand import HandError
    from scoring.tiles import TileError
    from scoring.verdict import CountError
    from .hand import assumed_line, context_into_args, ignored_flags, request_from_args

    try:
        # a hand one tile short reads with its last tile as the winning tile: the verdict
        # then names the count (and a left-out winning tile) unless --count-as-typed
        context_into_args(args)
        req = request_from_args(args, short_hand=True)
        verdict = verdict_for(req, args)
    except CountError as exc:
        short = exc.typed == 13 - 3 * exc.melds and args.win_tile is None
        hint = " (the winning tile left out? write it last, or name it with --win-tile)" if short else ""
        return _fail(exc.words('--count-as-typed', hint=hint))
    except (HandError, TileError) as exc:
        return _fail(str(exc))
    if not args.json:
        line = assumed_line(args, req.ruleset)
        if line:            # first, as `score` does: a dealer's chombo is 12000, another's 8000
            print(line + "\n")
    print_verdict(verdict, args.json)
    for note in ignored_flags(args, req.ruleset):
        print(f"tilescope check: {note}", file=sys.stderr)
    return 0
