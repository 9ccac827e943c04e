"""A game's ledger kept beside the stream (``tilescope stream … --overlay PORT --game FILE``).

FILE is the JSON Lines game of ``tilescope game`` (docs/game-json.md), read and checked with
``vision.server.game_file.read_game`` and played by ``scoring.tournament.riichi_game``. The
session:

- gives the scorer the table's context for the winner named on the control page: seat and
  round wind, counters (honba), sticks on the table, riichi (:meth:`LedgerSession.context_for`);
- after a hand is scored, proposes the win's event and what each player pays
  (:meth:`LedgerSession.offer`): the ledger applies it as ``tilescope game --add`` would, but
  writes nothing until the streamer confirms (:meth:`LedgerSession.confirm`);
- appends the events typed on the control page (riichi, exhaustive or abortive draw, chombo)
  and takes the last one out (:meth:`LedgerSession.undo`); each change is written to FILE at
  once, as ``tilescope game`` writes it;
- describes itself as the overlay's ``table`` message (:meth:`LedgerSession.table_message`):
  the players with their rank and the change the last event made, each win's han, fu and
  yaku (:func:`win_values`), the final ranking with oka and uma once the game is over, and
  the tiles of the hand last paid (``settled``: the overlay's card then says what was paid,
  not the value it was scored with before the board moved on).
"""
from __future__ import annotations

import contextlib
import json
import threading

from scoring.riichi.limits import limit_words
from scoring.tournament import riichi_game as rg


class LedgerError(ValueError):
    """An event the ledger refuses or a file it cannot use, in one line."""


def _read(lines: list[str], path: str, new: str | None = None):
    """(options, states) of the file's lines; LedgerError naming the problem (``new``: how
    to name the last line, as ``read_game`` takes it)."""
    from .game_file import GameFileError, read_game

    try:
        options, states, _ = read_game(lines, path, new)
    except (GameFileError, rg.GameError) as exc:
        raise LedgerError(" ".join(str(exc).split())) from None   # one line
    return options, states


