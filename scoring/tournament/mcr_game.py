"""An MCR session's ledger: four players' points over 16 hands, then the table points.

Sources: the Green Book (MCR, 2006) as ``scoring/mcr/RULES.md`` states it, seed text ``000``
(EMA MCR clarifications, Russian) for the 8-point minimum and the false hu, and the EMA table
points of :mod:`scoring.tournament.ema`. The state is a plain value (:class:`McrState`);
:func:`apply` returns the next state for one event or raises
:class:`~scoring.tournament.riichi_game.GameError` naming the impossible event.

* A win on a discard: « the discarder pays 8 + total, each other player 8 »; self-drawn:
  « each of the three pays 8 + total » (RULES.md, Payments). Totals include flowers.
* The minimum: « необходимые 8 очков » (§2.9.2) — a win needs 8 points without flowers
  (RULES.md rule 14: flowers never count toward it); a typed win under it is refused: record
  the false hu instead.
* A false hu revealed (§2.9.2): « 4 правильные комбинации и одна пара, но ... нет ... 8 очков »
  → « уплачивает по 10 очков каждому из других игроков »; an invalid hand → « по 20 очков
  каждому ». The offender's hand is dead and the hand goes on (§2.9.3), so the deal does not
  pass.
* A dead hand (§3.2): « Мертвая рука: нарушитель не может объявлять «ху», но продолжает
  играть » — after a false hu (§2.8.9: « игрок, который открыл свои кости имеет мертвую
  руку ») or a dead hand declared by the referee (§2.9.1, §2.4.3 …: :class:`DeadHand`), that
  player's win in the same hand is refused, naming the rule; the next hand is alive again.
* Penalties (§3.1): « (Повторное) нарушение: предупреждение -> 5 очков -> 10 очков -> 20
  очков -> 30 очков -> и т.д. Эти очки вычитаются из результата нарушителя. » Each
  :class:`Penalty` takes the next step of the player's ladder (a warning first, then 5, 10,
  20, … by :func:`scoring.tournament.ema.escalated_penalty`), one ladder for infractions and
  one for delay of game (§3.6: only that one runs on past the session; a session file starts
  both at 0: ``tilescope table`` takes the earlier sessions' count). The points are kept apart (``penalties``) and subtracted at
  the table points, as ``tilescope table`` does.
* One winner a discard: the Green Book gives a discard to the one claimant nearest the
  discarder in turn; a ron naming two winners is refused.
* An exhaustive draw: nothing is paid.
* Rotation: the deal passes after every hand, whoever won (competition rules: no repeat);
  four rounds (East, South, West, North) of four hands. Seats change between rounds by the
  Green Book's scheme: after the East round East and South swap and West and North swap;
  the West starter then moves W → N → E → S, the North starter N → W → S → E
  (:data:`ROUND_SEATS`, as mahjongdenhaag.nl's "MCR seating scheme" draws it).
* At the end: EMA table points 4 / 2 / 1 / 0 by place, ties sharing
  (:func:`scoring.tournament.ema.shared_table_points`).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Literal, Sequence, Union

from .ema import PENALTY_KINDS, escalated_penalty, shared_table_points
from .riichi_game import (E_BAD_VALUE, E_GAME_OVER, E_PLAYERS, E_RON_BY_DISCARDER,
                          E_UNKNOWN_PLAYER, WINDS, GameError)

BASE = 8                      # « 8 + total » from the discarder, « 8 » from each other player
MIN_POINTS = 8                # « необходимые 8 очков », flowers not counted
FALSE_HU = {"short": 10, "invalid": 20}     # §2.9.2: to each other player
HANDS = 16
# No hand reaches it: the 81 fans of the Green Book's table sum to 1,727 points, no fan counts
# more than four times in a hand (one per set) but Flower Tiles (up to 8, inside the bound).
# A typed total above it is a slip of the keyboard, refused rather than paid.
MAX_FAN = 4 * 1727 + 8

ROUND_SEATS: tuple[tuple[int, int, int, int], ...] = (
    (0, 1, 2, 3), (1, 0, 3, 2), (2, 3, 1, 0), (3, 2, 0, 1))
"""For each round, the player (first seat order) seated East, South, West, North."""

E_UNDER_8 = "under_8_points"
E_FALSE_HU_KIND = "unknown_false_hu"
E_DEAD_HAND = "dead_hand"
E_PENALTY_KIND = "unknown_penalty"

DEAD_HAND_RULE = ("« Мертвая рука: нарушитель не может объявлять «ху», но продолжает играть » "
                  "(seed 000, EMA MCR clarifications §3.2)")
"""The rule a dead hand's win is refused by, quoted."""
PENALTY_RULE = ("« предупреждение -> 5 очков -> 10 очков -> 20 очков -> 30 очков -> и т.д. "
                "Эти очки вычитаются из результата нарушителя » (seed 000 §3.1)")


