"""Shanten: how many tiles a hand is from tenpai, and which tiles bring it closer. Riichi shapes.

Shanten is the number of tiles a hand must still exchange to be tenpai (waiting): 0 is tenpai,
-1 a complete hand. It is the minimum over the three shapes a riichi hand can take:

- **regular** (four sets and a pair, declared melds counting as sets): ``8 - 2 x sets -
  partial sets - pair``, over every way of splitting the tiles into sets (runs, triplets),
  partial sets (two tiles one short of a set: 12, 13, 11), a pair and loose tiles, with at
  most ``4 - sets`` partial sets counted when a pair is kept (a fifth partial set, or a second
  pair, needs a tile that the four sets cannot use) — the definition of the riichi
  community's shanten calculators and of the ``mahjong`` package;
- **seven pairs**: ``6 - pairs + max(0, 7 - kinds)`` (four of a kind is one pair, not two);
- **thirteen orphans**: ``13 - orphan kinds held - (1 if one of them is paired)``.

Two corrections for a kind the hand holds all four of (a tile it cannot draw again), as the
``mahjong`` package (``mahjong==2.1.0``, ``shanten.py``) makes them, so that a hand is never
called tenpai on a fifth copy: a regular hand without a pair whose loose tiles are all of
kinds held four times is one further away (``1111m 234p 567p 789s`` waits on nothing); and an
honour held four times in a concealed hand is a set plus a tile that pairs with nothing, so
the hand is at least that many tiles away.

Speed: a suit's splits depend only on that suit's counts, so each suit pattern's best
outcomes are worked out once (a memoised search over the suit's nine counts, bounded by
:data:`SUIT_CACHE_SIZE`) and a hand costs four look-ups and a small combination.
"""
from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple, Sequence

from .decompose import ORPHAN_KINDS
from .tiles import NUM_KINDS

_ORPHAN_SET = frozenset(ORPHAN_KINDS)

COMPLETE, TENPAI = -1, 0
# suit patterns kept: a 14-tile hand has at most a few hundred thousand, a session sees
# thousands; 1 << 16 entries of a few small tuples each is a few MB at most
SUIT_CACHE_SIZE = 1 << 16

# a part's outcome: (sets, partial sets, pairs, loose) where loose is 0 (no loose tile),
# 1 (loose tiles, all of kinds held four times) or 2 (some other loose tile), packed in one int
# (4 bits each, loose on top) so that taking a set adds a constant: the search below builds
# thousands of outcomes for a new suit pattern, and ints cost a fraction of tuples
_NO_LOOSE, _LOOSE_QUAD, _LOOSE = 0, 1, 2
_SET, _PARTIAL, _PAIR, _LOOSE_SHIFT = 1, 1 << 4, 1 << 8, 12
_COUNTS = (1 << _LOOSE_SHIFT) - 1
# what loose tiles are worth to a hand: a loose tile of a kind not held four times is best (the
# hand may throw it, whatever else it holds), none is next, loose tiles all held four times
# worst (the hand cannot wait on a fifth copy: one tile further)
_WORTH = {_LOOSE: 2, _NO_LOOSE: 1, _LOOSE_QUAD: 0}


def _pack(m: int, t: int, p: int, loose: int) -> int:
    return m | t << 4 | p << 8 | loose << _LOOSE_SHIFT


def _unpack(v: int) -> tuple[int, int, int, int]:
    return v & 15, v >> 4 & 15, v >> 8 & 15, v >> _LOOSE_SHIFT


def _saturate(m: int, t: int, p: int, loose: int) -> int:
    """An outcome with what no hand can use taken off, so that fewer outcomes stay apart: a
    hand counts at most ``4 - sets`` partial sets (a second pair is one), and its loose tiles
    matter only without a pair. Other suits and melds only add sets, so a part's surplus is
    surplus in the whole hand too: the shanten is the same."""
    if m > 4:
        m = 4
    room = 4 - m
    if t > room:
        t = room
    if p:
        if p > room - t + 1:
            p = room - t + 1
        loose = _LOOSE
    return _pack(m, t, p, loose)


