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

from ..decompose import (MELD_GROUPS, RUN, RYANMEN, STANDARD, TANKI, TRIPLET, Group, Reading,
                         special_reading)
from ..tiles import NUM_KINDS
from .fu import set_fu_line
from .suits import (CONCEALED_FIELD, CONCEALED_SHIFT, FIELD_MASK, FU_FIELD, FU_SHIFT, INNER_FIELD,
                    INNER_SHIFT, PEIKOU_SHIFT, RUNS_FIELD, RUNS_SHIFT, TRIPLETS_FIELD,
                    TRIPLETS_SHIFT, _HONOURS, _NUMBERED, hand_suits)
from .yaku import (PINFU_SHAPE, SANANKOU, WHITE, Facts, HandFacts, facts_of, reading_facts,
                   set_traits)

_new = tuple.__new__        # a NamedTuple straight from a tuple: cheaper than its keywords
_TERMINAL_OR_HONOUR = tuple(k >= 27 or k % 9 in (0, 8) for k in range(NUM_KINDS))
_TILE_CLASS = tuple(2 if k >= 27 else 1 if k % 9 in (0, 8) else 0 for k in range(NUM_KINDS))


def _meld_share(g: Group) -> tuple:
    """A declared meld's share of the facts: ``(counts, run bit, triplet bit, fu line or
    None)``, counts packed as :attr:`scoring.riichi.suits.SuitSplit.counts` (bits over kinds)."""
    shape, kind, concealed, _ = g
    if shape == RUN:
        return (RUNS_FIELD + (0 if kind % 9 in (0, 6) else INNER_FIELD), 1 << kind, 0, None)
    line = set_fu_line(shape == TRIPLET, _TILE_CLASS[kind], concealed, False)
    counts = (TRIPLETS_FIELD + line.fu * FU_FIELD + (CONCEALED_FIELD if concealed else 0)
              + (0 if _TERMINAL_OR_HONOUR[kind] else INNER_FIELD))
    return (counts, 0, 1 << kind, line)


# every playable meld group's share (a meld's share does not depend on its index)
_MELD_SHARES = {g: _meld_share(g) for by_kind in MELD_GROUPS.values() for gs in by_kind for g in gs
                if g.shape != RUN or g.kind < 27 and g.kind % 9 <= 6}


def _melds_share(melds: tuple[Group, ...]) -> tuple:
    """The declared melds' shares added up (see :func:`_meld_share`), the fu lines in meld
    order."""
    counts = runs = trips = 0
    lines = []
    for g in melds:
        c, r, t, line = _MELD_SHARES.get(g) or _meld_share(g)
        counts += c
        runs |= r
        trips |= t
        if line is not None:
            lines.append(line)
    return counts, runs, trips, tuple(lines)


_NO_MELDS = (0, 0, 0, ())


def hand_readings(h: HandFacts, hand: bytes, melds: tuple[Group, ...], win_kind: int) -> list[Facts]:
    """:class:`~scoring.riichi.yaku.Facts` of every reading of a hand, in the order of
    :func:`scoring.decompose.readings`; empty if the hand is not complete.

    ``h``: the hand's facts (:func:`scoring.riichi.yaku.hand_facts`); ``hand``: the concealed
    counts with the winning tile (34 bytes); ``melds``: the declared melds as groups
    (:func:`scoring.decompose.meld_groups`); ``win_kind``: the winning tile's kind.
    """
    try:
        m = _NUMBERED[hand[:9]]
        p = _NUMBERED[hand[9:18]]
        s = _NUMBERED[hand[18:27]]
        z = _HONOURS[hand[27:34]]
    except KeyError:        # a suit pattern not met before (its entry is built), or no split
        m, p, s, z = hand_suits(hand)
    out: list[Facts] = []
    # a suit's splits either all hold the pair or none does (its tile count decides)
    if (m and p and s and z
            and (m[0][0] >= 0) + (p[0][0] >= 0) + (s[0][0] >= 0) + (z[0][0] >= 0) == 1):
        shared = _melds_share(melds) if melds else _NO_MELDS
        if len(m) == 1 and len(p) == 1 and len(s) == 1 and len(z) == 1:     # the usual case
            _add_readings(out, h, m[0], p[0], s[0], z[0], melds, shared, win_kind)
        else:
            for sm, sp, ss, sz in product(m, p, s, z):
                _add_readings(out, h, sm, sp, ss, sz, melds, shared, win_kind)
    if not melds and hand.count(0) in (21, 27):     # 13 or 7 kinds: orphans or seven pairs?
        r = special_reading(hand, win_kind)
        if r is not None:
            out.append(facts_of(h, reading_facts(r, True)))
    return out


