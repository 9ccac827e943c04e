"""Xiangqi (象棋) knockout: the bracket, byes, forfeits and places 1-3 (issue 32).

Source: seed text ``002``, section 七 (二) 象棋比赛规则, and sections 六 and 九:

* 六: 比赛以抽签决定比赛顺序 — the order of play is drawn by lots (here: a seeded shuffle, so
  the same seed draws the same bracket).
* (1) 比赛采用每轮淘汰制，一局定胜负 — a knockout, each round; one game decides.
* (2) 比赛开始10分钟未进场的选手作弃权处理，对手直接晋级 — a player not seated 10 minutes after
  the start forfeits; the opponent advances.
* (3) 抽号轮空选手直接晋级 — a player whose lot is a bye advances.
* (4) 每局比赛限时30分钟，超时开始读秒，每15秒一步，超时两次除去比赛资格，对手直接晋级 — 30
  minutes a game, then 15 seconds a move; over time twice: out, the opponent advances.
* (5) 比赛过程中未经对方允许不许悔棋，悔棋者直接淘汰 — a take-back without the opponent's
  consent: out.
* 九: 比赛设一、二、三等奖各一名 — one first, one second, one third prize.

Where the text is silent this module follows common knockout practice and says so: the
bracket is the next power of two, the byes fall to the first players drawn, one to a pair, so
that only the first round has byes; a drawn game cannot stand (one game decides: the result
names the winner the arbiter declared); third place is a game between the two semi-final
losers (a semi-final loser whose opponent had a bye is third without one); both players of a
game forfeiting is the arbiter's to rule and is refused here.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Literal, Sequence

LATE_MINUTES = 10          # (2) 比赛开始10分钟未进场
TIME_VIOLATIONS = 2        # (4) 超时两次除去比赛资格
GAME_MINUTES = 30          # (4) 每局比赛限时30分钟
BYOYOMI_SECONDS = 15       # (4) 每15秒一步

Forfeit = Literal["late", "time", "takeback"]
FORFEIT_LINES = {
    "late": "(2) 比赛开始10分钟未进场的选手作弃权处理，对手直接晋级",
    "time": "(4) 超时两次除去比赛资格，对手直接晋级",
    "takeback": "(5) 未经对方允许不许悔棋，悔棋者直接淘汰",
}
BYE_LINE = "(3) 抽号轮空选手直接晋级"


class XiangqiError(ValueError):
    """A bracket or a result the rules cannot apply (a forfeit that is none, a game between
    players who do not meet, a drawn game, …)."""


@dataclass(frozen=True, slots=True)
class Result:
    """One game's outcome. ``players``: the two who were to play. ``winner``: who won on the
    board, or None when the game was forfeited. ``forfeit``: the player who forfeited and
    ``reason`` ("late" with ``minutes`` after the start, "time" with ``violations``,
    "takeback" with ``consent``)."""

    players: tuple[str, str]
    winner: str | None = None
    forfeit: str | None = None
    reason: Forfeit | None = None
    minutes: float | None = None
    violations: int | None = None
    consent: bool = False


@dataclass(frozen=True, slots=True)
class Match:
    """A pairing: ``players`` (second None for a bye), ``stage`` ("round 1", …, "semi-final",
    "final", "third place"), ``winner``/``loser`` when decided, ``how``: the rule's line."""

    stage: str
    players: tuple[str, str | None]
    winner: str | None = None
    loser: str | None = None
    how: str | None = None


@dataclass(frozen=True, slots=True)
class Knockout:
    """The tournament so far: ``rounds`` of matches, ``pending``: matches waiting for a
    result, ``places``: {1: name, 2: name, 3: name} as far as decided."""

    bracket: tuple[tuple[str, str | None], ...]
    rounds: tuple[tuple[Match, ...], ...]
    pending: tuple[Match, ...]
    places: dict[int, str]
    finished: bool


def draw_bracket(players: Sequence[str], seed: int) -> tuple[tuple[str, str | None], ...]:
    """The first round drawn by lots (六: 比赛以抽签决定比赛顺序): a shuffle by ``seed``; the
    first players drawn take the byes, one to a pair, up to the next power of two."""
    if isinstance(players, str) or not all(isinstance(p, str) and p.strip() for p in players):
        raise XiangqiError(f"players must be a list of names, got {players!r}")
    if len(players) < 2:
        raise XiangqiError(f"a knockout needs at least 2 players, got {len(players)}")
    if len(set(players)) != len(players):
        twice = sorted({p for p in players if list(players).count(p) > 1})
        raise XiangqiError(f"players named twice: {twice}")
    order = list(players)
    random.Random(seed).shuffle(order)
    size = 1 << (len(order) - 1).bit_length()
    byes = size - len(order)
    pairs: list[tuple[str, str | None]] = [(p, None) for p in order[:byes]]
    rest = order[byes:]
    pairs += [(rest[i], rest[i + 1]) for i in range(0, len(rest), 2)]
    return tuple(pairs)