class _Saturated(dict):
    """Packed outcome -> its saturated form, filled on first sight past the counts a search
    step makes (two parts combined count up to 15 of each)."""

    def __missing__(self, v: int) -> int:
        out = self[v] = _saturate(*_unpack(v))
        return out


def _tables() -> tuple[dict, dict, dict]:
    """(saturated outcome of each outcome a search step makes (counts up to 7), each
    saturated outcome's rank, and the bit mask of the saturated outcomes it beats or equals,
    by their rank order). A beating outcome has a higher rank (sets + partial sets + pairs +
    loose's worth), so outcomes taken by falling rank meet their beaters first."""
    sat = _Saturated({_pack(m, t, p, lo): _saturate(m, t, p, lo)
                      for m in range(8) for t in range(8) for p in range(8) for lo in range(3)})
    values = sorted(set(sat.values()), key=lambda v: (sum(_unpack(v)[:3]) + _WORTH[_unpack(v)[3]], v))
    bit = {v: 1 << i for i, v in enumerate(values)}
    rank = {v: i for i, v in enumerate(values)}
    beats = {}
    for v in values:
        m, t, p, lo = _unpack(v)
        mask = 0
        for u in values:
            um, ut, up, ul = _unpack(u)
            if um <= m and ut <= t and up <= p and _WORTH[ul] <= _WORTH[lo]:
                mask |= bit[u]
        beats[v] = mask
    return sat, rank, {v: (bit[v], beats[v]) for v in values}


_SAT, _RANK, _BEATS = _tables()


def _best(states) -> frozenset:
    """The saturated ``states`` (packed) without those another state beats or equals in every
    count (more sets, more partial sets, more pairs, loose tiles worth more is never worse)."""
    keep = []
    covered = 0
    for v in sorted(set(states), key=_RANK.__getitem__, reverse=True):
        own, beaten = _BEATS[v]
        if not covered & own:
            keep.append(v)
            covered |= beaten
    return frozenset(keep)


_EMPTY = frozenset({0})


def _loosen(states: frozenset, loose: int) -> list[int]:
    return [v if v >> _LOOSE_SHIFT >= loose else (v & _COUNTS) | loose << _LOOSE_SHIFT for v in states]


@lru_cache(maxsize=SUIT_CACHE_SIZE)
def _suit(counts: tuple[int, ...], quads: int, paired: int = -1) -> frozenset:
    """Every best outcome (packed, saturated) of splitting one suit's ``counts`` (9 counts,
    tiles already taken from the front are zero). ``quads``: bit i set when the hand holds all
    four of number i + 1 (from the hand's own counts, before any split). ``paired``: the number
    (0..8) a pair was just taken from: four of a kind is not two pairs (the second would wait on
    a fifth)."""
    i = 0
    while i < 9 and not counts[i]:
        i += 1
    if i == 9:
        return _EMPTY
    c = list(counts)
    n = c[i]
    out: list[int] = []
    if n >= 3:
        c[i] -= 3
        out += [v + _SET for v in _suit(tuple(c), quads, -1)]
        c[i] += 3
    if i <= 6 and c[i + 1] and c[i + 2]:
        c[i] -= 1
        c[i + 1] -= 1
        c[i + 2] -= 1
        out += [v + _SET for v in _suit(tuple(c), quads, -1)]
        c[i + 1] += 1
        c[i + 2] += 1
        c[i] += 1
    if n >= 2 and paired != i:
        c[i] -= 2
        out += [v + _PAIR for v in _suit(tuple(c), quads, i if c[i] else -1)]
        c[i] += 2
    c[i] -= 1
    for j in (i + 1, i + 2):
        if j <= 8 and c[j]:
            c[j] -= 1
            out += [v + _PARTIAL for v in _suit(tuple(c), quads, -1)]
            c[j] += 1
    out += _loosen(_suit(tuple(c), quads, -1), _LOOSE_QUAD if quads >> i & 1 else _LOOSE)
    sat = _SAT
    return _best([sat[v] for v in out])