class LedgerSession:
    """The game in FILE, its proposal for the hand on screen, and the changes the control
    page makes. Thread-safe: the stream thread offers hands, the server's thread confirms."""

    def __init__(self, path: str):
        self.path = path
        self.lines = self._file_lines()
        self.options, self.states = _read(self.lines, path)
        if not isinstance(self.options, rg.Options):   # the overlay keeps riichi's points
            raise LedgerError(f"{path} is an MCR session; --game takes a riichi game")
        self.proposal: dict | None = None    # {"event", "lines"} or {"error"}
        self._offered: tuple = ()            # the tiles of the hand last offered
        self._settled: tuple = ()            # ... and of the last one paid (not proposed again)
        self._settled_line: str | None = None  # the event line that paid it
        self._settled_lines: list[str] = []    # ... and what that event did
        self._lock = threading.Lock()

    @property
    def state(self) -> rg.GameState:
        return self.states[-1]

    # ------------------------------------------------------------ context for the scorer

    def seat_of(self, name: str | None) -> int:
        """The seat of a player named on the control page; the dealer's when none is named."""
        state = self.state
        if name is None:
            return state.dealer
        if name not in state.players:
            raise LedgerError(f"{name!r} is not at this table ({', '.join(state.players)})")
        return state.players.index(name)

    def context_for(self, hand: dict) -> dict:
        """The scoring context the ledger fills in for the hand's winner (``hand["winner"]``,
        else the dealer): seat and round wind, honba, the sticks on the table, riichi when
        that player declared it this hand (``tilescope game`` fills in the same)."""
        with self._lock:
            state = self.state
            seat = self.seat_of(hand.get("winner"))
            return {"seat_wind": state.seat_wind(seat)[0], "round_wind": rg.WINDS[state.round][0],
                    "honba": state.honba, "riichi_sticks": state.sticks,
                    "riichi": "riichi" if seat in state.in_riichi else "none"}

    # ------------------------------------------------------------ proposals and changes

    def offer(self, message: dict, hand: dict) -> bool:
        """After a hand message: propose its win as an event (``hand``: the control page's
        settings, naming the winner and, for a ron, the discarder). Returns whether the
        proposal changed."""
        scored = (message.get("hand") or {})
        request, result = scored.get("request"), scored.get("result") or {}
        key = tuple(scored.get("tiles") or ())
        with self._lock:
            self._offered = key
            settled = key == self._settled
        if request is None or not result.get("valid") or settled:
            proposal = None                  # no win on screen, or one already paid
        elif not hand.get("winner"):
            proposal = {"error": "who won? name the winner on the control page"}
        else:
            proposal = self._proposal(request, hand, result)
        with self._lock:
            changed = proposal != self.proposal
            self.proposal = proposal
        return changed

    def _proposal(self, request: dict, hand: dict, result: dict | None = None) -> dict:
        """The win's event and its payments, or ``{"error"}`` when the ledger refuses it;
        ``values``: the winner's han, fu and yaku (:func:`value_of_result`)."""
        value = {"hand": {k: v for k, v in request.items() if k not in ("ruleset",)}}
        if request.get("win") == "ron":
            if not hand.get("discarder"):
                return {"error": "ron from whom? name the discarder on the control page"}
            event = {"type": "ron", "discarder": hand["discarder"],
                     "winners": [{"player": hand["winner"], **value}]}
        else:
            event = {"type": "tsumo", "player": hand["winner"], **value}
        with self._lock:
            lines = self.lines + [json.dumps(event, ensure_ascii=False)]
        try:                              # named as the event, not as a line of the file
            _, states = _read(lines, self.path, new="")
        except LedgerError as exc:
            return {"error": str(exc)}
        values = [{"player": hand["winner"], **value_of_result(result)}] if result else []
        return {"event": event, "lines": list(states[-1].lines), "values": values}

    def confirm(self) -> None:
        """Write the proposed win to FILE: the ledger moves on. LedgerError when none stands."""
        with self._lock:
            proposal = self.proposal
        if not proposal or "event" not in proposal:
            raise LedgerError(proposal["error"] if proposal else "no win to confirm: no scored hand is on screen")
        self.add(proposal["event"])
        with self._lock:
            self._settled = self._offered
            self._settled_line, self._settled_lines = self.lines[-1], list(self.state.lines)

    def settle_on_screen(self) -> None:
        """The last event (a win typed on the control page) paid the hand on screen: it is not
        proposed again, and the overlay's card says what was paid."""
        with self._lock:
            if self._offered and self._offered == self._settled and self._settled_line in self.lines:
                return                         # the hand on screen was paid by an earlier win
            self._settled, self._settled_line = self._offered, self.lines[-1]
            self._settled_lines = list(self.state.lines)
            self.proposal = None

    def add(self, event: dict) -> None:
        """Append one event (docs/game-json.md) to FILE; LedgerError when the rules refuse it
        (the file stays as it was)."""
        if not isinstance(event, dict):
            raise LedgerError("an event is a JSON object")
        with self._lock, self._file_lock():
            # the file as it is now: an event added beside the stream (tilescope game --add,
            # the table page) is kept, not written over
            lines = self._file_lines() + [json.dumps(event, ensure_ascii=False)]
            options, states = _read(lines, self.path, new="")   # named as the event
            self._write(lines)
            self.lines, self.options, self.states = lines, options, states
            self.proposal = None

    def undo(self) -> dict:
        """Take the last event out of FILE; returns it. LedgerError when there is none."""
        with self._lock, self._file_lock():
            current = self._file_lines()
            if len(current) <= 1:
                raise LedgerError(f"{self.path}: no event to undo")
            lines = current[:-1]
            options, states = _read(lines, self.path)
            self._write(lines)
            last = json.loads(current[-1])
            self.lines, self.options, self.states = lines, options, states
            self.proposal = None
            if self._settled_line not in lines[1:]:    # the win that paid it is undone
                self._settled, self._settled_line = (), None
        return last

    def _file_lines(self) -> list[str]:
        """FILE's non-empty lines as they are now; LedgerError when it cannot be read (a FIFO
        or other non-regular file is refused by name, not waited on)."""
        from .game_file import GameFileError, read_lines

        try:
            return [ln for ln in read_lines(self.path) if ln.strip()]
        except GameFileError as exc:
            raise LedgerError(str(exc)) from None

    @contextlib.contextmanager
    def _file_lock(self):
        """FILE's lock, across processes (vision.common.safe_files.locked); LedgerError when the
        lock file cannot be made."""
        from vision.common.safe_files import locked

        lock = locked(self.path)
        try:
            lock.__enter__()
        except OSError as exc:
            raise LedgerError(f"cannot lock {self.path}: {exc.strerror or exc}") from None
        try:
            yield
        finally:
            lock.__exit__(None, None, None)

    def _write(self, lines: list[str]) -> None:
        from .game_file import GameFileError, write_game

        try:
            write_game(self.path, lines)  # a crash mid-write leaves the old file whole
        except GameFileError as exc:
            raise LedgerError(str(exc)) from None

    # ------------------------------------------------------------ the overlay's message

    def table_message(self) -> dict:
        """The overlay's ``table`` message (docs/overlay-json.md)."""
        from .game_file import ranking_json

        with self._lock:
            state, proposal, options = self.state, self.proposal, self.options
            before = self.states[-2] if len(self.states) > 1 else None
            last = json.loads(self.lines[-1]) if len(self.lines) > 1 else None
            # the hand on screen was paid by an event still in the file (later events, a chombo,
            # a typed win, leave it paid; its undo puts it back in play)
            paid_at = (self.lines.index(self._settled_line, 1)
                       if self._settled and self._settled_line in self.lines[1:] else None)
            settled = None if paid_at is None else {
                "tiles": list(self._settled), "lines": list(self._settled_lines),
                "values": win_values(self.states[paid_at - 1], json.loads(self._settled_line),
                                     options.rules)}
        ranks = rg.places(state.points)
        players = [{"name": name, "points": state.points[i], "wind": state.seat_wind(i),
                    "dealer": i == state.dealer and not state.ended, "riichi": i in state.in_riichi,
                    "dead": i in state.dead, "rank": ranks[i],
                    "change": state.points[i] - before.points[i] if before else 0}
                   for i, name in enumerate(state.players)]
        return {"type": "table", "round": state.round_name, "honba": state.honba,
                "sticks": state.sticks, "players": players, "events": len(self.states) - 1,
                "last": {"event": last, "lines": list(state.lines),
                         "values": win_values(before, last, options.rules)} if last else None,
                "proposal": proposal, "ended": state.ended,
                "ranking": ranking_json(state, options) if state.ended else None,
                "settled": settled}


