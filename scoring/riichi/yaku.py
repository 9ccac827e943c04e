"""The riichi yaku table: each row a name, its han closed / open, and a test.

Values are the standard ones (Japanese Professional Mahjong League / WRC / Tenhou rules; the
``mahjong`` package agrees): open value 0 means the yaku needs a closed hand; an open value one
below the closed value is kuisagari. Yakuman are a separate table worth 13 han per multiple.

A row's test looks either at the hand (``HAND``: it receives :class:`HandFacts` — the win's
flags, winds and tile counts, the same for every reading) or at one reading (``READING``: it
receives :class:`Facts`, the sets of one reading, built by :func:`facts_for`). Each row also
names the traits it needs: bits computed once per hand, reading and win (a few integer
operations on the reading's bit masks and counts) that are exactly the row's condition, so a
reading's yaku are one look-up by its traits and no test runs while scoring; the tests are the
rulebook that tests/test_riichi_gates.py holds the traits to.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, NamedTuple, Sequence

from ..decompose import (KAN, RUN, RYANMEN, SEVEN_PAIRS, STANDARD, TANKI, THIRTEEN_ORPHANS,
                         THIRTEEN_SIDED, Group, Reading, meld_groups)
from ..hand import HandRequest, RiichiRules
from .result import YakuLine

WHITE, GREEN, RED = 31, 32, 33
DRAGONS = (WHITE, GREEN, RED)
WINDS = (27, 28, 29, 30)
GREEN_KINDS = frozenset((19, 20, 21, 23, 25, GREEN))   # 2 3 4 6 8 sou and the green dragon
_TERMINAL_OR_HONOUR = tuple(k >= 27 or k % 9 in (0, 8) for k in range(34))


# Per-kind flag bits, OR-ed / AND-ed over a hand's tiles (see tile_flags).
SIMPLE, TERMINAL, HONOUR, GREEN_TILE, MAN, PIN, SOU = 1, 2, 4, 8, 16, 32, 64
KIND_FLAGS = tuple(
    (HONOUR if k >= 27 else TERMINAL if k % 9 in (0, 8) else SIMPLE)
    | (GREEN_TILE if k in GREEN_KINDS else 0)
    | ((MAN, PIN, SOU)[k // 9] if k < 27 else 0)
    for k in range(34)
)


HAND, READING = "hand", "reading"   # what a row's test looks at: HandFacts or Facts

# The traits a YAKU row needs: each row's traits together are exactly its condition (for the
# hands it is asked about), so a reading's yaku are the rows whose traits it has, found in one
# look-up (see _ROW_CACHE). A hand's traits are bits of HandFacts.traits; Facts.traits adds the
# reading's and the win's. YAKUMAN rows' traits (further below) are necessary conditions only:
# the test decides.
# the win's flags and rules (set per request)
RIICHI = 1 << 0           # riichi declared (not double riichi)
TSUMO = 1 << 1            # self-drawn win
ROBBED_KAN = 1 << 2       # the win robs a kan
REPLACEMENT = 1 << 3      # the win is on a kan's replacement tile
LAST_TILE = 1 << 4        # the win is on the last tile
DOUBLE_RIICHI = 1 << 5    # double riichi declared
IPPATSU = 1 << 6          # ippatsu declared
RON = 1 << 7              # won on a discard
OPEN_TANYAO = 1 << 8      # the rules allow tanyao in an open hand
SEAT_SET = 1 << 9         # the seat wind held three or four times
ROUND_SET = 1 << 10       # the round wind held three or four times
# the tiles (set once per hand shape)
ALL_SIMPLES = 1 << 11     # no terminal or honour anywhere
NO_SIMPLES = 1 << 12      # only terminals and honours
DRAGON_SET = 1 << 13      # a dragon held three or four times
WHITE_SET = 1 << 14       # white dragons held three or four times
GREEN_SET = 1 << 15       # green dragons likewise
RED_SET = 1 << 16         # red dragons likewise
WIND_SET = 1 << 17        # a wind held three or four times
THREE_KANS = 1 << 18      # exactly three kans
ONE_SUIT = 1 << 19        # one suit, honours or not
HONOURS = 1 << 20         # an honour somewhere
NO_HONOURS = 1 << 21      # no honour
TWO_DRAGON_SETS = 1 << 22  # exactly two dragons held three or four times
# the reading (its sets: set once per reading of a hand shape; the win: per request)
A_RUN = 1 << 23           # the reading has a run
PEIKOU = 1 << 24          # exactly one pair of identical concealed runs
TWO_PEIKOU = 1 << 25      # two pairs of identical concealed runs
PAIRS_FORM = 1 << 26      # the reading is seven pairs
OUTSIDE_PAIR = 1 << 27    # the reading's pair is a terminal or an honour
OUTSIDE_SETS = 1 << 28    # every set holds a terminal or an honour
DRAGON_PAIR = 1 << 29     # the pair of a standard reading is a dragon
SANSHOKU = 1 << 30        # runs from the same number in each suit
ITTSU = 1 << 31           # runs 123, 456 and 789 of one suit
FOUR_TRIPLETS_SETS = 1 << 32  # four triplets/kans
DOUKOU = 1 << 33          # triplets/kans of the same number in each suit
PINFU_SHAPE = 1 << 34     # closed, four runs, two-sided wait, a pair that gives no fu
SANANKOU = 1 << 35        # exactly three concealed triplets/kans for this win


# Yakuman traits (bits of HandFacts.yakuman_traits), necessary conditions as for the yaku.
TENHOU = 1 << 0           # tenhou declared
FOUR_KANS = 1 << 1
HONOURS_ONLY = 1 << 2
THREE_DRAGONS = 1 << 3    # all three dragons held three or four times
THREE_WINDS = 1 << 4      # three or four winds held three or four times
TERMINALS_ONLY = 1 << 5   # terminals and no honour
GREEN_ONLY = 1 << 6       # only green tiles
THIRTEEN_KINDS = 1 << 7   # no meld, only terminals and honours, 13 different kinds
NINE_GATES = 1 << 8       # no meld, one suit without honours, its 1 and 9 three times
FOUR_TRIPLETS = 1 << 9    # closed, four kinds held three or four times
CHIIHOU = 1 << 10         # chiihou declared


class HandFacts(NamedTuple):
    """What does not depend on the reading: the win's flags, winds, tile counts, traits.

    The first seven fields come from the request, the rest from the tiles and melds alone
    (:class:`ShapeFacts`, cached with the hand's shape by the scorer)."""

    req: HandRequest           # the win's flags (riichi, ippatsu, events) are read from it
    rules: RiichiRules
    tsumo: bool
    seat: int                  # seat wind kind 27..30
    round: int                 # round wind kind 27..30
    yakuman_traits: int        # yakuman trait bits (TENHOU ...); 0: no yakuman possible
    traits: int                # trait bits of the hand (RIICHI ... TWO_DRAGON_SETS)
    # --- the ShapeFacts fields, in order
    closed: bool
    counts: Sequence[int]      # every tile of the hand, melds included, by kind
    all_simples: bool
    all_terminal_honour: bool
    all_green: bool
    suits: int                 # bit mask of suits present: m=1 p=2 s=4
    has_honours: bool
    kans: int
    dragon_triplets: int       # dragon kinds held three or four times
    wind_triplets: int         # wind kinds held three or four times
    no_melds: bool


class ShapeFacts(NamedTuple):
    """The part of :class:`HandFacts` that the tiles and melds decide (no flag, no wind), with
    the tile-only traits; :func:`hand_facts` adds the request's part."""

    closed: bool
    counts: Sequence[int]
    all_simples: bool
    all_terminal_honour: bool
    all_green: bool
    suits: int
    has_honours: bool
    kans: int
    dragon_triplets: int
    wind_triplets: int
    no_melds: bool
    yakuman_traits: int        # the tile-only yakuman traits (all but TENHOU and CHIIHOU)
    traits: int                # the tile-only traits (ALL_SIMPLES ... TWO_DRAGON_SETS)
    hand_part: tuple           # the fields above up to no_melds: HandFacts' tail


class Facts(NamedTuple):
    """One reading of one hand: its sets summed up as bit masks and counts, so that each yaku
    test is a few integer operations (built by :func:`facts_of` or, for a new hand, by
    scoring/riichi/readings.py from per-suit tables)."""

    h: HandFacts
    r: Reading
    runs: int                  # bit k: a run from kind k (called chi included); a run twice sets one bit
    n_runs: int                # runs, each counted
    triplets: int              # bit k: a triplet or kan of kind k
    n_triplets: int
    concealed_triplets: int    # triplets/kans formed in hand or closed kans, a ron-completed one excluded
    peikou: int                # pairs of identical concealed runs (closed hands only)
    traits: int                # the hand's trait bits and the reading's (A_RUN ... PAIRS_FORM)
    set_lines: tuple | None    # fu lines of the triplets and kans for this win; None: fu_of counts them
    set_fu: int                # their total


class ReadingFacts(NamedTuple):
    """What :class:`Facts` holds that depends on the reading and the melds only (cached with
    the hand's shape): the concealed triplets by tsumo and by ron, the reading's own traits."""

    r: Reading
    runs: int
    n_runs: int
    triplets: int
    n_triplets: int
    concealed_by_tsumo: int
    concealed_by_ron: int
    peikou: int
    traits: int
    fu: object = None          # the scorer's per-reading fu lines (scoring.riichi.fu.SetFu)


_new = tuple.__new__        # a NamedTuple straight from a tuple: cheaper than its keywords
_WIND_INDEX = {"E": 27, "S": 28, "W": 29, "N": 30}
_NINE_GATES_ENDS = {1: 0, 2: 9, 4: 18}      # suit bit -> kind of its 1
_SUIT_ONES = 1 | 1 << 9 | 1 << 18           # bits of the 1 of each suit (masks over kinds)


# OR and AND of KIND_FLAGS over the kinds present in one suit, for every set of kinds present
# (9 or 7 bits: 1,664 entries in all, built here): keyed by the suit's counts turned into
# presence bytes (0 or 1 per kind).
_PRESENT = bytes([0] + [1] * 255)       # bytes.translate table: any count > 0 -> 1


def _suit_flag_table(lo: int, n: int) -> dict[bytes, tuple[int, int]]:
    table = {}
    for mask in range(1 << n):
        a, z = 0, -1
        for i in range(n):
            if mask >> i & 1:
                a |= KIND_FLAGS[lo + i]
                z &= KIND_FLAGS[lo + i]
        table[bytes((mask >> i) & 1 for i in range(n))] = (a, z)
    return table


_FLAG_TABLES = (_suit_flag_table(0, 9), _suit_flag_table(9, 9), _suit_flag_table(18, 9),
                _suit_flag_table(27, 7))


def tile_flags(counts: bytes) -> tuple[int, int]:
    """OR and AND of :data:`KIND_FLAGS` over the kinds present in ``counts`` (34 bytes)."""
    b = counts.translate(_PRESENT)
    tm, tp, ts, tz = _FLAG_TABLES
    am, zm = tm[b[:9]]
    ap, zp = tp[b[9:18]]
    as_, zs = ts[b[18:27]]
    az, zz = tz[b[27:34]]
    return am | ap | as_ | az, zm & zp & zs & zz


def _flag_facts(any_flags: int, all_flags: int) -> tuple:
    """What the OR and AND of the tiles' KIND_FLAGS decide: ``(suits, has_honours,
    all_simples, all_terminal_honour, all_green, traits, yakuman traits)``."""
    suits = (any_flags >> 4) & 7
    has_honours = bool(any_flags & HONOUR)
    all_simples = not any_flags & (TERMINAL | HONOUR)
    all_th = not any_flags & SIMPLE
    all_green = bool(all_flags & GREEN_TILE)
    traits = ALL_SIMPLES if all_simples else NO_SIMPLES if all_th else 0
    traits |= HONOURS if has_honours else NO_HONOURS
    if suits in (1, 2, 4):
        traits |= ONE_SUIT
    ym = GREEN_ONLY if all_green else 0
    if has_honours and not suits:
        ym |= HONOURS_ONLY
    if all_th and not has_honours:
        ym |= TERMINALS_ONLY
    return suits, has_honours, all_simples, all_th, all_green, traits, ym


# _flag_facts by any_flags << 7 | all_flags (both 7 bits: at most 16,384 entries, a few hundred
# met in practice), filled on use
_FLAG_FACTS: dict[int, tuple] = {}


def _honour_facts(sets: int) -> tuple:
    """What the honours held three or four times decide (``sets``: bit i for kind 27 + i):
    ``(dragons, winds, traits, yakuman traits)``."""
    dragons = bin(sets >> 4).count("1")
    winds = bin(sets & 15).count("1")
    traits = 0
    if dragons:
        traits |= DRAGON_SET if dragons != 2 else DRAGON_SET | TWO_DRAGON_SETS
        traits |= (WHITE_SET if sets >> 4 & 1 else 0) | (GREEN_SET if sets >> 5 & 1 else 0) \
            | (RED_SET if sets >> 6 & 1 else 0)
    if winds:
        traits |= WIND_SET
    ym = (THREE_DRAGONS if dragons == 3 else 0) | (THREE_WINDS if winds >= 3 else 0)
    return dragons, winds, traits, ym


_AT_LEAST_THREE = bytes([0, 0, 0] + [1] * 253)      # bytes.translate table: count >= 3 -> 1
# _honour_facts by the honours' counts turned into at-least-three bytes (7 bytes of 0 or 1)
_HONOUR_FACTS = {bytes(m >> i & 1 for i in range(7)): _honour_facts(m) for m in range(128)}
_NO_HONOUR_SETS = (0, 0, 0, 0)


def shape_facts(counts: Sequence[int], melds: Sequence[Group], any_flags: int = -1,
                all_flags: int = 0) -> ShapeFacts:
    """Facts of the tiles and melds alone. ``counts``: every tile by kind, melds included
    (34 counts, best as bytes, which the facts then hold); ``melds``: the declared melds as
    groups (:func:`scoring.decompose.meld_groups`); ``any_flags`` / ``all_flags``: OR and AND of
    :data:`KIND_FLAGS` over the tiles (:func:`tile_flags`, computed here when not given)."""
    if type(counts) is not bytes:
        counts = bytes(counts)
    if any_flags < 0:
        any_flags, all_flags = tile_flags(counts)
    closed = True
    kans = 0
    for g in melds:
        if not g[2]:            # concealed
            closed = False
        if g[0] == KAN:
            kans += 1
    key = any_flags << 7 | all_flags & 127
    flag_facts = _FLAG_FACTS.get(key)
    if flag_facts is None:
        flag_facts = _FLAG_FACTS[key] = _flag_facts(any_flags, all_flags)
    suits, has_honours, all_simples, all_th, all_green, traits, ym = flag_facts
    dragons, winds, honour_traits, honour_ym = (
        _HONOUR_FACTS[counts[27:].translate(_AT_LEAST_THREE)] if has_honours else _NO_HONOUR_SETS)
    traits |= honour_traits
    ym |= honour_ym
    # yakuman traits: each a necessary condition of one or two yakuman rows
    if kans >= 3:
        if kans == 3:
            traits |= THREE_KANS
        else:
            ym |= FOUR_KANS
    if not melds:
        if suits in (1, 2, 4) and not has_honours:
            end = _NINE_GATES_ENDS[suits]
            if counts[end] >= 3 and counts[end + 8] >= 3:
                ym |= NINE_GATES
        if all_th and counts.count(0) == 21:
            ym |= THIRTEEN_KINDS
    if closed and counts.count(3) + counts.count(4) >= 4:
        ym |= FOUR_TRIPLETS
    part = (closed, counts, all_simples, all_th, all_green, suits, has_honours, kans, dragons,
            winds, not melds)
    return _new(ShapeFacts, part + (ym, traits, part))


def hand_facts(req: HandRequest, counts: Sequence[int], any_flags: int = -1, all_flags: int = 0,
               shape: ShapeFacts | None = None) -> HandFacts:
    """Reading-independent facts of ``req``.

    ``counts``: every tile by kind, melds included. ``any_flags`` / ``all_flags``: OR and AND
    of :data:`KIND_FLAGS` over the tiles (computed here when not given). ``shape``: the
    :func:`shape_facts` of these tiles and melds when the caller has them.
    """
    if shape is None:
        shape = shape_facts(counts, meld_groups(req.melds), any_flags, all_flags)
    tsumo = req.win == "tsumo"
    traits = shape.traits
    riichi = req.riichi
    if riichi != "none":
        traits |= RIICHI if riichi == "riichi" else DOUBLE_RIICHI
    if req.ippatsu:
        traits |= IPPATSU
    traits |= TSUMO if tsumo else RON
    if req.robbing_kong:
        traits |= ROBBED_KAN
    if req.replacement_tile:
        traits |= REPLACEMENT
    if req.last_wall_tile:
        traits |= LAST_TILE
    rules = req.rules
    if rules.open_tanyao:
        traits |= OPEN_TANYAO
    seat, round_ = _WIND_INDEX[req.seat_wind], _WIND_INDEX[req.round_wind]
    if traits & WIND_SET:
        counts = shape.counts
        if counts[seat] >= 3:
            traits |= SEAT_SET
        if counts[round_] >= 3:
            traits |= ROUND_SET
    ym = shape.yakuman_traits
    if req.tenhou:
        ym |= TENHOU
    if req.chiihou:
        ym |= CHIIHOU
    return _new(HandFacts, (req, rules, tsumo, seat, round_, ym, traits) + shape.hand_part)


def set_traits(runs: int, n_runs: int, triplets: int, n_triplets: int, peikou: int,
               outside: bool, pair: int) -> int:
    """The trait bits that a standard reading's sets decide, whatever the win: from its runs
    and triplets (bit masks over kinds and counts, as :class:`Facts`), its pairs of identical
    concealed runs, whether every set holds a terminal or an honour, and its pair's kind."""
    t = OUTSIDE_SETS if outside else 0
    if _TERMINAL_OR_HONOUR[pair]:
        t |= OUTSIDE_PAIR if pair < WHITE else OUTSIDE_PAIR | DRAGON_PAIR
    if n_runs:
        t |= A_RUN
        if peikou:
            t |= PEIKOU if peikou == 1 else TWO_PEIKOU
        if n_runs >= 3:
            if runs & runs >> 9 & runs >> 18 & 0x7F:         # the same run in each suit
                t |= SANSHOKU
            if runs & runs >> 3 & runs >> 6 & _SUIT_ONES:    # 123 456 789 of one suit
                t |= ITTSU
    if n_triplets >= 3:
        if n_triplets == 4:
            t |= FOUR_TRIPLETS_SETS
        if triplets & triplets >> 9 & triplets >> 18 & 0x1FF:   # the same triplet in each suit
            t |= DOUKOU
    return t


def reading_facts(r: Reading, closed: bool, fu: object = None) -> ReadingFacts:
    """The reading's part of :class:`Facts` (``closed``: the hand has no called meld), with
    ``fu`` (the scorer's :func:`scoring.riichi.fu.set_fu`) kept alongside. A triplet completed
    by the winning tile on a discard counts as open (standard rule; it decides
    sanankou/suuankou and its fu): ``concealed_by_ron`` leaves it out. The traits that depend on
    the win (the winds for pinfu, sanankou by ron) are :func:`facts_of`'s."""
    form, sets, pair, _, ron_group, wait = r
    if form != STANDARD:
        return _new(ReadingFacts, (r, 0, 0, 0, 0, 0, 0, 0, PAIRS_FORM if form == SEVEN_PAIRS else 0, fu))
    runs = trips = n_runs = n_trips = 0
    concealed = by_ron = 0
    outside = True              # every set holds a terminal or an honour
    i = 0
    for shape, kind, closed_group, _ in sets:
        if shape == RUN:
            runs |= 1 << kind
            n_runs += 1
            if kind % 9 not in (0, 6):
                outside = False
        else:
            trips |= 1 << kind
            n_trips += 1
            if closed_group:
                concealed += 1
                if i != ron_group:
                    by_ron += 1
            if not _TERMINAL_OR_HONOUR[kind]:
                outside = False
        i += 1
    peikou = 0
    if closed and n_runs >= 2:  # a closed hand's runs are all concealed
        seen: dict[int, int] = {}
        for shape, kind, _, _ in sets:
            if shape == RUN:
                seen[kind] = seen.get(kind, 0) + 1
        peikou = sum(m // 2 for m in seen.values())
    traits = set_traits(runs, n_runs, trips, n_trips, peikou, outside, pair)
    if wait == RYANMEN and closed and n_runs == 4 and pair < WHITE:
        traits |= PINFU_SHAPE   # but for a seat or round wind pair (facts_of)
    return _new(ReadingFacts, (r, runs, n_runs, trips, n_trips, concealed, by_ron, peikou,
                               traits, fu))


def facts_of(h: HandFacts, p: ReadingFacts) -> Facts:
    """:class:`Facts` of a reading from its cached part ``p`` and the hand's facts."""
    fu = p[9]
    if fu is None:
        lines, raw = None, 0
    elif h.tsumo:
        lines, raw = fu.by_tsumo, fu.raw_by_tsumo
    else:
        lines, raw = fu.by_ron, fu.raw_by_ron
    concealed = p[5] if h.tsumo else p[6]
    traits = h.traits | p[8]
    if concealed == 3:
        traits |= SANANKOU
    if traits & PINFU_SHAPE and p[0].pair in (h.seat, h.round):
        traits ^= PINFU_SHAPE
    return _new(Facts, (h, p[0], p[1], p[2], p[3], p[4], concealed, p[7], traits, lines, raw))


def facts_for(h: HandFacts, r: Reading) -> Facts:
    """Facts of reading ``r`` (see :func:`reading_facts`)."""
    return facts_of(h, reading_facts(r, h.closed))


# ------------------------------------------------------------------ tests, one per yaku

def is_pinfu_shape(f: Facts) -> bool:
    """Closed, four runs, a pair that gives no fu, won on a two-sided wait."""
    h, r = f.h, f.r
    return (h.closed and r.form == STANDARD and f.n_runs == 4 and r.wait == RYANMEN
            and r.pair not in DRAGONS and r.pair != h.seat and r.pair != h.round)


def _tanyao(h: HandFacts) -> bool:
    return h.all_simples and (h.closed or h.rules.open_tanyao)


# masks over kinds (bit k: kind k) for the tests below
_SIMPLE_BITS = sum(1 << k for k in range(27) if k % 9 not in (0, 8))
_INNER_RUN_BITS = sum(1 << k for k in range(27) if k % 9 not in (0, 6))   # runs without a terminal


def _sanshoku(f: Facts) -> bool:
    """A run from the same number in each suit (its start 1..7)."""
    runs = f.runs
    return bool(runs & runs >> 9 & runs >> 18 & 0x7F)


def _ittsu(f: Facts) -> bool:
    """Runs 123, 456 and 789 of one suit."""
    runs = f.runs
    return bool(runs & runs >> 3 & runs >> 6 & _SUIT_ONES)


def _outside(f: Facts) -> bool:
    """Every set and the pair hold a terminal or honour, with at least one run."""
    r = f.r
    return (r.form == STANDARD and f.n_runs > 0 and _TERMINAL_OR_HONOUR[r.pair]
            and not f.triplets & _SIMPLE_BITS and not f.runs & _INNER_RUN_BITS)


def _sanshoku_doukou(f: Facts) -> bool:
    """A triplet (or kan) of the same number in each suit."""
    t = f.triplets
    return f.n_triplets >= 3 and bool(t & t >> 9 & t >> 18 & 0x1FF)


def _shousangen(f: Facts) -> bool:
    return f.h.dragon_triplets == 2 and f.r.form == STANDARD and f.r.pair in DRAGONS


def _flush(h: HandFacts, honours: bool) -> bool:
    return h.suits in (1, 2, 4) and h.has_honours == honours


@dataclass(frozen=True, slots=True)
class Yaku:
    """A row of the rulebook: ``name``, han closed, han open (0: closed only), what the test
    looks at (``HAND`` or ``READING``), the traits it needs (see above), test; ``open_needs``:
    traits the open value needs besides (a rule option)."""

    name: str
    closed: int
    open: int
    per: str
    needs: int
    test: Callable
    open_needs: int = 0


YAKU: tuple[Yaku, ...] = (
    Yaku("riichi", 1, 0, HAND, RIICHI, lambda h: h.req.riichi == "riichi"),
    Yaku("double riichi", 2, 0, HAND, DOUBLE_RIICHI, lambda h: h.req.riichi == "double"),
    Yaku("ippatsu", 1, 0, HAND, IPPATSU, lambda h: h.req.ippatsu),
    Yaku("menzen tsumo", 1, 0, HAND, TSUMO, lambda h: h.tsumo and h.closed),
    Yaku("pinfu", 1, 0, READING, PINFU_SHAPE, is_pinfu_shape),
    Yaku("iipeikou", 1, 0, READING, PEIKOU, lambda f: f.peikou == 1),
    Yaku("tanyao", 1, 1, HAND, ALL_SIMPLES, _tanyao, OPEN_TANYAO),
    Yaku("yakuhai (haku)", 1, 1, HAND, WHITE_SET, lambda h: h.counts[WHITE] >= 3),
    Yaku("yakuhai (hatsu)", 1, 1, HAND, GREEN_SET, lambda h: h.counts[GREEN] >= 3),
    Yaku("yakuhai (chun)", 1, 1, HAND, RED_SET, lambda h: h.counts[RED] >= 3),
    Yaku("yakuhai (seat wind)", 1, 1, HAND, SEAT_SET, lambda h: h.counts[h.seat] >= 3),
    Yaku("yakuhai (round wind)", 1, 1, HAND, ROUND_SET, lambda h: h.counts[h.round] >= 3),
    Yaku("chankan", 1, 1, HAND, ROBBED_KAN, lambda h: h.req.robbing_kong),
    Yaku("rinshan kaihou", 1, 1, HAND, REPLACEMENT, lambda h: h.req.replacement_tile),
    Yaku("haitei", 1, 1, HAND, LAST_TILE | TSUMO, lambda h: h.req.last_wall_tile and h.tsumo),
    Yaku("houtei", 1, 1, HAND, LAST_TILE | RON, lambda h: h.req.last_wall_tile and not h.tsumo),
    Yaku("sanshoku", 2, 1, READING, SANSHOKU, _sanshoku),
    Yaku("ittsu", 2, 1, READING, ITTSU, _ittsu),
    Yaku("chanta", 2, 1, READING, A_RUN | OUTSIDE_PAIR | OUTSIDE_SETS | HONOURS,
         lambda f: f.h.has_honours and _outside(f)),
    Yaku("chiitoitsu", 2, 0, READING, PAIRS_FORM, lambda f: f.r.form == SEVEN_PAIRS),
    Yaku("toitoi", 2, 2, READING, FOUR_TRIPLETS_SETS, lambda f: f.n_triplets == 4),
    Yaku("sanankou", 2, 2, READING, SANANKOU, lambda f: f.concealed_triplets == 3),
    Yaku("sankantsu", 2, 2, HAND, THREE_KANS, lambda h: h.kans == 3),
    Yaku("sanshoku doukou", 2, 2, READING, DOUKOU, _sanshoku_doukou),
    Yaku("honroutou", 2, 2, HAND, NO_SIMPLES, lambda h: h.all_terminal_honour),
    Yaku("shousangen", 2, 2, READING, TWO_DRAGON_SETS | DRAGON_PAIR, _shousangen),
    Yaku("honitsu", 3, 2, HAND, ONE_SUIT | HONOURS, lambda h: _flush(h, True)),
    Yaku("junchan", 3, 2, READING, A_RUN | OUTSIDE_PAIR | OUTSIDE_SETS | NO_HONOURS,
         lambda f: not f.h.has_honours and _outside(f)),
    Yaku("ryanpeikou", 3, 0, READING, TWO_PEIKOU, lambda f: f.peikou >= 2),
    Yaku("chinitsu", 6, 5, HAND, ONE_SUIT | NO_HONOURS, lambda h: _flush(h, False)),
)

# Every row's traits are not only necessary but also sufficient (for the hands the row is
# asked about: closed-only rows are never asked about an open hand), so the scorer runs no
# test: a reading's yaku are the rows whose traits it has. The tests are the rulebook that the
# traits are checked against: tests/test_riichi_gates.py runs every test on every reading.


# ------------------------------------------------------------------ yakuman

def _pure_nine_gates_shape(h: HandFacts) -> int:
    """0: not nine gates; 1: nine gates; 2: pure nine gates (the 13 tiles before the win
    were 1112345678999 of one suit: a nine-sided wait)."""
    if not h.closed or h.req.melds or h.suits not in (1, 2, 4) or h.has_honours:
        return 0
    base = _NINE_GATES_ENDS[h.suits]
    extra = _NINE_GATES.get(bytes(h.counts[base:base + 9]), -1)   # 1112345678999 + which
    if extra < 0:
        return 0
    return 2 if extra == h.req.win_tile.kind - base else 1


# the nine gates counts of one suit, 1112345678999 and one more tile -> the position of that tile
_NINE_GATES = {bytes(n + (i == j) for j, n in enumerate((3, 1, 1, 1, 1, 1, 1, 1, 3))): i
               for i in range(9)}


def _suuankou(f: Facts) -> int:
    if f.r.form != STANDARD or not f.h.closed or f.concealed_triplets != 4:
        return 0
    return 2 if f.r.wait == TANKI else 1


def _kokushi(f: Facts) -> int:
    if f.r.form != THIRTEEN_ORPHANS:
        return 0
    return 2 if f.r.wait == THIRTEEN_SIDED else 1


@dataclass(frozen=True, slots=True)
class Yakuman:
    """A yakuman row: ``names[v-1]`` for test value v (1 plain, 2 the stronger form); what the
    test looks at (``HAND`` or ``READING``); the yakuman trait it needs. ``doubles``: the
    stronger form (or, with one name, the yakuman itself: daisuushi) is a double yakuman when
    the ``double_yakuman`` rule is on."""

    names: tuple[str, ...]
    per: str
    needs: int
    test: Callable
    doubles: bool = False


YAKUMAN: tuple[Yakuman, ...] = (
    Yakuman(("kokushi musou", "kokushi musou (13-sided)"), READING, THIRTEEN_KINDS, _kokushi, True),
    Yakuman(("suuankou", "suuankou (tanki)"), READING, FOUR_TRIPLETS, _suuankou, True),
    Yakuman(("daisangen",), HAND, THREE_DRAGONS, lambda h: h.dragon_triplets == 3),
    Yakuman(("shousuushi",), READING, THREE_WINDS,
            lambda f: f.h.wind_triplets == 3 and f.r.form == STANDARD and f.r.pair in WINDS),
    Yakuman(("daisuushi",), HAND, THREE_WINDS, lambda h: h.wind_triplets == 4, True),
    Yakuman(("tsuuiisou",), HAND, HONOURS_ONLY, lambda h: h.suits == 0),
    Yakuman(("chinroutou",), HAND, TERMINALS_ONLY, lambda h: h.all_terminal_honour and not h.has_honours),
    Yakuman(("ryuuiisou",), HAND, GREEN_ONLY, lambda h: h.all_green),
    Yakuman(("chuuren poutou", "chuuren poutou (pure)"), HAND, NINE_GATES, _pure_nine_gates_shape, True),
    Yakuman(("suukantsu",), HAND, FOUR_KANS, lambda h: h.kans == 4),
    Yakuman(("tenhou",), HAND, TENHOU, lambda h: h.req.tenhou),
    Yakuman(("chiihou",), HAND, CHIIHOU, lambda h: h.req.chiihou),
)

# Yakuman rows decided by their trait alone: their test is not run.
YAKUMAN_DECIDED_BY_TRAITS = frozenset((
    "daisangen", "tsuuiisou", "chinroutou", "ryuuiisou", "suukantsu", "tenhou", "chiihou"))


# The yaku of one set of traits, in table order, and their han: ``(lines, han)``. Keyed by the
# reading's traits (the hand's included) and open/closed; the open value applies to an open
# hand and rows worth 0 there are left out. Bounded: emptied when full.
# A miss finds the rows with a table look-up per byte of the traits. Each row comes in a closed
# and an open version (the closed value needs the bit _CLOSED_ROW, the open one _OPEN_ROW and
# the row's open_needs, added to the traits for the look-up; a value of 0 has no version);
# _FAILING[i][byte] is the set (a bit mask) of versions needing a trait bit of byte i absent
# from it, and what no byte fails passes.
_ROW_CACHE: dict[int, tuple] = {}
_ROW_CACHE_SIZE = 16384
_CLOSED_ROW, _OPEN_ROW = 1 << 36, 1 << 37       # above every trait bit (SANANKOU is 1 << 35)


def _versions() -> tuple[tuple[int, YakuLine], ...]:
    out = []
    for y in YAKU:
        for han, needs in ((y.closed, _CLOSED_ROW), (y.open, _OPEN_ROW | y.open_needs)):
            if han:
                out.append((y.needs | needs, YakuLine(y.name, han)))
    return tuple(out)


_VERSIONS = _versions()
_VERSION_LINES = tuple(line for _, line in _VERSIONS)
_ALL_VERSIONS = (1 << len(_VERSIONS)) - 1


def _failing(i: int) -> tuple[int, ...]:
    """For each value of byte ``i`` of the traits, the versions needing a bit of that byte that
    the value lacks (a bit mask over :data:`_VERSIONS`)."""
    needing = [(needs >> (8 * i) & 255, 1 << v) for v, (needs, _) in enumerate(_VERSIONS)
               if needs >> (8 * i) & 255]
    return tuple(sum(bit for byte, bit in needing if byte & ~value) for value in range(256))


_FAILING = tuple(_failing(i) for i in range(_OPEN_ROW.bit_length() // 8 + 1))


def _rows(closed: bool, traits: int) -> tuple[YakuLine, ...]:
    """The yaku of a reading with ``traits``, open or ``closed`` (see :data:`_ROW_CACHE`)."""
    t = traits | (_CLOSED_ROW if closed else _OPEN_ROW)
    failing = 0
    for table in _FAILING:
        failing |= table[t & 255]
        t >>= 8
    passing = _ALL_VERSIONS & ~failing
    rows = []
    while passing:
        low = passing & -passing            # the first version left, in table order
        rows.append(_VERSION_LINES[low.bit_length() - 1])
        passing ^= low
    return tuple(rows)


def yaku_and_han(f: Facts) -> tuple[tuple[YakuLine, ...], int]:
    """Every ordinary yaku of reading ``f`` as ``YakuLine(name, han)``, in table order (open
    values applied; of each exclusive pair only one row can pass), and their han in all."""
    closed = f.h.closed
    key = f.traits << 1 | closed
    found = _ROW_CACHE.get(key)
    if found is None:
        if len(_ROW_CACHE) >= _ROW_CACHE_SIZE:
            _ROW_CACHE.clear()
        lines = _rows(closed, f.traits)
        found = _ROW_CACHE[key] = (lines, sum(line.han for line in lines))
    return found


def yaku_of(f: Facts) -> tuple[YakuLine, ...]:
    """The yaku of reading ``f`` (:func:`yaku_and_han` without the han)."""
    return yaku_and_han(f)[0]


# Yakuman rows likewise: (test, asks the hand?, results) where results[v - 1] is
# (YakuLine(name, 13 x multiple), multiple) for test value v. Keyed by the yakuman traits and
# the double-yakuman rule.
_YAKUMAN_CACHE: dict[int, tuple] = {}


def _yakuman_rows(double_rule: bool, traits: int) -> tuple:
    out = []
    for y in YAKUMAN:
        if y.needs & traits != y.needs:
            continue
        results = []
        for v, name in enumerate(y.names, 1):
            m = 2 if double_rule and y.doubles and (v == 2 or len(y.names) == 1) else 1
            results.append((YakuLine(name, 13 * m), m))
        test = None if y.names[0] in YAKUMAN_DECIDED_BY_TRAITS else y.test
        out.append((test, y.per == HAND, tuple(results)))
    return tuple(out)


def yakuman_of(f: Facts) -> list[tuple[YakuLine, int]]:
    """``[(YakuLine(name, 13 x multiple), multiple), ...]`` for every yakuman of reading ``f``,
    in table order (multiple 1, or 2 for a double yakuman under that rule)."""
    h = f.h
    double_rule = h.rules.double_yakuman
    key = h.yakuman_traits << 1 | double_rule
    rows = _YAKUMAN_CACHE.get(key)
    if rows is None:
        rows = _YAKUMAN_CACHE[key] = _yakuman_rows(double_rule, h.yakuman_traits)
    out = []
    for test, per_hand, results in rows:
        if test is None:
            out.append(results[0])
            continue
        v = int(test(h if per_hand else f))
        if v:
            out.append(results[v - 1])
    return out
