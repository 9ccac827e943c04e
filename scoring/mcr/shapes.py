"""MCR hand shapes: every reading of a complete hand, and the hand's waits.

Tiles are kinds 0..33 (``scoring.tiles``); a hand part is a list of 34 counts. A *reading*
is one way to see the 14 tiles (melds included) as a legal MCR shape (Green Book 2006, §1:
"basic hand" four sets + pair, and the special hands Seven Pairs, Thirteen Orphans, Honors and
Knitted Tiles, Knitted Straight + one set + pair). Seven Shifted Pairs and Nine Gates are
seven-pairs / four-sets readings with a special pattern, so they are fans, not shapes.

Per-suit decompositions are memoised on the suit's 9 counts, so scoring a hand costs a few
dictionary look-ups after the first hands (the speed target is within 10x of the C++ engine).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

CHOW, PUNG, KONG = "chow", "pung", "kong"
STANDARD = "standard"
SEVEN_PAIRS = "seven_pairs"
THIRTEEN_ORPHANS = "thirteen_orphans"
HONORS_KNITTED = "honors_knitted"
KNITTED_STRAIGHT = "knitted_straight"

TERMINALS_HONORS = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)
# The six knitted straights: 147 258 369 spread over the three suits in every order.
KNITTED_PATTERNS: tuple[tuple[int, ...], ...] = tuple(
    tuple(sorted(s * 9 + r for s, start in zip(perm, (0, 1, 2)) for r in (start, start + 3, start + 6)))
    for perm in ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0))
)


@dataclass(frozen=True, slots=True)
class MSet:
    """One set of a reading.

    ``kind``: ``chow``, ``pung`` or ``kong``. ``tile``: lowest tile kind (0..33).
    ``open``: an exposed meld claimed from another player (chow, pung, melded/added kong).
    ``from_hand``: made of concealed tiles (and possibly the winning tile), not a declared meld.
    """

    kind: str
    tile: int
    open: bool
    from_hand: bool


@dataclass(frozen=True, slots=True)
class Reading:
    """One reading of a complete hand.

    ``shape``: STANDARD (``sets`` = 4 sets, ``pair``), KNITTED_STRAIGHT (``knitted`` = its 9
    kinds, ``sets`` = the one other set, ``pair``), SEVEN_PAIRS (``pairs`` = 7 kinds, a kind
    twice for four of a kind), THIRTEEN_ORPHANS, HONORS_KNITTED (no sets).
    """

    shape: str
    sets: tuple[MSet, ...] = ()
    pair: int = -1
    knitted: tuple[int, ...] = ()
    pairs: tuple[int, ...] = ()


# A frozen dataclass's generated __init__ sets each field through object.__setattr__, which
# costs more than the rest of a reading's construction; the scorer builds a reading per way
# the hand splits, so it fills the slots directly (same object, same immutability).
_new = object.__new__
assert Reading.__slots__ == ("shape", "sets", "pair", "knitted", "pairs")
_SET_SHAPE, _SET_SETS, _SET_PAIR, _SET_KNITTED, _SET_PAIRS = (getattr(Reading, name).__set__
                                                              for name in Reading.__slots__)


def _reading(shape: str, sets: tuple, pair: int, knitted: tuple = ()) -> Reading:
    """``Reading(shape, sets, pair, knitted)``, built faster (see above)."""
    r = _new(Reading)
    _SET_SHAPE(r, shape)
    _SET_SETS(r, sets)
    _SET_PAIR(r, pair)
    _SET_KNITTED(r, knitted)
    _SET_PAIRS(r, ())
    return r


# --- per-suit memo -------------------------------------------------------------------------

# Entries per suit memo: a running service fed junk hands must not grow without end (a
# suit has ~405,000 count patterns); real hands use a few thousand.
SUIT_CACHE_SIZE = 1 << 16


@lru_cache(maxsize=SUIT_CACHE_SIZE)
def suit_decompositions(counts: tuple[int, ...]) -> tuple[tuple[tuple[tuple[str, int], ...], int], ...]:
    """All ways to split one suit's 9 counts into chows/pungs and at most one pair.

    Returns a tuple of ``(sets, pair_rank)``; ``sets`` holds ``("chow"|"pung", rank0)`` with
    ranks 0..8, ``pair_rank`` is -1 without a pair. Empty tuple: no way.
    """
    out: set = set()
    c = list(counts)

    def rec(i: int, sets: list, pair: int) -> None:
        while i < 9 and c[i] == 0:
            i += 1
        if i == 9:
            out.add((tuple(sorted(sets)), pair))
            return
        if c[i] >= 3:
            c[i] -= 3
            sets.append((PUNG, i))
            rec(i, sets, pair)
            sets.pop()
            c[i] += 3
        if i <= 6 and c[i + 1] and c[i + 2]:
            c[i] -= 1; c[i + 1] -= 1; c[i + 2] -= 1
            sets.append((CHOW, i))
            rec(i, sets, pair)
            sets.pop()
            c[i] += 1; c[i + 1] += 1; c[i + 2] += 1
        if pair < 0 and c[i] >= 2:
            c[i] -= 2
            rec(i, sets, i)
            c[i] += 2

    if sum(counts) % 3 != 1:
        rec(0, [], -1)
    return tuple(sorted(out))


@lru_cache(maxsize=SUIT_CACHE_SIZE)
def _suit_ok(counts: tuple[int, ...]) -> bool:
    return bool(suit_decompositions(counts))


def _standard_complete(c: Sequence[int]) -> bool:
    """Four-sets-and-pair test on a concealed part (any number of sets), pair required."""
    pairs = 0
    for base in (0, 9, 18):
        part = tuple(c[base:base + 9])
        n = sum(part)
        if n % 3 == 1 or (n and not _suit_ok(part)):
            return False
        if n % 3 == 2:
            pairs += 1
    for k in range(27, 34):
        if c[k] == 2:
            pairs += 1
        elif c[k] not in (0, 3):
            return False
    return pairs == 1


@lru_cache(maxsize=SUIT_CACHE_SIZE)
def _suit_sets(part: tuple[int, ...], base: int) -> tuple[tuple[tuple[MSet, ...], int], ...]:
    """:func:`suit_decompositions` as concealed :class:`MSet` tuples and pair kinds."""
    return tuple((tuple(MSet(kind, base + r, False, True) for kind, r in sets), base + p if p >= 0 else -1)
                 for sets, p in suit_decompositions(part))


# One memo per suit, keyed on the 9 counts alone (cheaper to look up than (counts, base)).
_SUIT_SETS = tuple(lru_cache(maxsize=SUIT_CACHE_SIZE)(lambda part, base=base: _suit_sets(part, base)) for base in (0, 9, 18))


_HONOR_PUNGS = tuple(MSet(PUNG, k, False, True) for k in range(34))


def standard_readings(c: Sequence[int], melds: tuple[MSet, ...], mask: int | None = None) -> list[Reading]:
    """Every four-sets-and-pair reading of the concealed part ``c`` (winning tile included).
    ``mask``: bit k set when ``c[k]``, if the caller has it (empty suits are then skipped)."""
    honor_sets: tuple[MSet, ...] = ()
    honor_pair = -1
    if mask is None or mask & _HONORS:
        for k in range(27, 34):
            n = c[k]
            if n:
                if n == 3:
                    honor_sets += (_HONOR_PUNGS[k],)
                elif n == 2 and honor_pair < 0:
                    honor_pair = k
                else:
                    return []
    sets = melds + honor_sets
    pair = honor_pair
    combos: list[tuple[tuple[MSet, ...], int]] | None = None  # once a suit splits more than one way
    for base, suit_sets, suit_mask in zip((0, 9, 18), _SUIT_SETS, _SUIT_MASKS):
        if mask is not None and not mask & suit_mask:
            continue
        part = tuple(c[base:base + 9])
        if part == _EMPTY_SUIT:
            continue
        opts = suit_sets(part)
        if not opts:
            return []
        if combos is None:
            if len(opts) == 1:  # the usual case: one way
                osets, opair = opts[0]
                if opair >= 0:
                    if pair >= 0:
                        return []
                    pair = opair
                sets += osets
                continue
            combos = [(sets, pair)]
        nxt = []
        for sets, pair in combos:
            for osets, opair in opts:
                if pair >= 0 and opair >= 0:
                    continue
                nxt.append((sets + osets, pair if pair >= 0 else opair))
        combos = nxt
    if combos is None:
        return [_reading(STANDARD, sets, pair)] if pair >= 0 else []
    return [_reading(STANDARD, sets, pair) for sets, pair in combos if pair >= 0]


_EMPTY_SUIT = (0,) * 9
_SUIT_MASKS = (0x1FF, 0x1FF << 9, 0x1FF << 18)


def knitted_readings(c: Sequence[int], melds: tuple[MSet, ...], mask: int | None = None) -> list[Reading]:
    """Knitted Straight + one set + pair (Green Book fan 35): at most one declared meld.
    ``mask``: bit k set when ``c[k]``, if the caller has it."""
    if len(melds) > 1:
        return []
    out = []
    if mask is None:
        mask = 0
        for k in range(27):
            if c[k]:
                mask |= 1 << k
    for pat, pm in zip(KNITTED_PATTERNS, _KNITTED_MASKS):
        if mask & pm == pm:
            rest = list(c)
            for k in pat:
                rest[k] -= 1
            for r in standard_readings(rest, melds):
                out.append(_reading(KNITTED_STRAIGHT, r.sets, r.pair, pat))
    return out


def special_readings(c: Sequence[int], mask: int | None = None) -> list[Reading]:
    """Seven Pairs, Thirteen Orphans, Honors and Knitted Tiles of a 14-tile concealed hand.
    ``mask``: bit k set when ``c[k]``, if the caller has it."""
    if mask is None:
        mask = 0
        for k in range(34):
            if c[k]:
                mask |= 1 << k
    out = []
    distinct = mask.bit_count()
    if distinct <= 7 and 1 not in c and 3 not in c:  # counts are 0..4: every count even
        pairs = tuple(k for k in range(34) for _ in range(c[k] // 2))
        out.append(Reading(SEVEN_PAIRS, pairs=pairs))
    if distinct == 13 and not mask & ~_TH_MASK:
        out.append(Reading(THIRTEEN_ORPHANS))
    if distinct == 14:
        suited = mask & _SUITED
        if 7 <= suited.bit_count() <= 9 and any(not suited & ~pm for pm in _KNITTED_MASKS):
            out.append(Reading(HONORS_KNITTED))
    return out


def all_readings(c: Sequence[int], melds: tuple[MSet, ...], mask: int | None = None) -> list[Reading]:
    """Every MCR reading of a complete hand: ``c`` = concealed counts with the winning tile,
    ``melds`` = declared sets. Empty list: the hand is not complete. ``mask``: bit k set when
    ``c[k]``, if the caller has it (special shapes are then tried only when their tile count
    of kinds fits)."""
    out = standard_readings(c, melds, mask)
    if len(melds) <= 1:
        if mask is None:
            mask = 0
            for k in range(34):
                if c[k]:
                    mask |= 1 << k
        if (mask & _SUITED).bit_count() >= 9:
            out += knitted_readings(c, melds, mask)
        if not melds:
            distinct = mask.bit_count()
            if distinct <= 7 or distinct >= 13:
                out += special_readings(c, mask)
    return out


def is_complete(c: Sequence[int], n_melds: int) -> bool:
    """True if the concealed counts ``c`` (winning tile included) with ``n_melds`` declared
    sets form any MCR shape."""
    if _standard_complete(c):
        return True
    if n_melds <= 1:
        for pat in KNITTED_PATTERNS:
            if all(c[k] for k in pat):
                rest = list(c)
                for k in pat:
                    rest[k] -= 1
                if _standard_complete(rest):
                    return True
    if n_melds == 0:
        return bool(special_readings(c))
    return False


_KNITTED_MASKS = tuple(sum(1 << k for k in pat) for pat in KNITTED_PATTERNS)
_TH_MASK = sum(1 << k for k in TERMINALS_HONORS)
_SUITED = (1 << 27) - 1
_HONORS = 0x7F << 27


@lru_cache(maxsize=SUIT_CACHE_SIZE)
def _suit_adds(part: tuple[int, ...]) -> tuple[int, ...]:
    """Ranks r (0..8) such that one more tile of rank r makes the suit decomposable."""
    out = []
    for r in range(9):
        p = list(part)
        p[r] += 1
        if suit_decompositions(tuple(p)):
            out.append(r)
    return tuple(out)


@lru_cache(maxsize=SUIT_CACHE_SIZE)
def _suit_info(part: tuple[int, ...]) -> tuple[int, bool]:
    """(tile count, splits into sets and at most one pair) of one suit's 9 counts."""
    n = sum(part)
    return n, n == 0 or (n % 3 != 1 and _suit_ok(part))


