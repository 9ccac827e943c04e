"""``tilescope game``: a riichi game's ledger kept in a JSON Lines file, one event a line.

The file (docs/game-json.md in full): the first line names the players (seat order, East
first) and the options; each further line is one event, in the order it happened::

    {"type": "game", "players": ["Ann", "Bob", "Cai", "Dan"], "options": {"east_only": true}}
    {"type": "riichi", "player": "Bob"}
    {"type": "tsumo", "player": "Bob", "han": 2, "fu": 30}
    {"type": "draw", "tenpai": ["Bob", "Cai"]}
    {"type": "ron", "discarder": "Ann", "winners": [{"player": "Bob", "han": 3, "fu": 40}]}
    {"type": "abortive", "reason": "four_kans"}
    {"type": "chombo", "player": "Ann"}

A winner's value is typed (``han``, ``fu``, ``yakuman``, ``dora``: how many han are dora) or
scored from the hand (``"hand": {...}`` as docs/hand-json.md, seat and round wind, win and
riichi filled in from the ledger; with ``"discards": "..."`` a furiten ron is refused).
Options: start, return_points, uma, east_only, bust_ends, two_han_from_five,
honba_to_each_winner, chombo ("mangan" or "tournament"), chombo_penalty; "preset": "ema" for
30,000 each, uma 15,000/5,000/-5,000/-15,000 and tournament chombo.

Usage: tilescope game FILE --new Ann Bob Cai Dan [--options JSON] starts a file;
tilescope game FILE --add EVENT appends one event (refused: the file is left as it was);
tilescope game FILE --undo takes the last event out; tilescope game FILE prints the
standings after each event (--json: one JSON object a line), and the final ranking once the
game is over. Rules: scoring/tournament/riichi_game.py. A refused event or a bad file: its
error code and message on stderr, exit code 2.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import replace
from typing import Annotated, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, ValidationError

from scoring.tournament import riichi_game as rg
from vision.commands.table import Name, fail, format_validation_error

HELP = "a riichi game's ledger: points, counters and sticks from hand to hand (JSON Lines)"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class OptionsIn(_Strict):
    preset: Literal["ema"] | None = None
    start: StrictInt | None = None
    return_points: StrictInt | None = None
    uma: Annotated[list[StrictInt], Field(min_length=4, max_length=4)] | None = None
    east_only: StrictBool | None = None
    bust_ends: StrictBool | None = None
    two_han_from_five: StrictBool | None = None
    honba_to_each_winner: StrictBool | None = None
    chombo: Literal["mangan", "tournament"] | None = None
    chombo_penalty: StrictInt | None = None

    def options(self) -> rg.Options:
        base = rg.EMA if self.preset == "ema" else rg.Options()
        given = {k: v for k, v in self.model_dump(exclude={"preset"}).items() if v is not None}
        if "uma" in given:
            given["uma"] = tuple(given["uma"])
        return replace(base, **given)


class HeaderIn(_Strict):
    type: Literal["game"]
    players: Annotated[list[Name], Field(min_length=4, max_length=4)]
    options: OptionsIn = OptionsIn()


class ValueIn(_Strict):
    han: StrictInt = 0
    fu: StrictInt = 0
    yakuman: StrictInt = 0
    dora: StrictInt = 0
    furiten: StrictBool = False
    hand: dict | None = None
    discards: str | None = None


class WinnerIn(ValueIn):
    player: Name


class RiichiIn(_Strict):
    type: Literal["riichi"]
    player: Name


class TsumoIn(ValueIn):
    type: Literal["tsumo"]
    player: Name


class RonIn(_Strict):
    type: Literal["ron"]
    discarder: Name
    winners: list[WinnerIn]


class DrawIn(_Strict):
    type: Literal["draw"]
    tenpai: list[Name] = []


class AbortiveIn(_Strict):
    type: Literal["abortive"]
    reason: str


class ChomboIn(_Strict):
    type: Literal["chombo"]
    player: Name
    reason: str = ""


EventIn = Annotated[Union[RiichiIn, TsumoIn, RonIn, DrawIn, AbortiveIn, ChomboIn],
                    Field(discriminator="type")]


class _Event(BaseModel):
    event: EventIn


def _value(state: rg.GameState, player: str, v: ValueIn, win: str) -> rg.Value:
    """The typed value, or the value of the scored hand (seat, round, win, riichi from the
    ledger); a hand that is no valid win (no yaku, furiten ron…) is refused, naming why."""
    if v.hand is None:
        if v.discards is not None:
            raise rg.GameError(rg.E_BAD_VALUE, f"{player}'s discards need the hand ('hand')")
        return rg.Value(v.han, v.fu, v.yakuman, v.dora, v.furiten)
    from scoring.hand import HandError
    from scoring.request import parse_request
    from scoring.verdict import RIICHI_FURITEN, check

    seat = state.players.index(player) if player in state.players else -1
    if seat < 0:
        raise rg.GameError(rg.E_UNKNOWN_PLAYER, f"{player!r} is not at this table")
    filled = {"ruleset": "riichi", "seat_wind": state.seat_wind(seat)[0],
              "round_wind": rg.WINDS[state.round][0], "win": win, "honba": state.honba,
              "riichi": "riichi" if seat in state.in_riichi else "none", **v.hand}
    try:
        verdict = check(parse_request(filled), discards=v.discards or ())
    except HandError as exc:
        raise rg.GameError(rg.E_BAD_VALUE, f"{player}'s hand: {exc}") from None
    if not verdict.valid:
        code = rg.E_FURITEN if verdict.ruling == RIICHI_FURITEN else rg.E_BAD_VALUE
        raise rg.GameError(code, f"{player}'s hand: {verdict.ruling}: {verdict.explanation}")
    r = verdict.result
    limit = r.get("limit") or ""
    if limit.endswith("yakuman") and not limit.startswith("kazoe"):
        return rg.Value(yakuman=r["han"] // 13)
    dora = sum(r["dora"].values())
    return rg.Value(han=r["han"], fu=r["fu"], dora=dora)


def to_event(state: rg.GameState, e: EventIn) -> rg.Event:
    """The ledger's event for one validated line (winners' values scored if need be)."""
    if isinstance(e, RiichiIn):
        return rg.Riichi(e.player)
    if isinstance(e, TsumoIn):
        return rg.Tsumo(e.player, _value(state, e.player, e, "tsumo"))
    if isinstance(e, RonIn):
        names = [w.player for w in e.winners]
        twice = next((n for n in names if names.count(n) > 1), None)
        if twice:
            raise rg.GameError(rg.E_WINNER_TWICE, f"{twice} is named twice among the winners")
        return rg.Ron(e.discarder, {w.player: _value(state, w.player, w, "ron")
                                    for w in e.winners})
    if isinstance(e, DrawIn):
        return rg.Draw(tuple(e.tenpai))
    if isinstance(e, AbortiveIn):
        return rg.Abortive(e.reason)
    return rg.Chombo(e.player, e.reason)


class GameFileError(ValueError):
    """The file cannot be read as a game."""


def _decode(line: str, where: str) -> object:
    from vision.jsontext import load_json
    try:
        return load_json(line)
    except ValueError as exc:
        raise GameFileError(f"{where}: not valid JSON ({exc})") from None


def _validated(model, obj: object, where: str):
    try:
        return model.model_validate(obj)
    except ValidationError as exc:
        raise GameFileError(f"{where}: invalid:\n" + format_validation_error(exc)) from None


def read_game(lines: list[str], path: str = "game") -> tuple[rg.Options, list[rg.GameState], list[dict]]:
    """Options, every state (before the first event, then after each) and the events as
    decoded, from the file's lines. Raises GameFileError or rg.GameError (naming the line)."""
    rows = [(i, ln) for i, ln in enumerate(lines, 1) if ln.strip()]
    if not rows:
        raise GameFileError(f"{path}: empty: the first line names the players "
                            '({"type": "game", "players": [...]})')
    i, first = rows[0]
    header = _validated(HeaderIn, _decode(first, f"{path}:{i}"), f"{path}:{i}")
    options = header.options.options()
    states = [rg.new_game(header.players, options)]
    decoded = []
    for i, line in rows[1:]:
        where = f"{path}:{i}"
        obj = _decode(line, where)
        ev = _validated(_Event, {"event": obj}, where).event
        try:
            states.append(rg.apply(states[-1], to_event(states[-1], ev), options))
        except rg.GameError as exc:
            raise rg.GameError(exc.code, f"{where}: {str(exc).split(': ', 1)[1]}") from None
        decoded.append(obj)
    return options, states, decoded


