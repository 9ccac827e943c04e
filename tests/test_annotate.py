"""vision.annotate.draw: draws on a copy, in the colour of each meaning."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.annotate import CONFIDENT, GROUP_COLOURS, UNCERTAIN, WINNING, draw
from vision.detections import Detection


@dataclass
class _Group:
    kind: str
    detections: list


def test_boxes_groups_and_winning_tile_on_a_copy():
    img = np.zeros((200, 300, 3), np.uint8)
    sure = Detection("5m", (20, 40, 60, 100), 0.95)
    unsure = Detection("0p", (80, 40, 120, 100), 0.3, sideways=True)
    win = Detection("7z", (200, 40, 240, 100), 0.9)
    out = draw(img, [sure, unsure, win], groups=[_Group("concealed", [sure, unsure])], winning=win)
    assert out.shape == img.shape and not img.any()          # input untouched
    # box edges carry the colour of their meaning (left edges, below the label band)
    assert tuple(out[90, 20]) == CONFIDENT
    assert tuple(out[90, 80]) == UNCERTAIN
    assert tuple(out[90, 199]) == WINNING
    # the group outline runs 3 px outside its tiles' union (x 20..120)
    assert tuple(out[90, 17]) == GROUP_COLOURS["concealed"]


def test_nothing_to_draw_gives_an_equal_copy():
    img = np.full((50, 50, 3), 7, np.uint8)
    out = draw(img, [])
    assert out is not img and np.array_equal(out, img)
