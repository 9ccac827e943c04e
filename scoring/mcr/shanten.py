"""MCR shanten: how many tiles a hand is from tenpai under any MCR shape, and which tiles help.

MCR (Green Book 2006) completes a hand in more shapes than riichi, so its shanten is the
minimum over them (:func:`mcr_shanten`):

- **regular** (four sets and a pair): :func:`scoring.shanten.regular_shanten`, as riichi
  (no wait on a fifth copy: scoring/mcr/RULES.md, rule 2);
- **knitted straight + a set + a pair** (fan 35; with at most one declared meld): for each of
  the six knitted straights (147, 258, 369 in three different suits), the knitted kinds not
  held, plus the regular shanten of the rest (one of each held knitted kind taken out) as a
  hand whose knitted straight counts as three sets;
- **seven pairs** (fan 19): ``6 - pairs``, four of a kind counting as two pairs (RULES.md,
  rule 3), so no kind count is needed;
- **thirteen orphans** (fan 7): as riichi, :func:`scoring.shanten.orphans_shanten`;
- **honours and knitted tiles** (fans 20 and 34): 14 different tiles among one knitted
  straight's nine and the seven honours: ``13 - different kinds held among them`` (at most 14).

The special shapes need a concealed hand (the knitted straight allows one meld).
"""
from __future__ import annotations

from typing import Sequence

from ..shanten import COMPLETE, Accept, drawn_shanten, orphans_shanten, regular_shanten
from ..tiles import NUM_KINDS
from .shapes import KNITTED_PATTERNS

_HONOUR_KINDS = tuple(range(27, 34))
_PATTERN_SETS = tuple(frozenset(pattern) for pattern in KNITTED_PATTERNS)


def knitted_straight_shanten(counts: Sequence[int], n_melds: int = 0, below: int = 99) -> int:
    """Shanten of a knitted straight plus one set and a pair (99 when there are two or more
    melds: no room for it). ``below``: only values under it matter (the best of the other
    shapes): a knitted straight missing more kinds is not looked at; 99 when none is under it."""
    if n_melds > 1:
        return 99
    best = below
    for pattern in KNITTED_PATTERNS:
        missing = 0
        for k in pattern:
            missing += not counts[k]
        if missing - 1 >= best:         # the rest is at best complete (-1)
            continue
        rest = list(counts[:NUM_KINDS])
        for k in pattern:
            if rest[k]:
                rest[k] -= 1
        value = missing + regular_shanten(rest, n_melds + 3)
        if value < best:
            best = value
    return best if best < below else 99


def seven_pairs_shanten(counts: Sequence[int]) -> int:
    """MCR seven pairs: four of a kind is two pairs."""
    pairs = 0
    for n in counts[:NUM_KINDS]:
        pairs += n // 2
    return 6 - min(pairs, 7)


def honours_knitted_shanten(counts: Sequence[int]) -> int:
    """Honours and knitted tiles: 14 different kinds among a knitted straight's and the
    honours."""
    honours = sum(1 for k in _HONOUR_KINDS if counts[k])
    held = max(sum(1 for k in pattern if counts[k]) for pattern in KNITTED_PATTERNS)
    return 13 - min(14, honours + held)


def mcr_shanten(counts: Sequence[int], n_melds: int = 0) -> int:
    """MCR shanten of concealed ``counts`` (34 kinds; 13 or 14 - 3 x ``n_melds`` tiles) with
    ``n_melds`` declared melds: the minimum over every MCR shape. -1: complete; 0: tenpai.

    >>> from scoring.tiles import counts34, parse_tiles
    >>> mcr_shanten(counts34(parse_tiles("147m258p369s1234z")))   # greater honours and knitted
    0
    >>> mcr_shanten(counts34(parse_tiles("147m258p36s11122z")))   # knitted straight: waits on 9s
    0
    """
    best = regular_shanten(counts, n_melds)
    if best == COMPLETE or n_melds > 1:
        return best
    best = min(best, knitted_straight_shanten(counts, n_melds, best))
    if n_melds == 0 and best > COMPLETE:
        best = min(best, seven_pairs_shanten(counts), orphans_shanten(counts),
                   honours_knitted_shanten(counts))
    return best


def mcr_accepting(counts: Sequence[int], n_melds: int = 0, seen: Sequence[int] | None = None,
                  held: Sequence[int] | None = None, current: int | None = None) -> tuple[Accept, ...]:
    """The tiles that lower the MCR shanten of 13-tile concealed ``counts``, kind by kind, as
    :func:`scoring.shanten.accepting` (``seen``, ``held``, ``current`` alike)."""
    now = mcr_shanten(counts, n_melds) if current is None else current
    seen = counts if seen is None else seen
    held = counts if held is None else held
    # riichi's shanten after each draw (scoring.shanten.drawn_shanten, fast) is MCR's but for
    # the shapes riichi lacks: its seven pairs are never closer than MCR's, so the minimum
    # with MCR's special shapes, looked at only where they could make a difference, is exact
    drawn = drawn_shanten(counts, n_melds)
    c = list(counts[:NUM_KINDS])
    pairs = sum(n // 2 for n in c)
    honours = sum(1 for k in _HONOUR_KINDS if c[k])
    knitted = [sum(1 for k in pattern if c[k]) for pattern in KNITTED_PATTERNS]
    out = []
    for k in range(NUM_KINDS):
        if held[k] >= 4:
            continue
        value = drawn[k]
        if value >= now and value > COMPLETE and n_melds <= 1:
            if n_melds == 0:    # seven pairs and honours and knitted, counted for one more k
                new = not c[k]
                seven = 6 - min(pairs + c[k] % 2, 7)
                held_best = max(h + (new and k in _PATTERN_SETS[i]) for i, h in enumerate(knitted))
                value = min(value, seven, 13 - min(14, honours + (new and k >= 27) + held_best))
            if value >= now:
                c[k] += 1
                value = min(value, knitted_straight_shanten(c, n_melds, now))
                c[k] -= 1
        if value < now:
            out.append(Accept(k, max(0, 4 - seen[k])))
    return tuple(out)
