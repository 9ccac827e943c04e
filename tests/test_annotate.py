"""vision.photo.annotate.draw: draws on a copy, in the colour of each meaning."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.photo.annotate import CONFIDENT, GROUP_COLOURS, UNCERTAIN, WINNING, draw
from vision.read.detections import Detection


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


def test_tiny_tiles_get_every_code_and_number_without_overlaps():
    # issue 40: a broadcast frame's ~6 px tiles, 14 side by side in 1280 x 720: the numbers
    # under each box ran into an illegible cluster. Every label now stands clear of every
    # other and of every tile; the crowded row's codes go in one line above it and its
    # numbers in one line below, in the tiles' order, each with a leader line
    from vision.photo.annotate import place_labels

    tiles = [Detection(code, (600 + 7 * i, 400, 606 + 7 * i, 408), 0.9)
             for i, code in enumerate("1m 2m 3m 4p 5p 6p 7s 8s 9s 2s 3s 5z 5z 4s".split())]
    labels = place_labels((1280, 720), tiles, numbers=True)
    codes = [lab for lab in labels if not lab.text.isdigit()]
    numbers = [lab for lab in labels if lab.text.isdigit()]
    assert [lab.text for lab in codes] == [t.tile for t in tiles]          # every tile's code
    assert [lab.text for lab in numbers] == [str(n) for n in range(1, 15)]  # and its number
    rects = [lab.rect for lab in labels]
    for i, a in enumerate(rects):
        for b in rects[i + 1:] + [tuple(map(int, t.box)) for t in tiles]:
            assert not (a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]), (a, b)
    assert all(lab.rect[3] <= 400 for lab in codes) and all(lab.rect[1] >= 408 for lab in numbers)
    assert all(lab.apart for lab in labels)                  # joined by leader lines
    assert len({lab.rect[1] for lab in codes}) == 1 and len({lab.rect[1] for lab in numbers}) == 1
    assert [lab.rect[0] for lab in numbers] == sorted(lab.rect[0] for lab in numbers)


def test_the_numbers_of_roomy_tiles_sit_right_under_them():
    # tiles wider than their labels: each code just above, each number just below, no line
    from vision.photo.annotate import place_labels

    tiles = [Detection("5m", (100 + 60 * i, 300, 150 + 60 * i, 370), 0.9) for i in range(3)]
    labels = place_labels((1280, 720), tiles, numbers=True)
    assert [(lab.text, lab.rect[1] < 300, lab.apart) for lab in labels] == [
        ("5m", True, False), ("5m", True, False), ("5m", True, False),
        ("1", False, False), ("2", False, False), ("3", False, False)]
    assert [lab.rect[1] for lab in labels if lab.text.isdigit()] == [370, 370, 370]
