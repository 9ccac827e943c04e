"""The waiting line in front of the server's work: :class:`Gate`.

A request whose body has arrived takes one of the gate's slots, or waits in line for one,
first come first served. It is told "busy" only when the line is full (``queue_length``
waiting) or when it has waited ``max_wait_s`` without a slot; the answer then carries how
long to wait before sending again (``Retry-After``), from the time the last requests took.
"""
from __future__ import annotations

import asyncio
import math
import threading
import time
from collections import deque


class Busy(Exception):
    """No slot: the line is full, or the wait was over. ``retry_after``: whole seconds."""

    def __init__(self, message: str, retry_after: int):
        super().__init__(message)
        self.message, self.retry_after = message, retry_after


class _Turn:
    """One request waiting in line: woken by ``leave`` (its slot is then ``granted``)."""

    __slots__ = ("loop", "future", "granted")

    def __init__(self):
        self.loop = asyncio.get_running_loop()
        self.future = self.loop.create_future()
        self.granted = False

    def wake(self) -> None:
        def done():
            if not self.future.done():
                self.future.set_result(None)
        self.loop.call_soon_threadsafe(done)


class Gate:
    """``slots`` requests at work at once, up to ``queue_length`` more waiting in order.

    :meth:`enter` waits for a slot or raises :class:`Busy`, :meth:`leave` hands the slot to
    the first still waiting. Thread-safe (a test client may run requests on several loops).
    """

    def __init__(self, slots: int, queue_length: int, max_wait_s: float, what: str = "requests"):
        self.slots, self.queue_length, self.max_wait_s, self.what = slots, queue_length, max_wait_s, what
        self.running = 0
        self.waiting: deque[_Turn] = deque()
        self.mean_s = 1.0           # how long one request held its slot, lately (moving mean)
        self._lock = threading.Lock()

    def retry_after(self) -> int:
        """Seconds until a request sent now would likely find room: the line ahead of it,
        served ``slots`` at a time at the recent pace; 1 to 60."""
        ahead = len(self.waiting) + 1
        return max(1, min(60, math.ceil(ahead * self.mean_s / self.slots)))

    async def enter(self) -> float:
        """Take a slot, waiting in line for it; the time it was taken (monotonic). Raises
        Busy when the line is full or ``max_wait_s`` passes first."""
        with self._lock:
            if self.running < self.slots and not self.waiting:
                self.running += 1
                return time.monotonic()
            if len(self.waiting) >= self.queue_length:
                raise Busy(f"the server is busy: {len(self.waiting)} {self.what} are waiting, as "
                           f"many as its line holds; send it again in {self.retry_after()} s",
                           self.retry_after())
            turn = _Turn()
            self.waiting.append(turn)
        try:
            await asyncio.wait_for(asyncio.shield(turn.future), self.max_wait_s)
        except asyncio.TimeoutError:
            with self._lock:
                if not turn.granted:
                    self.waiting.remove(turn)
                    raise Busy(f"the server is busy: this request waited {self.max_wait_s:g} s "
                               f"in line without its turn; send it again in "
                               f"{self.retry_after()} s", self.retry_after()) from None
        except asyncio.CancelledError:      # the client went away while it waited
            with self._lock:
                granted = turn.granted
                if not granted:
                    self.waiting.remove(turn)
            if granted:
                self.leave(time.monotonic())
            raise
        return time.monotonic()

    def leave(self, since: float) -> None:
        """Give the slot taken at ``since`` to the first request still waiting."""
        with self._lock:
            self.mean_s = 0.8 * self.mean_s + 0.2 * (time.monotonic() - since)
            if self.waiting:
                turn = self.waiting.popleft()
                turn.granted = True         # its slot passes on: running stays the same
                turn.wake()
            else:
                self.running -= 1
