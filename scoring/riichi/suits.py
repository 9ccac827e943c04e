"""What riichi needs of each way to split one suit, for every suit pattern, in two tables.

A complete hand's readings combine one split of each suit (scoring/decompose.py's complete
split tables) with the declared melds. Most of what the yaku and fu ask of a reading is a sum
or an OR over its sets, so each split's share is worked out here once, for every pattern: its
runs and triplets as bit masks over the suit's positions, their numbers, identical runs, whether
every set holds a terminal, and the fu of its triplets. A new hand then costs the scorer four
look-ups and a few additions per reading instead of a pass over its sets
(scoring/riichi/readings.py).

Positions are 0..8 inside a numbered suit (one table for the three suits: a suit's position p is
kind ``9 x suit + p``) and 0..6 for the honours (which form no runs). Triplets formed in the hand
are concealed; a triplet that the winning tile completed by ron counts open, which the scorer
applies to the one set concerned.
"""
from __future__ import annotations

from typing import NamedTuple

from ..decompose import RUN, TRIPLET, Group, split_table
from .fu import set_fu_line
from .result import FuLine


class SuitSplit(NamedTuple):
    """One split of one suit's tiles: at most one pair and its sets, with riichi's facts.

    ``pair``: the pair's position, -1 if none. ``sets``: ``((shape, position), ...)`` as the
    split table gives them (runs and triplets; a hand has no concealed kan: a closed kan is a
    declared meld). ``runs`` / ``triplets``: bit p set for a run from position p / a triplet of
    position p (a run twice sets one bit: ``n_runs`` counts both). ``peikou``: pairs of identical
    runs. ``outside``: every set holds a terminal or honour. ``fu`` and ``fu_lines``: the fu of
    the triplets, all concealed, and their lines in set order. ``groups[suit]``: the sets as the
    shared concealed :class:`~scoring.decompose.Group` values of that suit (0..2 man, pin, sou;
    3 honours; None where the table is not that suit's).
    """

    pair: int
    sets: tuple[tuple[str, int], ...]
    runs: int
    n_runs: int
    triplets: int
    n_triplets: int
    peikou: int
    outside: bool
    fu: int
    fu_lines: tuple[FuLine, ...]
    groups: tuple


# the concealed groups there can be, by shape and kind (shared values, as decompose's)
_HAND_GROUPS = {shape: tuple(Group(shape, k) for k in range(34)) for shape in (RUN, TRIPLET)}


def _sets_share(sets: tuple[tuple[str, int], ...], honours: bool) -> tuple:
    """Everything of :class:`SuitSplit` after ``pair`` (from ``sets`` on), for one suit's sets."""
    runs = triplets = n_runs = n_triplets = fu = 0
    outside = True
    lines = []
    same_runs = [0] * 9     # runs by starting position
    for shape, pos in sets:
        if shape == RUN:
            same_runs[pos] += 1
            runs |= 1 << pos
            n_runs += 1
            if pos not in (0, 6):
                outside = False
        else:
            triplets |= 1 << pos
            n_triplets += 1
            terminal = honours or pos in (0, 8)
            if not terminal:
                outside = False
            line = set_fu_line(True, 2 if honours else int(terminal), True, False)
            lines.append(line)
            fu += line.fu
    peikou = sum(m // 2 for m in same_runs)     # pairs of identical runs
    suits = (3,) if honours else (0, 1, 2)
    groups = [None] * 4
    for suit in suits:
        groups[suit] = tuple(_HAND_GROUPS[shape][9 * suit + pos] for shape, pos in sets)
    return (sets, runs, n_runs, triplets, n_triplets, peikou, outside, fu, tuple(lines),
            tuple(groups))


_TABLES: list = []      # [numbered suits, honours]: pattern bytes -> tuple of SuitSplit
_new = tuple.__new__


def _table(honours: bool) -> dict[bytes, tuple[SuitSplit, ...]]:
    shares: dict = {}       # many patterns share a split's sets (with another pair or none)
    out = {}
    for key, splits in split_table(honours).items():
        row = []
        for pair, sets in splits:
            share = shares.get(sets)
            if share is None:
                share = shares[sets] = _sets_share(sets, honours)
            row.append(_new(SuitSplit, (pair,) + share))
        out[key] = tuple(row)
    return out


def suit_tables() -> tuple[dict[bytes, tuple[SuitSplit, ...]], dict[bytes, tuple[SuitSplit, ...]]]:
    """``(numbered, honours)``: suit counts as bytes (9, or 7 for the honours) -> every
    :class:`SuitSplit` of that pattern, in the split table's order; a pattern that does not split
    is not a key. Built on the first call (with the split tables)."""
    if not _TABLES:
        _TABLES[:] = [_table(False), _table(True)]
    return _TABLES[0], _TABLES[1]