def _describe(obj: dict) -> str:
    """``riichi player="Bob"``: an event as one short line."""
    return " ".join([str(obj.get("type"))] + [f"{k}={json.dumps(v, ensure_ascii=False)}"
                                             for k, v in obj.items() if k != "type"])


def report(options: rg.Options, states: list[rg.GameState], events: list[dict],
           as_json: bool) -> list[str]:
    """The lines printed: the standings after each event, and the ranking at the end."""
    out = []
    for n, (state, ev) in enumerate(zip(states, [None] + events)):
        if as_json:
            out.append(json.dumps({
                "event": n, "round": state.round_name, "ended": state.ended,
                "honba": state.honba, "sticks": state.sticks,
                "dealer": state.players[state.dealer],
                "points": dict(zip(state.players, state.points)),
                "lines": list(state.lines)}, ensure_ascii=False))
        else:
            out.append(("start" if ev is None else f"#{n} {_describe(ev)}") + "\n  "
                       + "\n  ".join(list(state.lines) + [rg.standings_line(state)]))
    if states[-1].ended:
        ranking = rg.final_ranking(states[-1], options)
        if as_json:
            out.append(json.dumps({"ended": states[-1].ended, "ranking": [
                {"name": r.name, "place": r.place, "points": r.points, "uma": float(r.uma),
                 "oka": float(r.oka), "penalty": r.penalty, "final": float(r.final)}
                for r in ranking]}, ensure_ascii=False))
        else:
            out.append(f"game over: {states[-1].ended}")
            out.extend(f"  {r.place}. {r.name} {r.points} → {float(r.final) / 1000:+.1f}"
                       + (f" (chombo {r.penalty})" if r.penalty else "") for r in ranking)
    return out


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = __doc__.split("\n", 2)[2].replace("::\n", ":\n").replace("``", "")
    parser.add_argument("file", help="the game's JSON Lines file")
    act = parser.add_mutually_exclusive_group()
    act.add_argument("--new", nargs=4, metavar="PLAYER",
                     help="start FILE with these players, East first (refused if FILE exists)")
    act.add_argument("--add", metavar="EVENT", help="append one event (a JSON object)")
    act.add_argument("--undo", action="store_true", help="take the last event out of FILE")
    parser.add_argument("--options", metavar="JSON", default="{}",
                        help='with --new: rule options, e.g. \'{"preset": "ema"}\'')
    parser.add_argument("--json", action="store_true", help="one JSON object a line")


