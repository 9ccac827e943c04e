"""The context a stream scores under, changed while it runs: the control page's per-hand settings.

``tilescope stream`` starts from the run's context (``--context`` and the flags); the control
page (``GET /control`` on the overlay's port, ``vision.stream.overlay``) sets, for the hand in play,
how it was won, the winner's seat, riichi, the dora indicators (typed, or the row the camera
sees) and the counters. A ledger (``--game``, :mod:`vision.server.ledger`) supplies the seats, the
round and the counters instead, from the winner named. ``LiveContext.version`` moves on each
change: the stream rescores the hand on screen when it sees a new one.
"""
from __future__ import annotations

import threading
from typing import Any, Callable

# the per-hand keys the control page sets, beside the run's context; "dora_indicators":
# "camera" is the row the camera sees (the context names none, so the photo's row stands)
HAND_KEYS = ("win", "seat_wind", "round_wind", "riichi", "dora_indicators", "honba", "riichi_sticks")
# keys a ledger fills in from the winner: the control page names the winner instead
TABLE_KEYS = ("seat_wind", "round_wind", "honba", "riichi_sticks", "riichi")
CAMERA = "camera"


class ContextError(ValueError):
    """A setting the scorer would refuse, in one line."""


class LiveContext:
    """The run's context overlaid with the hand's settings; thread-safe (the control page's
    requests come from the server's thread, the stream reads it from its own).

    ``table``: for a game (``--game``), a callable ``(hand settings) -> context`` giving the
    seat and round winds, counters, sticks and riichi of the winner the settings name
    (``vision.server.ledger.LedgerSession.context_for``); those keys then cannot be set by hand.
    """

    def __init__(self, base: dict | None = None, table: Callable[[dict], dict] | None = None):
        from vision.photo.pipeline import validate_context

        self.base = validate_context(base)
        self.table = table
        self.hand: dict[str, Any] = {}
        self.version = 0
        self._lock = threading.Lock()

    def current(self) -> dict:
        """The context to score under now (a new dict)."""
        with self._lock:
            return self._merged(self.hand)

    def _merged(self, hand: dict) -> dict:
        ctx = dict(self.base)
        if self.table is not None:
            ctx.update(self.table(hand))
        for key, value in hand.items():
            if key in HAND_KEYS:
                ctx[key] = value
        if ctx.get("dora_indicators") == CAMERA:
            del ctx["dora_indicators"]              # the camera's dora row stands
        return ctx

    def set(self, changes: dict) -> dict:
        """Change the hand's settings (``{"win": "ron", "dora_indicators": "3s"}``; a key set
        to null goes back to the run's; ``"dora_indicators": "camera"``: the camera's row).
        Raises ContextError for an unknown key or a context the scorer refuses; returns
        :meth:`state`."""
        from vision.photo.pipeline import validate_context

        if not isinstance(changes, dict):
            raise ContextError("the settings must be a JSON object")
        allowed = HAND_KEYS + (("winner", "discarder") if self.table is not None else ())
        for key in changes:
            if key not in allowed:
                raise ContextError(f"unknown setting {key!r}: one of {', '.join(allowed)}")
            if self.table is not None and key in TABLE_KEYS:
                raise ContextError(f"{key!r} comes from the game's ledger: name the winner instead")
        with self._lock:
            hand = dict(self.hand)
            for key, value in changes.items():
                if value is None:
                    hand.pop(key, None)
                else:
                    hand[key] = value
            try:
                validate_context(self._merged(hand))
            except ValueError as exc:
                raise ContextError(str(exc).removeprefix("context: ")) from None
            self.hand = hand
            self.version += 1
        return self.state()

    def reset(self, rescore: bool = True) -> None:
        """A new hand: the settings go back to the run's (and the ledger's). ``rescore``:
        move the version on (the hand on screen is scored again); not after a hand was
        settled in the ledger (its value stays as it was paid)."""
        with self._lock:
            self.hand = {}
            if rescore:
                self.version += 1

    def restore(self, settings: dict) -> None:
        """The hand's settings put back as they were (an undone event's), without the checks
        of :meth:`set` (they were accepted once; a key no longer valid is dropped), and the
        hand on screen scored again."""
        from vision.photo.pipeline import validate_context

        hand = {k: v for k, v in (settings or {}).items()
                if k in HAND_KEYS + ("winner", "discarder")}
        with self._lock:
            try:
                validate_context(self._merged(hand))
            except (ValueError, LookupError):
                hand = {}
            self.hand = hand
            self.version += 1

    def bump(self) -> None:
        """Something the context is made of changed elsewhere (the ledger moved on)."""
        with self._lock:
            self.version += 1

    def state(self) -> dict:
        """``{"context", "hand", "version"}``: what scores now, the hand's own settings."""
        with self._lock:
            return {"context": _jsonable(self._merged(self.hand)), "hand": dict(self.hand),
                    "version": self.version}


def _jsonable(ctx: dict) -> dict:
    """The context as JSON can carry it (rule options as a dict, tiles as mpsz)."""
    from dataclasses import asdict, is_dataclass

    from scoring.tiles import to_mpsz

    out = {}
    for key, value in ctx.items():
        if is_dataclass(value):
            value = asdict(value)
        elif isinstance(value, tuple):
            value = to_mpsz(value)
        out[key] = value
    return out
