"""Progress of a long run on stderr: a tqdm bar on a terminal, else (a log file, a pipe, CI)
a plain line every :data:`Progress.PLAIN_EVERY_S` seconds, never a ``\\r`` run into one
endless line. Used by ``tilescope batch`` (photos) and ``tilescope stream --out`` (frames)."""
from __future__ import annotations

import math
import sys
import time


class Progress:
    """Progress in ``unit`` (a video frame read counts as one photo in ``batch``) with the
    rate and the time left, each plain line prefixed ``tilescope NAME:``."""

    PLAIN_EVERY_S = 10.0

    def __init__(self, name: str, total: int, enabled: bool = True, unit: str = "photos",
                 tqdm_unit: str = "photo"):
        self.name, self.total, self.n, self.unit = name, total, 0, unit
        self.enabled = enabled and total > 0
        self.t0 = self.last = time.monotonic()
        self.bar = None
        if self.enabled and sys.stderr.isatty():
            try:
                from tqdm import tqdm
            except ImportError:         # the bar is a nicety of the dev extra: plain lines then
                tqdm = None
            if tqdm is not None:
                self.bar = tqdm(total=total, unit=tqdm_unit, desc=name, smoothing=0.1)

    def update(self, n: int = 1) -> None:
        self.n += n
        if self.bar is not None:
            self.bar.update(n)
            return
        now = time.monotonic()
        if self.enabled and (now - self.last >= self.PLAIN_EVERY_S or self.n >= self.total):
            self.last = now
            rate = self.n / max(now - self.t0, 1e-9)
            left = (self.total - self.n) / rate if rate > 0 else math.inf
            print(f"tilescope {self.name}: {self.n}/{self.total} {self.unit} "
                  f"({100 * min(self.n, self.total) // self.total}%), {rate:.1f}/s, {_clock(max(0.0, left))} left",
                  file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _clock(seconds: float) -> str:
    if not math.isfinite(seconds):
        return "?"
    s = int(round(seconds))
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"