def _write(path: str, lines: list[str]) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write("".join(ln.rstrip("\n") + "\n" for ln in lines))
    os.replace(tmp, path)


def run(args: argparse.Namespace) -> int:
    path = args.file
    if args.options != "{}" and not args.new:
        return fail("game", "--options go with --new: the options are the file's first line")
    try:
        if args.new:
            if os.path.exists(path):
                raise GameFileError(f"{path} exists: a new game needs a new file")
            opts = _decode(args.options, "--options")
            header = {"type": "game", "players": args.new, "options": opts}
            read_game([json.dumps(header)], path)            # refuses bad names or options
            lines = [json.dumps(header, ensure_ascii=False)]
        else:
            try:
                with open(path, encoding="utf-8-sig") as fh:
                    lines = [ln.rstrip("\n") for ln in fh]
            except OSError as exc:
                raise GameFileError(f"cannot read {path}: {exc.strerror or exc}") from None
            read_game(lines, path)                            # the file as it stands is sound
            if args.add is not None:
                obj = _decode(args.add, "--add")
                lines.append(json.dumps(obj, ensure_ascii=False))
            elif args.undo:
                while lines and not lines[-1].strip():
                    lines.pop()
                if len(lines) <= 1:
                    raise GameFileError(f"{path}: no event to undo")
                lines.pop()
        options, states, events = read_game(lines, path)
    except GameFileError as exc:
        return fail("game", str(exc))
    except rg.GameError as exc:
        return fail("game", str(exc).replace(f"{path}:{len(lines)}", "--add")
                    if args.add is not None else str(exc))
    if args.new or args.add is not None or args.undo:
        _write(path, lines)
    print("\n".join(report(options, states, events, args.json)))
    return 0