def _add_readings(out: list, h: HandFacts, sm, sp, ss, sz, melds: tuple[Group, ...],
                  shared: tuple, win_kind: int) -> None:
    """Append the Facts of each reading of one split per suit (man, pin, sou, honours) with the
    melds (``shared``: their :func:`_melds_share`)."""
    pm, cm, rm, tm, lm, gm, _, _ = sm
    pp, cp, rp, tp, lp, gp, _, _ = sp
    ps, cs, rs, ts, ls, gs, _, _ = ss
    pz, cz, _, tz, lz, gz, _, _ = sz
    c, runs, trips, m_lines = shared
    c += cm + cp + cs + cz
    runs |= rm | rp << 9 | rs << 18
    trips |= tm | tp << 9 | ts << 18 | tz << 27
    n_runs = c >> RUNS_SHIFT & FIELD_MASK
    n_trips = c >> TRIPLETS_SHIFT & FIELD_MASK
    peikou = c >> PEIKOU_SHIFT & FIELD_MASK if h.closed else 0
    outside = not c >> INNER_SHIFT & FIELD_MASK
    concealed = c >> CONCEALED_SHIFT & FIELD_MASK
    fu = c >> FU_SHIFT
    pair = pm if pm >= 0 else 9 + pp if pp >= 0 else 18 + ps if ps >= 0 else 27 + pz
    traits = h.traits | set_traits(runs, n_runs, trips, n_trips, peikou, outside, pair)
    if concealed == 3:
        traits |= SANANKOU
    groups = gm[0] + gp[1] + gs[2] + gz[3]
    if melds:
        groups += melds
    lines = lm + lp + ls + lz + m_lines
    if pair == win_kind:                    # a single wait on the pair
        out.append(_new(Facts, (h, _new(Reading, (STANDARD, groups, pair, win_kind, -1, TANKI)),
                                runs, n_runs, trips, n_trips, concealed, peikou, traits, lines, fu)))
    # only the winning tile's suit holds a set it can have completed
    # (first: the index in groups of its first set; trips_before: the triplets before it)
    suit = win_kind // 9
    if suit == 0:
        win_split, first, trips_before = sm, 0, 0
    elif suit == 1:
        win_split, first, trips_before = sp, len(gm[0]), len(lm)
    elif suit == 2:
        win_split, first, trips_before = ss, len(gm[0]) + len(gp[1]), len(lm) + len(lp)
    else:
        win_split = sz
        first = len(gm[0]) + len(gp[1]) + len(gs[2])
        trips_before = len(lm) + len(lp) + len(ls)
    for i, wait, triplet in win_split.wins[win_kind - 9 * suit]:
        r = _new(Reading, (STANDARD, groups, pair, win_kind, first + i, wait))
        if triplet >= 0 and not h.tsumo:    # a triplet completed by ron counts open
            at = trips_before + triplet
            line = set_fu_line(True, _TILE_CLASS[win_kind], False, True)
            t = traits & ~SANANKOU | (SANANKOU if concealed == 4 else 0)     # one fewer concealed
            out.append(_new(Facts, (h, r, runs, n_runs, trips, n_trips, concealed - 1, peikou, t,
                                    lines[:at] + (line,) + lines[at + 1:],
                                    fu - lines[at].fu + line.fu)))
        elif wait == RYANMEN and n_runs == 4 and h.closed and pair < WHITE and pair != h.seat \
                and pair != h.round:
            out.append(_new(Facts, (h, r, runs, n_runs, trips, n_trips, concealed, peikou,
                                    traits | PINFU_SHAPE, lines, fu)))
        else:
            out.append(_new(Facts, (h, r, runs, n_runs, trips, n_trips, concealed, peikou,
                                    traits, lines, fu)))
