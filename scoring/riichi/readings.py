"""Every reading of one riichi hand with its yaku facts, from the per-suit tables.

The scorer's path for a hand shape met for the first time (scoring/riichi/scorer.py keeps the
shapes it meets twice): the concealed tiles' four suits are looked up in the tables of
scoring/riichi/suits.py; each way to combine one split of each suit with the declared melds, and
each set the winning tile can have completed, is a reading, and its
:class:`~scoring.riichi.yaku.Facts` are sums and ORs of its suits' and melds' shares, not a pass
over its sets.

The readings are those of :func:`scoring.decompose.readings`, in the same order, and their facts
those of :func:`scoring.riichi.yaku.facts_of` (tests/test_riichi_readings.py compares both on
random hands of every theme).
"""
from __future__ import annotations

from itertools import product

from ..decompose import (KANCHAN, MELD_GROUPS, PENCHAN, RUN, RYANMEN, SHANPON, STANDARD, TANKI,
                         TRIPLET, Group, Reading, special_reading)
from ..tiles import NUM_KINDS
from .fu import set_fu_line
from .suits import suit_tables
from .yaku import (A_RUN, DRAGONS, FOUR_TRIPLETS_SETS, OUTSIDE_PAIR, OUTSIDE_SETS, PEIKOU,
                   PINFU_SHAPE, RUN_FROM_ONE, RUNS_IN_3_SUITS, THREE_CONCEALED, THREE_RUNS,
                   THREE_TRIPLETS, TRIPLETS_3_SUITS, TWO_SIDED, Facts, HandFacts, facts_of,
                   reading_facts)

_new = tuple.__new__        # a NamedTuple straight from a tuple: cheaper than its keywords
_TERMINAL_OR_HONOUR = tuple(k >= 27 or k % 9 in (0, 8) for k in range(NUM_KINDS))
_TILE_CLASS = tuple(2 if k >= 27 else 1 if k % 9 in (0, 8) else 0 for k in range(NUM_KINDS))
_SUIT_ONES = 1 | 1 << 9 | 1 << 18
# the concealed groups there can be, by shape and kind (shared values, as decompose's)
_HAND_GROUPS = {shape: tuple(Group(shape, k) for k in range(NUM_KINDS)) for shape in (RUN, TRIPLET)}


def _meld_share(g: Group) -> tuple:
    """A declared meld's share of the facts: ``(run bit, runs, triplet bit, triplets, closed
    kans, holds a terminal or honour, fu line or None, fu)`` (bits over kinds, as Facts)."""
    shape, kind, concealed, _ = g
    if shape == RUN:
        return (1 << kind, 1, 0, 0, 0, kind % 9 in (0, 6), None, 0)
    line = set_fu_line(shape == TRIPLET, _TILE_CLASS[kind], concealed, False)
    return (0, 0, 1 << kind, 1, int(concealed), _TERMINAL_OR_HONOUR[kind], line, line.fu)


# every playable meld group's share (a meld's share does not depend on its index)
_MELD_SHARES = {g: _meld_share(g) for by_kind in MELD_GROUPS.values() for gs in by_kind for g in gs
                if g.shape != RUN or g.kind < 27 and g.kind % 9 <= 6}


def _melds_share(melds: tuple[Group, ...]) -> tuple:
    """The declared melds' shares added up, the fu lines in meld order (see :func:`_meld_share`)."""
    runs = n_runs = trips = n_trips = kans = fu = 0
    outside = True
    lines = []
    for g in melds:
        share = _MELD_SHARES.get(g) or _meld_share(g)
        runs |= share[0]
        n_runs += share[1]
        trips |= share[2]
        n_trips += share[3]
        kans += share[4]
        outside = outside and share[5]
        if share[6] is not None:
            lines.append(share[6])
            fu += share[7]
    return runs, n_runs, trips, n_trips, kans, outside, tuple(lines), fu


_NO_MELDS = _melds_share(())


def hand_readings(h: HandFacts, hand: bytes, melds: tuple[Group, ...], win_kind: int) -> list[Facts]:
    """:class:`~scoring.riichi.yaku.Facts` of every reading of a hand, in the order of
    :func:`scoring.decompose.readings`; empty if the hand is not complete.

    ``h``: the hand's facts (:func:`scoring.riichi.yaku.hand_facts`); ``hand``: the concealed
    counts with the winning tile (34 bytes); ``melds``: the declared melds as groups
    (:func:`scoring.decompose.meld_groups`); ``win_kind``: the winning tile's kind.
    """
    numbered, honours = suit_tables()
    m = numbered.get(hand[:9])
    p = numbered.get(hand[9:18])
    s = numbered.get(hand[18:27])
    z = honours.get(hand[27:34])
    out: list[Facts] = []
    # a suit's splits either all hold the pair or none does (its tile count decides)
    if (m and p and s and z
            and (m[0].pair >= 0) + (p[0].pair >= 0) + (s[0].pair >= 0) + (z[0].pair >= 0) == 1):
        shared = _melds_share(melds) if melds else _NO_MELDS
        if len(m) == 1 and len(p) == 1 and len(s) == 1 and len(z) == 1:     # the usual case
            _add_readings(out, h, (m[0], p[0], s[0], z[0]), melds, shared, win_kind)
        else:
            for combo in product(m, p, s, z):
                _add_readings(out, h, combo, melds, shared, win_kind)
    if not melds:
        r = special_reading(hand, win_kind)
        if r is not None:
            out.append(facts_of(h, reading_facts(r, True)))
    return out


