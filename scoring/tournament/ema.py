"""MCR table points, penalties and lateness for one table of one session (EMA rules).

Source: seed text ``000`` (EMA MCR tournament rules) as quoted in issue 7; the section
numbers below are that text's.

* Table points: 4 / 2 / 1 / 0 by place at the table; players tied on score share the points
  of the places they cover, e.g. two players tied for 2nd get (2 + 1) / 2 = 1.5 each.
* §4 substitutes: a substitute seated *before* the session plays as a normal player and can
  win table points. A player replaced *during* the session (illness) or disqualified gets 0
  table points, and the other three get 4 / 2 / 1 by place among themselves. A disqualified
  player gets 0 for the whole tournament (see :func:`tournament_table_points`); a
  disqualification from one session only is recorded with ``scope="session"`` (lateness over
  15 minutes is one, §2.2).
* §3.1 penalty escalation, per player: warning, then 5, 10, 20, 30, … points. The count
  restarts each session, except for delay-of-game penalties, whose count runs on through the
  tournament.
* §2.2 lateness: under 10 minutes late −10 points; 10 to 15 minutes −20; later than 15
  minutes the player is disqualified from the session.

Where the quoted text is silent this module follows the EMA MCR rules and says so:

* Places are decided on the session score *after* penalties (EMA: penalty points are part of
  the player's score).
* "…" in the escalation continues in steps of 10 (40, 50, …).
* Delay-of-game penalties escalate on their own ladder, separate from other infractions,
  since only they carry over between sessions.
* A seat's session score is the score-sheet total before penalties; MCR hands move points
  between players, so the four totals must sum to 0.
* With two or more players out of the ranking the rest get the top points in order
  (two left: 4 / 2).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Iterable, Literal, Sequence, Union

TABLE_POINTS: tuple[int, ...] = (4, 2, 1, 0)
"""Table points by place 1..4 (EMA)."""

LATE_SMALL_MINUTES = 10   # §2.2: late by less than this: LATE_SMALL_POINTS
LATE_LARGE_MINUTES = 15   # §2.2: late up to this: LATE_LARGE_POINTS; later: out of the session
LATE_SMALL_POINTS = 10
LATE_LARGE_POINTS = 20

PenaltyKind = Literal["infraction", "delay_of_game"]
PENALTY_KINDS: tuple[str, ...] = ("infraction", "delay_of_game")
SCOPES: tuple[str, ...] = ("tournament", "session")


class TableError(ValueError):
    """A table record that cannot be scored (unknown player, scores not summing to 0, …)."""


# --- the record of one table: seats and events -------------------------------------------

@dataclass(frozen=True, slots=True)
class Seat:
    """One player at the table. ``score``: session score-sheet total in MCR points, before
    penalties (integer; the four sum to 0)."""

    name: str
    score: int


@dataclass(frozen=True, slots=True)
class Substitute:
    """§4: ``player`` (seated at the table) replaced ``replaces`` before the session began."""

    player: str
    replaces: str


@dataclass(frozen=True, slots=True)
class Replaced:
    """§4: ``player`` was replaced during the session (e.g. illness); 0 table points."""

    player: str
    reason: str = "illness"


@dataclass(frozen=True, slots=True)
class Disqualified:
    """``player`` was disqualified; ``scope`` "tournament" (the default, §4: 0 table points for
    the whole tournament) or "session" (0 table points this session)."""

    player: str
    scope: Literal["session", "tournament"] = "tournament"
    reason: str = ""


@dataclass(frozen=True, slots=True)
class Penalty:
    """§3.1: one penalty to ``player``; its points come from the escalation ladder."""

    player: str
    kind: PenaltyKind = "infraction"
    reason: str = ""


@dataclass(frozen=True, slots=True)
class Late:
    """§2.2: ``player`` arrived ``minutes`` (>= 0) late for the session."""

    player: str
    minutes: float


Event = Union[Substitute, Replaced, Disqualified, Penalty, Late]


# --- results --------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class SeatResult:
    """One player's outcome. ``penalty_points`` <= 0 (penalties and lateness);
    ``final_score`` = score + penalty_points; ``place`` 1..4 (best place of a tie group) or
    None when out of the ranking; ``table_points`` exact; ``reasons`` one line per rule
    applied, in order."""

    name: str
    score: int
    penalty_points: int
    final_score: int
    place: int | None
    tied: bool
    table_points: Fraction
    disqualified_from_tournament: bool
    reasons: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class TableResult:
    """The four results in seat order as given."""

    seats: tuple[SeatResult, ...]


# --- rules ----------------------------------------------------------------------------------

def escalated_penalty(count_before: int) -> int:
    """§3.1: points for a player's next penalty given ``count_before`` earlier ones on the
    same ladder: 0 (warning), 5, 10, 20, 30, then +10 each (EMA "and so on").

    Raises TableError for a negative count.
    """
    if count_before < 0:
        raise TableError(f"penalty count must be >= 0, got {count_before}")
    ladder = (0, 5, 10, 20, 30)
    if count_before < len(ladder):
        return ladder[count_before]
    return 30 + 10 * (count_before - len(ladder) + 1)


def lateness_penalty(minutes: float) -> int | None:
    """§2.2: penalty points (>= 0) for arriving ``minutes`` late, or None when the player is
    disqualified from the session (later than 15 minutes).

    0 for on time; 0 < m < 10 → 10; 10 <= m <= 15 → 20. Raises TableError if minutes < 0.
    """
    if minutes < 0:
        raise TableError(f"lateness must be >= 0 minutes, got {minutes}")
    if minutes == 0:
        return 0
    if minutes < LATE_SMALL_MINUTES:
        return LATE_SMALL_POINTS
    if minutes <= LATE_LARGE_MINUTES:
        return LATE_LARGE_POINTS
    return None


def shared_table_points(scores: Sequence[int]) -> list[tuple[int, bool, Fraction]]:
    """Place, tie flag and table points for each ranked score (higher is better).

    Players with equal scores share the mean of the points of the places they cover. With
    fewer than four ranked players the top values are used (§4: three left get 4 / 2 / 1).
    Returns one (place, tied, points) per input score, same order. Raises TableError for
    more than four scores.
    """
    if len(scores) > len(TABLE_POINTS):
        raise TableError(f"at most {len(TABLE_POINTS)} ranked players, got {len(scores)}")
    out = []
    for s in scores:
        better = sum(1 for t in scores if t > s)
        equal = sum(1 for t in scores if t == s)
        covered = TABLE_POINTS[better:better + equal]
        out.append((better + 1, equal > 1, Fraction(sum(covered), equal)))
    return out


def _fmt(points: Fraction) -> str:
    return str(points.numerator) if points.denominator == 1 else f"{points} = {float(points):.2f}"


def score_table(seats: Sequence[Seat], events: Iterable[Event] = (),
                prior_delay_of_game: dict[str, int] | None = None) -> TableResult:
    """Table points of one table for one session.

    ``seats``: the four players with their session scores (sum 0). ``events``: in the order
    they happened (penalty order sets the escalation). ``prior_delay_of_game``: per player,
    delay-of-game penalties received in earlier sessions (§3.1: that count does not reset).

    Raises TableError for: not four seats, duplicate names, scores not summing to 0, an event
    naming someone not at the table, a substitute replacing someone seated, two lateness
    records for one player, negative minutes or counts; and for a record of the wrong type (a
    name that is not text or has spaces around it, a score or count that is not an integer,
    minutes that are not a finite number, an unknown penalty kind or disqualification scope),
    so that a typo is not scored as some other rule.
    """
    seats = list(seats)
    events = list(events)
    prior = dict(prior_delay_of_game or {})
    _check_types(seats, events, prior)
    names = _check_table(seats, prior)
    session = _Session(names, prior)
    for ev in events:
        session.apply(ev)
    return _table_points(seats, session)


def _check_table(seats: list[Seat], prior: dict[str, int]) -> list[str]:
    """The players' names, after the checks of the table itself: four distinct players whose
    scores sum to 0, prior penalties only for them."""
    if len(seats) != 4:
        raise TableError(f"a table has 4 players, got {len(seats)}")
    names = [s.name for s in seats]
    if len(set(names)) != 4:
        raise TableError(f"player names must be distinct, got {names}")
    total = sum(s.score for s in seats)
    if total != 0:
        raise TableError(f"session scores must sum to 0 (MCR points move between players), "
                         f"they sum to {total}: check the score sheet")
    for name, count in prior.items():
        if name not in names:
            raise TableError(f"prior_delay_of_game names {name!r}, who is not at this table")
        if count < 0:
            raise TableError(f"prior_delay_of_game for {name!r} must be >= 0, got {count}")
    return names


class _Session:
    """What the session's events did to each player: the reasons, penalty points, who is out
    of the session's ranking (and why) or of the tournament, and the penalty ladders. One
    method per kind of event (§2.2 lateness, §3.1 penalties, §4 substitutes and
    disqualifications)."""

    def __init__(self, names: list[str], prior: dict[str, int]):
        self.names = names
        self.reasons: dict[str, list[str]] = {n: [] for n in names}
        self.penalty: dict[str, int] = {n: 0 for n in names}
        self.out_of_session: dict[str, str] = {}
        self.out_of_tournament: set[str] = set()
        self.ladders: dict[tuple[str, str], int] = {(n, "delay_of_game"): prior.get(n, 0)
                                                    for n in names}
        self.late_seen: set[str] = set()
        self.substitutes: dict[str, str] = {}       # absent player -> who sits in for them
        self.replaced: set[str] = set()

    def apply(self, ev: Event) -> None:
        """Record one event, after checking that it names a player at this table."""
        if ev.player not in self.names:
            raise TableError(f"{type(ev).__name__.lower()} event names {ev.player!r}, "
                             f"who is not at this table {self.names}")
        if isinstance(ev, Substitute):
            self.substitute(ev)
        elif isinstance(ev, Replaced):
            self.replace(ev)
        elif isinstance(ev, Disqualified):
            self.disqualify(ev)
        elif isinstance(ev, Penalty):
            self.penalise(ev)
        elif isinstance(ev, Late):
            self.late(ev)
        else:  # pragma: no cover - _check_types refused any other event
            raise TableError(f"unknown event {ev!r}")

    def substitute(self, ev: Substitute) -> None:
        """§4: a substitute plays for table points from the start of the session."""
        who = ev.player
        if ev.replaces in self.names:
            raise TableError(f"{who!r} cannot substitute for {ev.replaces!r}, "
                             f"who is seated at this table")
        if ev.replaces in self.substitutes:
            raise TableError(f"{ev.replaces!r} has two substitutes: "
                             f"{self.substitutes[ev.replaces]!r} and {who!r}")
        if who in self.substitutes.values():
            raise TableError(f"{who!r} substitutes for two players at one table")
        self.substitutes[ev.replaces] = who
        self.reasons[who].append(f"§4: substitute for {ev.replaces} from the start of the "
                                 f"session, plays for table points")

    def replace(self, ev: Replaced) -> None:
        """§4: a player replaced during the session gets 0 table points."""
        who = ev.player
        if who in self.replaced:
            raise TableError(f"two 'replaced' records for {who!r}")
        self.replaced.add(who)
        self.out_of_session.setdefault(who, "replaced")
        self.reasons[who].append(f"§4: replaced during the session ({ev.reason}): "
                                 f"0 table points")

    def disqualify(self, ev: Disqualified) -> None:
        """§4: a disqualified player gets 0 table points, for the session or the tournament."""
        who = ev.player
        self.out_of_session.setdefault(who, "disqualified")
        why = f" ({ev.reason})" if ev.reason else ""
        if ev.scope == "tournament":
            self.out_of_tournament.add(who)
            self.reasons[who].append(f"§4: disqualified from the tournament{why}: "
                                     f"0 table points for the whole tournament")
        else:
            self.reasons[who].append(f"§4: disqualified from the session{why}: 0 table points")

    def penalise(self, ev: Penalty) -> None:
        """§3.1: a penalty on the player's ladder for its kind (delay of game over the
        tournament, an infraction within the session)."""
        who = ev.player
        key = (who, ev.kind)
        count = self.ladders.get(key, 0)
        pts = escalated_penalty(count)
        self.ladders[key] = count + 1
        self.penalty[who] -= pts
        what = "delay of game" if ev.kind == "delay_of_game" else "infraction"
        why = f" ({ev.reason})" if ev.reason else ""
        scope = "in the tournament" if ev.kind == "delay_of_game" else "this session"
        verdict = "warning" if pts == 0 else f"-{pts}"
        self.reasons[who].append(f"§3.1: {what}{why}, penalty no. {count + 1} {scope}: {verdict}")

    def late(self, ev: Late) -> None:
        """§2.2: lateness costs points, or past the limit the session."""
        who = ev.player
        if who in self.late_seen:
            raise TableError(f"two lateness records for {who!r}")
        self.late_seen.add(who)
        pts = lateness_penalty(ev.minutes)
        if pts is None:
            self.out_of_session.setdefault(who, "late")
            self.reasons[who].append(f"§2.2: {ev.minutes:g} minutes late (over "
                                     f"{LATE_LARGE_MINUTES}): disqualified from the session, "
                                     f"0 table points")
        elif pts:
            self.penalty[who] -= pts
            self.reasons[who].append(f"§2.2: {ev.minutes:g} minutes late: -{pts}")


def _table_points(seats: list[Seat], session: _Session) -> TableResult:
    """The players still ranked share the table points by final score (session score plus
    penalties); the others get 0. Each seat's reasons end with its place."""
    ranked = [s for s in seats if s.name not in session.out_of_session]
    finals = {s.name: s.score + session.penalty[s.name] for s in seats}
    ranking = dict(zip((s.name for s in ranked),
                       shared_table_points([finals[s.name] for s in ranked])))
    results = []
    for s in seats:
        place, tied, points = ranking.get(s.name, (None, False, Fraction(0)))
        why = session.reasons[s.name]
        if place is not None:
            share = f"tied for place {place}" if tied else f"place {place}"
            of = "" if len(ranked) == 4 else f" of {len(ranked)} ranked"
            unit = "table point" if points == 1 else "table points"
            why.append(f"{share}{of} on {finals[s.name]}: {_fmt(points)} {unit}")
        results.append(SeatResult(
            name=s.name, score=s.score, penalty_points=session.penalty[s.name],
            final_score=finals[s.name], place=place, tied=tied, table_points=points,
            disqualified_from_tournament=s.name in session.out_of_tournament,
            reasons=tuple(why)))
    return TableResult(seats=tuple(results))