def _stage(n_matches: int, round_no: int) -> str:
    return {1: "final", 2: "semi-final"}.get(n_matches, f"round {round_no}")


def _decide(match: Match, r: Result) -> Match:
    a, b = match.players
    if r.winner is not None and r.forfeit is not None:
        raise XiangqiError(f"{a} v {b}: give a winner or a forfeit, not both")
    if r.forfeit is not None:
        if r.forfeit not in (a, b):
            raise XiangqiError(f"{a} v {b}: the forfeit names {r.forfeit!r}, who is not in "
                               "this game")
        if r.reason == "late":
            if r.minutes is None or r.minutes <= LATE_MINUTES:
                raise XiangqiError(f"{r.forfeit} was {r.minutes} minutes late: a forfeit only "
                                   f"after {LATE_MINUTES} (比赛开始10分钟未进场)")
        elif r.reason == "time":
            if r.violations is None or r.violations < TIME_VIOLATIONS:
                raise XiangqiError(f"{r.forfeit} went over time {r.violations} time(s): out "
                                   f"only at {TIME_VIOLATIONS} (超时两次除去比赛资格)")
        elif r.reason == "takeback":
            if r.consent:
                raise XiangqiError(f"{r.forfeit}'s take-back had the opponent's consent: no "
                                   "forfeit (未经对方允许不许悔棋)")
        else:
            raise XiangqiError(f"a forfeit's reason is late, time or takeback, got {r.reason!r}")
        winner = b if r.forfeit == a else a
        return Match(match.stage, match.players, winner, r.forfeit,
                     f"{r.forfeit} forfeits: {FORFEIT_LINES[r.reason]}")
    if r.winner is None:
        raise XiangqiError(f"{a} v {b}: one game decides (一局定胜负): name the winner "
                           "(a drawn game: the winner the arbiter declared)")
    if r.winner not in (a, b):
        raise XiangqiError(f"{a} v {b}: the winner {r.winner!r} is not in this game")
    return Match(match.stage, match.players, r.winner, b if r.winner == a else a,
                 "won the game: (1) 一局定胜负")


def run_knockout(players: Sequence[str], seed: int, results: Sequence[Result]) -> Knockout:
    """The knockout after ``results`` (in any order; each names the two players of a game now
    due). Raises XiangqiError for a result that fits no pending game or breaks a rule above."""
    bracket = draw_bracket(players, seed)
    left = list(results)
    for r in left:
        if not isinstance(r.players, tuple) or len(r.players) != 2 or r.players[0] == r.players[1]:
            raise XiangqiError(f"a result names two different players, got {r.players!r}")

    def take(m: Match) -> Match:
        if m.players[1] is None:
            return Match(m.stage, m.players, m.players[0], None, f"bye: {BYE_LINE}")
        for i, r in enumerate(left):
            if set(r.players) == set(m.players):
                del left[i]
                return _decide(m, r)
        return m

    rounds: list[tuple[Match, ...]] = []
    places: dict[int, str] = {}
    pairs = list(bracket)
    round_no = 1
    pending: list[Match] = []
    third: Match | None = None
    while True:
        stage = _stage(len(pairs), round_no)
        played = tuple(take(Match(stage, p)) for p in pairs)
        if stage == "semi-final" and all(m.winner for m in played):
            losers = [m.loser for m in played if m.loser is not None]
            if len(losers) == 2:
                third = take(Match("third place", (losers[0], losers[1])))
            elif losers:
                third = Match("third place", (losers[0], None), losers[0], None,
                              "the only semi-final loser (the other semi-final was a bye)")
        rounds.append(played + ((third,) if third is not None and stage == "semi-final" else ()))
        pending += [m for m in rounds[-1] if m.winner is None]
        if any(m.winner is None for m in played):
            break
        if stage == "final":
            places[1], places[2] = played[0].winner, played[0].loser
            break
        winners = [m.winner for m in played]
        pairs = [(winners[i], winners[i + 1]) for i in range(0, len(winners), 2)]
        round_no += 1
    if third is not None and third.winner is not None:
        places[3] = third.winner
    if left:
        r = left[0]
        raise XiangqiError(f"no game {r.players[0]} v {r.players[1]} is due: the result fits "
                           "no pairing of the bracket so far")
    finished = not pending
    return Knockout(bracket, tuple(rounds), tuple(pending), dict(sorted(places.items())),
                    finished)
