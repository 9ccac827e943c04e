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

COMPLETE, TENPAI = -1, 0
# suit patterns kept: a 14-tile hand has at most a few hundred thousand, a session sees
# thousands; 1 << 16 entries of a few small tuples each is a few MB at most
SUIT_CACHE_SIZE = 1 << 16

# a suit's outcome: (sets, partial sets, pairs, loose) where loose is 0 (no loose tile),
# 1 (loose tiles, all of kinds held four times) or 2 (some other loose tile)
_NO_LOOSE, _LOOSE_QUAD, _LOOSE = 0, 1, 2


def _best(states) -> frozenset:
    """``states`` without those another state beats or equals in every count (more sets, more
    partial sets, more pairs, fewer loose tiles is never worse)."""
    states = set(states)
    keep = []
    for s in sorted(states, reverse=True):
        if not any(o[0] >= s[0] and o[1] >= s[1] and o[2] >= s[2] and o[3] <= s[3] for o in keep):
            keep.append(s)
    return frozenset(keep)


@lru_cache(maxsize=SUIT_CACHE_SIZE)
def _suit(counts: tuple[int, ...], quads: int, paired: int = -1) -> frozenset:
    """Every best outcome of splitting one suit's ``counts`` (9 counts, tiles already taken
    from the front are zero). ``quads``: bit i set when the hand holds all four of number
    i + 1 (from the hand's own counts, before any split). ``paired``: the number (0..8) a pair
    was just taken from: four of a kind is not two pairs (the second would wait on a fifth)."""
    i = 0
    while i < 9 and not counts[i]:
        i += 1
    if i == 9:
        return frozenset({(0, 0, 0, _NO_LOOSE)})
    c = list(counts)
    out = []

    def go(extra: tuple[int, int, int, int], taken: Sequence[int]) -> None:
        for k in taken:
            c[k] -= 1
        after = i if extra[2] else -1
        for m, t, p, loose in _suit(tuple(c), quads, after if c[i] else -1):
            out.append((m + extra[0], t + extra[1], p + extra[2], max(loose, extra[3])))
        for k in taken:
            c[k] += 1

    n = c[i]
    if n >= 3:
        go((1, 0, 0, 0), (i, i, i))
    if i <= 6 and c[i + 1] and c[i + 2]:
        go((1, 0, 0, 0), (i, i + 1, i + 2))
    if n >= 2 and paired != i:
        go((0, 0, 1, 0), (i, i))
    if i <= 7 and c[i + 1]:
        go((0, 1, 0, 0), (i, i + 1))
    if i <= 6 and c[i + 2]:
        go((0, 1, 0, 0), (i, i + 2))
    go((0, 0, 0, _LOOSE_QUAD if quads >> i & 1 else _LOOSE), (i,))
    return _best((min(m, 4), min(t, 4), min(p, 5), loose) for m, t, p, loose in out)


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


def regular_shanten(counts: Sequence[int], n_melds: int = 0) -> int:
    """Shanten of the regular shape (four sets and a pair) of concealed ``counts`` (34 kinds)
    with ``n_melds`` declared melds (sets already made).

    >>> from scoring.tiles import counts34, parse_tiles
    >>> regular_shanten(counts34(parse_tiles("123456789m1122p")))  # tenpai: 1p or 2p
    0
    >>> regular_shanten(counts34(parse_tiles("123456789m11123p")))  # complete
    -1
    """
    honours, honour_quads = _honours(counts[27:34])
    tiles = sum(counts[:NUM_KINDS])
    best = 8
    # the three suits combined, then the honours: a few states each
    combined = {honours}
    for base in (0, 9, 18):
        states = _suit_states(counts, base)
        combined = _best((a[0] + b[0], a[1] + b[1], a[2] + b[2], max(a[3], b[3]))
                         for a in combined for b in states)
    for m, t, p, loose in combined:
        m += n_melds
        if p:
            t += p - 1              # a second pair is a partial set (a triplet to be)
            value = 7 - 2 * m - t + max(0, m + t - 4)
        else:
            value = 8 - 2 * m - t + max(0, m + t - 4) + (loose == _LOOSE_QUAD)
        if value < best:
            best = value
    quads = honour_quads - (1 if honour_quads and tiles % 3 == 2 else 0)
    if best != COMPLETE and best < quads:
        best = quads
    return best


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
    c = list(counts)
    out = []
    for k in range(NUM_KINDS):
        if held[k] >= 4:
            continue
        c[k] += 1
        if shanten(c, n_melds) < now:
            out.append(Accept(k, max(0, 4 - seen[k])))
        c[k] -= 1
    return tuple(out)


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