def value_of_result(result: dict) -> dict:
    """A scored riichi result as the overlay names a win: ``{"han", "fu", "limit", "words",
    "yaku": [{"name", "han"}]}`` (dora, red fives and ura dora as lines of their own)."""
    dora = result.get("dora") or {}
    yaku = [{"name": y["name"], "han": y["han"]} for y in result.get("yaku", [])] + [
        {"name": name, "han": dora[key]} for key, name in
        (("dora", "dora"), ("aka", "aka dora"), ("ura", "ura dora")) if dora.get(key)]
    limit = result.get("limit") or None
    han, fu = result.get("han") or 0, result.get("fu") or 0
    full = limit and limit.endswith("yakuman") and not limit.startswith("kazoe")
    return {"han": han, "fu": fu, "yakuman": han // 13 if full else 0, "limit": limit,
            "words": limit_words(han, fu, limit=limit) if limit else f"{han} han {fu} fu",
            "yaku": yaku}


def win_values(before, event: dict | None, rules=None) -> list[dict]:
    """Each winner of a ``ron`` or ``tsumo`` event with the value paid: typed (han, fu,
    yakuman) or scored from its hand in the state ``before`` it (:func:`value_of_result`);
    ``[]`` for any other event."""
    from .game_file import scored_win

    if not event or before is None or event.get("type") not in ("ron", "tsumo"):
        return []
    winners = event.get("winners") or [] if event["type"] == "ron" else [event]
    out = []
    for w in winners:
        if not isinstance(w, dict):
            continue
        if isinstance(w.get("hand"), dict):
            try:
                result = scored_win(before, w.get("player"), w["hand"], event["type"], w.get("discards"))
            except (rg.GameError, ValueError):
                continue                   # the ledger took it: it scores; never a traceback
            out.append({"player": w.get("player"), **value_of_result(result)})
        else:
            han, fu, yakuman = w.get("han", 0), w.get("fu", 0), w.get("yakuman", 0)
            from scoring.hand import RiichiRules
            from scoring.riichi.limits import base_points

            limit = base_points(han, fu, rules or RiichiRules(), yakuman)[1]
            out.append({"player": w.get("player"), "han": han, "fu": fu, "yakuman": yakuman,
                        "limit": limit, "words": limit_words(han, fu, yakuman, limit),
                        "yaku": []})
    return out
