"""A game file: the JSON Lines of one game's events, read, checked and written.

The shapes (docs/game-json.md): a first line naming the players and the options, then one
event a line. :func:`read_game` validates every line (pydantic models below) and replays the
events through the ledger (:mod:`scoring.tournament.riichi_game`), :func:`to_event` turns one
validated line into the ledger's event, :func:`write_game` replaces the file atomically.
Shared by ``tilescope game``, the server's table mode (vision/server/routes/game.py) and the stream.
"""
from __future__ import annotations

import json
import os
from dataclasses import replace
from typing import Annotated, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, ValidationError

from scoring.tournament import mcr_game as mcr
from scoring.tournament import riichi_game as rg
from scoring.hand import MAX_COUNTERS
from vision.common.validation import Name


Options = Union[rg.Options, mcr.McrOptions]
State = Union[rg.GameState, mcr.McrState]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


# points a game's options may name: a club's start is 25,000-30,000, uma and penalties tens of
# thousands; ten million is past any table and keeps the ledger's sums readable
MAX_POINTS = 10_000_000
Points = Annotated[StrictInt, Field(ge=-MAX_POINTS, le=MAX_POINTS)]


class OptionsIn(_Strict):
    preset: Literal["ema"] | None = None
    start: Annotated[StrictInt, Field(ge=1, le=MAX_POINTS)] | None = None
    return_points: Annotated[StrictInt, Field(ge=0, le=MAX_POINTS)] | None = None
    uma: Annotated[list[Points], Field(min_length=4, max_length=4)] | None = None
    east_only: StrictBool | None = None
    bust_ends: StrictBool | None = None
    two_han_from_five: StrictBool | None = None
    honba_to_each_winner: StrictBool | None = None
    chombo: Literal["mangan", "tournament"] | None = None
    # what the offender loses at the final ranking: -50000 paid the offender
    chombo_penalty: Annotated[StrictInt, Field(ge=0, le=MAX_POINTS)] | None = None

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
    reason: Annotated[str, Field(max_length=200)] = ""     # as a dead hand's and a penalty's


class RiichiDeadHandIn(_Strict):
    type: Literal["dead_hand"]
    player: Name
    reason: Annotated[str, Field(max_length=200)] = ""


