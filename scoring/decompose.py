"""Every reading of a complete hand, and the waits of a waiting hand. Ruleset-neutral.

Works on kind-count lists (34 kinds, see :mod:`scoring.tiles`; red fives count as fives).
Three shapes are complete:

- four sets + a pair (``standard``), the declared melds being fixed sets;
- seven pairs of seven *different* kinds (``seven_pairs``; four of a kind is not two pairs);
- thirteen orphans (``thirteen_orphans``): one of each terminal and honour plus one more.

A reading also says which group the winning tile completed and the wait that gives, because a
hand such as 123345m… winning on 3m (edge wait 12+3 or two-sided 45+3) or 111123m… on 1m
(triplet or run) reads several ways, and fu and wait yaku depend on the choice.
Each suit's splits come from a complete table of every suit pattern (built once, on first use),
kept per suit with their groups (bounded), so a hand costs a few dictionary look-ups.
MCR-only shapes (knitted, honours-and-knitted) are not here.
"""
from __future__ import annotations

from itertools import product
from typing import Iterable, NamedTuple, Sequence

from .tiles import NUM_KINDS, Tile, counts34

RUN, TRIPLET, KAN, PAIR = "run", "triplet", "kan", "pair"
STANDARD, SEVEN_PAIRS, THIRTEEN_ORPHANS = "standard", "seven_pairs", "thirteen_orphans"
# wait names, the riichi terms
RYANMEN, KANCHAN, PENCHAN, SHANPON, TANKI, THIRTEEN_SIDED = (
    "ryanmen", "kanchan", "penchan", "shanpon", "tanki", "thirteen-sided")

ORPHAN_KINDS = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)
_ORPHAN_SET = frozenset(ORPHAN_KINDS)


class Group(NamedTuple):
    """One set or pair of a reading (an immutable tuple; fields by name).

    ``shape``: ``run``, ``triplet``, ``kan`` or ``pair``; ``kind``: its lowest kind (0..33).
    ``concealed``: formed in the hand (or a closed kan) rather than called; a triplet that the
    winning tile completed on a discard is still ``concealed`` here — rulesets decide what that
    means (both riichi and MCR count it as open/melded). ``meld``: index into the request's
    melds, or -1 for a group formed from the concealed tiles.
    """

    shape: str
    kind: int
    concealed: bool = True
    meld: int = -1

    @property
    def kinds(self) -> tuple[int, ...]:
        if self.shape == RUN:
            return (self.kind, self.kind + 1, self.kind + 2)
        return (self.kind,)


class Reading(NamedTuple):
    """One way to read a complete hand (an immutable tuple; fields by name).

    ``form``: ``standard``, ``seven_pairs`` or ``thirteen_orphans``. ``sets``: standard — the
    four sets (hand-formed first, then the melds in request order); seven pairs — the seven
    pairs; thirteen orphans — empty. ``pair``: the pair kind (-1 for seven pairs).
    ``win_kind``: kind of the winning tile. ``win_group``: index into ``sets`` of the group the
    winning tile completed, -1 when it completed the pair of a standard / orphans hand.
    ``wait``: ``ryanmen``, ``kanchan``, ``penchan``, ``shanpon``, ``tanki`` or
    ``thirteen-sided`` (orphans waiting on all 13 kinds).
    """

    form: str
    sets: tuple[Group, ...]
    pair: int
    win_kind: int
    win_group: int
    wait: str


_new = tuple.__new__        # a NamedTuple straight from a tuple: cheaper than its keywords


# ---------------------------------------------------------------- suit-level decomposition

# Per-suit caches hold at most this many suit patterns each (a suit has 21,743 patterns that
# split, 498 for honours; real hands use a few thousand): bounded for a long-running server.
SUIT_CACHE_SIZE = 50_000


