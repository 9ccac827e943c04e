"""A game file: the JSON Lines of one game's events, read, checked and written.

The shapes (docs/game-json.md): a first line naming the players and the options, then one
event a line. :func:`read_game` validates every line (pydantic models below) and replays the
events through the ledger (:mod:`scoring.tournament.riichi_game`), :func:`to_event` turns one
validated line into the ledger's event, :func:`write_game` replaces the file atomically.
Shared by ``tilescope game``, the server's table mode (vision/routes/game.py) and the stream.
"""
from __future__ import annotations

import os
from dataclasses import replace
from typing import Annotated, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, ValidationError

from scoring.tournament import mcr_game as mcr
from scoring.tournament import riichi_game as rg
from vision.validation import Name, format_validation_error


Options = Union[rg.Options, mcr.McrOptions]
State = Union[rg.GameState, mcr.McrState]


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
    ruleset: Literal["riichi", "mcr"] = "riichi"
    players: Annotated[list[Name], Field(min_length=4, max_length=4)]
    options: OptionsIn = OptionsIn()

    def ledger_options(self) -> rg.Options | mcr.McrOptions:
        if self.ruleset == "mcr":
            if self.options.model_dump(exclude_none=True):
                raise GameFileError("an MCR session takes no options (they are riichi's): "
                                    f"got {sorted(self.options.model_dump(exclude_none=True))}")
            return mcr.McrOptions()
        return self.options.options()


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
    kans: list[Name] = []


class ChomboIn(_Strict):
    type: Literal["chombo"]
    player: Name
    reason: str = ""


EventIn = Annotated[Union[RiichiIn, TsumoIn, RonIn, DrawIn, AbortiveIn, ChomboIn],
                    Field(discriminator="type")]


class McrValueIn(_Strict):
    fan: StrictInt | None = None
    flowers: StrictInt = 0
    hand: dict | None = None


class McrWinnerIn(McrValueIn):
    player: Name


class McrRonIn(_Strict):
    type: Literal["ron"]
    discarder: Name
    winners: Annotated[list[McrWinnerIn], Field(min_length=1)]


class McrTsumoIn(McrValueIn):
    type: Literal["tsumo"]
    player: Name


class McrDrawIn(_Strict):
    type: Literal["draw"]


class FalseWinIn(_Strict):
    type: Literal["false_win"]
    player: Name
    kind: Literal["short", "invalid"]


McrEventIn = Annotated[Union[McrRonIn, McrTsumoIn, McrDrawIn, FalseWinIn],
                       Field(discriminator="type")]


class _McrEvent(BaseModel):
    event: McrEventIn


def _mcr_value(state: mcr.McrState, player: str, v: McrValueIn, win: str) -> mcr.McrWin:
    """The typed points, or the scored hand's (seat and prevailing wind, win from the
    ledger); a hand that is no win is refused, naming why."""
    if (v.hand is None) == (v.fan is None):
        raise rg.GameError(rg.E_BAD_VALUE, f"{player}'s win: give the points ('fan') or the "
                                           "hand ('hand'), one of them")
    if v.hand is None:
        return mcr.McrWin(v.fan, v.flowers)
    from scoring.hand import HandError
    from scoring.request import parse_request
    from scoring.verdict import check

    if player not in state.players:
        raise rg.GameError(rg.E_UNKNOWN_PLAYER, f"{player!r} is not at this table")
    filled = {"ruleset": "mcr", "seat_wind": state.seat_wind(state.players.index(player))[0],
              "round_wind": rg.WINDS[state.round][0], "win": win, **v.hand}
    try:
        verdict = check(parse_request(filled))
    except HandError as exc:
        raise rg.GameError(rg.E_BAD_VALUE, f"{player}'s hand: {exc}") from None
    r = verdict.result or {}
    if not verdict.valid:
        code = mcr.E_UNDER_8 if r.get("total_without_flowers") is not None else rg.E_BAD_VALUE
        raise rg.GameError(code, f"{player}'s hand: {verdict.ruling}: {verdict.explanation}")
    return mcr.McrWin(r["total"], r["total"] - r["total_without_flowers"])