def _honours(counts: Sequence[int]) -> tuple[tuple[int, int, int, int], int]:
    """The honours' one outcome (no runs: a triplet is a set, a pair a pair, a single loose;
    four of a kind a set and a loose tile that pairs with nothing) and how many honour kinds
    are held four times."""
    m = p = quads = 0
    loose, all_quads = False, True
    for n in counts:
        if n >= 3:
            m += 1
        if n == 2:
            p += 1
        if n == 4:
            quads += 1
            loose = True
        elif n == 1:
            loose, all_quads = True, False
    return (m, 0, p, (_LOOSE_QUAD if all_quads else _LOOSE) if loose else _NO_LOOSE), quads


def _suit_states(counts: Sequence[int], base: int) -> frozenset:
    suit = tuple(counts[base:base + 9])
    quads = 0
    for i, n in enumerate(suit):
        if n == 4:
            quads |= 1 << i
    return _suit(suit, quads)


@lru_cache(maxsize=SUIT_CACHE_SIZE)
def _combine(a: frozenset, b: frozenset) -> frozenset:
    """The best outcomes of two parts of a hand together (counts added, the worse loose kept).
    Memoised: a hand's parts take few distinct outcome sets, so most combinations are a
    look-up (a frozenset keeps its hash). The order parts are combined in does not change
    the result: dropping a beaten outcome early drops only outcomes it would still beat."""
    out = []
    sat = _SAT
    for x in a:
        xl, xc = x >> _LOOSE_SHIFT, x & _COUNTS
        for y in b:
            yl = y >> _LOOSE_SHIFT
            # the counts add field by field (saturated parts hold at most 5 of each: no carry)
            out.append(sat[(xc + (y & _COUNTS)) | (xl if xl > yl else yl) << _LOOSE_SHIFT])
    return _best(out)


@lru_cache(maxsize=SUIT_CACHE_SIZE)
def _loosened(states: frozenset) -> frozenset:
    """``states`` with one more loose tile (of a kind not held four times)."""
    return _best(_saturate(m, t, p, max(loose, _LOOSE)) for m, t, p, loose in map(_unpack, states))


@lru_cache(maxsize=SUIT_CACHE_SIZE)
def _regular_value(states: frozenset, n_melds: int) -> int:
    """The regular shanten of a whole hand's outcomes ``states`` with ``n_melds`` melds,
    before the correction for honours held four times."""
    best = 8
    for v in states:
        m, t, p, loose = _unpack(v)
        m += n_melds
        if p:
            t += p - 1              # a second pair is a partial set (a triplet to be)
            value = 7 - 2 * m - t + max(0, m + t - 4)
        else:
            value = 8 - 2 * m - t + max(0, m + t - 4) + (loose == _LOOSE_QUAD)
        if value < best:
            best = value
    return best


@lru_cache(maxsize=1 << 12)
def _honour_part(counts: tuple[int, ...]) -> tuple[frozenset, int]:
    """The honours (7 counts) as a one-outcome set, and how many kinds are held four times."""
    state, quads = _honours(counts)
    return frozenset({_saturate(*state)}), quads


def _quad_floor(best: int, honour_quads: int, tiles: int) -> int:
    # an honour held four times in a concealed hand is a set plus a tile that pairs with
    # nothing: the hand is at least that many tiles away (one of them may be the 14th tile)
    quads = honour_quads - (1 if honour_quads and tiles % 3 == 2 else 0)
    if best != COMPLETE and best < quads:
        return quads
    return best


def regular_shanten(counts: Sequence[int], n_melds: int = 0) -> int:
    """Shanten of the regular shape (four sets and a pair) of concealed ``counts`` (34 kinds)
    with ``n_melds`` declared melds (sets already made).

    >>> from scoring.tiles import counts34, parse_tiles
    >>> regular_shanten(counts34(parse_tiles("123456789m1122p")))  # tenpai: 1p or 2p
    0
    >>> regular_shanten(counts34(parse_tiles("123456789m11123p")))  # complete
    -1
    """
    honours, honour_quads = _honour_part(tuple(counts[27:34]))
    combined = _combine(_combine(_combine(honours, _suit_states(counts, 0)), _suit_states(counts, 9)),
                        _suit_states(counts, 18))
    return _quad_floor(_regular_value(combined, n_melds), honour_quads, sum(counts[:NUM_KINDS]))