def _split_table(n: int, honours: bool) -> dict[bytes, tuple[tuple[int, tuple[tuple[str, int], ...]], ...]]:
    """Every way to split every pattern of one suit (``n`` kinds: 9, or 7 honours, which form
    no runs) into at most four sets and at most one pair, each kind at most four times: counts
    as bytes -> ``((pair position or -1, ((shape, position), ...) sorted), ...)`` sorted.

    Built forwards, from every multiset of sets (taken in order, so each comes sorted) with or
    without a pair — a precomputed table, the usual device of fast mahjong engines: 21,743
    patterns for a numbered suit, 498 for honours, in some 25 ms. A pattern not in the table
    does not split.
    """
    sets = ([] if honours else [(RUN, i) for i in range(n - 2)]) + [(TRIPLET, i) for i in range(n)]
    kinds = [(i, i + 1, i + 2) if shape == RUN else (i, i, i) for shape, i in sets]
    found: dict[bytes, set] = {}
    c = [0] * n

    def add(split: tuple) -> None:
        found.setdefault(bytes(c), set()).add((-1, split))
        for p in range(n):
            if c[p] <= 2:
                c[p] += 2
                found.setdefault(bytes(c), set()).add((p, split))
                c[p] -= 2

    def extend(first: int, split: tuple) -> None:
        add(split)
        if len(split) == 4:
            return
        for j in range(first, len(sets)):
            a, b, d = kinds[j]
            c[a] += 1
            c[b] += 1
            c[d] += 1
            if c[a] <= 4 and c[b] <= 4 and c[d] <= 4:
                extend(j, split + (sets[j],))
            c[a] -= 1
            c[b] -= 1
            c[d] -= 1

    extend(0, ())
    return {key: tuple(sorted(splits)) for key, splits in found.items()}


_SPLIT_TABLES: list = []        # [numbered suit table, honours table], built on first use


def split_table(honours: bool) -> dict[bytes, tuple[tuple[int, tuple[tuple[str, int], ...]], ...]]:
    """The complete split table of a numbered suit, or of the honours (see :func:`_split_table`):
    suit counts as bytes (9 or 7) -> every split; built on the first call (~25 ms), then shared.
    A pattern that is not a key does not split."""
    if not _SPLIT_TABLES:
        _SPLIT_TABLES[:] = [_split_table(9, False), _split_table(7, True)]
    return _SPLIT_TABLES[honours]


def _suit_decompositions(counts: Sequence[int], honours: bool) -> tuple[tuple[int, tuple[tuple[str, int], ...]], ...]:
    """All ways to split one suit's counts into sets and at most one pair.

    Returns a tuple of ``(pair_position or -1, ((shape, position), ...))`` with positions
    0..8 inside the suit (0..6 for honours, which form no runs). Empty if impossible. Read
    from the complete table of :func:`_split_table`, built on the first call.
    """
    return split_table(honours).get(bytes(counts), ())


# the concealed groups there can be, by shape and kind (shared values)
_HAND_GROUPS = {shape: tuple(Group(shape, k) for k in range(NUM_KINDS)) for shape in (RUN, TRIPLET)}
_SUIT_SLICES = ((0, 9, False), (9, 18, False), (18, 27, False), (27, 34, True))


# per suit: its counts as bytes -> ((pair kind or -1, concealed groups), ...); filled on use,
# the empty suit preset (one split: no pair, no group); emptied (but the preset) when full
_EMPTY_SUITS = (bytes(9), bytes(9), bytes(9), bytes(7))
_SPLIT_CACHE: tuple[dict, dict, dict, dict] = tuple({e: ((-1, ()),)} for e in _EMPTY_SUITS)


def _suit_groups(part: bytes, suit: int) -> tuple[tuple[int, tuple[Group, ...]], ...]:
    """:func:`_suit_decompositions` of one suit (``part``: its counts as bytes; ``suit`` 0..3)
    with absolute pair kind (-1 if none) and shared, immutable :class:`Group` values."""
    cache = _SPLIT_CACHE[suit]
    opts = cache.get(part)
    if opts is None:
        if len(cache) >= SUIT_CACHE_SIZE:
            cache.clear()
            cache[_EMPTY_SUITS[suit]] = ((-1, ()),)
        lo = 9 * suit
        opts = cache[part] = tuple(
            (lo + p if p >= 0 else -1, tuple([_HAND_GROUPS[shape][lo + pos] for shape, pos in sets]))
            for p, sets in _suit_decompositions(part, suit == 3)
        )
    return opts