@dataclass(frozen=True, slots=True)
class McrOptions:
    """An MCR session's options: none yet (the Green Book's competition rules throughout)."""

    ruleset: Literal["mcr"] = "mcr"


@dataclass(frozen=True, slots=True)
class McrWin:
    """``fan``: the hand's total, flowers included; ``flowers``: how many of it are flowers."""

    fan: int
    flowers: int = 0


@dataclass(frozen=True, slots=True)
class McrRon:
    """``winner`` wins on ``discarder``'s tile."""

    discarder: str
    winner: str
    value: McrWin


@dataclass(frozen=True, slots=True)
class McrTsumo:
    """``player`` wins on a self-drawn tile."""

    player: str
    value: McrWin


@dataclass(frozen=True, slots=True)
class McrDraw:
    """The wall is exhausted; nobody pays."""


@dataclass(frozen=True, slots=True)
class FalseHu:
    """``player`` declared hu and revealed a hand that is none: ``kind`` "short" (four sets
    and a pair under 8 points) or "invalid"."""

    player: str
    kind: Literal["short", "invalid"]


@dataclass(frozen=True, slots=True)
class DeadHand:
    """``player``'s hand is dead for the rest of this hand, nothing paid (§2.9.1: hu declared,
    no tiles shown; §2.4.3, §2.6.1, §2.6.3 …): « нарушитель не может объявлять «ху» » (§3.2)."""

    player: str
    reason: str = ""


@dataclass(frozen=True, slots=True)
class Penalty:
    """§3.1: a penalty to ``player``, the next step of their ladder for ``kind``
    ("infraction" or "delay_of_game"): a warning, then 5, 10, 20, 30, … points."""

    player: str
    kind: str = "infraction"
    reason: str = ""


McrEvent = Union[McrRon, McrTsumo, McrDraw, FalseHu, DeadHand, Penalty]


@dataclass(frozen=True, slots=True)
class McrState:
    """The table between events. ``points`` by player (first seat order), from 0.
    ``round`` 0..3 (East..North), ``hand`` 1..4. ``honba`` and ``sticks`` are always 0 (MCR
    has neither; kept so that a riichi and an MCR state read alike). ``dead``: players whose
    hand is dead in the hand in play (§3.2); ``penalties``: §3.1 penalty points by player
    (≤ 0, subtracted at the table points); ``ladders``: each player's (infraction,
    delay-of-game) penalty counts so far."""

    players: tuple[str, str, str, str]
    points: tuple[int, int, int, int] = (0, 0, 0, 0)
    round: int = 0
    hand: int = 1
    ended: str | None = None
    lines: tuple[str, ...] = ()
    honba: int = 0
    sticks: int = 0
    dead: frozenset[int] = frozenset()
    penalties: tuple[int, int, int, int] = (0, 0, 0, 0)
    ladders: tuple[tuple[int, int], ...] = ((0, 0),) * 4

    @property
    def dealer(self) -> int:
        """The player (first seat order) dealing this hand: the round's seat ``hand − 1``."""
        return ROUND_SEATS[self.round][self.hand - 1]

    @property
    def round_name(self) -> str:
        return f"{WINDS[self.round]} {self.hand}"

    def seat_wind(self, player: int) -> str:
        k = ROUND_SEATS[self.round].index(player)
        return WINDS[(k - (self.hand - 1)) % 4]


def new_game(players: Sequence[str]) -> McrState:
    if isinstance(players, str) or len(players) != 4 or len(set(players)) != 4 \
            or not all(isinstance(p, str) and p for p in players):
        raise GameError(E_PLAYERS, f"a game needs 4 distinct player names, got {players!r}")
    return McrState(players=tuple(players))


def _seat(state: McrState, name: str) -> int:
    try:
        return state.players.index(name)
    except ValueError:
        raise GameError(E_UNKNOWN_PLAYER, f"{name!r} is not at this table "
                                          f"{list(state.players)}") from None


