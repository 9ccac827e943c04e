"""What riichi needs of each way to split one suit, for every suit pattern, in two tables.

A complete hand's readings combine one split of each suit (scoring/decompose.py's complete
split tables) with the declared melds. Most of what the yaku and fu ask of a reading is a sum
or an OR over its sets, so each split's share is worked out here once, for every pattern: its
runs and triplets as bit masks over the suit's positions, their numbers, identical runs, whether
every set holds a terminal, the fu of its triplets, and the sets a winning tile at each position
can have completed. A new hand then costs the scorer four look-ups and a few additions per
reading instead of a pass over its sets (scoring/riichi/readings.py). The tables hold 22,241
patterns and are built on first use from the split tables, sharing what splits with the same
sets have in common (~0.1 s with the split tables on this 2-core machine, under load).

Positions are 0..8 inside a numbered suit (one table for the three suits: a suit's position p is
kind ``9 x suit + p``) and 0..6 for the honours (which form no runs). Triplets formed in the hand
are concealed; a triplet that the winning tile completed by ron counts open, which the scorer
applies to the one set concerned.
"""
from __future__ import annotations

from typing import NamedTuple

from ..decompose import (KANCHAN, PENCHAN, RUN, RYANMEN, SHANPON, TRIPLET, Group,
                         split_table)
from .fu import set_fu_line
from .result import FuLine


# SuitSplit.counts packs small counts into one int, so that a reading adds its suits' (and
# melds') counts with one addition each: field F holds ``counts >> F_SHIFT & FIELD_MASK``
# (the fu, the last field, ``counts >> FU_SHIFT``); no sum over a hand reaches 16 (the fu 256).
FIELD_MASK = 15
RUNS_SHIFT, TRIPLETS_SHIFT, PEIKOU_SHIFT, INNER_SHIFT, CONCEALED_SHIFT, FU_SHIFT = 0, 4, 8, 12, 16, 20
RUNS_FIELD = 1 << RUNS_SHIFT            # runs
TRIPLETS_FIELD = 1 << TRIPLETS_SHIFT    # triplets and kans
PEIKOU_FIELD = 1 << PEIKOU_SHIFT        # pairs of identical runs
INNER_FIELD = 1 << INNER_SHIFT          # sets without a terminal or honour
CONCEALED_FIELD = 1 << CONCEALED_SHIFT  # concealed triplets and kans (a hand's, closed kans)
FU_FIELD = 1 << FU_SHIFT                # fu of the triplets and kans


class SuitSplit(NamedTuple):
    """One split of one suit's tiles: at most one pair and its sets, with riichi's facts.

    ``pair``: the pair's position, -1 if none. ``counts``: runs, triplets, pairs of identical
    runs, sets without a terminal or honour, concealed triplets (all of them: a hand's triplets
    are concealed) and their fu, packed (see ``*_FIELD`` above). ``runs`` / ``triplets``: bit p
    set for a run from position p / a triplet of position p (a run twice sets one bit).
    ``fu_lines``: the triplets' fu lines, in set order. ``groups[suit]``: the sets as the shared
    concealed :class:`~scoring.decompose.Group` values of that suit (0..2 man, pin, sou; 3
    honours; None where the table is not that suit's). ``wins[q]``: the sets a winning tile at
    position q can have completed, once each, in set order: ``(index in sets, wait, index among
    the triplets or -1 for a run)``. ``sets``: ``((shape, position), ...)`` as the split table
    gives them (runs and triplets; a closed kan is a declared meld, never a hand's set).
    """

    pair: int
    counts: int
    runs: int
    triplets: int
    fu_lines: tuple[FuLine, ...]
    groups: tuple
    wins: tuple
    sets: tuple[tuple[str, int], ...]


# the concealed groups there can be, by shape and kind (shared values, as decompose's)
_HAND_GROUPS = {shape: tuple(Group(shape, k) for k in range(34)) for shape in (RUN, TRIPLET)}


def _wins(sets: tuple[tuple[str, int], ...], q: int) -> tuple:
    """:attr:`SuitSplit.wins` at position ``q`` (the waits as in scoring.decompose.readings)."""
    out = []
    seen = []
    triplet = -1
    for i, (shape, pos) in enumerate(sets):
        if shape == TRIPLET:
            triplet += 1
            if pos != q:
                continue
            wait = SHANPON
        else:
            d = q - pos
            if d == 1:
                wait = KANCHAN
            elif d == 0:
                wait = PENCHAN if pos == 6 else RYANMEN
            elif d == 2:
                wait = PENCHAN if pos == 0 else RYANMEN
            else:
                continue
        if (shape, pos) in seen:        # the same set twice (iipeikou): one reading
            continue
        seen.append((shape, pos))
        out.append((i, wait, triplet if shape == TRIPLET else -1))
    return tuple(out)


def _sets_share(sets: tuple[tuple[str, int], ...], honours: bool) -> tuple:
    """Everything of :class:`SuitSplit` after ``pair``, for one suit's sets."""
    runs = triplets = counts = 0
    lines = []
    same_runs = [0] * 9     # runs by starting position
    for shape, pos in sets:
        if shape == RUN:
            same_runs[pos] += 1
            runs |= 1 << pos
            counts += RUNS_FIELD
            if pos not in (0, 6):
                counts += INNER_FIELD
        else:
            triplets |= 1 << pos
            counts += TRIPLETS_FIELD + CONCEALED_FIELD
            terminal = honours or pos in (0, 8)
            if not terminal:
                counts += INNER_FIELD
            line = set_fu_line(True, 2 if honours else int(terminal), True, False)
            lines.append(line)
            counts += line.fu * FU_FIELD
    counts += sum(m // 2 for m in same_runs) * PEIKOU_FIELD     # pairs of identical runs
    groups = [None] * 4
    for suit in ((3,) if honours else (0, 1, 2)):
        groups[suit] = tuple(_HAND_GROUPS[shape][9 * suit + pos] for shape, pos in sets)
    wins = tuple(_wins(sets, q) for q in range(7 if honours else 9))
    return counts, runs, triplets, tuple(lines), tuple(groups), wins, sets


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
