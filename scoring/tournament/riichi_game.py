"""A riichi game's ledger: the four players' points from hand to hand (issue 32).

Source: seed text ``001`` (riichi rules, French), the sentences quoted beside each rule.
The state is a plain value (:class:`GameState`); :func:`apply` returns the next state for one
event, or raises :class:`GameError` naming the impossible event (``error.code`` is one of the
``E_*`` constants). :func:`play` applies a list; :func:`final_ranking` ends the game.

Seats: the four players in their first seat order, East, South, West, North; play (and
"the right" of a player, « la droite du jeteur ») goes from a seat to the next. The dealer of
hand *n* of a round is seat *n − 1*.

Rules, as the text states them:

* A win: « Le gagnant récupère le montant calculé du ou des joueurs perdants ainsi que toutes
  les mises de riichi éventuelles. » Values from han and fu as :mod:`scoring.riichi.limits`
  (ron 4 × base from the discarder, dealer 6 ×; tsumo 1 × from each non-dealer and 2 × from
  the dealer; rounded up to 100). A value no hand has is refused (:data:`FEWEST_HAN`): « Une
  main à 1 yaku 20 mini-points n'existe pas », a ron has 30 fu at least (25: seven pairs).
* Counters: « Chaque compteur rapporte un bonus de 300 points en cas de victoire (100 point par
  joueur si le gagnant pioche sa tuile). » « Si le gagnant est Est, il reste Est et on
  incrémente un compteur » ; « Si un autre joueur qu'Est gagne, les vents tournent et les
  compteurs sont remis à zéros. »
* Several ron winners: « le donneur devra payer la valeur de la main augmentée des points de
  compteurs pour chaque joueur » (the counters to each winner: the default; option
  ``honba_to_each_winner=False`` pays them to the stick winner only) ; « le gagnant le plus
  proche de la droite du jeteur » takes the sticks. The dealer among the winners keeps the deal.
* Riichi: « met en gage un bâton de 1000 points ».
* Exhaustive draw: « Les joueurs noten payent aux joueurs tenpai une pénalité d'un montant total
  de 3000 points » ; « Est reste Est uniquement s'il est tenpai sinon les vents tournent. Un
  compteur est toujours ajouté. » A riichi player missing from the tenpai list is chombo (« Dans
  le cas contraire une pénalité est appliquée »): each such player pays the chombo and, as
  after any chombo, « la partie est annulée »: no noten payment, the dealer stays, no counter.
* Abortive draw (nine terminals, four kans, four same winds, four riichi) and chombo: « il n'y a
  pas de pénalité noten. Est reste Est et il n'y a pas de compteur d'ajouté. » Four kans: the
  event lists who made each kan; « sauf si les quatre appartiennent au même joueur mais un
  cinquième annulera la partie »: four by one player are refused, a fifth kan annuls.
* Sticks after a drawn hand: « les mises de riichi restent en jeu et sont récupérées par le
  prochain gagnant ».
* Chombo: « Le joueur fautif paye l'équivalent d'un mangan tsumo » (dealer: 4,000 to each;
  non-dealer: 4,000 to the dealer and 2,000 to each other); option ``chombo="tournament"``:
  « le joueur fautif ne paye rien aux adversaires mais est pénalisé au classement » by
  20,000 (EMA, WRC; ``chombo_penalty=40000`` for the NPM's).
* Option ``two_han_from_five``: « au bout de 5 compteurs, il faut au minimum 2 hans (les doras ne
  comptent jamais pour ce minimum) ».

Where the text is silent (the end of a game, oka and uma), this module follows common
tournament practice and says so: the game ends when the deal passes on after the last hand
(South 4, or East 4 with ``east_only``), the last dealer keeping the deal plays on; option
``bust_ends``: a player under zero ends it; the final score is points − return + uma (+ oka,
(return − start) × 4, to the first); tied players share their places' uma and oka; sticks
left on the table go to the first; a tournament chombo penalty comes off the final score and
does not change the places.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Literal, Sequence, Union

from ..hand import RiichiRules
from ..riichi.limits import _MULTIPLE_NAMES, base_points, payment

WINDS = ("East", "South", "West", "North")
STICK = 1000                 # « un bâton de 1000 points »
NOTEN_TOTAL = 3000           # « une pénalité d'un montant total de 3000 points »
MANGAN_BASE = 2000           # a chombo pays « l'équivalent d'un mangan tsumo »
ABORTIVE_REASONS = ("nine_terminals", "four_kans", "four_winds", "four_riichi")

# Error codes (GameError.code)
E_GAME_OVER = "game_over"
E_UNKNOWN_PLAYER = "unknown_player"
E_RIICHI_TWICE = "riichi_twice"
E_RIICHI_WITHOUT_1000 = "riichi_without_1000"
E_RON_BY_DISCARDER = "ron_by_discarder"
E_WINNERS = "too_many_winners"
E_WINNER_TWICE = "winner_twice"
E_TENPAI_TWICE = "tenpai_twice"
E_HAND_VS_LEDGER = "hand_contradicts_ledger"   # a scored hand's win, winds… are not the game's
E_BAD_VALUE = "bad_value"
E_TWO_HAN_MINIMUM = "two_han_minimum"
E_FOUR_RIICHI = "four_riichi_not_declared"
E_ABORTIVE_REASON = "unknown_abortive_draw"
E_FOUR_KANS = "four_kans_not_abortive"
E_FURITEN = "furiten_ron"
E_PLAYERS = "bad_players"
E_DEAD_HAND = "dead_hand"
MAX_YAKUMAN = max(_MULTIPLE_NAMES)      # the scorer pays at most a sextuple yakuman
# « Un joueur main morte ne peut plus gagner ni réclamer de combinaison. Il ne peut être
# considéré tenpai en cas de partie du mur. » (seed 001, main morte)
DEAD_HAND_RULE = ("a dead hand can neither win nor claim a tile, and is not tenpai at an "
                  "exhaustive draw (riichi rules, dead hand)")
E_OPTIONS = "bad_options"


class GameError(ValueError):
    """An event the rules cannot apply; ``code`` names the problem (an ``E_*`` constant)."""

    def __init__(self, code: str, message: str) -> None:
        self.code = code
        super().__init__(f"{code}: {message}")


@dataclass(frozen=True, slots=True)
class Options:
    """Rule options (defaults: the text's rules, 25,000 to start, no oka or uma).

    ``start``: points each. ``return_points``: the points a final score is counted from (oka:
    (return − start) × 4 to the first; None: ``start``, no oka). ``uma``: added to places 1..4.
    ``east_only``: the game is the East round. ``bust_ends``: a player under zero ends the
    game. ``two_han_from_five``: a win needs 2 han without dora from 5 counters.
    ``honba_to_each_winner``: on a multiple ron each winner takes the counters (else only the
    stick winner). ``chombo``: "mangan" (pays a mangan tsumo) or "tournament" (pays nothing,
    loses ``chombo_penalty`` at the final ranking). ``rules``: han/fu → points options.
    """

    start: int = 25000
    return_points: int | None = None
    uma: tuple[int, int, int, int] = (0, 0, 0, 0)
    east_only: bool = False
    bust_ends: bool = False
    two_han_from_five: bool = False
    honba_to_each_winner: bool = True
    chombo: Literal["mangan", "tournament"] = "mangan"
    chombo_penalty: int = 20000
    rules: RiichiRules = field(default_factory=RiichiRules)

    @property
    def oka(self) -> int:
        """What the first gets on top of the uma: (return − start) × 4."""
        return 4 * ((self.return_points or self.start) - self.start)


EMA = Options(start=30000, uma=(15000, 5000, -5000, -15000), chombo="tournament")
"""EMA / WRC tournament options: 30,000 each, uma 15/5/−5/−15, chombo −20,000 at the end."""
MLEAGUE_STYLE = Options(start=25000, return_points=30000, uma=(20000, 10000, -10000, -20000))
"""25,000 each counted from 30,000 (oka 20,000 to the first), uma 20/10/−10/−20."""


# --- events -------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Value:
    """A win's value: ``han`` and ``fu`` (or ``yakuman`` multiples); ``dora``: how many of
    the han are dora (for the two-han minimum). ``furiten``: the winner's waits include one
    of their own discards (a ron is then refused)."""

    han: int = 0
    fu: int = 0
    yakuman: int = 0
    dora: int = 0
    furiten: bool = False


@dataclass(frozen=True, slots=True)
class Riichi:
    """``player`` declares riichi: 1,000 to the table."""

    player: str


@dataclass(frozen=True, slots=True)
class Tsumo:
    """``player`` wins on a self-drawn tile."""

    player: str
    value: Value


@dataclass(frozen=True, slots=True)
class Ron:
    """``winners`` (player → value, one to three) win on ``discarder``'s tile."""

    discarder: str
    winners: dict[str, Value]


@dataclass(frozen=True, slots=True)
class Draw:
    """The wall is exhausted; ``tenpai``: the players who show a waiting hand."""

    tenpai: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Abortive:
    """An abortive draw; ``reason``: one of :data:`ABORTIVE_REASONS`. ``kans``: for
    ``four_kans``, who made each kan, in order (four or five names)."""

    reason: str
    kans: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Chombo:
    """``player`` commits a chombo; the hand is annulled."""

    player: str
    reason: str = ""


@dataclass(frozen=True, slots=True)
class DeadHand:
    """``player``'s hand is dead until the hand ends, nothing paid: « Un joueur main morte ne
    peut plus gagner ni réclamer de combinaison. Il ne peut être considéré tenpai en cas de
    partie du mur. » (riichi rules, chombo and dead hand)"""

    player: str
    reason: str = ""


Event = Union[Riichi, Tsumo, Ron, Draw, Abortive, Chombo, DeadHand]


# --- state --------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class GameState:
    """The table between events.

    ``points``: by seat (first seat order). ``round``: 0 East, 1 South, … ``hand``: 1..4
    (the dealer is seat ``hand − 1``). ``honba``: counters. ``sticks``: riichi sticks on the
    table. ``in_riichi``: seats that declared riichi in the hand in play. ``penalties``:
    tournament chombo penalties by seat, taken at the final ranking. ``ended``: the reason the
    game is over, or None. ``lines``: what the last event did, one line per payment or rule.
    """

    players: tuple[str, str, str, str]
    points: tuple[int, int, int, int]
    round: int = 0
    hand: int = 1
    honba: int = 0
    sticks: int = 0
    in_riichi: frozenset[int] = frozenset()
    penalties: tuple[int, int, int, int] = (0, 0, 0, 0)
    ended: str | None = None
    lines: tuple[str, ...] = ()
    dead: frozenset[int] = frozenset()     # seats whose hand is dead in the hand in play

    @property
    def dealer(self) -> int:
        return self.hand - 1

    @property
    def round_name(self) -> str:
        """« East 1 », « South 4 »."""
        return f"{WINDS[self.round]} {self.hand}"

    def seat_wind(self, seat: int) -> str:
        return WINDS[(seat - self.dealer) % 4]


def new_game(players: Sequence[str], options: Options = Options()) -> GameState:
    """The state before the first hand: ``players`` in seat order, East first."""
    if isinstance(players, str) or len(players) != 4 or len(set(players)) != 4 \
            or not all(isinstance(p, str) and p for p in players):
        raise GameError(E_PLAYERS, f"a game needs 4 distinct player names, got {players!r}")
    if options.chombo not in ("mangan", "tournament"):
        raise GameError(E_OPTIONS, f"chombo is 'mangan' or 'tournament', got {options.chombo!r}")
    if options.start <= 0 or options.start % 100 or len(options.uma) != 4:
        raise GameError(E_OPTIONS, "start must be a positive multiple of 100 and uma 4 numbers")
    return GameState(players=tuple(players), points=(options.start,) * 4)


def _seat(state: GameState, name: str) -> int:
    try:
        return state.players.index(name)
    except ValueError:
        raise GameError(E_UNKNOWN_PLAYER, f"{name!r} is not at this table "
                                          f"{list(state.players)}") from None


# The fewest han (dora apart) a win under mangan has at each fu, by win type; a fu missing
# here (the tens from 30 to 110) takes 1 han, and None: no hand has it. From 5 han fu are not
# counted: « Les mini-points ne sont pas calculés pour les mains mangan (5 hans) et au-delà ».
# * 20 fu: « Une main à 1 yaku 20 mini-points n'existe pas » — the one 20-fu hand is « pinfu
#   tout caché tiré », which « comptera que pour 2 yakus (pinfu et tsumo) ». A ron never has
#   20: a closed one is « portés à 30 si la main est entièrement cachée et que la victoire est
#   obtenue en volant la tuile gagnante », an open one adds 2 « en cas de pinfu ouvert » and
#   is rounded up to 30 (« soit une main à 1-30 »).
# * 25 fu: « Une victoire sur 7 paires vaut 25 mini-points » — seven pairs (chiitoitsu), a
#   2-han yaku (common riichi rules; the text's yaku table is not in seed 001), always closed,
#   so a tsumo adds menzen tsumo: 3.
FEWEST_HAN = {"ron": {20: None, 25: 2}, "tsumo": {20: 2, 25: 3}}
# the user-facing lines name the rule in English and cite it short; the French is above
_WHY_FU = {20: "a 20-fu hand is a closed pinfu tsumo: pinfu and menzen tsumo, 2 han (riichi rules, fu)",
           25: "25 fu is seven pairs: chiitoitsu is 2 han, 3 with menzen tsumo (riichi rules, fu)"}


def _fu_problem(v: Value, win: str) -> str | None:
    """Why no ``win`` ("ron" or "tsumo") under 5 han has ``v``'s han and fu, or None."""
    han, fu = v.han - v.dora, v.fu
    if fu < 20 or fu > 110 or (fu % 10 and fu != 25):
        return f"fu are 25 or 20..110 in tens under 5 han, got {fu}"
    fewest = FEWEST_HAN[win].get(fu, 1)
    if fewest is None:
        return ("a ron has 30 fu at least (closed: 30; open: 20 + 2, rounded up to 30), or 25 "
                f"for seven pairs (riichi rules, fu); got {fu}")
    if han < fewest:
        dora = f" ({v.dora} of them dora)" if v.dora else ""
        return f"{v.han} han{dora} {fu} fu does not exist: {_WHY_FU[fu]}"
    return None


def _check_value(state: GameState, name: str, v: Value, options: Options, win: str) -> int:
    """The base points of a ``win`` ("ron" or "tsumo"); GameError for a value no hand has
    (see :data:`FEWEST_HAN`) or under the minimum."""
    for key in ("han", "fu", "yakuman", "dora"):
        x = getattr(v, key)
        if not isinstance(x, int) or isinstance(x, bool) or x < 0:
            raise GameError(E_BAD_VALUE, f"{name}'s {key} must be a whole number ≥ 0, "
                                         f"got {x!r}")
    if v.yakuman > MAX_YAKUMAN:
        raise GameError(E_BAD_VALUE, f"{name}'s yakuman must be at most {MAX_YAKUMAN} "
                        f"(multiples of a yakuman, as the scorer counts them), got {v.yakuman}")
    if v.yakuman and (v.han or v.fu or v.dora):
        # « ils n'ont pas de valeur en hans ... ils rendent caduques les yakus ordinaires »
        raise GameError(E_BAD_VALUE, f"{name}'s win: a yakuman has no han nor fu (riichi "
                        "rules, yakuman: the ordinary yaku no longer count): give the yakuman "
                        f"or the han and fu, not both (got yakuman {v.yakuman}, han {v.han}, "
                        f"fu {v.fu}, dora {v.dora})")
    if not v.yakuman:
        if v.han < 1:
            raise GameError(E_BAD_VALUE, f"{name}'s win needs at least 1 han (a yaku), got {v.han}")
        if v.dora >= v.han:
            raise GameError(E_BAD_VALUE, f"{name}'s {v.han} han are all dora: dora are not "
                                         "yaku, a win without yaku is chombo")
        problem = v.han < 5 and _fu_problem(v, win)
        if problem:
            raise GameError(E_BAD_VALUE, f"{name}'s {win}: {problem}")
        if options.two_han_from_five and state.honba >= 5 and v.han - v.dora < 2:
            # « au bout de 5 compteurs, il faut au minimum 2 hans (les doras ne comptent
            # jamais pour ce minimum) »
            raise GameError(E_TWO_HAN_MINIMUM, f"{state.honba} counters: from 5 counters a win "
                            "needs 2 han, dora not counted (riichi rules, counters); "
                            f"{name} has {v.han - v.dora} without dora")
    return base_points(v.han, v.fu, options.rules, v.yakuman)[0]


def _after_hand(state: GameState, points: list[int], dealer_stays: bool, counter: str,
                lines: list[str], options: Options) -> GameState:
    """The state for the next hand: ``counter`` "add", "keep" or "reset"."""
    honba = {"add": state.honba + 1, "keep": state.honba, "reset": 0}[counter]
    rnd, hand = state.round, state.hand
    ended = None
    if not dealer_stays:
        hand += 1
        if hand > 4:
            rnd, hand = rnd + 1, 1
            last_round = 0 if options.east_only else 1
            if rnd > last_round:
                ended = f"the deal passed on after {WINDS[last_round]} 4"
                rnd, hand = last_round, 4
    if options.bust_ends and min(points) < 0:
        ended = (f"{state.players[points.index(min(points))]} is under zero "
                 f"({min(points)}): bust ends the game")
    return replace(state, points=tuple(points), round=rnd, hand=hand, honba=honba,
                   in_riichi=frozenset(), ended=ended, lines=tuple(lines), dead=frozenset())


def _alive(state: GameState, seat: int, what: str) -> None:
    """A dead hand cannot win nor be tenpai at an exhaustive draw: refused, the rule quoted."""
    if seat in state.dead:
        raise GameError(E_DEAD_HAND, f"{state.players[seat]}'s hand is dead in this hand: it "
                                     f"cannot {what}: {DEAD_HAND_RULE}")


def _dead_hand(state: GameState, ev: DeadHand, options: Options) -> GameState:
    s = _seat(state, ev.player)
    if s in state.dead:
        raise GameError(E_DEAD_HAND, f"{ev.player}'s hand is already dead in this hand "
                        "(recorded once; it lasts until the hand ends)")
    why = f" ({ev.reason})" if ev.reason else ""
    return replace(state, dead=state.dead | {s}, lines=(
        f"dead hand: {ev.player}{why} cannot win nor be tenpai this hand, plays on",))


def _riichi(state: GameState, ev: Riichi, options: Options) -> GameState:
    s = _seat(state, ev.player)
    if s in state.in_riichi:
        raise GameError(E_RIICHI_TWICE, f"{ev.player} already declared riichi in this hand")
    if state.points[s] < STICK:
        # riichi « met en gage un bâton de 1000 points »
        raise GameError(E_RIICHI_WITHOUT_1000, f"{ev.player} has {state.points[s]} points; a "
                        "riichi puts up a 1000-point stick (riichi rules, riichi)")
    points = list(state.points)
    points[s] -= STICK
    return replace(state, points=tuple(points), sticks=state.sticks + 1,
                   in_riichi=state.in_riichi | {s},
                   lines=(f"{ev.player} declares riichi: 1000 to the table",))


def _tsumo(state: GameState, ev: Tsumo, options: Options) -> GameState:
    w = _seat(state, ev.player)
    _alive(state, w, "win")
    base = _check_value(state, ev.player, ev.value, options, "tsumo")
    dealer = w == state.dealer
    pay = payment(base, dealer, True, state.honba)
    points = list(state.points)
    lines = []
    for s in range(4):
        if s == w:
            continue
        amount = pay.from_each if dealer else (pay.from_dealer if s == state.dealer
                                               else pay.from_non_dealer)
        points[s] -= amount
        points[w] += amount
        # « 100 point par joueur si le gagnant pioche sa tuile »
        lines.append(f"{state.players[s]} pays {ev.player} {amount}"
                     + (f" ({100 * state.honba} of it counters)" if state.honba else ""))
    if state.sticks:
        points[w] += STICK * state.sticks
        lines.append(f"{ev.player} takes the {state.sticks} riichi stick(s): {STICK * state.sticks}")
    state = replace(state, sticks=0)
    lines.append("dealer wins: dealer stays, +1 counter" if dealer
                 else "non-dealer wins: seats rotate, counters reset")
    return _after_hand(state, points, dealer, "add" if dealer else "reset", lines, options)


def _ron(state: GameState, ev: Ron, options: Options) -> GameState:
    d = _seat(state, ev.discarder)
    if not isinstance(ev.winners, dict) or not 1 <= len(ev.winners) <= 3:
        n = len(ev.winners) if isinstance(ev.winners, dict) else ev.winners
        raise GameError(E_WINNERS, f"a ron has 1 to 3 winners (the other three players at "
                                   f"most), got {n}")
    seats = [_seat(state, name) for name in ev.winners]
    if d in seats:
        raise GameError(E_RON_BY_DISCARDER, f"{ev.discarder} cannot win on their own discard")
    for s in seats:
        _alive(state, s, "win")
    # « le gagnant le plus proche de la droite du jeteur »: the first after the discarder in turn
    nearest = min(seats, key=lambda s: (s - d) % 4)
    points = list(state.points)
    lines = []
    for name, s in zip(ev.winners, seats):
        v = ev.winners[name]
        if v.furiten:
            # « ne pourra pas déclarer de victoire sur écart »
            raise GameError(E_FURITEN, f"{name} is furiten: no win on a discard, a ron declared "
                                       "so is chombo (riichi rules, furiten)")
        base = _check_value(state, name, v, options, "ron")
        honba = state.honba if (options.honba_to_each_winner or s == nearest) else 0
        amount = payment(base, s == state.dealer, False, honba).from_discarder
        points[d] -= amount
        points[s] += amount
        lines.append(f"{ev.discarder} pays {name} {amount}"
                     + (f" ({300 * honba} of it counters)" if honba else ""))
    if state.sticks:
        points[nearest] += STICK * state.sticks
        lines.append(f"{state.players[nearest]} takes the {state.sticks} riichi stick(s): "
                     f"{STICK * state.sticks}" + (" (nearest the discarder's right)"
                                                  if len(seats) > 1 else ""))
    state = replace(state, sticks=0)
    dealer = state.dealer in seats
    lines.append("dealer wins: dealer stays, +1 counter" if dealer
                 else "non-dealer wins: seats rotate, counters reset")
    return _after_hand(state, points, dealer, "add" if dealer else "reset", lines, options)


def _draw(state: GameState, ev: Draw, options: Options) -> GameState:
    if isinstance(ev.tenpai, str):
        raise GameError(E_PLAYERS, f"tenpai must be a list of player names, got {ev.tenpai!r}")
    twice = next((n for n in ev.tenpai if ev.tenpai.count(n) > 1), None)
    if twice is not None:
        raise GameError(E_TENPAI_TWICE, f"{twice} is named twice among the tenpai players")
    tenpai = {_seat(state, name) for name in ev.tenpai}
    for s in sorted(tenpai):
        _alive(state, s, "be tenpai")
    noten_riichi = sorted(state.in_riichi - tenpai)
    if noten_riichi:
        return _noten_riichi(state, noten_riichi, options)
    points = list(state.points)
    lines = []
    if 0 < len(tenpai) < 4:
        receive = NOTEN_TOTAL // len(tenpai)
        pays = NOTEN_TOTAL // (4 - len(tenpai))
        for s in range(4):
            points[s] += receive if s in tenpai else -pays
        lines.append(_noten_line(state, tenpai, pays, receive))
    else:
        lines.append("no noten payment (" + ("all" if tenpai else "nobody") + " tenpai)")
    dealer = state.dealer in tenpai
    lines.append(("dealer tenpai: dealer stays" if dealer else "dealer noten: seats rotate")
                 + ", +1 counter" + (f"; {state.sticks} stick(s) stay on the table"
                                      if state.sticks else ""))
    return _after_hand(state, points, dealer, "add", lines, options)


def _noten_line(state: GameState, tenpai: set[int], pays: int, receive: int) -> str:
    """« Ann (noten) pays 3000; Bob, Cai, Dan (tenpai) receive 1000 each »."""
    noten = [p for s, p in enumerate(state.players) if s not in tenpai]
    ready = [p for s, p in enumerate(state.players) if s in tenpai]
    paid = (f"{noten[0]} (noten) pays {pays}" if len(noten) == 1
            else f"{', '.join(noten)} (noten) pay {pays} each")
    got = (f"{ready[0]} (tenpai) receives {receive}" if len(ready) == 1
           else f"{', '.join(ready)} (tenpai) receive {receive} each")
    return f"{paid}; {got}"


def _abortive(state: GameState, ev: Abortive, options: Options) -> GameState:
    if ev.reason not in ABORTIVE_REASONS:
        raise GameError(E_ABORTIVE_REASON, f"an abortive draw is one of {list(ABORTIVE_REASONS)}, "
                                           f"got {ev.reason!r}")
    _check_kans(state, ev)
    if ev.reason == "four_riichi" and len(state.in_riichi) < 4:
        # « Tous les joueurs ont déclaré riichi »
        raise GameError(E_FOUR_RIICHI, "four_riichi is all four players in riichi (riichi rules, "
                                       f"abortive draws): only {len(state.in_riichi)} did in this hand")
    lines = [f"abortive draw ({ev.reason.replace('_', ' ')}): no noten payment, dealer stays, "
             "no counter added" + (f"; {state.sticks} stick(s) stay on the table"
                                   if state.sticks else "")]
    return _after_hand(state, list(state.points), True, "keep", lines, options)


def _check_kans(state: GameState, ev: Abortive) -> None:
    """« Personne ne gagne après l'écart d'un quatrième kan, sauf si les quatre appartiennent
    au même joueur mais un cinquième annulera la partie. »"""
    if isinstance(ev.kans, str):
        raise GameError(E_FOUR_KANS, f"kans must be a list of player names, got {ev.kans!r}")
    for name in ev.kans:
        _seat(state, name)
    if ev.reason != "four_kans":
        if ev.kans:
            raise GameError(E_FOUR_KANS, f"kans go with reason four_kans, not {ev.reason!r}")
        return
    if len(ev.kans) not in (4, 5):
        raise GameError(E_FOUR_KANS, "four_kans: list who made each kan (4, or 5 if one player "
                                     f"made the first four), got {len(ev.kans)}")
    if len(ev.kans) == 4 and len(set(ev.kans)) == 1:
        # « sauf si les quatre appartiennent au même joueur »
        raise GameError(E_FOUR_KANS, f"the four kans are all {ev.kans[0]}'s: four by one player "
                        "end nothing, the hand goes on (riichi rules, abortive draws)")
    if len(ev.kans) == 5 and len(set(ev.kans[:4])) != 1:
        raise GameError(E_FOUR_KANS, "a fifth kan only matters after four by one player; the "
                                     "hand was over at the fourth: list four")


def _pay_chombo(state: GameState, s: int, points: list[int], penalties: list[int],
                options: Options) -> list[str]:
    """Seat ``s`` pays one chombo into ``points`` / ``penalties``; the lines saying so."""
    name = state.players[s]
    if options.chombo == "tournament":
        penalties[s] -= options.chombo_penalty
        return [f"chombo by {name}: pays nothing, {-options.chombo_penalty} at the final ranking"]
    lines = []
    for o in range(4):
        if o == s:
            continue
        amount = 2 * MANGAN_BASE if state.dealer in (s, o) else MANGAN_BASE
        points[s] -= amount
        points[o] += amount
        lines.append(f"chombo by {name}: pays {state.players[o]} {amount}")
    return lines


def _annulled(state: GameState, points: list[int], penalties: list[int], lines: list[str],
              options: Options) -> GameState:
    """« Après une pénalité chombo, la partie est annulée, Est reste Est mais le compteur
    n'est pas incrémenté. »"""
    lines.append("hand annulled: dealer stays, no counter added"
                 + (f"; {state.sticks} stick(s) stay on the table" if state.sticks else ""))
    state = replace(state, penalties=tuple(penalties))
    return _after_hand(state, points, True, "keep", lines, options)


def _noten_riichi(state: GameState, seats: list[int], options: Options) -> GameState:
    """A draw where riichi players are noten: each pays a chombo, no noten payment."""
    points, penalties = list(state.points), list(state.penalties)
    # « Dans le cas contraire une pénalité est appliquée »
    lines = [", ".join(state.players[s] for s in seats) + " declared riichi and is noten: "
             "chombo (riichi rules, exhaustive draw)"]
    for s in seats:
        lines += _pay_chombo(state, s, points, penalties, options)
    return _annulled(state, points, penalties, lines, options)


def _chombo(state: GameState, ev: Chombo, options: Options) -> GameState:
    s = _seat(state, ev.player)
    points, penalties = list(state.points), list(state.penalties)
    lines = _pay_chombo(state, s, points, penalties, options)
    return _annulled(state, points, penalties, lines, options)


_APPLY = {Riichi: _riichi, Tsumo: _tsumo, Ron: _ron, Draw: _draw, Abortive: _abortive,
          Chombo: _chombo, DeadHand: _dead_hand}


def apply(state: GameState, event: Event, options: Options = Options()) -> GameState:
    """The state after ``event``; GameError (with a code) for an event the rules refuse."""
    if state.ended:
        raise GameError(E_GAME_OVER, f"the game is over ({state.ended})")
    try:
        step = _APPLY[type(event)]
    except KeyError:
        raise GameError(E_BAD_VALUE, f"not a game event: {event!r}") from None
    return step(state, event, options)


def play(players: Sequence[str], events: Sequence[Event],
         options: Options = Options()) -> list[GameState]:
    """Every state: before the first event, then after each event."""
    states = [new_game(players, options)]
    for i, ev in enumerate(events, 1):
        try:
            states.append(apply(states[-1], ev, options))
        except GameError as exc:
            raise GameError(exc.code, f"event {i}: {str(exc).split(': ', 1)[1]}") from None
    return states


@dataclass(frozen=True, slots=True)
class Standing:
    """One player at the end: ``place`` 1..4 (tied players share the better place),
    ``points`` at the table (sticks left over included), ``final``: points − return + uma +
    oka + penalty, ``uma`` and ``oka`` as shared among ties, ``penalty`` ≤ 0."""

    name: str
    place: int
    points: int
    uma: Fraction
    oka: Fraction
    penalty: int
    final: Fraction


def places(points: Sequence[int]) -> list[int]:
    """Each seat's place by points, 1 the most; tied players share the better place.

    >>> places([25000, 31000, 25000, 19000])
    [2, 1, 2, 4]
    """
    return [1 + sum(1 for q in points if q > p) for p in points]


def final_ranking(state: GameState, options: Options = Options()) -> list[Standing]:
    """The players from first to last with their final scores (see the module docstring).

    Sticks still on the table go to the first (to those tied first, shared). Tied players
    share the uma (and oka) of the places they occupy together.
    """
    points = list(state.points)
    order = sorted(range(4), key=lambda s: -points[s])
    top = [s for s in range(4) if points[s] == points[order[0]]]
    for s in top:                         # left-over sticks: the text is silent; the first
        points[s] += STICK * state.sticks // len(top)
    order = sorted(range(4), key=lambda s: -points[s])
    bonus = [Fraction(u) for u in options.uma]
    bonus_oka = [Fraction(options.oka), Fraction(0), Fraction(0), Fraction(0)]
    ret = options.return_points or options.start
    out = []
    i = 0
    while i < 4:
        j = i
        while j + 1 < 4 and points[order[j + 1]] == points[order[i]]:
            j += 1
        n = j - i + 1
        uma = sum(bonus[i:j + 1]) / n
        oka = sum(bonus_oka[i:j + 1]) / n
        for k in range(i, j + 1):
            s = order[k]
            out.append(Standing(state.players[s], i + 1, points[s], uma, oka,
                                state.penalties[s],
                                points[s] - ret + uma + oka + state.penalties[s]))
        i = j + 1
    return out


def standings_line(state: GameState) -> str:
    """One line a scorekeeper reads: round, counters, sticks, each player's wind and points."""
    seats = "  ".join(f"{p} ({state.seat_wind(s)[0]}) {state.points[s]}"
                      for s, p in enumerate(state.players))
    head = "game over" if state.ended else state.round_name
    return f"{head} · {state.honba} counter(s) · {state.sticks} stick(s) · {seats}"