def _check_name(name: object, what: str) -> None:
    if not isinstance(name, str) or not name.strip():
        raise TableError(f"{what} must be a player's name (text), got {name!r}")
    if name != name.strip():
        raise TableError(f"{what} {name!r} has spaces around it: {name.strip()!r} would be "
                         "another player")


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_types(seats: list, events: list, prior: dict) -> None:
    """TableError for a record field of the wrong type or value (see :func:`score_table`)."""
    for seat in seats:
        if not isinstance(seat, Seat):
            raise TableError(f"a seat must be a Seat(name, score), got {seat!r}")
        _check_name(seat.name, "seat name")
        if not _is_int(seat.score):
            raise TableError(f"{seat.name}'s score must be a whole number of MCR points, "
                             f"got {seat.score!r}")
    for name, count in prior.items():
        _check_name(name, "prior_delay_of_game")
        if not _is_int(count):
            raise TableError(f"prior_delay_of_game for {name!r} must be a whole number, got {count!r}")
    for ev in events:
        if not isinstance(ev, (Substitute, Replaced, Disqualified, Penalty, Late)):
            raise TableError(f"unknown event {ev!r}")
        _check_name(ev.player, f"{type(ev).__name__.lower()} player")
        if isinstance(ev, Substitute):
            _check_name(ev.replaces, "substitute's 'replaces'")
        elif isinstance(ev, Penalty) and ev.kind not in PENALTY_KINDS:
            raise TableError(f"penalty kind must be {' or '.join(PENALTY_KINDS)}, got {ev.kind!r}")
        elif isinstance(ev, Disqualified) and ev.scope not in SCOPES:
            raise TableError(f"disqualification scope must be {' or '.join(SCOPES)}, got {ev.scope!r}")
        elif isinstance(ev, Late) and not (isinstance(ev.minutes, (int, float))
                                           and not isinstance(ev.minutes, bool)
                                           and math.isfinite(ev.minutes)):
            raise TableError(f"lateness of {ev.player!r} must be a number of minutes, got {ev.minutes!r}")


def tournament_table_points(tables: Iterable[TableResult]) -> dict[str, Fraction]:
    """Total table points per player over the tournament's tables.

    §4: a player disqualified from the tournament at any table gets 0 for the whole
    tournament. Returns {player: total}, players in order of first appearance.
    """
    totals: dict[str, Fraction] = {}
    banned: set[str] = set()
    for table in tables:
        for r in table.seats:
            totals[r.name] = totals.get(r.name, Fraction(0)) + r.table_points
            if r.disqualified_from_tournament:
                banned.add(r.name)
    return {name: Fraction(0) if name in banned else pts for name, pts in totals.items()}