def _add_readings(out: list, h: HandFacts, combo: tuple, melds: tuple[Group, ...],
                  shared: tuple, win_kind: int) -> None:
    """Append the Facts of each reading of one split per suit (``combo``: man, pin, sou,
    honours) with the melds (``shared``: their :func:`_melds_share`)."""
    pm, _, rm, nrm, tm, ntm, km, om, fm, lm, gm = combo[0]
    pp, _, rp, nrp, tp, ntp, kp, op, fp, lp, gp = combo[1]
    ps, _, rs, nrs, ts, nts, ks, os, fs, ls, gs = combo[2]
    pz, _, _, _, tz, ntz, _, _, fz, lz, gz = combo[3]
    m_runs, m_n_runs, m_trips, m_n_trips, m_kans, m_outside, m_lines, m_fu = shared
    closed = h.closed
    runs = rm | rp << 9 | rs << 18 | m_runs
    n_runs = nrm + nrp + nrs + m_n_runs
    trips = tm | tp << 9 | ts << 18 | tz << 27 | m_trips
    hand_trips = ntm + ntp + nts + ntz
    n_trips = hand_trips + m_n_trips
    concealed = hand_trips + m_kans         # hand-formed triplets are concealed, as closed kans
    peikou = km + kp + ks if closed else 0
    pair = pm if pm >= 0 else 9 + pp if pp >= 0 else 18 + ps if ps >= 0 else 27 + pz
    # the reading's traits (yaku.py), as reading_facts gives them
    traits = h.traits | (OUTSIDE_PAIR if _TERMINAL_OR_HONOUR[pair] else 0)
    if om and op and os and m_outside:
        traits |= OUTSIDE_SETS
    if n_runs:
        traits |= A_RUN
        if peikou:
            traits |= PEIKOU
        if n_runs >= 3:
            traits |= THREE_RUNS
            if runs & 0x1FF and runs >> 9 & 0x1FF and runs >> 18:
                traits |= RUNS_IN_3_SUITS
            if runs & _SUIT_ONES:
                traits |= RUN_FROM_ONE
    if n_trips >= 3:
        traits |= THREE_TRIPLETS
        if n_trips == 4:
            traits |= FOUR_TRIPLETS_SETS
        if concealed >= 3:
            traits |= THREE_CONCEALED
        if trips & 0x1FF and trips >> 9 & 0x1FF and trips >> 18 & 0x1FF:
            traits |= TRIPLETS_3_SUITS
    groups = gm[0] + gp[1] + gs[2] + gz[3]
    if melds:
        groups += melds
    lines = lm + lp + ls + lz + m_lines
    fu = fm + fp + fs + fz + m_fu
    if pair == win_kind:                    # a single wait on the pair
        out.append(_new(Facts, (h, _new(Reading, (STANDARD, groups, pair, win_kind, -1, TANKI)),
                                runs, n_runs, trips, n_trips, concealed, peikou, traits, lines, fu)))
    # only the winning tile's suit holds a set it can have completed
    suit = win_kind // 9
    q = win_kind - 9 * suit
    win_split = combo[suit]
    j = sum([len(x.sets) for x in combo[:suit]]) - 1     # index in groups of the set below
    trips_before = sum([x.n_triplets for x in combo[:suit]])    # and the triplets before it
    seen = None
    for group in win_split.sets:
        j += 1
        shape, pos = group
        if shape == TRIPLET:
            trips_before += 1
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
        if seen is None:
            seen = [group]
        elif group in seen:     # the same set twice (iipeikou): one reading
            continue
        else:
            seen.append(group)
        r = _new(Reading, (STANDARD, groups, pair, win_kind, j, wait))
        t = traits
        if wait == RYANMEN:
            t |= TWO_SIDED
            if closed and n_runs == 4 and pair not in DRAGONS:
                t |= PINFU_SHAPE
        if wait == SHANPON and not h.tsumo:     # completed by ron: that triplet counts open
            at = trips_before - 1
            line = set_fu_line(True, _TILE_CLASS[win_kind], False, True)
            out.append(_new(Facts, (h, r, runs, n_runs, trips, n_trips, concealed - 1, peikou, t,
                                    lines[:at] + (line,) + lines[at + 1:],
                                    fu - lines[at].fu + line.fu)))
        else:
            out.append(_new(Facts, (h, r, runs, n_runs, trips, n_trips, concealed, peikou, t,
                                    lines, fu)))