def seven_pairs_shanten(counts: Sequence[int]) -> int:
    """Shanten of seven pairs (seven different kinds; four of a kind is one pair).

    >>> from scoring.tiles import counts34, parse_tiles
    >>> seven_pairs_shanten(counts34(parse_tiles("1122m3344p5566s7z")))
    0
    >>> seven_pairs_shanten(counts34(parse_tiles("1111m2233p4455s66z")))   # 1m four times
    1
    """
    pairs = kinds = 0
    for n in counts[:NUM_KINDS]:
        if n:
            kinds += 1
            if n >= 2:
                pairs += 1
    if pairs == 7:
        return COMPLETE
    return 6 - pairs + max(0, 7 - kinds)


def orphans_shanten(counts: Sequence[int]) -> int:
    """Shanten of thirteen orphans.

    >>> from scoring.tiles import counts34, parse_tiles
    >>> orphans_shanten(counts34(parse_tiles("19m19p19s1234567z")))   # 13-sided wait
    0
    """
    held = paired = 0
    for k in ORPHAN_KINDS:
        if counts[k]:
            held += 1
            if counts[k] >= 2:
                paired = 1
    return 13 - held - paired


def shanten(counts: Sequence[int], n_melds: int = 0) -> int:
    """Shanten of concealed ``counts`` (34 kinds; 13 or 14 - 3 x ``n_melds`` tiles) with
    ``n_melds`` declared melds: the minimum of the regular shape, seven pairs and thirteen
    orphans (those two only without melds). -1: complete; 0: tenpai."""
    best = regular_shanten(counts, n_melds)
    if n_melds == 0 and best > COMPLETE:
        best = min(best, seven_pairs_shanten(counts), orphans_shanten(counts))
    return best


class Accept(NamedTuple):
    """A tile that brings a hand one step closer: its ``kind`` (0..33) and ``left``, the
    copies not visible (4 less those in the hand, the melds and the other visible tiles)."""

    kind: int
    left: int


class Discard(NamedTuple):
    """One discard of a 14-tile hand: the ``kind`` thrown, the ``shanten`` the 13 tiles left
    have, and their accepting tiles (``accept``; ``left`` counts them all)."""

    kind: int
    shanten: int
    accept: tuple[Accept, ...]

    @property
    def left(self) -> int:
        return sum(a.left for a in self.accept)


def accepting(counts: Sequence[int], n_melds: int = 0, seen: Sequence[int] | None = None,
              held: Sequence[int] | None = None, current: int | None = None) -> tuple[Accept, ...]:
    """The tiles that lower the shanten of 13-tile concealed ``counts`` (34 kinds, 13 - 3 x
    ``n_melds`` tiles), kind by kind: for a tenpai hand, its waits. ``seen``: visible tiles by
    kind (the hand, melds, dora indicators, discards; default the hand alone): ``left`` is
    4 less those. ``held``: the player's own tiles by kind, hand and melds (default the hand):
    a kind held four times cannot be drawn and is never listed. ``current``: the hand's
    shanten if known.

    >>> from scoring.tiles import counts34, parse_tiles
    >>> [(a.kind, a.left) for a in accepting(counts34(parse_tiles("123456789m1122p")))]
    [(9, 2), (10, 2)]
    """
    now = shanten(counts, n_melds) if current is None else current
    seen = counts if seen is None else seen
    held = counts if held is None else held
    out = []
    for k, after in enumerate(drawn_shanten(counts, n_melds)):
        if after < now and held[k] < 4:
            out.append(Accept(k, max(0, 4 - seen[k])))
    return tuple(out)


