"""The threads that do the requests' blocking work, within the time limit.

Photos are read by ``Limits.workers`` threads; typed hands take milliseconds and have a thread
of their own, so that they never wait behind photos. The event loop itself never blocks.
"""
from __future__ import annotations

import asyncio
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Callable

from .errors import ApiError


def trim_heap() -> None:
    """Hand the heap's free memory back to the system (glibc's ``malloc_trim``), called when
    the last job of a burst ends: glibc keeps what the decoded photos and the detector freed,
    and a server that grew to 1.2 GB under a burst stayed at 658 MB idle (139 MB at start).
    Nothing where the C library has no ``malloc_trim`` (musl, macOS)."""
    if _MALLOC_TRIM is not None:
        _MALLOC_TRIM(0)


def _malloc_trim():
    import ctypes
    import ctypes.util

    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None


_MALLOC_TRIM = _malloc_trim()


class Workers:
    """The photo threads and the typed hands' thread; :meth:`run` runs a job on one of them."""

    def __init__(self, photo_threads: int, timeout_s: float):
        self.timeout_s = timeout_s
        self.photos = ThreadPoolExecutor(max_workers=photo_threads, thread_name_prefix="tilescope")
        # typed hands take milliseconds: a thread of their own, not a place in the photos' queue
        self.typed = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tilescope-typed")
        self._busy, self._busy_lock = 0, threading.Lock()     # jobs running in the pools

    def shutdown(self) -> None:
        """Drop the jobs still queued (the server is stopping: nobody waits for them)."""
        self.photos.shutdown(wait=False, cancel_futures=True)
        self.typed.shutdown(wait=False, cancel_futures=True)

    async def run(self, fn: Callable, *args, typed: bool = False):
        """Run blocking ``fn(*args)`` on a photo thread (``typed``: the typed hands' thread);
        ApiError 504 after ``timeout_s``, saying whether the work had begun.

        A job still queued when its time is up never starts, so a burst of requests cannot
        leave the pool busy with answers nobody waits for.
        """
        deadline = time.monotonic() + self.timeout_s
        started = threading.Event()

        def job():
            if time.monotonic() > deadline:
                raise ApiError(504, "timeout", "the server was too busy to start this request in time")
            started.set()
            return self._counted(fn, args, trim=not typed)

        fut = asyncio.get_running_loop().run_in_executor(self.typed if typed else self.photos, job)
        try:
            return await asyncio.wait_for(fut, timeout=self.timeout_s)
        except asyncio.TimeoutError:
            if not started.is_set():
                raise ApiError(504, "timeout",
                               f"the server was too busy to start this request within "
                               f"{self.timeout_s:g} s (other photos were being read); try "
                               "again") from None
            raise ApiError(504, "timeout",
                           f"the request took longer than {self.timeout_s:g} s and was given up "
                           "(its work may still finish in the background)") from None

    def _counted(self, fn: Callable, args: tuple, trim: bool):
        """``fn(*args)`` counted among the jobs running; the heap trimmed when a photo job
        was the last one (typed hands take a few KB: no trim after each)."""
        with self._busy_lock:
            self._busy += 1
        try:
            return fn(*args)
        finally:
            with self._busy_lock:
                self._busy -= 1
                idle = self._busy == 0
            if idle and trim:
                trim_heap()