def _hand_splits(counts: Sequence[int]) -> list[tuple[int, tuple[Group, ...]]]:
    """Every (pair kind, concealed groups) split of ``counts`` (3n+2 tiles); empty if none."""
    b = bytes(counts)
    cm, cp, cs, cz = _SPLIT_CACHE
    part = b[:9]
    m = cm.get(part) or _suit_groups(part, 0)
    part = b[9:18]
    p = cp.get(part) or _suit_groups(part, 1)
    part = b[18:27]
    s = cs.get(part) or _suit_groups(part, 2)
    part = b[27:34]
    z = cz.get(part) or _suit_groups(part, 3)
    if not (m and p and s and z):
        return []
    # a suit's splits either all hold the pair or none does (its tile count decides)
    if (m[0][0] >= 0) + (p[0][0] >= 0) + (s[0][0] >= 0) + (z[0][0] >= 0) != 1:
        return []
    if len(m) == 1 and len(p) == 1 and len(s) == 1 and len(z) == 1:   # the usual case
        pm, gm = m[0]
        pp, gp = p[0]
        ps, gs = s[0]
        pz, gz = z[0]
        return [(max(pm, pp, ps, pz), gm + gp + gs + gz)]
    out = []
    for (pm, gm), (pp, gp), (ps, gs), (pz, gz) in product(m, p, s, z):
        out.append((max(pm, pp, ps, pz), gm + gp + gs + gz))
    return out


def decompose_sets(counts: Sequence[int]) -> list[tuple[int, tuple[tuple[str, int], ...]]]:
    """Every split of concealed ``counts`` (34 kinds, 3n+2 tiles) into n sets and one pair.

    Returns ``[(pair_kind, ((shape, kind), ...)), ...]`` with shape ``run`` or ``triplet``
    and kinds 0..33, each split once; empty if the tiles form no such split.
    """
    return [(p, tuple((g.shape, g.kind) for g in gs)) for p, gs in _hand_splits(counts)]


def is_standard_complete(counts: Sequence[int]) -> bool:
    """True if concealed ``counts`` (3n+2 tiles) split into n sets and one pair."""
    pairs = 0
    for lo, hi, honours in _SUIT_SLICES:
        part = tuple(counts[lo:hi])
        s = sum(part)
        if not s:
            continue
        if s % 3 == 1 or not _suit_decompositions(part, honours):
            return False
        pairs += s % 3 == 2
    return pairs == 1


def is_seven_pairs(counts: Sequence[int]) -> bool:
    """Seven pairs of seven different kinds (14 concealed tiles, no melds)."""
    return counts.count(2) == 7 and counts.count(0) == len(counts) - 7


def is_thirteen_orphans(counts: Sequence[int]) -> bool:
    """One of each terminal and honour plus a second of one of them (14 tiles)."""
    if counts.count(0) != len(counts) - 13 or sum(counts) != 14:
        return False
    return all(counts[k] >= 1 for k in ORPHAN_KINDS)


# ---------------------------------------------------------------- readings with the win

_MELD_SHAPE = {"chi": RUN, "pon": TRIPLET, "daiminkan": KAN, "kakan": KAN, "ankan": KAN}


# every meld group there can be, by meld type, lowest kind and meld index (shared values)
MELD_GROUPS = {
    t: tuple(tuple(Group(shape, kind, t == "ankan", i) for i in range(4)) for kind in range(NUM_KINDS))
    for t, shape in _MELD_SHAPE.items()
}


def meld_groups(melds: Iterable) -> tuple[Group, ...]:
    """Groups for declared melds (objects with ``type`` and ``tiles``, e.g.
    :class:`scoring.hand.Meld`), in order; a closed kan is a concealed group."""
    out = []
    i = 0
    for m in melds:
        t = m.tiles
        kind = t[0].kind
        if m.type == "chi":
            kind = min(kind, t[1].kind, t[2].kind)
        if i < 4 and kind < NUM_KINDS:
            out.append(MELD_GROUPS[m.type][kind][i])
        else:                   # not a playable meld (unchecked input): built as before
            out.append(Group(_MELD_SHAPE[m.type], kind, m.type == "ankan", i))
        i += 1
    return tuple(out)