EventIn = Annotated[Union[RiichiIn, TsumoIn, RonIn, DrawIn, AbortiveIn, ChomboIn, RiichiDeadHandIn],
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


class DeadHandIn(_Strict):
    type: Literal["dead_hand"]
    player: Name
    reason: Annotated[str, Field(max_length=200)] = ""


class PenaltyIn(_Strict):
    type: Literal["penalty"]
    player: Name
    kind: Literal["infraction", "delay_of_game"] = "infraction"
    reason: Annotated[str, Field(max_length=200)] = ""


McrEventIn = Annotated[Union[McrRonIn, McrTsumoIn, McrDrawIn, FalseWinIn, DeadHandIn, PenaltyIn],
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
    if v.flowers:
        # the scored hand counts its own flowers: one beside it was dropped unsaid
        raise rg.GameError(rg.E_BAD_VALUE, f"{player}'s flowers go in the hand when it is "
                           f"scored (\"hand\": {{..., \"flowers\": {v.flowers}}}), not beside it")
    from scoring.hand import HandError
    from scoring.request import parse_request
    from scoring.verdict import check

    if player not in state.players:
        raise rg.GameError(rg.E_UNKNOWN_PLAYER, f"{player!r} is not at this table")
    seat = state.players.index(player)
    filled = with_ledger_keys(player, v.hand, {
        "ruleset": ("mcr", "the session is MCR"),
        "win": (win, f"the event is a {win}"),
        "seat_wind": (state.seat_wind(seat)[0], f"{player} sits {state.seat_wind(seat)} "
                                                f"in {state.round_name}"),
        "round_wind": (rg.WINDS[state.round][0], f"the round is {rg.WINDS[state.round]}")})
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
    if isinstance(e, DeadHandIn):
        return mcr.DeadHand(e.player, e.reason)
    if isinstance(e, PenaltyIn):
        return mcr.Penalty(e.player, e.kind, e.reason)
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
    typed = [k for k in ("han", "fu", "yakuman", "dora", "furiten") if getattr(v, k)]
    if typed:
        # the scored hand has its own: typed ones beside it were dropped unsaid
        raise rg.GameError(rg.E_BAD_VALUE, f"{player}'s win: give the hand or the typed value "
                           f"({', '.join(typed)}), not both (a furiten ron is refused from the "
                           "hand's \"discards\")")
    r = scored_win(state, player, v.hand, win, v.discards)
    limit = r.get("limit") or ""
    if limit.endswith("yakuman") and not limit.startswith("kazoe"):
        return rg.Value(yakuman=r["han"] // 13)
    dora = sum(r["dora"].values())
    return rg.Value(han=r["han"], fu=r["fu"], dora=dora)


def scored_win(state: rg.GameState, player: str, hand: dict, win: str,
               discards: str | None = None) -> dict:
    """The scorer's result (``tilescope hand --json``'s) for ``player``'s ``hand`` won by
    ``win`` in the hand in play, the ledger's keys filled in (seat, round, win, counters,
    sticks, riichi); a hand that is no valid win is refused (GameError naming why)."""
    from scoring.hand import HandError
    from scoring.request import parse_request
    from scoring.verdict import RIICHI_FURITEN, check

    seat = state.players.index(player) if player in state.players else -1
    if seat < 0:
        raise rg.GameError(rg.E_UNKNOWN_PLAYER, f"{player!r} is not at this table")
    in_riichi = seat in state.in_riichi
    filled = with_ledger_keys(player, hand, {
        "ruleset": ("riichi", "the game is riichi"),
        "win": (win, f"the event is a {win}"),
        "seat_wind": (state.seat_wind(seat)[0], f"{player} sits {state.seat_wind(seat)} "
                                                f"in {state.round_name}"),
        "round_wind": (rg.WINDS[state.round][0], f"the round is {rg.WINDS[state.round]}"),
        # the hand's han and fu do not depend on the counters (the ledger pays them itself):
        # past the hand's own range (99) they are given as 99, not refused (every win was)
        "honba": (min(state.honba, MAX_COUNTERS), f"{state.honba} counter(s) on the table"),
        "riichi_sticks": (min(state.sticks, MAX_COUNTERS),
                          f"{state.sticks} riichi stick(s) on the table"),
        # a double riichi is a riichi the ledger cannot tell apart: the hand may say so
        "riichi": (("riichi", "double") if in_riichi else ("none",),
                   f"{player} {'declared' if in_riichi else 'did not declare'} riichi "
                   "this hand")})
    try:
        verdict = check(parse_request(filled), discards=discards or ())
    except HandError as exc:
        raise rg.GameError(rg.E_BAD_VALUE, f"{player}'s hand: {exc}") from None
    if not verdict.valid:
        code = rg.E_FURITEN if verdict.ruling == RIICHI_FURITEN else rg.E_BAD_VALUE
        raise rg.GameError(code, f"{player}'s hand: {verdict.ruling}: {verdict.explanation}")
    return verdict.result


def with_ledger_keys(player: str, hand: dict, ledger: dict[str, tuple]) -> dict:
    """``hand`` with the keys the ledger decides (``ledger``: key → (value or tuple of the
    values it allows, the ledger's reason)) set where absent; a hand that says otherwise is
    refused naming the key, never scored with the two mixed."""
    filled = dict(hand)
    for key, (value, why) in ledger.items():
        allowed = value if isinstance(value, tuple) else (value,)
        if key not in hand:
            filled[key] = allowed[0]
        elif hand[key] not in allowed or type(hand[key]) is not type(allowed[0]):
            raise rg.GameError(rg.E_HAND_VS_LEDGER, f"{player}'s hand says "
                               f"{json.dumps(key)}: {json.dumps(hand[key], ensure_ascii=False)}"
                               f" but {why} ({json.dumps(key)}: {json.dumps(allowed[0])})")
    return filled


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
    if isinstance(e, RiichiDeadHandIn):
        return rg.DeadHand(e.player, e.reason)
    return rg.Chombo(e.player, e.reason)


class GameFileError(ValueError):
    """The file cannot be read as a game."""


def decode_json(line: str, where: str) -> object:
    """The JSON value of ``line``; GameFileError naming ``where`` if it is not JSON."""
    from vision.common.jsontext import load_json
    try:
        return load_json(line)
    except ValueError as exc:
        raise GameFileError(f"{where}: not valid JSON ({exc})") from None


# pydantic's words for a wrong type, said as a scorekeeper would
_SHOULD = {"int_type": "should be a whole number", "int_parsing": "should be a whole number",
           "bool_type": "should be true or false", "string_type": "should be a string",
           "list_type": "should be a list", "dict_type": "should be a JSON object",
           "model_type": "should be a JSON object", "string_too_short": "should not be empty",
           "model_attributes_type": "should be a JSON object"}
_RANGE = {"greater_than_equal": ("at least", "ge"), "less_than_equal": ("at most", "le")}
EVENT_TYPES = ("riichi", "tsumo", "ron", "draw", "abortive", "chombo", "dead_hand")
MCR_EVENT_TYPES = ("ron", "tsumo", "draw", "false_win", "dead_hand", "penalty")


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


def _subject(loc: tuple) -> tuple[str, list]:
    """Who the problem is about (« a ron event's winner #1 », « the options ») and the key
    path left under it."""
    loc = list(loc)
    if loc[:1] == ["event"]:
        if len(loc) < 2:
            return "an event", []
        subject, rest = f"a {loc[1]} event", loc[2:]
        if rest[:1] == ["winners"] and len(rest) > 1 and isinstance(rest[1], int):
            subject, rest = f"{subject}'s winner #{rest[1] + 1}", rest[2:]
        return subject, rest
    if loc[:1] == ["options"]:
        return "the options", loc[1:]
    return "the game", loc


def say_invalid(exc: ValidationError, types: tuple[str, ...] = EVENT_TYPES) -> str:
    """The first thing wrong with a line, in one line and the user's words (« a riichi event
    needs "player" »); ``types``: the event types of the game, to name them."""
    errors = exc.errors()
    err = errors[0]
    subject, rest = _subject(err["loc"])
    key = ".".join(f"#{p + 1}" if isinstance(p, int) else str(p) for p in rest)
    kind, ctx, got = err["type"], err.get("ctx") or {}, err.get("input")
    if kind == "missing":
        text = f"{subject} needs {_json(key)}"
    elif kind == "extra_forbidden":
        text = f"{subject} take{'' if subject == 'the options' else 's'} no {_json(key)}"
    elif kind == "union_tag_invalid":
        text = f'"type": {_json(ctx.get("tag"))} is no event: one of {", ".join(types)}'
    elif kind == "union_tag_not_found":
        text = f'an event needs "type": one of {", ".join(types)}'
    elif key == "players" and kind in ("too_short", "too_long"):
        text = f"a game has 4 players, got {ctx.get('actual_length')}"
    else:
        if kind in ("too_short", "too_long"):
            n = ctx.get("min_length") if kind == "too_short" else ctx.get("max_length")
            should = (f"should have {'at least' if kind == 'too_short' else 'at most'} {n} "
                      f"item{'' if n == 1 else 's'}")
        elif kind == "literal_error":
            should = "should be " + str(ctx.get("expected", "")).replace("'", '"')
        else:
            should = (f"should be {_RANGE[kind][0]} {ctx.get(_RANGE[kind][1]):,}" if kind in _RANGE
                      else _SHOULD.get(kind) or err["msg"][:1].lower() + err["msg"][1:])
        shown = (f", got {_json(got)[:40]}" if not isinstance(got, dict)
                 else "")
        whose = subject + ("'" if subject.endswith("s") else "'s")
        text = (f"{whose} {_json(key)} " if key else f"{subject} ") + should + shown
    return text + (f" (and {len(errors) - 1} more problem(s))" if len(errors) > 1 else "")


def _at(where: str, message: str) -> str:
    return f"{where}: {message}" if where else message


def _validated(model, obj: object, where: str, types: tuple[str, ...] = EVENT_TYPES):
    try:
        return model.model_validate(obj)
    except ValidationError as exc:
        raise GameFileError(_at(where, say_invalid(exc, types))) from None


def read_game(lines: list[str], path: str = "game", new: str | None = None
              ) -> tuple[Options, list[State], list[dict]]:
    """Options (riichi's, or McrOptions for a ``"ruleset": "mcr"`` header), every state
    (before the first event, then after each) and the events as decoded, from the file's
    lines. Raises GameFileError or rg.GameError naming the line (``path:n``); ``new``: how
    to name the last line instead, the one being added (``"--add"``; ``""``: not at all)."""
    rows = [(i, ln) for i, ln in enumerate(lines, 1) if ln.strip()]
    if not rows:
        raise GameFileError(f"{path}: empty: the first line names the players "
                            '({"type": "game", "players": [...]})')

    def where(i: int) -> str:
        return new if new is not None and i == rows[-1][0] else f"{path}:{i}"

    i, first = rows[0]
    obj = decode_json(first, where(i))
    if isinstance(obj, dict) and obj.get("type", "game") != "game":
        raise GameFileError(_at(where(i), 'the first line names the players ({"type": "game", '
                                f'"players": [...]}}), not a {_json(obj["type"])} event'))
    header = _validated(HeaderIn, obj, where(i))
    try:
        options = header.ledger_options()
    except GameFileError as exc:
        raise GameFileError(_at(where(i), str(exc))) from None
    is_mcr = isinstance(options, mcr.McrOptions)
    states = [mcr.new_game(header.players) if is_mcr else rg.new_game(header.players, options)]
    decoded = []
    for i, line in rows[1:]:
        obj = decode_json(line, where(i))
        ev = _validated(_McrEvent if is_mcr else _Event, {"event": obj}, where(i),
                        MCR_EVENT_TYPES if is_mcr else EVENT_TYPES).event
        try:
            states.append(mcr.apply(states[-1], to_mcr_event(states[-1], ev)) if is_mcr
                          else rg.apply(states[-1], to_event(states[-1], ev), options))
        except rg.GameError as exc:
            raise rg.GameError(exc.code, _at(where(i), str(exc).split(": ", 1)[1])) from None
        decoded.append(obj)
    return options, states, decoded


def read_lines(path: str) -> list[str]:
    """The file's lines; GameFileError, one line, when it cannot be read as text (a FIFO or
    other non-regular file is refused by name before it is opened: it would block)."""
    from vision.common.safe_files import read_text

    try:
        return split_lines(read_text(path))
    except OSError as exc:
        raise GameFileError(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise GameFileError(f"{path} is not a game's JSON Lines (not UTF-8 text)") from None


def split_lines(text: str) -> list[str]:
    """A file's text (newlines as Python's text mode reads them) → its lines, as iterating
    the open file gives them, less their ends."""
    lines = text.split("\n")
    return lines[:-1] if lines[-1] == "" else lines


def write_game(path: str, lines: list[str]) -> None:
    """Replace the file at once: a temporary file in the same folder, created new (never
    through a link planted there), fsynced and renamed (a crash mid-write leaves the old one
    whole). A writer holds :func:`vision.common.safe_files.locked` from its read to this write.
    GameFileError, one line, when it cannot be written."""
    from vision.common.safe_files import atomic_write

    try:
        atomic_write(path, "".join(ln.rstrip("\n") + "\n" for ln in lines))
    except FileNotFoundError:
        raise GameFileError(f"cannot write {path}: no such folder "
                            f"{os.path.dirname(os.path.abspath(path))}") from None
    except OSError as exc:
        raise GameFileError(f"cannot write {path}: {exc.strerror or exc}") from None


def state_json(state: State, n: int = 0) -> dict:
    """One state as the JSON the CLI's --json and the server give (``n``: events so far)."""
    return {"event": n, "ruleset": "mcr" if isinstance(state, mcr.McrState) else "riichi",
            "round": state.round_name, "ended": state.ended,
            "honba": state.honba, "sticks": state.sticks,
            "dealer": state.players[state.dealer],
            "winds": {p: state.seat_wind(s) for s, p in enumerate(state.players)},
            "points": dict(zip(state.players, state.points)),
            "penalties": dict(zip(state.players, state.penalties)),
            "dead": [p for s, p in enumerate(state.players) if s in state.dead],
            "lines": list(state.lines)}


def standings_line(state: State) -> str:
    """The one-line standings of either ledger."""
    return (mcr if isinstance(state, mcr.McrState) else rg).standings_line(state)


def ranking_json(state: State, options: Options) -> list[dict]:
    """The final ranking as JSON: riichi: name, place, points, uma, oka, penalty, final;
    MCR: name, place, points, table_points."""
    if isinstance(state, mcr.McrState):
        return [{"name": r.name, "place": r.place, "points": r.points, "penalty": r.penalty,
                 "final": r.final, "table_points": float(r.table_points)}
                for r in mcr.final_ranking(state)]
    return [{"name": r.name, "place": r.place, "points": r.points, "uma": float(r.uma),
             "oka": float(r.oka), "penalty": r.penalty, "final": float(r.final)}
            for r in rg.final_ranking(state, options)]


def ranking_lines(state: State, options: Options) -> list[str]:
    """The final ranking as text, one player a line."""
    if isinstance(state, mcr.McrState):
        return [f"  {r.place}. {r.name} {r.points}"
                + (f" (penalties {r.penalty}: {r.final})" if r.penalty else "")
                + f" → {float(r.table_points):g} table points" for r in mcr.final_ranking(state)]
    return [f"  {r.place}. {r.name} {r.points} → {float(r.final) / 1000:+.1f}"
            + (f" (chombo {r.penalty})" if r.penalty else "")
            for r in rg.final_ranking(state, options)]
