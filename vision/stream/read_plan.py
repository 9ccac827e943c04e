"""Which frames of a stream are read in full, and which only move the last reading.

A full read (detector + classifier) costs 100-200 ms of CPU a 1280x720 frame on the
development machine: a 30 fps hand camera read in full would take three to six cores. Between frames
the hand mostly does not move, so :class:`ReadPlanner` reads a frame in full only when:

- it is the first, or the picture changed since the last full read (the *keyframe*:
  :class:`vision.stream.frame_change.ChangeWatcher` takes the camera's shake out and looks for
  anything else): a hand laid down, a tile swapped, an arm over the hand, the camera moved;
- it is one of the :data:`SETTLE_READS` frames after such a change: the tracker votes each
  tile's name over real readings, as it does when every frame is read, before the hand is
  shown (``vision.stream.live.TileTracker``);
- :data:`AUDIT_FRAMES` frames went by without one: a change too faint for the watcher still
  shows; an audit whose tiles differ from the tracked hand settles again.

Every other frame is *held*: the tracked tiles stay as they are, moved by the shake
(:meth:`vision.stream.live.HandStabiliser.hold`), and no model runs.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.read.detections import Detections
from .frame_change import ChangeWatcher

# Full reads after a change, before frames are held again: the stabiliser's default
# stable_frames (``tilescope stream`` passes its --stable), so the hand first shown was voted
# over as many real readings as in a stream that reads every frame.
SETTLE_READS = 8
# The longest run of held frames (5 s at 30 fps): one full read of 0.1-0.2 CPU s in 150
# frames is 1-2% of the stream's cost.
AUDIT_FRAMES = 150


@dataclass(frozen=True)
class Plan:
    """What to do with one frame. ``full``: read it (``whole``: the whole frame, else as the
    runner reads by default, through the last read's zoom windows); else hold the tracked tiles, moved by ``shift`` (dx, dy px since
    the previous frame). ``why``: the reason for a full read, in words; ``audit``: the read is
    the periodic one (:data:`AUDIT_FRAMES`)."""

    full: bool
    why: str = ""
    whole: bool = False
    shift: tuple[float, float] = (0.0, 0.0)
    audit: bool = False


class ReadPlanner:
    """:meth:`plan` each frame, then :meth:`read` with what a planned full read found.

    ``settle``: full reads after a change (see :data:`SETTLE_READS`); ``audit``: the longest
    run of held frames. Raises ValueError when ``settle`` < 1 or ``audit`` < 1."""

    def __init__(self, settle: int = SETTLE_READS, audit: int = AUDIT_FRAMES,
                 watcher: ChangeWatcher | None = None):
        if settle < 1 or audit < 1:
            raise ValueError("settle and audit must be at least 1")
        self.settle, self.audit = settle, audit
        self.watcher = watcher or ChangeWatcher()
        self._due = 0                   # full reads still due after a change
        self._held = 0                  # frames held since the keyframe
        self._shift = (0.0, 0.0)        # the previous frame's shift from the keyframe
        self._last: Plan | None = None  # the plan of the last frame

    def plan(self, image: np.ndarray) -> Plan:
        """The plan for ``image`` ``(H, W, 3) uint8`` BGR, the next frame."""
        if not self.watcher.ready:
            self._due = self.settle
            plan = Plan(True, "first frame", whole=True)
        elif self._due > 0:
            plan = Plan(True, "settling after a change")
        elif self._held >= self.audit:
            plan = Plan(True, f"audit after {self._held} held frames", whole=True, audit=True)
        else:
            change = self.watcher.check(image)
            if change.changed:
                self._due = self.settle
                # the whole frame: the last read's zoom windows fit the old picture (a mixed
                # clip's second hand, larger tiles over the first one's place, read through
                # the first one's windows, was shown 15 frames late); the settling reads after
                # go through the windows this read plans
                plan = Plan(True, change.why, whole=True)
            else:
                step = (change.shift[0] - self._shift[0], change.shift[1] - self._shift[1])
                self._shift = change.shift
                self._held += 1
                plan = Plan(False, shift=step)
        self._last = plan
        return plan

    def read(self, image: np.ndarray, detections: Detections, agrees: bool = True) -> None:
        """A planned full read of ``image`` found ``detections``: it is the keyframe now.
        ``agrees``: its tiles are the tracked hand's; an audit that disagrees settles again."""
        boxes = np.array([d.box for d in detections.tiles], np.float64).reshape(-1, 4)
        self.watcher.keyframe(image, boxes)
        self._shift, self._held = (0.0, 0.0), 0
        self._due = max(0, self._due - 1)
        if self._last is not None and self._last.audit and not agrees:
            self._due = self.settle - 1     # this read was the first of them