def _check(name: str, v: McrWin) -> None:
    for key, most in (("fan", MAX_FAN), ("flowers", 8)):
        x = getattr(v, key)
        if not isinstance(x, int) or isinstance(x, bool) or x < 0 or (most and x > most):
            raise GameError(E_BAD_VALUE, f"{name}'s {key} must be a whole number ≥ 0"
                                         + (f" and ≤ {most:,}" if most else "") + f", got {x!r}")
    if v.fan - v.flowers < MIN_POINTS:
        # « необходимые 8 очков » (EMA MCR clarifications §2.9.2)
        raise GameError(E_UNDER_8, f"{name}'s {v.fan - v.flowers} points without flowers: a "
                        "win needs 8 points without flowers (seed 000, EMA MCR clarifications "
                        "§2.9.2); record a false_win (a false hu)")


def _next_hand(state: McrState, points: list[int], lines: list[str]) -> McrState:
    """The deal passes (always, in competition MCR); after North 4 the session is over."""
    rnd, hand, ended = state.round, state.hand + 1, None
    if hand > 4:
        rnd, hand = rnd + 1, 1
        if rnd > 3:
            rnd, hand, ended = 3, 4, f"{HANDS} hands played (North 4)"
        else:
            lines.append(f"{WINDS[rnd]} round: players change seats (Green Book scheme)")
    return replace(state, points=tuple(points), round=rnd, hand=hand, ended=ended,
                   lines=tuple(lines), dead=frozenset())


def _paid(state: McrState, winner: int, amount_from) -> McrState:
    """Each other player pays the winner ``amount_from(seat)``; then the next hand."""
    points, lines = list(state.points), []
    for s in range(4):
        if s != winner:
            amount = amount_from(s)
            points[s] -= amount
            points[winner] += amount
            lines.append(f"{state.players[s]} pays {state.players[winner]} {amount}")
    return _next_hand(state, points, lines)


def _alive(state: McrState, w: int) -> None:
    """A dead hand cannot win (§3.2), refused by name with the rule quoted."""
    if w in state.dead:
        raise GameError(E_DEAD_HAND, f"{state.players[w]}'s hand is dead in this hand (after a "
                        f"false hu or a dead-hand ruling): {DEAD_HAND_RULE}")


def _ron(state: McrState, ev: McrRon) -> McrState:
    d, w = _seat(state, ev.discarder), _seat(state, ev.winner)
    if d == w:      # no hand wins on its own discard, dead or alive: the plainer reason first
        raise GameError(E_RON_BY_DISCARDER, f"{ev.winner} cannot win on their own discard")
    _alive(state, w)
    _check(ev.winner, ev.value)
    # the discarder pays 8 + the hand's points, each other player 8
    return _paid(state, w, lambda s: BASE + ev.value.fan if s == d else BASE)


def _tsumo(state: McrState, ev: McrTsumo) -> McrState:
    w = _seat(state, ev.player)
    _alive(state, w)
    _check(ev.player, ev.value)
    return _paid(state, w, lambda s: BASE + ev.value.fan)       # each of the three: 8 + points


def _false_hu(state: McrState, ev: FalseHu) -> McrState:
    s = _seat(state, ev.player)
    if s in state.dead:
        # a dead hand cannot declare hu (§3.2), so no false hu either: a second payment of
        # 10/20 to each is never owed; the referee may sanction the call (a penalty, §3.4)
        raise GameError(E_DEAD_HAND, f"{ev.player}'s hand is already dead in this hand, so "
                        f"{ev.player} cannot declare hu (nor a false hu; a sanction for the "
                        f"call is a penalty): {DEAD_HAND_RULE}")
    if ev.kind not in FALSE_HU:
        raise GameError(E_FALSE_HU_KIND, f"a false hu is 'short' (under 8 points) or "
                                         f"'invalid', got {ev.kind!r}")
    amount = FALSE_HU[ev.kind]
    points = list(state.points)
    for o in range(4):
        if o != s:
            points[s] -= amount
            points[o] += amount
    # §2.8.9: « игрок, который открыл свои кости имеет мертвую руку »
    return replace(state, points=tuple(points), dead=state.dead | {s}, lines=(
        f"false hu by {ev.player} ({ev.kind}): pays {amount} to each other player; "
        "dead hand, the hand goes on",))