def readings(counts: Sequence[int], melds: Sequence[Group] = (), win_kind: int = -1) -> list[Reading]:
    """Every reading of a complete hand.

    ``counts``: kind counts (34) of the concealed tiles *including* the winning tile
    (14 - 3 x len(melds) tiles). ``melds``: the declared melds as groups (:func:`meld_groups`).
    ``win_kind``: the winning tile's kind, which must be among ``counts``.

    One reading per (split, group holding the winning tile) — identical choices once. Empty
    list if the hand is not complete. Seven pairs and thirteen orphans only without melds.
    """
    out: list[Reading] = []
    melds = tuple(melds)
    for pair, hand in _hand_splits(counts):
        groups = hand + melds if melds else hand
        if pair == win_kind:
            out.append(_new(Reading, (STANDARD, groups, pair, win_kind, -1, TANKI)))
        seen = None
        j = -1
        low = win_kind - 2
        for g in hand:
            j += 1
            k = g[1]
            if k > win_kind or k < low:          # cannot hold the winning tile
                continue
            if g[0] == TRIPLET:
                if k != win_kind:
                    continue
                wait = SHANPON
            else:
                pos = win_kind - k
                if pos == 1:
                    wait = KANCHAN
                elif pos == 0:
                    wait = PENCHAN if k % 9 == 6 else RYANMEN
                else:
                    wait = PENCHAN if k % 9 == 0 else RYANMEN
            if seen is None:
                seen = [g]
            elif g in seen:        # the same set twice (iipeikou): one reading
                continue
            else:
                seen.append(g)
            out.append(_new(Reading, (STANDARD, groups, pair, win_kind, j, wait)))
    if not melds:
        special = special_reading(counts, win_kind)
        if special is not None:
            out.append(special)
    return out


def special_reading(counts: Sequence[int], win_kind: int) -> Reading | None:
    """The seven pairs or thirteen orphans reading of concealed ``counts`` (34 kinds, the
    winning tile of kind ``win_kind`` included, no melds), or None when it is neither. A hand
    has at most one of the two, and :func:`readings` lists it after the standard ones."""
    if is_seven_pairs(counts):
        pairs = tuple(Group(PAIR, k) for k in range(NUM_KINDS) if counts[k] == 2)
        j = next(i for i, g in enumerate(pairs) if g.kind == win_kind)
        return Reading(SEVEN_PAIRS, pairs, -1, win_kind, j, TANKI)
    if is_thirteen_orphans(counts):
        pair = next(k for k in ORPHAN_KINDS if counts[k] == 2)
        wait = THIRTEEN_SIDED if pair == win_kind else TANKI
        return Reading(THIRTEEN_ORPHANS, (), pair, win_kind, -1, wait)
    return None


def is_complete(counts: Sequence[int], n_melds: int = 0) -> bool:
    """True if concealed ``counts`` (including the winning tile) with ``n_melds`` declared
    melds form a complete hand of any of the three shapes."""
    if is_standard_complete(counts):
        return True
    return n_melds == 0 and (is_seven_pairs(counts) or is_thirteen_orphans(counts))


def waits(concealed: Sequence[Tile], melds: Sequence = ()) -> list[int]:
    """Kinds (0..33, ascending) that would complete a waiting hand.

    ``concealed``: the 13 - 3 x len(melds) concealed tiles; ``melds``: declared melds (with
    ``tiles``). A kind of which the hand (melds included) already holds all four is not a
    wait: that tile cannot be drawn.
    """
    c = counts34(concealed)
    held = list(c)
    for m in melds:
        for t in m.tiles:
            if t.kind < NUM_KINDS:
                held[t.kind] += 1
    out = []
    n_melds = len(melds)
    for k in range(NUM_KINDS):
        if held[k] >= 4:
            continue
        c[k] += 1
        if is_complete(c, n_melds):
            out.append(k)
        c[k] -= 1
    return out