def standard_waits(c: Sequence[int]) -> list[int]:
    """Kinds that complete four-sets-and-pair from the concealed counts ``c`` (no copy limit).

    Works suit by suit: the other suits must already split into sets (and at most the one
    pair), the suit that takes the tile is looked up in a memo of its completing ranks.
    """
    hon = c[27:34]
    hon_pairs = hon.count(2)
    hon_bad = 7 - hon.count(0) - hon_pairs - hon.count(3)  # a single honour, or four
    if hon_bad > 1:
        return []
    if type(c) is not tuple:
        c = tuple(c)
    parts = (c[0:9], c[9:18], c[18:27])
    info = (_suit_info(parts[0]), _suit_info(parts[1]), _suit_info(parts[2]))
    n_bad = 0
    suit_pairs = 0
    for n, ok in info:
        if not ok:
            n_bad += 1
        elif n % 3 == 2:
            suit_pairs += 1
    out = []
    if not hon_bad and n_bad <= 1:
        for s in range(3):
            n, ok = info[s]
            if n_bad and ok:
                continue  # another suit cannot split: only that suit may take the tile
            pairs = hon_pairs + suit_pairs - (ok and n % 3 == 2)
            if pairs + ((n + 1) % 3 == 2) != 1:
                continue
            base = s * 9
            for r in _suit_adds(parts[s]):
                out.append(base + r)
    if not n_bad:
        for h in range(7):
            x = hon[h]
            if x not in (1, 2) or hon_bad - (x == 1):
                continue
            if suit_pairs + hon_pairs - (x == 2) + (x == 1) == 1:
                out.append(27 + h)
    return out


