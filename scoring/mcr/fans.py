"""The 81 fans of Chinese Official mahjong (Green Book 2006, English names as in the EMA/WMO
translation), one row each: name, points, and a small pure predicate over :class:`Facts`
(one reading of the hand plus the win's context) returning how many times the fan applies.

The *non-repeat* principle ("不重复原则": a fan implied by a bigger one is not counted) is
the ``EXCLUDES`` table below, applied from the highest fan down; the few partial exclusions
(a wind pung that scores Seat/Prevalent Wind or Big Three Winds does not also score Pung of
Terminals or Honors) are in :func:`apply_exclusions`. Rule choices where engines differ are in
``scoring/mcr/RULES.md``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from . import shapes as S
from .relations import chow_fans, pung_fans

def _mask(kinds) -> int:
    m = 0
    for k in kinds:
        m |= 1 << k
    return m


GREEN = _mask((19, 20, 21, 23, 25, 32))                     # 2 3 4 6 8 bamboo, Green dragon
REVERSIBLE = _mask((9, 10, 11, 12, 13, 16, 17,              # 1 2 3 4 5 8 9 dots
                    19, 21, 22, 23, 25, 26, 31))             # 2 4 5 6 8 9 bamboo, White dragon
SUIT_MASKS = (0x1FF, 0x1FF << 9, 0x1FF << 18)
HONORS = 0x7F << 27
WINDS = 0xF << 27
DRAGONS = 0x7 << 31
TERMINALS = _mask((0, 8, 9, 17, 18, 26))
TERMINALS_HONORS = TERMINALS | HONORS


def _ranks(lo: int, hi: int) -> int:
    """Mask of the suited tiles numbered lo..hi (1-based) in all three suits."""
    return _mask(s * 9 + r - 1 for s in range(3) for r in range(lo, hi + 1))


RANKS_789, RANKS_456, RANKS_123 = _ranks(7, 9), _ranks(4, 6), _ranks(1, 3)
FIVES = _ranks(5, 5)
EVEN_RANKS = _ranks(2, 2) | _ranks(4, 4) | _ranks(6, 6) | _ranks(8, 8)
RANKS_6789, RANKS_1234 = _ranks(6, 9), _ranks(1, 4)


def _th(k: int) -> bool:
    return k >= 27 or k % 9 in (0, 8)


@dataclass(slots=True)
class Facts:
    """What the predicates look at: one reading and the context of the win.

    ``counts``: 34 counts of all 14+ tiles (kongs give 4); ``mask``: bit k set when kind k is
    in the hand. ``chows``: lowest kinds of all chows; ``pungs``: kinds of all pungs and kongs;
    ``pair``: pair kind (-1 if none). ``concealed_pungs``: pungs/kongs that count as concealed
    (a pung completed by a discard is melded). ``melded_kongs``/``concealed_kongs``.
    ``open_melds``: claimed melds. ``slot``: where the winning tile sits: ``pair``, ``edge``,
    ``closed``, ``side`` (other chow position), ``pung``, ``knitted`` or ``none``.
    ``unique_wait``: the hand waited on that one tile only. Win context: ``self_drawn``,
    ``last_wall``, ``replacement``, ``robbing``, ``last_copy``, ``win_shown``,
    ``seat``/``prevalent`` (wind kinds 27..30), ``nine_gates`` (the concealed 13 tiles are
    1112345678999 of the winning tile's suit).
    """

    reading: S.Reading
    counts: list
    mask: int
    chows: tuple
    pungs: tuple
    pair: int
    concealed_pungs: int
    melded_kongs: int
    concealed_kongs: int
    open_melds: int
    slot: str
    unique_wait: bool
    self_drawn: bool
    last_wall: bool
    replacement: bool
    robbing: bool
    last_copy: bool
    win_shown: bool
    seat: int
    prevalent: int
    nine_gates: bool
    _chow: dict | None = None
    _pung: dict | None = None
    _packs: tuple | None = None

    @property
    def shape(self) -> str:
        return self.reading.shape

    @property
    def basic(self) -> bool:
        """Four sets and a pair (the shape of most fans between sets)."""
        return self.reading.shape == S.STANDARD

    @property
    def tile_level(self) -> bool:
        """Shapes whose tiles may score the tile-property fans (suits, ranks, Tile Hog)."""
        return self.reading.shape in _TILE_LEVEL

    def chow_rel(self) -> dict:
        """Fans among the chows (account-once applied), name -> count."""
        if self._chow is None:
            self._chow = chow_fans(self.chows, self.pair) if len(self.chows) > 1 else {}
        return self._chow

    def pung_rel(self) -> dict:
        """Fans among the pungs and kongs, name -> count."""
        if self._pung is None:
            self._pung = pung_fans(self.pungs) if len(self.pungs) > 1 else {}
        return self._pung

    def chow_fan(self, name: str) -> int:
        return self.chow_rel().get(name, 0)

    def pung_fan(self, name: str) -> int:
        return self.pung_rel().get(name, 0)

    def only(self, allowed: int) -> bool:
        """Every tile of the hand is in the ``allowed`` mask."""
        return not self.mask & ~allowed

    def suits(self) -> int:
        m = self.mask
        return (m & 0x1FF != 0) + (m & (0x1FF << 9) != 0) + (m & (0x1FF << 18) != 0)

    def has_honor(self) -> bool:
        return self.mask & HONORS != 0

    def packs(self) -> list[tuple[str, int]]:
        """The five groups of a basic hand as (kind, tile); the pair is ("pair", kind)."""
        return [(s.kind, s.tile) for s in self.reading.sets] + [("pair", self.pair)]


_TILE_LEVEL = frozenset((S.STANDARD, S.KNITTED_STRAIGHT, S.SEVEN_PAIRS))


def _pack_traits(f: Facts) -> tuple[bool, bool, bool]:
    """(every group has a 5, every group has a terminal/honour, every group is an even pung
    or pair) over the five groups of a basic hand, kept on ``f``. A bitmask test first rules
    out most hands (no 5 / no terminal or honour / a chow or an odd tile), then the pair."""
    if f._packs is None:
        fives = outside = even = False
        if f.reading.shape == S.STANDARD:
            m = f.mask
            pair = f.pair
            fives = not m & HONORS and m & FIVES != 0 and _has5("pair", pair)
            outside = m & TERMINALS_HONORS != 0 and _th(pair)
            even = not f.chows and not m & ~EVEN_RANKS and _even_pung("pair", pair)
            if fives or outside or even:
                for s in f.reading.sets:
                    kind, t = s.kind, s.tile
                    fives = fives and _has5(kind, t)
                    outside = outside and _outside(kind, t)
                    even = even and _even_pung(kind, t)
                    if not (fives or outside or even):
                        break
        f._packs = (fives, outside, even)
    return f._packs


def _has5(kind: str, t: int) -> bool:
    if t >= 27:
        return False
    r = t % 9
    return 2 <= r <= 4 if kind == S.CHOW else r == 4


def _outside(kind: str, t: int) -> bool:
    return t % 9 in (0, 6) if kind == S.CHOW and t < 27 else _th(t)


def _even_pung(kind: str, t: int) -> bool:
    return kind != S.CHOW and t < 27 and t % 9 in (1, 3, 5, 7)


HAND, TILES, SETS, CHOWS, PUNGS = "hand", "tiles", "sets", "chows", "pungs"


@dataclass(frozen=True, slots=True)
class Fan:
    """One row of the Green Book fan table: ``no`` (1..81), ``name``, ``points``, ``test``
    (returns how many times the fan applies to a :class:`Facts`; 0 = not at all).

    ``scope`` says what the test reads, so the scorer can evaluate it once per hand (``hand``:
    the tiles and the win's context only; ``tiles``: a property of the tiles, only for
    set-based shapes) or per reading (``sets``); ``chows``/``pungs`` fans come from the joint
    set-relation search (:mod:`scoring.mcr.relations`).
    """

    no: int
    name: str
    points: int
    test: Callable[[Facts], int]
    scope: str = SETS


def _wind_pungs(f: Facts) -> int:
    return sum(1 for k in f.pungs if 27 <= k <= 30)


def _dragon_pungs(f: Facts) -> int:
    return sum(1 for k in f.pungs if k >= 31)


def _wait(f: Facts, slot: str) -> int:
    return int(f.slot == slot and f.unique_wait and f.win_shown)


def _tl(test: Callable[[Facts], bool]) -> Callable[[Facts], int]:
    """A tile-property fan: only for shapes made of sets, pairs or a knitted straight.
    ``.tiles_only`` is the bare test, for a caller that already knows the shape qualifies."""
    def fan_test(f: Facts) -> int:
        return 1 if f.reading.shape in _TILE_LEVEL and test(f) else 0
    fan_test.tiles_only = test  # type: ignore[attr-defined]
    return fan_test


FANS: tuple[Fan, ...] = (
    # 88 points
    Fan(1, "Big Four Winds", 88, lambda f: f.pung_fan("Big Four Winds")),
    Fan(2, "Big Three Dragons", 88, lambda f: f.pung_fan("Big Three Dragons")),
    Fan(3, "All Green", 88, _tl(lambda f: f.only(GREEN)), TILES),
    Fan(4, "Nine Gates", 88, lambda f: int(f.nine_gates and f.win_shown and f.basic)),
    Fan(5, "Four Kongs", 88, lambda f: int(f.melded_kongs + f.concealed_kongs == 4), HAND),
    Fan(6, "Seven Shifted Pairs", 88, lambda f: int(
        f.shape == S.SEVEN_PAIRS and len(set(f.reading.pairs)) == 7 and f.reading.pairs[6] < 27
        and f.reading.pairs[0] // 9 == f.reading.pairs[6] // 9 and f.reading.pairs[6] - f.reading.pairs[0] == 6)),
    Fan(7, "Thirteen Orphans", 88, lambda f: int(f.shape == S.THIRTEEN_ORPHANS)),
    # 64 points
    Fan(8, "All Terminals", 64, _tl(lambda f: f.only(TERMINALS)), TILES),
    Fan(9, "Little Four Winds", 64, lambda f: int(_wind_pungs(f) == 3 and 27 <= f.pair <= 30)),
    Fan(10, "Little Three Dragons", 64, lambda f: int(_dragon_pungs(f) == 2 and f.pair >= 31)),
    Fan(11, "All Honors", 64, _tl(lambda f: f.only(HONORS)), TILES),
    Fan(12, "Four Concealed Pungs", 64, lambda f: int(f.concealed_pungs == 4)),
    Fan(13, "Pure Terminal Chows", 64, lambda f: f.chow_fan("Pure Terminal Chows"), CHOWS),
    # 48 points
    Fan(14, "Quadruple Chow", 48, lambda f: f.chow_fan("Quadruple Chow"), CHOWS),
    Fan(15, "Four Pure Shifted Pungs", 48, lambda f: f.pung_fan("Four Pure Shifted Pungs"), PUNGS),
    # 32 points
    Fan(16, "Four Pure Shifted Chows", 32, lambda f: f.chow_fan("Four Pure Shifted Chows"), CHOWS),
    Fan(17, "Three Kongs", 32, lambda f: int(f.melded_kongs + f.concealed_kongs == 3), HAND),
    Fan(18, "All Terminals and Honors", 32, _tl(
        lambda f: f.only(TERMINALS_HONORS) and f.mask & HONORS and f.mask & TERMINALS), TILES),
    # 24 points
    Fan(19, "Seven Pairs", 24, lambda f: int(f.shape == S.SEVEN_PAIRS)),
    Fan(20, "Greater Honors and Knitted Tiles", 24, lambda f: int(
        f.shape == S.HONORS_KNITTED and f.mask & HONORS == HONORS)),
    Fan(21, "All Even Pungs", 24, lambda f: int(_pack_traits(f)[2])),
    Fan(22, "Full Flush", 24, _tl(lambda f: not f.has_honor() and f.suits() == 1), TILES),
    Fan(23, "Pure Triple Chow", 24, lambda f: f.chow_fan("Pure Triple Chow"), CHOWS),
    Fan(24, "Pure Shifted Pungs", 24, lambda f: f.pung_fan("Pure Shifted Pungs"), PUNGS),
    Fan(25, "Upper Tiles", 24, _tl(lambda f: f.only(RANKS_789)), TILES),
    Fan(26, "Middle Tiles", 24, _tl(lambda f: f.only(RANKS_456)), TILES),
    Fan(27, "Lower Tiles", 24, _tl(lambda f: f.only(RANKS_123)), TILES),
    # 16 points
    Fan(28, "Pure Straight", 16, lambda f: f.chow_fan("Pure Straight"), CHOWS),
    Fan(29, "Three-Suited Terminal Chows", 16, lambda f: f.chow_fan("Three-Suited Terminal Chows"), CHOWS),
    Fan(30, "Pure Shifted Chows", 16, lambda f: f.chow_fan("Pure Shifted Chows"), CHOWS),
    Fan(31, "All Fives", 16, lambda f: int(_pack_traits(f)[0])),
    Fan(32, "Triple Pung", 16, lambda f: f.pung_fan("Triple Pung"), PUNGS),
    Fan(33, "Three Concealed Pungs", 16, lambda f: int(f.concealed_pungs == 3)),
    # 12 points
    Fan(34, "Lesser Honors and Knitted Tiles", 12, lambda f: int(f.shape == S.HONORS_KNITTED)),
    Fan(35, "Knitted Straight", 12, lambda f: int(
        f.shape == S.KNITTED_STRAIGHT
        or (f.shape == S.HONORS_KNITTED and bin(f.mask & ~HONORS).count("1") == 9))),
    Fan(36, "Upper Four", 12, _tl(lambda f: f.only(RANKS_6789)), TILES),
    Fan(37, "Lower Four", 12, _tl(lambda f: f.only(RANKS_1234)), TILES),
    Fan(38, "Big Three Winds", 12, lambda f: f.pung_fan("Big Three Winds"), PUNGS),
    # 8 points
    Fan(39, "Mixed Straight", 8, lambda f: f.chow_fan("Mixed Straight"), CHOWS),
    Fan(40, "Reversible Tiles", 8, _tl(lambda f: f.only(REVERSIBLE)), TILES),
    Fan(41, "Mixed Triple Chow", 8, lambda f: f.chow_fan("Mixed Triple Chow"), CHOWS),
    Fan(42, "Mixed Shifted Pungs", 8, lambda f: f.pung_fan("Mixed Shifted Pungs"), PUNGS),
    Fan(43, "Chicken Hand", 8, lambda f: 0, HAND),  # given when nothing else scores: see score.py
    Fan(44, "Last Tile Draw", 8, lambda f: int(f.self_drawn and f.last_wall), HAND),
    Fan(45, "Last Tile Claim", 8, lambda f: int(not f.self_drawn and f.last_wall), HAND),
    Fan(46, "Out with Replacement Tile", 8, lambda f: int(f.self_drawn and f.replacement), HAND),
    Fan(47, "Robbing the Kong", 8, lambda f: int(not f.self_drawn and f.robbing), HAND),
    # 6 points
    Fan(48, "All Pungs", 6, lambda f: int(f.basic and len(f.pungs) == 4)),
    Fan(49, "Half Flush", 6, _tl(lambda f: f.has_honor() and f.suits() == 1), TILES),
    Fan(50, "Mixed Shifted Chows", 6, lambda f: f.chow_fan("Mixed Shifted Chows"), CHOWS),
    Fan(51, "All Types", 6, lambda f: int(
        f.suits() == 3 and f.mask & WINDS != 0 and f.mask & DRAGONS != 0), HAND),
    Fan(52, "Melded Hand", 6, lambda f: int(f.open_melds == 4 and not f.self_drawn), HAND),
    Fan(53, "Two Concealed Kongs", 6, lambda f: int(f.concealed_kongs == 2), HAND),
    Fan(54, "Two Dragon Pungs", 6, lambda f: f.pung_fan("Two Dragon Pungs"), PUNGS),
    # 4 points
    Fan(55, "Outside Hand", 4, lambda f: int(_pack_traits(f)[1])),
    Fan(56, "Fully Concealed Hand", 4, lambda f: int(f.open_melds == 0 and f.self_drawn), HAND),
    Fan(57, "Two Melded Kongs", 4, lambda f: int(f.melded_kongs == 2), HAND),
    Fan(58, "Last Tile", 4, lambda f: int(f.last_copy and f.win_shown), HAND),
    # 2 points
    Fan(59, "Dragon Pung", 2, _dragon_pungs),
    Fan(60, "Prevalent Wind", 2, lambda f: int(f.prevalent in f.pungs)),
    Fan(61, "Seat Wind", 2, lambda f: int(f.seat in f.pungs)),
    Fan(62, "Concealed Hand", 2, lambda f: int(f.open_melds == 0 and not f.self_drawn), HAND),
    Fan(63, "All Chows", 2, lambda f: int(len(f.chows) == len(f.reading.sets) > 0 and 0 <= f.pair < 27
                                         and (f.basic or f.shape == S.KNITTED_STRAIGHT))),
    Fan(64, "Tile Hog", 2, lambda f: (f.counts.count(4) - f.melded_kongs - f.concealed_kongs)
        if f.tile_level else 0, HAND),
    Fan(65, "Double Pung", 2, lambda f: f.pung_fan("Double Pung"), PUNGS),
    Fan(66, "Two Concealed Pungs", 2, lambda f: int(f.concealed_pungs == 2)),
    Fan(67, "Concealed Kong", 2, lambda f: int(f.concealed_kongs == 1), HAND),
    Fan(68, "All Simples", 2, _tl(lambda f: not f.mask & TERMINALS_HONORS), TILES),
    # 1 point
    Fan(69, "Pure Double Chow", 1, lambda f: f.chow_fan("Pure Double Chow"), CHOWS),
    Fan(70, "Mixed Double Chow", 1, lambda f: f.chow_fan("Mixed Double Chow"), CHOWS),
    Fan(71, "Short Straight", 1, lambda f: f.chow_fan("Short Straight"), CHOWS),
    Fan(72, "Two Terminal Chows", 1, lambda f: f.chow_fan("Two Terminal Chows"), CHOWS),
    Fan(73, "Pung of Terminals or Honors", 1, lambda f: sum(1 for k in f.pungs if k <= 30 and _th(k))),
    Fan(74, "Melded Kong", 1, lambda f: int(f.melded_kongs == 1), HAND),
    Fan(75, "One Voided Suit", 1, _tl(lambda f: f.suits() == 2), TILES),
    Fan(76, "No Honors", 1, _tl(lambda f: not f.has_honor()), TILES),
    Fan(77, "Edge Wait", 1, lambda f: _wait(f, "edge")),
    Fan(78, "Closed Wait", 1, lambda f: _wait(f, "closed")),
    Fan(79, "Single Wait", 1, lambda f: _wait(f, "pair")),
    Fan(80, "Self-Drawn", 1, lambda f: int(f.self_drawn), HAND),
    Fan(81, "Flower Tiles", 1, lambda f: 0, HAND),  # counted from the request's flowers: see score.py
)

BY_NAME: dict[str, Fan] = {fan.name: fan for fan in FANS}
_BY_POINTS = {fan.name: -fan.points for fan in FANS}

# Non-repeat principle: a counted fan excludes these (Green Book 2006 fan descriptions,
# "不计" lists; where the book is silent the reference engine's reading is followed, see RULES.md).
EXCLUDES: dict[str, tuple[str, ...]] = {
    "Big Four Winds": ("Big Three Winds", "Little Four Winds", "All Pungs", "Prevalent Wind", "Seat Wind",
                       "Pung of Terminals or Honors"),
    "Big Three Dragons": ("Dragon Pung", "Two Dragon Pungs", "Little Three Dragons"),
    "All Green": ("Half Flush", "One Voided Suit"),
    "Nine Gates": ("Full Flush", "Concealed Hand", "Fully Concealed Hand", "No Honors", "One Voided Suit"),
    "Four Kongs": ("Three Kongs", "Two Melded Kongs", "Two Concealed Kongs", "Melded Kong", "Concealed Kong",
                   "All Pungs", "Single Wait"),
    "Seven Shifted Pairs": ("Seven Pairs", "Full Flush", "Concealed Hand", "Fully Concealed Hand", "Single Wait",
                            "No Honors", "One Voided Suit"),
    "Thirteen Orphans": ("All Types", "Concealed Hand", "Fully Concealed Hand", "Single Wait",
                         "All Terminals and Honors"),
    "All Terminals": ("All Terminals and Honors", "All Pungs", "Outside Hand", "Pung of Terminals or Honors",
                      "No Honors", "Double Pung"),
    "Little Four Winds": ("Big Three Winds", "Pung of Terminals or Honors"),
    "Little Three Dragons": ("Dragon Pung", "Two Dragon Pungs"),
    "All Honors": ("All Terminals and Honors", "All Pungs", "Outside Hand", "Pung of Terminals or Honors"),
    "Four Concealed Pungs": ("All Pungs", "Concealed Hand", "Fully Concealed Hand", "Three Concealed Pungs",
                             "Two Concealed Pungs"),
    "Pure Terminal Chows": ("Seven Pairs", "Full Flush", "All Chows", "No Honors"),
    "Quadruple Chow": ("Tile Hog",),
    "Four Pure Shifted Pungs": ("All Pungs",),
    "Three Kongs": ("Two Melded Kongs", "Two Concealed Kongs", "Melded Kong", "Concealed Kong"),
    "All Terminals and Honors": ("All Pungs", "Outside Hand", "Pung of Terminals or Honors"),
    "Seven Pairs": ("Concealed Hand", "Fully Concealed Hand", "Single Wait"),
    "Greater Honors and Knitted Tiles": ("Lesser Honors and Knitted Tiles", "All Types", "Concealed Hand",
                                         "Fully Concealed Hand"),
    "All Even Pungs": ("All Pungs", "All Simples", "No Honors"),
    "Full Flush": ("One Voided Suit", "No Honors"),
    "Upper Tiles": ("Upper Four", "No Honors"),
    "Middle Tiles": ("All Simples", "No Honors"),
    "Lower Tiles": ("Lower Four", "No Honors"),
    "Three-Suited Terminal Chows": ("All Chows", "No Honors"),
    "All Fives": ("All Simples", "No Honors"),
    "Lesser Honors and Knitted Tiles": ("All Types", "Concealed Hand", "Fully Concealed Hand"),
    "Upper Four": ("No Honors",),
    "Lower Four": ("No Honors",),
    "Reversible Tiles": ("One Voided Suit",),
    "Last Tile Draw": ("Self-Drawn",),
    "Out with Replacement Tile": ("Self-Drawn",),
    "Robbing the Kong": ("Last Tile",),
    "Two Concealed Kongs": ("Concealed Kong", "Two Concealed Pungs"),
    "Melded Hand": ("Single Wait",),
    "Two Dragon Pungs": ("Dragon Pung",),
    "Fully Concealed Hand": ("Self-Drawn", "Concealed Hand"),
    "Two Melded Kongs": ("Melded Kong",),
    "All Chows": ("No Honors",),
    "All Simples": ("No Honors",),
}


def apply_exclusions(found: dict[str, int], f: Facts) -> dict[str, int]:
    """Drop fans implied by bigger ones (non-repeat principle); ``found`` maps name -> count.

    Partial rule: Pung of Terminals or Honors is not counted again for a wind pung that scores
    Big Three Winds, Prevalent Wind or Seat Wind, nor for one of the terminal pungs of Nine Gates.
    """
    return _exclude(dict(found), f)


def _exclude(out: dict[str, int], f: Facts) -> dict[str, int]:
    """:func:`apply_exclusions` on ``out`` itself (returned)."""
    excluding = []
    for name in out:
        if name in EXCLUDES:
            excluding.append(name)
    if excluding:
        if len(excluding) > 1:
            excluding.sort(key=_BY_POINTS.__getitem__)
        for name in excluding:
            if name in out:
                for ex in EXCLUDES[name]:
                    out.pop(ex, None)
    th = out.get("Pung of Terminals or Honors", 0)
    if th:
        if "Big Three Winds" in out:
            th -= 3  # all three wind pungs; any Seat/Prevalent Wind pung is among them
        else:
            if "Prevalent Wind" in out:
                th -= 1
            if "Seat Wind" in out and f.seat != f.prevalent:
                th -= 1
        if "Nine Gates" in out:
            th -= 1
        if th > 0:
            out["Pung of Terminals or Honors"] = th
        else:
            out.pop("Pung of Terminals or Honors")
    return out
