"""What riichi needs of each way to split one suit, for every suit pattern, in two tables.

A complete hand's readings combine one split of each suit (scoring/decompose.py's complete
split tables) with the declared melds. Most of what the yaku and fu ask of a reading is a sum
or an OR over its sets, so each split's share is worked out here once, for every pattern: its
runs and triplets as bit masks over the suit's positions, their numbers, identical runs, whether
every set holds a terminal, the fu of its triplets, and the sets a winning tile at each position
can have completed. A new hand then costs the scorer four look-ups and a few additions per
reading instead of a pass over its sets (scoring/riichi/readings.py). The tables hold up to
22,241 patterns, built from the split tables, sharing what splits with the same sets have in
common: each pattern's entry the first time a hand shows it (so a process that scores a few
hands pays for a few entries, not ~0.1 s for all on this 2-core machine under load), and all the
rest at once after :data:`FILL_AFTER` entries, when the process is plainly scoring a stream.

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


def _set_record(shape: str, pos: int, honours: bool) -> tuple:
    """One set's part of :func:`_sets_share`: ``(counts, run bit, triplet bit, fu line or None,
    groups by suit, ((q, wait), ...) for each position q a winning tile there can complete it
    at)``; the waits as in scoring.decompose.readings."""
    groups = [None] * 4
    for suit in ((3,) if honours else (0, 1, 2)):
        groups[suit] = _HAND_GROUPS[shape][9 * suit + pos]
    if shape == RUN:
        counts = RUNS_FIELD + (0 if pos in (0, 6) else INNER_FIELD)
        wins = ((pos, PENCHAN if pos == 6 else RYANMEN), (pos + 1, KANCHAN),
                (pos + 2, PENCHAN if pos == 0 else RYANMEN))
        return counts, 1 << pos, 0, None, tuple(groups), wins
    terminal = honours or pos in (0, 8)
    line = set_fu_line(True, 2 if honours else int(terminal), True, False)
    counts = (TRIPLETS_FIELD + CONCEALED_FIELD + (0 if terminal else INNER_FIELD)
              + line.fu * FU_FIELD)
    return counts, 0, 1 << pos, line, tuple(groups), ((pos, SHANPON),)


# [numbered, honours]: (shape, position) -> _set_record
_SET_RECORDS = tuple({(shape, pos): _set_record(shape, pos, honours)
                      for shape in ((TRIPLET,) if honours else (RUN, TRIPLET))
                      for pos in range((7 if honours else 9) - (2 if shape == RUN else 0))}
                     for honours in (False, True))


def _sets_share(sets: tuple[tuple[str, int], ...], honours: bool) -> tuple:
    """Everything of :class:`SuitSplit` after ``pair``, for one suit's sets (sorted, as the
    split table gives them: the same set twice comes in a row)."""
    records = _SET_RECORDS[honours]
    runs = triplets = counts = 0
    lines = []
    by_suit = ([], [], [], [])
    wins = [[] for _ in range(7 if honours else 9)]
    triplet = -1            # index among the triplets
    prev = None
    same = 0                # how many times in a row the set came
    for i, st in enumerate(sets):
        c, r, t, line, gs, set_wins = records[st]
        counts += c
        runs |= r
        triplets |= t
        for out, g in zip(by_suit, gs):
            out.append(g)
        if line is not None:
            triplet += 1
            lines.append(line)
        if st == prev:      # the same set again (only a run can be): no other reading, and the
            same += 1       # second of two (or the fourth of four) makes a pair of identical runs
            if not same & 1:
                counts += PEIKOU_FIELD
            continue
        prev, same = st, 1
        index = triplet if line is not None else -1
        for q, wait in set_wins:
            wins[q].append((i, wait, index))
    if honours:
        groups = (None, None, None, tuple(by_suit[3]))
    else:
        groups = (tuple(by_suit[0]), tuple(by_suit[1]), tuple(by_suit[2]), None)
    return counts, runs, triplets, tuple(lines), groups, tuple(map(tuple, wins)), sets


# The tables: suit counts as bytes -> every SuitSplit of that pattern. A pattern's entry is
# built the first time a hand shows it, so a process that scores a few hands (the one-shot CLI)
# builds a few dozen entries, not 22,241 (~0.1 s); once FILL_AFTER entries have been built so,
# the process is scoring a stream and the rest are built at once (suit_tables), leaving new
# hands no entry to build. A pattern that does not split is never a key (such patterns are too
# many to keep). An entry never changes once built: two threads building one store equal values.
FILL_AFTER = 512
_NUMBERED: dict[bytes, tuple[SuitSplit, ...]] = {}
_HONOURS: dict[bytes, tuple[SuitSplit, ...]] = {}
_SHARES: tuple[dict, dict] = ({}, {})   # per table: sets -> their share (many patterns share
                                        # a split's sets, with another pair or none)
_complete = False                       # every entry built
_new = tuple.__new__


def _entry(key: bytes, honours: bool) -> tuple[SuitSplit, ...]:
    """Build, store and return one pattern's entry; ``()`` (not stored) if it does not split."""
    splits = split_table(honours).get(key)
    if splits is None:
        return ()
    shares = _SHARES[honours]
    row = []
    for pair, sets in splits:
        share = shares.get(sets)
        if share is None:
            share = shares[sets] = _sets_share(sets, honours)
        row.append(_new(SuitSplit, (pair,) + share))
    out = (_HONOURS if honours else _NUMBERED)[key] = tuple(row)
    return out


def hand_suits(hand: bytes) -> tuple:
    """The entries of a hand's four suits (``hand``: 34 counts as bytes), man, pin, sou and
    honours, each ``()`` where that suit does not split; builds those not built yet (and all the
    others once :data:`FILL_AFTER` have been). The scorer's path when a plain look-up in the
    tables misses (scoring/riichi/readings.py)."""
    part = hand[:9]
    m = _NUMBERED.get(part) or _entry(part, False)
    part = hand[9:18]
    p = _NUMBERED.get(part) or _entry(part, False)
    part = hand[18:27]
    s = _NUMBERED.get(part) or _entry(part, False)
    part = hand[27:34]
    z = _HONOURS.get(part) or _entry(part, True)
    if not _complete and len(_NUMBERED) + len(_HONOURS) >= FILL_AFTER:
        suit_tables()
    return m, p, s, z


def suit_tables() -> tuple[dict[bytes, tuple[SuitSplit, ...]], dict[bytes, tuple[SuitSplit, ...]]]:
    """``(numbered, honours)``, complete: suit counts as bytes (9, or 7 for the honours) -> every
    :class:`SuitSplit` of that pattern, in the split table's order; a pattern that does not split
    is not a key. Builds every entry not built yet (~0.1 s from nothing, split tables included,
    on this 2-core machine under load); the scorer builds entries as its hands need them and
    calls this once it has built :data:`FILL_AFTER`."""
    global _complete
    for honours, table in ((False, _NUMBERED), (True, _HONOURS)):
        for key in split_table(honours):
            if key not in table:
                _entry(key, honours)
    _complete = True
    return _NUMBERED, _HONOURS
