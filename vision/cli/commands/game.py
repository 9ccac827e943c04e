"""``tilescope game``: a riichi game's (or an MCR session's) ledger kept in a JSON Lines file.

The file (docs/game-json.md in full): the first line names the players (seat order, East
first) and the options; each further line is one event, in the order it happened::

    {"type": "game", "players": ["Ann", "Bob", "Cai", "Dan"], "options": {"east_only": true}}
    {"type": "riichi", "player": "Bob"}
    {"type": "tsumo", "player": "Bob", "han": 2, "fu": 30}
    {"type": "draw", "tenpai": ["Bob", "Cai"]}
    {"type": "ron", "discarder": "Ann", "winners": [{"player": "Bob", "han": 3, "fu": 40}]}
    {"type": "abortive", "reason": "four_kans", "kans": ["Ann", "Bob", "Bob", "Dan"]}
    {"type": "chombo", "player": "Ann"}
    {"type": "dead_hand", "player": "Cai"}

A winner's value is typed (``han``, ``fu``, ``yakuman``, ``dora``: how many han are dora) or
scored from the hand (``"hand": {...}`` as docs/hand-json.md; the ledger decides seat and round
wind, win, honba, sticks and riichi: a hand stating them otherwise is refused; with
``"discards": "..."`` a furiten ron is refused).
Options: start, return_points, uma, east_only, bust_ends, two_han_from_five,
honba_to_each_winner, chombo ("mangan" or "tournament"), chombo_penalty; "preset": "ema" for
30,000 each, uma 15,000/5,000/-5,000/-15,000 and tournament chombo.

An MCR session (--ruleset mcr, "ruleset": "mcr" in the first line): events
{"type": "ron", "discarder": "Ann", "winners": [{"player": "Bob", "fan": 12, "flowers": 1}]},
{"type": "tsumo", "player": "Bob", "fan": 9}, {"type": "draw"} and
{"type": "false_win", "player": "Cai", "kind": "short"} (the hand is then dead: no win until
it ends), {"type": "dead_hand", "player": "Dan"} and {"type": "penalty", "player": "Dan"}
(§3.1: a warning, then 5, 10, 20 … points off); 16 hands, then EMA table points.

Usage: tilescope game FILE --new Ann Bob Cai Dan [--options JSON | --ruleset mcr] starts a file;
tilescope game FILE --add EVENT appends one event (refused: the file is left as it was);
tilescope game FILE --undo takes the last event out (each prints what changed and the
standings after it; --all: the whole game); tilescope game FILE prints the standings after
each event (--json: one JSON object a line), and the final ranking once the game is over.
Rules: scoring/tournament/riichi_game.py and mcr_game.py. A refused event or a bad file: its
error code and message on stderr in one line, exit code 2.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os

from scoring.tournament import riichi_game as rg
from .table import fail
from vision.server.game_file import (GameFileError, Options, State, decode_json, ranking_json,
                                     ranking_lines, read_game, read_lines, standings_line, state_json,
                                     write_game)
from vision.common.safe_files import locked

HELP = ("a riichi game's ledger (points, counters and sticks) or an MCR session's (points per "
        "hand), from hand to hand (JSON Lines)")


def _describe(obj: dict) -> str:
    """``riichi player="Bob"``: an event as one short line."""
    return " ".join([str(obj.get("type"))] + [f"{k}={json.dumps(v, ensure_ascii=False)}"
                                             for k, v in obj.items() if k != "type"])


def report(options: Options, states: list[State], events: list[dict], as_json: bool,
           first: int = 0) -> list[str]:
    """The lines printed: the standings after each event from event ``first`` (0: the start),
    and the ranking at the end."""
    out = []
    for n, (state, ev) in enumerate(zip(states, [None] + events)):
        if n < first:
            continue
        if as_json:
            out.append(json.dumps(state_json(state, n), ensure_ascii=False))
        else:
            out.append(("start" if ev is None else f"#{n} {_describe(ev)}") + "\n  "
                       + "\n  ".join(list(state.lines) + [standings_line(state)]))
    return out + _ranking(options, states[-1], as_json)


def _ranking(options: Options, state: State, as_json: bool) -> list[str]:
    if not state.ended:
        return []
    if as_json:
        return [json.dumps({"ended": state.ended, "ranking": ranking_json(state, options)},
                           ensure_ascii=False)]
    return [f"game over: {state.ended}"] + ranking_lines(state, options)


def _undone(options: Options, states: list[State], event: dict, as_json: bool) -> list[str]:
    """After --undo: the event taken out, and the standings as they are again."""
    if as_json:
        # as the text says it: the event taken out (as the file had it, #n), then the state
        return [json.dumps({**state_json(states[-1], len(states) - 1),
                            "undone": {"event": len(states), **event}}, ensure_ascii=False)
                ] + _ranking(options, states[-1], True)
    return [f"undone: #{len(states)} {_describe(event)}",
            "  " + standings_line(states[-1])] + _ranking(options, states[-1], False)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = __doc__.split("\n", 2)[2].replace("::\n", ":\n").replace("``", "")
    parser.add_argument("file", help="the game's JSON Lines file")
    act = parser.add_mutually_exclusive_group()
    act.add_argument("--new", nargs=4, metavar="PLAYER",
                     help="start FILE with these players, East first (refused if FILE exists)")
    act.add_argument("--add", metavar="EVENT", help="append one event (a JSON object)")
    act.add_argument("--undo", action="store_true", help="take the last event out of FILE")
    parser.add_argument("--ruleset", choices=("riichi", "mcr"), default="riichi",
                        help="with --new: the game's rules (mcr: a 16-hand MCR session)")
    parser.add_argument("--options", metavar="JSON", default="{}",
                        help='with --new: rule options, e.g. \'{"preset": "ema"}\'')
    parser.add_argument("--json", action="store_true", help="one JSON object a line")
    parser.add_argument("--all", action="store_true",
                        help="with --add or --undo: print the whole game, not the change")


def run(args: argparse.Namespace) -> int:
    path = args.file
    if (args.options != "{}" or args.ruleset != "riichi") and not args.new:
        return fail("game", "--options and --ruleset go with --new: they are the file's first line")
    changes = args.new or args.add is not None or args.undo
    try:
        # a change holds the file's lock from its read to its write: 20 --add at once keep
        # all 20 events (each reads the file as the one before it left it)
        with locked(path) if changes else contextlib.nullcontext():
            lines, undone = _changed_lines(args)
            # a refused --add or --new is named as the argument, not as a line of the file
            options, states, events = read_game(lines, path, "--add" if args.add is not None
                                                else "" if args.new else None)
            if changes:
                write_game(path, lines)
    except (GameFileError, rg.GameError) as exc:
        return fail("game", str(exc))
    except FileNotFoundError:       # the lock file beside it cannot be made
        return fail("game", f"cannot write {path}: no such folder "
                            f"{os.path.dirname(os.path.abspath(path))}")
    except OSError as exc:          # ... in a read-only folder
        return fail("game", f"cannot lock {path}: {exc.strerror or exc}")
    if undone is not None and not args.all:
        out = _undone(options, states, undone, args.json)
    else:
        # --add: the event's lines and the standings after it; else the whole game
        first = len(events) if args.add is not None and not args.all else 0
        out = report(options, states, events, args.json, first)
    print("\n".join(out))
    return 0


def _changed_lines(args: argparse.Namespace) -> tuple[list[str], dict | None]:
    """The file's lines as the command leaves them (the first line for --new, one more for
    --add, one fewer for --undo) and the event undone, if any. GameFileError naming the
    problem; the file as it stands must be a sound game before it is changed."""
    path = args.file
    if args.new:
        if os.path.lexists(path):
            raise GameFileError(f"{path} exists: a new game needs a new file")
        opts = decode_json(args.options, "--options")
        header = {"type": "game", "players": args.new, "options": opts}
        if args.ruleset != "riichi":
            header = {"type": "game", "ruleset": args.ruleset, "players": args.new}
            if opts != {}:
                header["options"] = opts
        return [json.dumps(header, ensure_ascii=False)], None
    lines = read_lines(path)
    read_game(lines, path)                            # the file as it stands is sound
    if args.add is not None:
        return lines + [json.dumps(decode_json(args.add, "--add"), ensure_ascii=False)], None
    if args.undo:
        while lines and not lines[-1].strip():
            lines.pop()
        if len(lines) <= 1:
            raise GameFileError(f"{path}: no event to undo")
        return lines[:-1], decode_json(lines[-1], path)
    return lines, None
