"""vision.stream.frame_change and vision.stream.read_plan: a frame is read again only when it changed.

The frames are a textured table with a row of "tiles" (textured rectangles) on it, moved by
sub-pixel shakes as a hand-held camera moves them; the watcher must take the shake out and
still see a tile swapped, a tile laid down beside the hand and a blank table gaining a tile.
"""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.read.detections import Detection, Detections
from vision.stream.frame_change import HAND_BLOCK_DIFF, MAX_SHIFT_PX, ChangeWatcher, hand_region
from vision.stream.read_plan import AUDIT_FRAMES, ReadPlanner

W, H = 640, 360
TILE = (22, 30)                     # a hand camera's tile, px


def _faces(n: int, seed: int = 1) -> list[np.ndarray]:
    """``n`` different tile faces: a light body with dark strokes."""
    rng = np.random.default_rng(seed)
    faces = []
    for _ in range(n):
        face = np.full((TILE[1], TILE[0], 3), 225, np.uint8)
        for _ in range(4):
            x1, y1 = rng.integers(2, TILE[0] - 8), rng.integers(2, TILE[1] - 8)
            cv2.rectangle(face, (int(x1), int(y1)), (int(x1) + 5, int(y1) + 6),
                          tuple(int(c) for c in rng.integers(0, 120, 3)), -1)
        faces.append(face)
    return faces


FACES = _faces(16)


def boxes_of(n: int, x0: int = 150, y0: int = 160) -> np.ndarray:
    return np.array([(x0 + i * 24, y0, x0 + i * 24 + TILE[0], y0 + TILE[1]) for i in range(n)], float)


def scene(faces: list[int], extra: tuple[int, int] | None = None, blank: bool = False) -> np.ndarray:
    """The table (a smooth texture, or flat with ``blank``) with tiles ``faces`` (indices into
    FACES) in a row, and one more face at ``extra`` (x, y) when given."""
    if blank:
        img = np.full((H, W, 3), (40, 90, 40), np.uint8)
    else:
        rng = np.random.default_rng(7)
        noise = cv2.resize(rng.integers(30, 110, (H // 16, W // 16, 3)).astype(np.uint8), (W, H),
                           interpolation=cv2.INTER_CUBIC)
        img = noise
    for f, (x1, y1, x2, y2) in zip(faces, boxes_of(len(faces)).astype(int)):
        img[y1:y2, x1:x2] = FACES[f]
    if extra is not None:
        x, y = extra
        img[y:y + TILE[1], x:x + TILE[0]] = FACES[15]
    return img


def shaken(img: np.ndarray, dx: float, dy: float) -> np.ndarray:
    m = np.float32([[1, 0, dx], [0, 1, dy]])
    return cv2.warpAffine(img, m, (img.shape[1], img.shape[0]), borderMode=cv2.BORDER_REPLICATE)


HAND = list(range(13))


def watcher_on(img: np.ndarray, n: int = 13) -> ChangeWatcher:
    w = ChangeWatcher()
    w.keyframe(img, boxes_of(n))
    return w


def test_a_shaken_frame_is_unchanged_and_its_shift_measured():
    base = scene(HAND)
    w = watcher_on(base)
    for dx, dy in [(0.0, 0.0), (2.3, -1.4), (-2.9, 1.9), (0.5, 0.5)]:
        change = w.check(shaken(base, dx, dy))
        assert not change.changed, (dx, dy, change)
        assert change.shift == pytest.approx((dx, dy), abs=0.3)
        assert change.diff < HAND_BLOCK_DIFF / 2


def test_a_tile_swapped_in_the_hand_is_a_change_in_the_hand():
    w = watcher_on(scene(HAND))
    swapped = list(HAND)
    swapped[5] = 14
    change = w.check(shaken(scene(swapped), 1.7, -0.6))
    assert change.changed and change.in_hand and "hand" in change.why


def test_a_tile_laid_down_away_from_the_hand_is_a_change_of_the_frame():
    w = watcher_on(scene(HAND))
    change = w.check(shaken(scene(HAND, extra=(520, 40)), 1.2, 0.8))
    assert change.changed and not change.in_hand


def test_a_blank_table_stays_unchanged_until_a_tile_comes():
    empty = scene([], blank=True)
    w = ChangeWatcher()
    w.keyframe(empty, np.zeros((0, 4)))
    assert not w.check(shaken(empty, 2.0, 1.0)).changed      # nothing to see the shake on
    assert w.check(scene([], extra=(300, 150), blank=True)).changed


def test_a_camera_moved_or_resized_is_a_change():
    base = scene(HAND)
    w = watcher_on(base)
    assert w.check(shaken(base, 3 * MAX_SHIFT_PX, 0)).changed
    assert w.check(cv2.resize(base, (W // 2, H // 2))).changed
    with pytest.raises(RuntimeError):
        ChangeWatcher().check(base)


def test_a_frame_too_small_to_compare_is_always_read():
    for shape in [(1, 1, 3), (7, 9, 3), (3, 200, 3), (40, 40, 3)]:
        img = np.zeros(shape, np.uint8)
        w = ChangeWatcher()
        w.keyframe(img, np.array([[0, 0, shape[1], shape[0]]], float))
        assert w.check(img).changed


def test_hand_region_reaches_a_tile_around_the_tiles_inside_the_frame():
    assert hand_region(np.zeros((0, 4)), W, H) is None
    x1, y1, x2, y2 = hand_region(boxes_of(3, x0=5, y0=5), W, H)
    assert (x1, y1) == (0, 0) and x2 == 5 + 2 * 24 + 22 + 30 and y2 == 5 + 30 + 30


# ---------------------------------------------------------------- the planner

def dets_for(n: int) -> Detections:
    return Detections(W, H, [Detection("1m", tuple(b), 0.9) for b in boxes_of(n)])


def test_the_planner_reads_the_first_frames_then_holds_then_audits():
    base = scene(HAND)
    planner = ReadPlanner(settle=3, audit=5)
    kinds = []
    for i in range(12):
        img = shaken(base, 2 * np.sin(i / 3), np.cos(i / 4))
        plan = planner.plan(img)
        kinds.append("R" if plan.full else "h")
        if plan.full:
            planner.read(img, dets_for(13))
    # 3 reads to settle, 5 held, the audit, then held again
    assert "".join(kinds) == "RRRhhhhhRhhh"


def test_a_change_settles_again_and_an_audit_that_disagrees_too():
    base = scene(HAND)
    planner = ReadPlanner(settle=2, audit=3)
    swapped = scene([14] + HAND[1:])
    frames = [base] * 4 + [swapped] * 8
    kinds = []
    for i, img in enumerate(frames):
        plan = planner.plan(img)
        kinds.append("R" if plan.full else "h")
        if plan.full:
            assert plan.whole == (i in (0, 4) or plan.audit)   # settling: through the windows
            planner.read(img, dets_for(13), agrees=not (plan.audit and i == 9))
    # 2 to settle, 2 held, the swap read twice, 3 held, an audit that disagrees (frame 9)
    # and one more read to settle, then held
    assert "".join(kinds) == "RRhhRRhhhRRh"


def test_the_planner_refuses_nonsense_settings():
    with pytest.raises(ValueError):
        ReadPlanner(settle=0)
    with pytest.raises(ValueError):
        ReadPlanner(audit=0)
    assert AUDIT_FRAMES >= 30         # at least a second between audits at 30 fps