def _dead_hand(state: McrState, ev: DeadHand) -> McrState:
    s = _seat(state, ev.player)
    if s in state.dead:
        raise GameError(E_DEAD_HAND, f"{ev.player}'s hand is already dead in this hand "
                        "(recorded once; it lasts until the hand ends)")
    why = f" ({ev.reason})" if ev.reason else ""
    return replace(state, dead=state.dead | {s}, lines=(
        f"dead hand: {ev.player}{why} cannot declare hu this hand, plays on (§3.2)",))


def _penalty(state: McrState, ev: Penalty) -> McrState:
    s = _seat(state, ev.player)
    if ev.kind not in PENALTY_KINDS:
        raise GameError(E_PENALTY_KIND, f"a penalty is one of {', '.join(PENALTY_KINDS)}, "
                                        f"got {ev.kind!r}")
    ladder = PENALTY_KINDS.index(ev.kind)
    count = state.ladders[s][ladder]
    pts = escalated_penalty(count)
    ladders = [list(x) for x in state.ladders]
    ladders[s][ladder] += 1
    penalties = list(state.penalties)
    penalties[s] -= pts
    what = "delay of game" if ev.kind == "delay_of_game" else "infraction"
    why = f" ({ev.reason})" if ev.reason else ""
    verdict = "warning" if pts == 0 else f"{pts} points off the session score"
    return replace(state, penalties=tuple(penalties),
                   ladders=tuple(tuple(x) for x in ladders), lines=(
        f"penalty to {ev.player}: {what}{why}, no. {count + 1}: {verdict} (§3.1)",))


def apply(state: McrState, event: McrEvent) -> McrState:
    """The state after ``event``; GameError (with a code) for an event the rules refuse."""
    if state.ended:
        hint = ("; a penalty for this session goes in before its last hand: --undo it, add the "
                "penalty, add the hand again") if isinstance(event, Penalty) else ""
        raise GameError(E_GAME_OVER, f"the session is over ({state.ended}){hint}")
    if isinstance(event, McrRon):
        return _ron(state, event)
    if isinstance(event, McrTsumo):
        return _tsumo(state, event)
    if isinstance(event, McrDraw):
        return _next_hand(state, list(state.points), ["exhaustive draw: nobody pays"])
    if isinstance(event, FalseHu):
        return _false_hu(state, event)
    if isinstance(event, DeadHand):
        return _dead_hand(state, event)
    if isinstance(event, Penalty):
        return _penalty(state, event)
    raise GameError(E_BAD_VALUE, f"not an MCR event: {event!r}")


def play(players: Sequence[str], events: Sequence[McrEvent]) -> list[McrState]:
    """Every state: before the first event, then after each event."""
    states = [new_game(players)]
    for i, ev in enumerate(events, 1):
        try:
            states.append(apply(states[-1], ev))
        except GameError as exc:
            raise GameError(exc.code, f"event {i}: {str(exc).split(': ', 1)[1]}") from None
    return states


@dataclass(frozen=True, slots=True)
class TablePlace:
    """One player at the session's end: ``place`` 1..4 (ties share the better place),
    ``points`` (MCR points, before penalties), ``penalty`` (§3.1 points, ≤ 0), ``final``
    (points + penalty: what places are decided on), ``table_points`` (EMA 4/2/1/0, ties
    sharing)."""

    name: str
    place: int
    points: int
    table_points: Fraction
    penalty: int = 0
    final: int = 0


def final_ranking(state: McrState) -> list[TablePlace]:
    """The players from first to last with their EMA table points, placed on the score after
    penalties (§3.1: « Эти очки вычитаются из результата нарушителя »)."""
    finals = [p + q for p, q in zip(state.points, state.penalties)]
    shared = shared_table_points(finals)
    out = [TablePlace(state.players[s], place, state.points[s], tp, state.penalties[s], finals[s])
           for s, (place, _tied, tp) in enumerate(shared)]
    return sorted(out, key=lambda r: (r.place, state.players.index(r.name)))


def standings_line(state: McrState) -> str:
    seats = "  ".join(f"{p} ({state.seat_wind(s)[0]}) {state.points[s]}"
                      + (f" (penalties {state.penalties[s]})" if state.penalties[s] else "")
                      + (" dead hand" if s in state.dead else "")
                      for s, p in enumerate(state.players))
    head = "session over" if state.ended else state.round_name
    return f"{head} · {seats}"