def waits(concealed: Sequence[int], n_melds: int, held: Sequence[int] | None = None,
          fifth_copy: bool = False) -> list[int]:
    """Tile kinds (ascending) that complete a waiting hand under any MCR shape.

    ``concealed``: 34 counts of the concealed tiles (13 - 3 x melds of them). ``held``: counts
    of every tile the player holds (concealed + melds); a kind of which all four are held is no
    wait unless ``fifth_copy`` (see RULES.md, "waits on a fifth copy").
    """
    held = concealed if held is None else held
    found = set(standard_waits(concealed))
    found.update(special_waits(concealed, n_melds))
    return sorted(k for k in found if fifth_copy or held[k] < 4)


def special_waits(concealed: Sequence[int], n_melds: int, mask: int | None = None) -> set[int]:
    """Kinds that complete the concealed counts as a knitted straight + set + pair, seven
    pairs, thirteen orphans or honors and knitted tiles (no copy limit; four-sets waits are
    :func:`standard_waits`). ``mask``: bit k set when ``concealed[k]``, if the caller has it."""
    c = concealed
    found: set[int] = set()
    if n_melds > 1:
        return found
    if mask is None:
        mask = 0
        for k in range(34):
            if c[k]:
                mask |= 1 << k
    if (mask & _SUITED).bit_count() >= 8 and any((mask & pm).bit_count() >= 8 for pm in _KNITTED_MASKS):
        for pat in KNITTED_PATTERNS:
            missing = [k for k in pat if not c[k]]
            if len(missing) > 1:
                continue
            rest = list(c)
            for k in pat:
                if rest[k]:
                    rest[k] -= 1
            if missing:
                if _standard_complete(rest):
                    found.add(missing[0])
            else:
                found.update(standard_waits(rest))
    if n_melds == 0:
        distinct = mask.bit_count()
        if distinct <= 7:
            odd = []
            m = mask
            while m:  # the kinds held, lowest first
                low = m & -m
                k = low.bit_length() - 1
                m ^= low
                if c[k] % 2:
                    odd.append(k)
            if len(odd) == 1:
                found.add(odd[0])
        if not mask & ~_TH_MASK:
            th = [c[k] for k in TERMINALS_HONORS]
            if distinct == 13:
                found.update(TERMINALS_HONORS)
            elif distinct == 12 and max(th) == 2:
                found.update(k for k in TERMINALS_HONORS if not c[k])
        if distinct == 13:
            suited = {k for k in range(27) if c[k]}
            for pat in KNITTED_PATTERNS:
                if not suited <= set(pat):
                    continue
                if 7 <= len(suited) <= 9:
                    found.update(k for k in range(27, 34) if not c[k])
                if 6 <= len(suited) <= 8:
                    found.update(k for k in pat if not c[k])
    return found