def to_mcr_event(state: mcr.McrState, e: McrEventIn) -> mcr.McrEvent:
    """The MCR ledger's event for one validated line: one winner a discard (Green Book)."""
    if isinstance(e, McrRonIn):
        if len(e.winners) > 1:
            raise rg.GameError(rg.E_WINNERS, "MCR gives a discard to one winner, the nearest "
                               f"the discarder in turn; got {len(e.winners)}")
        w = e.winners[0]
        return mcr.McrRon(e.discarder, w.player, _mcr_value(state, w.player, w, "ron"))
    if isinstance(e, McrTsumoIn):
        return mcr.McrTsumo(e.player, _mcr_value(state, e.player, e, "tsumo"))
    if isinstance(e, McrDrawIn):
        return mcr.McrDraw()
    return mcr.FalseHu(e.player, e.kind)


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
        return rg.Abortive(e.reason, tuple(e.kans))
    return rg.Chombo(e.player, e.reason)


class GameFileError(ValueError):
    """The file cannot be read as a game."""


def decode_json(line: str, where: str) -> object:
    """The JSON value of ``line``; GameFileError naming ``where`` if it is not JSON."""
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


def read_game(lines: list[str], path: str = "game") -> tuple[Options, list[State], list[dict]]:
    """Options (riichi's, or McrOptions for a ``"ruleset": "mcr"`` header), every state (before the first event, then after each) and the events as
    decoded, from the file's lines. Raises GameFileError or rg.GameError (naming the line)."""
    rows = [(i, ln) for i, ln in enumerate(lines, 1) if ln.strip()]
    if not rows:
        raise GameFileError(f"{path}: empty: the first line names the players "
                            '({"type": "game", "players": [...]})')
    i, first = rows[0]
    header = _validated(HeaderIn, decode_json(first, f"{path}:{i}"), f"{path}:{i}")
    try:
        options = header.ledger_options()
    except GameFileError as exc:
        raise GameFileError(f"{path}:{i}: {exc}") from None
    is_mcr = isinstance(options, mcr.McrOptions)
    states = [mcr.new_game(header.players) if is_mcr else rg.new_game(header.players, options)]
    decoded = []
    for i, line in rows[1:]:
        where = f"{path}:{i}"
        obj = decode_json(line, where)
        ev = _validated(_McrEvent if is_mcr else _Event, {"event": obj}, where).event
        try:
            states.append(mcr.apply(states[-1], to_mcr_event(states[-1], ev)) if is_mcr
                          else rg.apply(states[-1], to_event(states[-1], ev), options))
        except rg.GameError as exc:
            raise rg.GameError(exc.code, f"{where}: {str(exc).split(': ', 1)[1]}") from None
        decoded.append(obj)
    return options, states, decoded


def write_game(path: str, lines: list[str]) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write("".join(ln.rstrip("\n") + "\n" for ln in lines))
    os.replace(tmp, path)


def state_json(state: State, n: int = 0) -> dict:
    """One state as the JSON the CLI's --json and the server give (``n``: events so far)."""
    return {"event": n, "ruleset": "mcr" if isinstance(state, mcr.McrState) else "riichi",
            "round": state.round_name, "ended": state.ended,
            "honba": state.honba, "sticks": state.sticks,
            "dealer": state.players[state.dealer],
            "winds": {p: state.seat_wind(s) for s, p in enumerate(state.players)},
            "points": dict(zip(state.players, state.points)),
            "lines": list(state.lines)}


def standings_line(state: State) -> str:
    """The one-line standings of either ledger."""
    return (mcr if isinstance(state, mcr.McrState) else rg).standings_line(state)


def ranking_json(state: State, options: Options) -> list[dict]:
    """The final ranking as JSON: riichi: name, place, points, uma, oka, penalty, final;
    MCR: name, place, points, table_points."""
    if isinstance(state, mcr.McrState):
        return [{"name": r.name, "place": r.place, "points": r.points,
                 "table_points": float(r.table_points)} for r in mcr.final_ranking(state)]
    return [{"name": r.name, "place": r.place, "points": r.points, "uma": float(r.uma),
             "oka": float(r.oka), "penalty": r.penalty, "final": float(r.final)}
            for r in rg.final_ranking(state, options)]


def ranking_lines(state: State, options: Options) -> list[str]:
    """The final ranking as text, one player a line."""
    if isinstance(state, mcr.McrState):
        return [f"  {r.place}. {r.name} {r.points} → {float(r.table_points):g} table points"
                for r in mcr.final_ranking(state)]
    return [f"  {r.place}. {r.name} {r.points} → {float(r.final) / 1000:+.1f}"
            + (f" (chombo {r.penalty})" if r.penalty else "")
            for r in rg.final_ranking(state, options)]
