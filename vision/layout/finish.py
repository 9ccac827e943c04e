"""The last step of a parse: number the tiles, warn about everything uncertain, build the request.

:func:`finish` turns the chosen groups into a :class:`vision.layout.result.Layout`: every tile
gets its number in the player's reading order (or the numbering of an earlier reading), every
uncertain group and tile a :class:`LayoutWarning` naming the flag that undoes the guess, and
when no winning tile is set apart the tiles that could be it are named
(:func:`vision.layout.request.win_candidates`; the judging chooses among them).
"""
from __future__ import annotations

import math
from typing import Callable

from vision.read.detections import Detection
from vision.read.rows import BACK
from .groups import Group, LayoutWarning
from .request import TileRequest, build_request, win_candidates
from .result import Layout


def finish(groups: list[Group], ruleset: str, warnings: list[LayoutWarning],
           low_confidence: float, position: Callable[[Detection], int] | None = None) -> Layout:
    """The :class:`Layout` of ``groups``, with the warnings about them appended to
    ``warnings``; ``position`` gives each tile's place in the numbering (default: the groups'
    reading order)."""
    order = [d for g in groups for d in g.detections]
    if position is not None:
        order.sort(key=position)
    layout = Layout(groups, order, TileRequest(), warnings)
    num = layout.number
    for g in groups:
        warnings.extend(_group_warnings(g, groups, ruleset, num))
    warnings.extend(_low_confidence_warnings(order, low_confidence, num))
    layout.ruleset = ruleset
    layout.hand = build_request(groups, ruleset)
    # a winning tile not set apart: the layout names the tiles that could be it; the judging
    # (vision.photo.judging.judge_layout) scores each, chooses, and warns (win_tile_not_shown)
    layout.win_candidates = win_candidates(layout.hand)
    return layout


def _group_warnings(g: Group, groups: list[Group], ruleset: str,
                    num: Callable[[Detection], int]) -> list[LayoutWarning]:
    """What is uncertain about one group: a meld with no turned tile, a face-down tile in the
    hand, tiles away from the hand (beside the flowers: a flower?), flowers in riichi."""
    out = []
    if g.kind == "meld" and g.meld_type != "ankan" and not any(d.sideways for d in g.detections):
        nums = tuple(num(d) for d in g.detections)
        # numbered by an earlier reading, a meld's tiles may run backwards or apart, and
        # --meld takes a first-last span of consecutive numbers only
        lo, hi = min(nums), max(nums)
        span = f"{lo}-{hi}" if hi - lo + 1 == len(nums) else ", ".join(map(str, sorted(nums)))
        fix = f"--meld {span}=concealed" if "-" in span else ""
        out.append(LayoutWarning(
            "meld_without_sideways",
            f"tiles {span} ({g.mpsz()}) are set apart like an exposed {g.meld_type} but no "
            f"turned (sideways) tile was seen in it; scored as an exposed {g.meld_type}. If "
            f"they are part of the concealed hand, "
            + (f"pass {fix}" if fix else "type the hand with tilescope hand --text"),
            fix, nums,
        ))
    if g.kind in ("concealed", "win"):
        for d in g.detections:
            if d.tile == BACK:
                out.append(LayoutWarning(
                    "back_tile", f"tile {num(d)} is face down; pass its face",
                    f"--fix {num(d)}=TILE", (num(d),)))
    if g.kind == "loose":
        nums = tuple(num(d) for d in g.detections)
        out.append(LayoutWarning(
            "loose_tiles", f"{len(nums)} tile(s) away from the hand were not counted",
            tiles=nums))
        out.extend(_beside_flowers(g, groups, ruleset, num))
    if g.kind == "flower" and ruleset == "riichi":
        out.append(LayoutWarning(
            "flowers_in_riichi", "flower tiles are not used in riichi; ignored",
            tiles=tuple(num(d) for d in g.detections)))
    return out


def _low_confidence_warnings(order: list[Detection], low_confidence: float,
                             num: Callable[[Detection], int]) -> list[LayoutWarning]:
    """A warning for each face read under ``low_confidence``, with its next guesses."""
    out = []
    for d in order:
        if d.tile != BACK and d.confidence < low_confidence:
            alt = ", ".join(f"{t} ({c:.2f})" for t, c in d.alternatives[:2])
            best_alt = d.alternatives[0][0] if d.alternatives else "TILE"
            out.append(LayoutWarning(
                "low_confidence",
                f"tile {num(d)} read as {d.tile} (confidence {d.confidence:.2f})"
                + (f"; next guesses {alt}" if alt else "")
                # the reading may well be right: the fix is for the user who sees otherwise
                + (f". Look at it; if it is {best_alt}, pass --fix {num(d)}={best_alt}"
                   if d.alternatives else ". Look at it; if it is another tile, pass "
                                          f"--fix {num(d)}=TILE"),
                f"--fix {num(d)}={best_alt}", (num(d),)))
    return out


def _beside_flowers(loose: Group, groups: list[Group], ruleset: str, num) -> list[LayoutWarning]:
    """MCR: a loose tile touching a flower is most likely a flower misread (flowers are set
    aside together); say so with the fix, since each flower is a point (Green Book: Flower
    Tiles, 1 point each). Touching: centres less than 1.5 tile widths apart."""
    if ruleset != "mcr":
        return []
    flowers = [d for g in groups if g.kind == "flower" for d in g.detections]
    free = [f"{n}f" for n in range(1, 9) if f"{n}f" not in {d.tile for d in flowers}]
    out = []
    for d in loose.detections:
        near = any(math.dist(d.center, f.center) < 1.5 * min(f.width, f.height) for f in flowers)
        if near and free:
            out.append(LayoutWarning(
                "beside_flowers",
                f"tile {num(d)} ({d.tile}) lies beside the flowers and was not counted; if it is a "
                f"flower, pass --fix {num(d)}={free[0]} (any flower code counts the same)",
                f"--fix {num(d)}={free[0]}", (num(d),)))
    return out