def drawn_shanten(counts: Sequence[int], n_melds: int = 0) -> list[int]:
    """For each kind k (0..33), :func:`shanten` of ``counts`` with one more k (whether or not
    a copy is left to draw).

    Speed: the same values as 34 calls of :func:`shanten`, at a fraction of the cost: one more
    tile changes one suit, so the other parts are combined once per suit, and seven pairs and
    thirteen orphans are counted once and adjusted per kind (:func:`_with_special_shapes`)."""
    c = list(counts[:NUM_KINDS])
    tiles = sum(c) + 1
    suits = [_suit_states(c, base) for base in (0, 9, 18)]
    honours, honour_quads = _honour_part(tuple(c[27:34]))
    # a tile of a kind not held with no held tile of its suit two steps or less away can only
    # be a loose tile: every split of the hand gains one loose tile, the same for all such kinds
    isolated = _quad_floor(_regular_value(_loosened(_combine(_combine(_combine(
        honours, suits[0]), suits[1]), suits[2])), n_melds), honour_quads, tiles)
    out = []
    for s, base in enumerate((0, 9, 18)):
        rest = None
        for k in range(base, base + 9):
            if not any(c[max(base, k - 2):min(base + 9, k + 3)]):
                out.append(isolated)
                continue
            if rest is None:
                rest = honours
                for other in range(3):
                    if other != s:
                        rest = _combine(rest, suits[other])
            c[k] += 1
            value = _regular_value(_combine(rest, _suit_states(c, base)), n_melds)
            c[k] -= 1
            out.append(_quad_floor(value, honour_quads, tiles))
    suited = _combine(_combine(suits[0], suits[1]), suits[2])
    for k in range(27, NUM_KINDS):
        if not c[k]:
            out.append(isolated)
            continue
        c[k] += 1
        part, quads = _honour_part(tuple(c[27:34]))
        c[k] -= 1
        out.append(_quad_floor(_regular_value(_combine(part, suited), n_melds), quads, tiles))
    if n_melds:
        return out
    return _with_special_shapes(out, c)


def _with_special_shapes(out: list[int], c: list[int]) -> list[int]:
    """``out`` (the four-sets shanten after drawing each kind into the concealed counts ``c``,
    no melds) lowered where seven pairs or thirteen orphans is nearer; ``out`` is updated and
    returned."""
    pairs = kinds = held = paired = 0
    for n in c:
        if n:
            kinds += 1
            pairs += n >= 2
    for k in ORPHAN_KINDS:
        if c[k]:
            held += 1
            paired |= c[k] >= 2
    for k in range(NUM_KINDS):
        if out[k] == COMPLETE:
            continue
        n = c[k]
        p = pairs + (n == 1)
        seven = COMPLETE if p == 7 else 6 - p + max(0, 7 - kinds - (n == 0))
        orphan = k in _ORPHAN_SET
        thirteen = 13 - held - (orphan and n == 0) - (paired or (orphan and n >= 1))
        out[k] = min(out[k], seven, thirteen)
    return out


def discards(counts: Sequence[int], n_melds: int = 0, seen: Sequence[int] | None = None,
             held: Sequence[int] | None = None) -> list[Discard]:
    """Each discard of 14-tile concealed ``counts`` (14 - 3 x ``n_melds`` tiles), one per kind
    held: the shanten of the 13 tiles left and their accepting tiles. Sorted best first
    (lowest shanten, then most tiles left, then kind). ``seen``: as :func:`accepting` (the
    discarded tile stays visible, in the discards); ``held``: as :func:`accepting`, with the
    14 tiles (the discarded tile is no longer held, so it is taken off)."""
    seen = counts if seen is None else seen
    held = list(counts if held is None else held)
    c = list(counts)
    out = []
    for k in range(NUM_KINDS):
        if not c[k]:
            continue
        c[k] -= 1
        held[k] -= 1
        s = shanten(c, n_melds)
        out.append(Discard(k, s, accepting(c, n_melds, seen, held, s)))
        c[k] += 1
        held[k] += 1
    out.sort(key=lambda d: (d.shanten, -d.left, d.kind))
    return out
