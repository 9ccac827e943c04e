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

GREEN = frozenset((19, 20, 21, 23, 25, 32))            # 2 3 4 6 8 bamboo, Green dragon
REVERSIBLE = frozenset((9, 10, 11, 12, 13, 16, 17,     # 1 2 3 4 5 8 9 dots
                        19, 21, 22, 23, 25, 26,        # 2 4 5 6 8 9 bamboo
                        31))                           # White dragon
WINDS = (27, 28, 29, 30)
DRAGONS = (31, 32, 33)


def _th(k: int) -> bool:
    return k >= 27 or k % 9 in (0, 8)


@dataclass(slots=True)
class Facts:
    """What the predicates look at: one reading and the context of the win.

    ``counts``: 34 counts of all 14+ tiles (kongs give 4). ``chows``: lowest kinds of all
    chows; ``pungs``: kinds of all pungs and kongs; ``pair``: pair kind (-1 if none).
    ``concealed_pungs``: pungs/kongs that count as concealed (a pung completed by a discard is
    melded). ``melded_kongs``/``concealed_kongs``. ``open_melds``: claimed melds.
    ``slot``: where the winning tile sits: ``pair``, ``edge``, ``closed``, ``side`` (other
    chow position), ``pung``, ``knitted`` or ``none``. ``unique_wait``: the hand waited on
    that one tile only. Win context: ``self_drawn``, ``last_wall``, ``replacement``,
    ``robbing``, ``last_copy``, ``win_shown``, ``seat``/``prevalent`` (wind kinds 27..30),
    ``nine_gates`` (the concealed 14 tiles form Nine Gates).
    """

    reading: S.Reading
    counts: list
    kinds: tuple
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
        return self.reading.shape in (S.STANDARD, S.KNITTED_STRAIGHT, S.SEVEN_PAIRS)

    def chow_fan(self, name: str) -> int:
        if self._chow is None:
            self._chow = chow_fans(self.chows, self.pair) if self.chows else {}
        return self._chow.get(name, 0)

    def pung_fan(self, name: str) -> int:
        if self._pung is None:
            self._pung = pung_fans(self.pungs) if len(self.pungs) > 1 else {}
        return self._pung.get(name, 0)

    # tile properties over the whole hand
    def all_in(self, allowed) -> bool:
        return all(k in allowed for k in self.kinds)

    def suits(self) -> int:
        return len({k // 9 for k in self.kinds if k < 27})

    def has_honor(self) -> bool:
        return self.kinds[-1] >= 27

    def ranks_within(self, lo: int, hi: int) -> bool:
        """No honours and every suited tile's number in lo..hi (1-based)."""
        return all(k < 27 and lo <= k % 9 + 1 <= hi for k in self.kinds)

    def packs(self) -> list[tuple[str, int]]:
        """The five groups of a basic hand as (kind, tile); the pair is ("pair", kind)."""
        return [(s.kind, s.tile) for s in self.reading.sets] + [("pair", self.pair)]


def _all_packs(f: Facts, test: Callable[[str, int], bool]) -> bool:
    return f.basic and all(test(kind, t) for kind, t in f.packs())


def _has5(kind: str, t: int) -> bool:
    if t >= 27:
        return False
    r = t % 9
    return 2 <= r <= 4 if kind == S.CHOW else r == 4


def _outside(kind: str, t: int) -> bool:
    return t % 9 in (0, 6) if kind == S.CHOW and t < 27 else _th(t)


def _even_pung(kind: str, t: int) -> bool:
    return kind != S.CHOW and t < 27 and t % 9 in (1, 3, 5, 7)


def _kong_pair_split(f: Facts) -> bool:
    return f.melded_kongs == 1 and f.concealed_kongs == 1


@dataclass(frozen=True, slots=True)
class Fan:
    """One row of the Green Book fan table: ``no`` (1..81), ``name``, ``points``, ``test``
    (returns how many times the fan applies to a :class:`Facts`; 0 = not at all)."""

    no: int
    name: str
    points: int
    test: Callable[[Facts], int]


def _wind_pungs(f: Facts) -> int:
    return sum(1 for k in f.pungs if 27 <= k <= 30)


def _dragon_pungs(f: Facts) -> int:
    return sum(1 for k in f.pungs if k >= 31)


def _wait(f: Facts, slot: str) -> int:
    return int(f.unique_wait and f.win_shown and f.slot == slot)


FANS: tuple[Fan, ...] = (
    # 88 points
    Fan(1, "Big Four Winds", 88, lambda f: f.pung_fan("Big Four Winds")),
    Fan(2, "Big Three Dragons", 88, lambda f: f.pung_fan("Big Three Dragons")),
    Fan(3, "All Green", 88, lambda f: int(f.tile_level and f.all_in(GREEN))),
    Fan(4, "Nine Gates", 88, lambda f: int(f.nine_gates and f.win_shown and f.basic)),
    Fan(5, "Four Kongs", 88, lambda f: int(f.melded_kongs + f.concealed_kongs == 4)),
    Fan(6, "Seven Shifted Pairs", 88, lambda f: int(
        f.shape == S.SEVEN_PAIRS and len(f.kinds) == 7 and f.kinds[6] < 27
        and f.kinds[0] // 9 == f.kinds[6] // 9 and f.kinds[6] - f.kinds[0] == 6)),
    Fan(7, "Thirteen Orphans", 88, lambda f: int(f.shape == S.THIRTEEN_ORPHANS)),
    # 64 points
    Fan(8, "All Terminals", 64, lambda f: int(f.tile_level and all(k < 27 and k % 9 in (0, 8) for k in f.kinds))),
    Fan(9, "Little Four Winds", 64, lambda f: int(_wind_pungs(f) == 3 and 27 <= f.pair <= 30)),
    Fan(10, "Little Three Dragons", 64, lambda f: int(_dragon_pungs(f) == 2 and f.pair >= 31)),
    Fan(11, "All Honors", 64, lambda f: int(f.tile_level and f.kinds[0] >= 27)),
    Fan(12, "Four Concealed Pungs", 64, lambda f: int(f.concealed_pungs == 4)),
    Fan(13, "Pure Terminal Chows", 64, lambda f: f.chow_fan("Pure Terminal Chows")),
    # 48 points
    Fan(14, "Quadruple Chow", 48, lambda f: f.chow_fan("Quadruple Chow")),
    Fan(15, "Four Pure Shifted Pungs", 48, lambda f: f.pung_fan("Four Pure Shifted Pungs")),
    # 32 points
    Fan(16, "Four Pure Shifted Chows", 32, lambda f: f.chow_fan("Four Pure Shifted Chows")),
    Fan(17, "Three Kongs", 32, lambda f: int(f.melded_kongs + f.concealed_kongs == 3)),
    Fan(18, "All Terminals and Honors", 32, lambda f: int(
        f.tile_level and f.all_in(S.TERMINALS_HONORS) and f.has_honor() and f.kinds[0] < 27)),
    # 24 points
    Fan(19, "Seven Pairs", 24, lambda f: int(f.shape == S.SEVEN_PAIRS)),
    Fan(20, "Greater Honors and Knitted Tiles", 24, lambda f: int(
        f.shape == S.HONORS_KNITTED and sum(1 for k in f.kinds if k >= 27) == 7)),
    Fan(21, "All Even Pungs", 24, lambda f: int(_all_packs(f, _even_pung))),
    Fan(22, "Full Flush", 24, lambda f: int(f.tile_level and not f.has_honor() and f.suits() == 1)),
    Fan(23, "Pure Triple Chow", 24, lambda f: f.chow_fan("Pure Triple Chow")),
    Fan(24, "Pure Shifted Pungs", 24, lambda f: f.pung_fan("Pure Shifted Pungs")),
    Fan(25, "Upper Tiles", 24, lambda f: int(f.tile_level and f.ranks_within(7, 9))),
    Fan(26, "Middle Tiles", 24, lambda f: int(f.tile_level and f.ranks_within(4, 6))),
    Fan(27, "Lower Tiles", 24, lambda f: int(f.tile_level and f.ranks_within(1, 3))),
    # 16 points
    Fan(28, "Pure Straight", 16, lambda f: f.chow_fan("Pure Straight")),
    Fan(29, "Three-Suited Terminal Chows", 16, lambda f: f.chow_fan("Three-Suited Terminal Chows")),
    Fan(30, "Pure Shifted Chows", 16, lambda f: f.chow_fan("Pure Shifted Chows")),
    Fan(31, "All Fives", 16, lambda f: int(_all_packs(f, _has5))),
    Fan(32, "Triple Pung", 16, lambda f: f.pung_fan("Triple Pung")),
    Fan(33, "Three Concealed Pungs", 16, lambda f: int(f.concealed_pungs == 3)),
    # 12 points
    Fan(34, "Lesser Honors and Knitted Tiles", 12, lambda f: int(f.shape == S.HONORS_KNITTED)),
    Fan(35, "Knitted Straight", 12, lambda f: int(
        f.shape == S.KNITTED_STRAIGHT or (f.shape == S.HONORS_KNITTED and sum(1 for k in f.kinds if k < 27) == 9))),
    Fan(36, "Upper Four", 12, lambda f: int(f.tile_level and f.ranks_within(6, 9))),
    Fan(37, "Lower Four", 12, lambda f: int(f.tile_level and f.ranks_within(1, 4))),
    Fan(38, "Big Three Winds", 12, lambda f: f.pung_fan("Big Three Winds")),
    # 8 points
    Fan(39, "Mixed Straight", 8, lambda f: f.chow_fan("Mixed Straight")),
    Fan(40, "Reversible Tiles", 8, lambda f: int(f.tile_level and f.all_in(REVERSIBLE))),
    Fan(41, "Mixed Triple Chow", 8, lambda f: f.chow_fan("Mixed Triple Chow")),
    Fan(42, "Mixed Shifted Pungs", 8, lambda f: f.pung_fan("Mixed Shifted Pungs")),
    Fan(43, "Chicken Hand", 8, lambda f: 0),  # given when nothing else scores: see score.py
    Fan(44, "Last Tile Draw", 8, lambda f: int(f.self_drawn and f.last_wall)),
    Fan(45, "Last Tile Claim", 8, lambda f: int(not f.self_drawn and f.last_wall)),
    Fan(46, "Out with Replacement Tile", 8, lambda f: int(f.self_drawn and f.replacement)),
    Fan(47, "Robbing the Kong", 8, lambda f: int(not f.self_drawn and f.robbing)),
    # 6 points
    Fan(48, "All Pungs", 6, lambda f: int(f.basic and len(f.pungs) == 4)),
    Fan(49, "Half Flush", 6, lambda f: int(f.tile_level and f.has_honor() and f.suits() == 1)),
    Fan(50, "Mixed Shifted Chows", 6, lambda f: f.chow_fan("Mixed Shifted Chows")),
    Fan(51, "All Types", 6, lambda f: int(
        f.suits() == 3 and any(k in f.kinds for k in WINDS) and any(k in f.kinds for k in DRAGONS))),
    Fan(52, "Melded Hand", 6, lambda f: int(f.open_melds == 4 and not f.self_drawn)),
    Fan(53, "Two Concealed Kongs", 6, lambda f: int(f.concealed_kongs == 2)),
    Fan(54, "Two Dragon Pungs", 6, lambda f: f.pung_fan("Two Dragon Pungs")),
    # 4 points
    Fan(55, "Outside Hand", 4, lambda f: int(_all_packs(f, _outside))),
    Fan(56, "Fully Concealed Hand", 4, lambda f: int(f.open_melds == 0 and f.self_drawn)),
    Fan(57, "Two Melded Kongs", 4, lambda f: int(f.melded_kongs == 2)),
    Fan(58, "Last Tile", 4, lambda f: int(f.last_copy and f.win_shown)),
    # 2 points
    Fan(59, "Dragon Pung", 2, _dragon_pungs),
    Fan(60, "Prevalent Wind", 2, lambda f: int(f.prevalent in f.pungs)),
    Fan(61, "Seat Wind", 2, lambda f: int(f.seat in f.pungs)),
    Fan(62, "Concealed Hand", 2, lambda f: int(f.open_melds == 0 and not f.self_drawn)),
    Fan(63, "All Chows", 2, lambda f: int(len(f.chows) == len(f.reading.sets) > 0 and 0 <= f.pair < 27
                                         and (f.basic or f.shape == S.KNITTED_STRAIGHT))),
    Fan(64, "Tile Hog", 2, lambda f: (sum(1 for n in f.counts if n == 4) - f.melded_kongs - f.concealed_kongs)
        if f.tile_level else 0),
    Fan(65, "Double Pung", 2, lambda f: f.pung_fan("Double Pung")),
    Fan(66, "Two Concealed Pungs", 2, lambda f: int(f.concealed_pungs == 2)),
    Fan(67, "Concealed Kong", 2, lambda f: int(f.concealed_kongs == 1)),
    Fan(68, "All Simples", 2, lambda f: int(f.tile_level and not any(_th(k) for k in f.kinds))),
    # 1 point
    Fan(69, "Pure Double Chow", 1, lambda f: f.chow_fan("Pure Double Chow")),
    Fan(70, "Mixed Double Chow", 1, lambda f: f.chow_fan("Mixed Double Chow")),
    Fan(71, "Short Straight", 1, lambda f: f.chow_fan("Short Straight")),
    Fan(72, "Two Terminal Chows", 1, lambda f: f.chow_fan("Two Terminal Chows")),
    Fan(73, "Pung of Terminals or Honors", 1, lambda f: sum(1 for k in f.pungs if k <= 30 and _th(k))),
    Fan(74, "Melded Kong", 1, lambda f: int(f.melded_kongs == 1)),
    Fan(75, "One Voided Suit", 1, lambda f: int(f.tile_level and f.suits() == 2)),
    Fan(76, "No Honors", 1, lambda f: int(f.tile_level and not f.has_honor())),
    Fan(77, "Edge Wait", 1, lambda f: _wait(f, "edge")),
    Fan(78, "Closed Wait", 1, lambda f: _wait(f, "closed")),
    Fan(79, "Single Wait", 1, lambda f: _wait(f, "pair")),
    Fan(80, "Self-Drawn", 1, lambda f: int(f.self_drawn)),
    Fan(81, "Flower Tiles", 1, lambda f: 0),  # counted from the request's flowers: see score.py
)

BY_NAME: dict[str, Fan] = {fan.name: fan for fan in FANS}

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
    out = dict(found)
    for name in sorted(found, key=lambda n: -BY_NAME[n].points):
        if name in out:
            for ex in EXCLUDES.get(name, ()):
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
