"""A game's ledger kept beside the stream (``tilescope stream … --overlay PORT --game FILE``).

FILE is the JSON Lines game of ``tilescope game`` (docs/game-json.md), read and checked with
``vision.game_file.read_game`` and played by ``scoring.tournament.riichi_game``. The
session:

- gives the scorer the table's context for the winner named on the control page: seat and
  round wind, counters (honba), sticks on the table, riichi (:meth:`LedgerSession.context_for`);
- after a hand is scored, proposes the win's event and what each player pays
  (:meth:`LedgerSession.offer`): the ledger applies it as ``tilescope game --add`` would, but
  writes nothing until the streamer confirms (:meth:`LedgerSession.confirm`);
- appends the events typed on the control page (riichi, exhaustive or abortive draw, chombo)
  and takes the last one out (:meth:`LedgerSession.undo`); each change is written to FILE at
  once, as ``tilescope game`` writes it;
- describes itself as the overlay's ``table`` message (:meth:`LedgerSession.table_message`).
"""
from __future__ import annotations

import contextlib
import json
import threading

from scoring.tournament import riichi_game as rg


class LedgerError(ValueError):
    """An event the ledger refuses or a file it cannot use, in one line."""


def _read(lines: list[str], path: str, new: str | None = None):
    """(options, states) of the file's lines; LedgerError naming the problem (``new``: how
    to name the last line, as ``read_game`` takes it)."""
    from vision.game_file import GameFileError, read_game

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
            proposal = self._proposal(request, hand)
        with self._lock:
            changed = proposal != self.proposal
            self.proposal = proposal
        return changed

    def _proposal(self, request: dict, hand: dict) -> dict:
        """The win's event and its payments, or ``{"error"}`` when the ledger refuses it."""
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
        return {"event": event, "lines": list(states[-1].lines)}

    def confirm(self) -> None:
        """Write the proposed win to FILE: the ledger moves on. LedgerError when none stands."""
        with self._lock:
            proposal = self.proposal
        if not proposal or "event" not in proposal:
            raise LedgerError(proposal["error"] if proposal else "no win to confirm: no scored hand is on screen")
        self.add(proposal["event"])
        with self._lock:
            self._settled = self._offered

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
            self.proposal, self._settled = None, ()
        return last

    def _file_lines(self) -> list[str]:
        """FILE's non-empty lines as they are now; LedgerError when it cannot be read (a FIFO
        or other non-regular file is refused by name, not waited on)."""
        from vision.game_file import GameFileError, read_lines

        try:
            return [ln for ln in read_lines(self.path) if ln.strip()]
        except GameFileError as exc:
            raise LedgerError(str(exc)) from None

    @contextlib.contextmanager
    def _file_lock(self):
        """FILE's lock, across processes (vision.safe_files.locked); LedgerError when the
        lock file cannot be made."""
        from vision.safe_files import locked

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
        from vision.game_file import GameFileError, write_game

        try:
            write_game(self.path, lines)  # a crash mid-write leaves the old file whole
        except GameFileError as exc:
            raise LedgerError(str(exc)) from None

    # ------------------------------------------------------------ the overlay's message

    def table_message(self) -> dict:
        """The overlay's ``table`` message (docs/overlay-json.md)."""
        with self._lock:
            state, proposal = self.state, self.proposal
            last = json.loads(self.lines[-1]) if len(self.lines) > 1 else None
        players = [{"name": name, "points": state.points[i], "wind": state.seat_wind(i),
                    "dealer": i == state.dealer, "riichi": i in state.in_riichi}
                   for i, name in enumerate(state.players)]
        return {"type": "table", "round": state.round_name, "honba": state.honba,
                "sticks": state.sticks, "players": players, "events": len(self.states) - 1,
                "last": {"event": last, "lines": list(state.lines)} if last else None,
                "proposal": proposal, "ended": state.ended}
