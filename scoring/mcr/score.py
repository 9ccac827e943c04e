"""Value one MCR win: every reading, every place the winning tile can sit, the best total.

Green Book 2006 principles applied here: the *highest-scoring reading* (every reading of the
hand and every set the winning tile may have completed is tried, the best total kept); a pung
completed by a discard counts as melded; wait fans only when the winning tile was the hand's
only wait; Chicken Hand when nothing else scores; flowers 1 point each, outside the 8-point
minimum. Fans and exclusions: :mod:`scoring.mcr.fans`. Rule options: :class:`McrRules`.

Speed (issue 3: within 10x of the C++ engine in pure Python): the fan table is not run row by
row on every reading. Fans that read only the tiles and the win's context are tested once per
hand; a row is skipped when a cheap necessary condition of it fails (see "which fans to
test" below); the set-relation fans come from memos keyed on the chows / pungs
(:mod:`scoring.mcr.relations`) and the splits of a suit from memos keyed on its 9 counts
(:mod:`scoring.mcr.shapes`). Nothing is memoised per whole hand, so scoring the same hands
again (as a benchmark does) is no cache hit. ``tests/test_mcr_gates.py`` checks that the
result equals running every row of the table.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from operator import mul
from typing import Sequence

from ..hand import HandError, HandRequest
from ..tiles import Tile, to_mpsz
from . import shapes as S
from .fans import BY_NAME, DRAGONS, FANS, HAND, SETS, TERMINALS, TILES, WINDS, Facts, _exclude, _pack_traits
from .relations import chow_fans, pung_fans

NINE_GATES_BASE = (3, 1, 1, 1, 1, 1, 1, 1, 3)
WIND_KIND = {"E": 27, "S": 28, "W": 29, "N": 30}


class NotCompleteError(HandError):
    """The tiles do not form any MCR winning shape (four sets + pair or a special hand)."""


@dataclass(frozen=True, slots=True)
class McrRules:
    """MCR rule options (defaults: Green Book 2006 as the EMA plays it; see RULES.md).

    ``min_points``: points needed to win, flowers not counted (8). ``base_payment``: what every
    other player pays on top (8). ``fifth_copy_wait``: count a tile of which the winner holds all
    four as a wait when deciding "only wait" (False). ``kong_pair_5``: score a concealed kong
    plus a melded kong as one 5-point fan, as some engines do, instead of Concealed Kong (2) +
    Melded Kong (1) (False). ``seven_pairs_tile_hog``: four of a kind used as two pairs in
    Seven Pairs scores Tile Hog (True).
    """

    min_points: int = 8
    base_payment: int = 8
    fifth_copy_wait: bool = False
    kong_pair_5: bool = False
    seven_pairs_tile_hog: bool = True


_DEFAULT_RULES = McrRules()


@dataclass(frozen=True, slots=True)
class FanCount:
    """One scored fan: ``name`` (Green Book English), ``points`` (per time), ``count``."""

    name: str
    points: int
    count: int = 1


@dataclass(frozen=True, slots=True)
class McrResult:
    """The value of an MCR win (see ``docs/hand-json.md``, MCR result).

    ``total``: all points, flowers included. ``total_without_flowers``: what the 8-point minimum
    is checked against. ``valid``: ``total_without_flowers >= min_points``; else ``reason``.
    ``payment``: ``{"total", "from_discarder", "from_each_other"}`` on a discard,
    ``{"total", "from_each"}`` self-drawn; None when not valid. ``reading``: the chosen reading
    (for explanations); ``self_drawn``.
    """

    valid: bool
    total: int
    total_without_flowers: int
    fans: tuple[FanCount, ...]
    payment: dict | None
    reading: S.Reading | None = None
    reason: str | None = None
    self_drawn: bool = False
    error: str | None = None

    def to_json(self) -> dict:
        out = {
            "valid": self.valid,
            "total": self.total,
            "total_without_flowers": self.total_without_flowers,
            "fans": [{"name": f.name, "points": f.points, "count": f.count} for f in self.fans],
            "payment": self.payment,
        }
        if not self.valid:
            out["reason"] = self.reason
        out["error"] = None           # last, as in a riichi result
        return out

    def fan_names(self) -> list[str]:
        return [f.name for f in self.fans]


# The generated __init__ of a frozen dataclass sets each field through object.__setattr__;
# score_mcr builds one result per hand, so it fills the slots directly (same object).
_new = object.__new__
assert McrResult.__slots__ == ("valid", "total", "total_without_flowers", "fans", "payment", "reading",
                               "reason", "self_drawn", "error")
(_RESULT_VALID, _RESULT_TOTAL, _RESULT_TOTAL_WF, _RESULT_FANS, _RESULT_PAYMENT, _RESULT_READING,
 _RESULT_REASON, _RESULT_SELF_DRAWN, _RESULT_ERROR) = (getattr(McrResult, name).__set__
                                                       for name in McrResult.__slots__)


def _result(valid, total, total_without_flowers, fans, payment, reading, reason, self_drawn) -> McrResult:
    """``McrResult(...)`` with ``error=None``, built faster (see above)."""
    r = _new(McrResult)
    _RESULT_VALID(r, valid)
    _RESULT_TOTAL(r, total)
    _RESULT_TOTAL_WF(r, total_without_flowers)
    _RESULT_FANS(r, fans)
    _RESULT_PAYMENT(r, payment)
    _RESULT_READING(r, reading)
    _RESULT_REASON(r, reason)
    _RESULT_SELF_DRAWN(r, self_drawn)
    _RESULT_ERROR(r, None)
    return r


@dataclass(slots=True)
class _Hand:
    """A validated request reduced to counts (what the fan tests need)."""

    c13: list
    c14: list
    held: list
    win: int
    melds: tuple
    open_melds: int
    melded_kongs: int
    concealed_kongs: int
    self_drawn: bool
    mask: int = 0
    concealed_mask: int = 0


# Declared sets are immutable values: one instance per (kind, tile, open), built once.
_MELD_SETS = {(kind, k, is_open): S.MSet(kind, k, is_open, False)
              for kind in (S.CHOW, S.PUNG, S.KONG) for k in range(34) for is_open in (True, False)}


_BIT = tuple(1 << k for k in range(34))


def _reduce(req: HandRequest) -> _Hand:
    c13 = [0] * 34
    cmask = 0
    for t in req.concealed:
        k = t.kind
        c13[k] += 1
        cmask |= _BIT[k]
    w = req.win_tile.kind
    cmask |= _BIT[w]
    held = c13.copy()
    held[w] += 1
    c14 = tuple(held)
    mask = cmask
    melds = []
    open_melds = mk = ck = 0
    for m in req.melds:
        t = m.type
        tiles = m.tiles
        lo = 99
        for x in tiles:
            k = x.kind
            held[k] += 1
            mask |= _BIT[k]
            if k < lo:
                lo = k
        if t == "chi":
            melds.append(_MELD_SETS[S.CHOW, lo, True])
            open_melds += 1
        elif t == "pon":
            melds.append(_MELD_SETS[S.PUNG, lo, True])
            open_melds += 1
        elif t == "ankan":
            melds.append(_MELD_SETS[S.KONG, lo, False])
            ck += 1
        else:  # daiminkan, kakan: melded kongs
            melds.append(_MELD_SETS[S.KONG, lo, True])
            open_melds += 1
            mk += 1
    return _Hand(tuple(c13), c14, held, w, tuple(melds), open_melds, mk, ck, req.win == "tsumo", mask, cmask)


def _slots(r: S.Reading, w: int) -> Sequence[str]:
    """Where the winning tile kind ``w`` can sit in reading ``r``."""
    if r.shape not in (S.STANDARD, S.KNITTED_STRAIGHT):
        return _NO_SLOT
    out = []
    if r.pair == w:
        out.append("pair")
    for s in r.sets:
        if not w - 2 <= s.tile <= w or not s.from_hand:  # the set cannot hold the winning tile
            continue
        if s.kind == S.CHOW:
            pos = w - s.tile
            if pos == 1:
                slot = "closed"
            elif (pos == 2 and s.tile % 9 == 0) or (pos == 0 and s.tile % 9 == 6):
                slot = "edge"
            else:
                slot = "side"
            if slot not in out:
                out.append(slot)
        elif s.kind == S.PUNG and s.tile == w and "pung" not in out:
            out.append("pung")
    if w in r.knitted:
        out.append("knitted")
    return out or _NO_SLOT


_NO_SLOT = ("none",)


def _is_nine_gates(h: _Hand) -> bool:
    if h.melds or h.win >= 27:
        return False
    base = h.win // 9 * 9
    if h.concealed_mask != 0x1FF << base:  # all nine ranks of one suit and nothing else
        return False
    return (tuple(h.c13[base:base + 9]) == NINE_GATES_BASE
            and sum(h.c13) == 13)


# --- which fans to test -------------------------------------------------------------------
# Speed only: a fan's row in the table decides whether it applies; here a fan is merely not
# tested when a cheap necessary condition of its row fails (no kong, no honour, a pung of
# the wrong kind, ...). Each gate below names the condition it relies on.

_HAND_FANS = tuple(f for f in FANS if f.scope == HAND)
_TILE_TESTS = tuple((f.name, f.test.tiles_only) for f in FANS if f.scope == TILES)
# Hand-scope fans: tested once per hand, only when the hand has what they need.
_KONG_FANS = {"Four Kongs", "Three Kongs", "Two Concealed Kongs", "Two Melded Kongs", "Concealed Kong",
              "Melded Kong"}
_EVENT_FANS = {"Last Tile Draw", "Last Tile Claim", "Out with Replacement Tile", "Robbing the Kong"}
_NEVER_TESTED = {"Chicken Hand", "Flower Tiles"}  # given by the scorer itself
_HAND_KONG = tuple(f for f in _HAND_FANS if f.name in _KONG_FANS)
_HAND_EVENT = tuple(f for f in _HAND_FANS if f.name in _EVENT_FANS)
_CONCEALED_HAND = tuple(BY_NAME[n] for n in ("Fully Concealed Hand", "Concealed Hand"))  # no claimed meld
_SELF_DRAWN = BY_NAME["Self-Drawn"]           # self-drawn only
_ALL_TYPES = BY_NAME["All Types"]             # a wind and a dragon in the hand
_TILE_HOG = BY_NAME["Tile Hog"]               # four of a kind somewhere
_LAST_TILE = BY_NAME["Last Tile"]             # last_copy
_MELDED_HAND = BY_NAME["Melded Hand"]         # four claimed melds
assert {f.name for f in _HAND_FANS} == (_KONG_FANS | _EVENT_FANS | _NEVER_TESTED | {
    f.name for f in (*_CONCEALED_HAND, _SELF_DRAWN, _ALL_TYPES, _TILE_HOG, _LAST_TILE, _MELDED_HAND)})
# Tile fans need honours or no honours, a number of suits, or every suited rank in a set.
_NEED_HONORS = {"All Honors", "All Terminals and Honors", "Half Flush"}
_NEED_NO_HONORS = {"All Terminals", "Full Flush", "Upper Tiles", "Middle Tiles", "Lower Tiles", "Upper Four",
                   "Lower Four", "All Simples", "No Honors"}
_NEED_SUITS = {"All Honors": (0,), "All Green": (0, 1), "Full Flush": (1,), "Half Flush": (1,),
               "One Voided Suit": (2,), "Reversible Tiles": (0, 1, 2)}
_NEED_RANKS = {"All Terminals": (1, 9), "Upper Tiles": (7, 8, 9), "Middle Tiles": (4, 5, 6),
               "Lower Tiles": (1, 2, 3), "Upper Four": (6, 7, 8, 9), "Lower Four": (1, 2, 3, 4),
               "All Simples": (2, 3, 4, 5, 6, 7, 8), "All Terminals and Honors": (1, 9),
               "All Green": (2, 3, 4, 6, 8), "Reversible Tiles": (1, 2, 3, 4, 5, 6, 8, 9)}
_RANK_BITS = {name: sum(1 << (r - 1) for r in ranks) for name, ranks in _NEED_RANKS.items()}
_TILE_TESTS_BY_KEY: dict[int, tuple] = {}  # profile key -> tile fans worth testing (at most 4096)


def _tile_tests_for(key: int) -> tuple:
    """The tile fans worth testing on hands of one profile: ``key`` = has honours (bit 11),
    number of suits (bits 9-10), suited ranks present (bits 0-8, rank r at bit r - 1)."""
    tests = _TILE_TESTS_BY_KEY.get(key)
    if tests is None:
        honors, suits, ranks = key >> 11, key >> 9 & 3, key & 0x1FF
        tests = _TILE_TESTS_BY_KEY[key] = tuple(
            (name, test) for name, test in _TILE_TESTS
            if name not in (_NEED_NO_HONORS if honors else _NEED_HONORS)
            and suits in _NEED_SUITS.get(name, (0, 1, 2, 3))
            and not ranks & ~_RANK_BITS.get(name, 0x1FF))
    return tests


_POINTS = {fan.name: fan.points for fan in FANS}
# Fans of the special shapes; every other per-reading fan reads sets, a pair or the winning
# tile's place, which those shapes do not have, so it is only tested on set-based readings.
_SPECIAL_ONLY = {
    S.SEVEN_PAIRS: ("Seven Shifted Pairs", "Seven Pairs"),
    S.THIRTEEN_ORPHANS: ("Thirteen Orphans",),
    S.HONORS_KNITTED: ("Greater Honors and Knitted Tiles", "Lesser Honors and Knitted Tiles", "Knitted Straight"),
}
_SPECIAL_NAMES = {n for names in _SPECIAL_ONLY.values() for n in names} - {"Knitted Straight"}
_SET_FANS = {shape: tuple(f for f in FANS if f.scope == SETS and f.name in names)
             for shape, names in _SPECIAL_ONLY.items()}
_SET_FANS[S.STANDARD] = _SET_FANS[S.KNITTED_STRAIGHT] = tuple(
    f for f in FANS if f.scope == SETS and f.name not in _SPECIAL_NAMES)
# Per-reading fans of set-based readings:
# - fans the set-relation search reports (Big Four Winds, Big Three Dragons) come with it;
# - All Fives, Outside Hand, All Even Pungs only when the pack traits (one pass) allow;
# - All Chows only without pungs; Knitted Straight never on four sets;
# - fans of the pungs only when a pung or kong is of the kinds listed here;
# - Four/Three/Two Concealed Pungs only with two or more concealed pungs;
# - a wait fan only for the winning tile's own place (pair, edge, closed) and a unique wait;
# - Nine Gates only when the tiles form Nine Gates.
_FROM_RELATIONS = frozenset(("Big Four Winds", "Big Three Dragons"))
_PACK_FANS = tuple(BY_NAME[n] for n in ("All Fives", "Outside Hand", "All Even Pungs"))
_ALL_CHOWS = BY_NAME["All Chows"]
_PUNG_GATES = {"Little Four Winds": WINDS, "Little Three Dragons": DRAGONS, "Dragon Pung": DRAGONS,
               "Prevalent Wind": WINDS, "Seat Wind": WINDS, "Pung of Terminals or Honors": TERMINALS | WINDS}
_ANY_PUNG_GATE = WINDS | DRAGONS | TERMINALS
_ALL_PUNGS = BY_NAME["All Pungs"]  # four pungs or kongs
_CONCEALED_PUNG_FANS = frozenset(("Four Concealed Pungs", "Three Concealed Pungs", "Two Concealed Pungs"))
_WAIT_FANS = {"pair": BY_NAME["Single Wait"], "edge": BY_NAME["Edge Wait"], "closed": BY_NAME["Closed Wait"]}
_NINE_GATES = BY_NAME["Nine Gates"]
_GATED = (_FROM_RELATIONS | set(_PUNG_GATES) | _CONCEALED_PUNG_FANS | {f.name for f in _PACK_FANS}
          | {fan.name for fan in _WAIT_FANS.values()} | {_ALL_CHOWS.name, _ALL_PUNGS.name, _NINE_GATES.name})
_GROUPS = {shape: (tuple(f for f in fans if f.name not in _GATED
                         and not (f.name == "Knitted Straight" and shape == S.STANDARD)),
                   tuple((f, _PUNG_GATES[f.name]) for f in fans if f.name in _PUNG_GATES),
                   tuple(f for f in fans if f.name in _CONCEALED_PUNG_FANS))
           for shape, fans in _SET_FANS.items()}
_SET_BASED = frozenset((S.STANDARD, S.KNITTED_STRAIGHT))
assert _GROUPS[S.STANDARD][0] == () and [f.name for f in _GROUPS[S.KNITTED_STRAIGHT][0]] == ["Knitted Straight"]
_WAIT_SLOTS = ("pair", "edge", "closed")
_HONOR_MASK = 0x7F << 27
_TILE_LEVEL_SHAPES = frozenset((S.STANDARD, S.KNITTED_STRAIGHT, S.SEVEN_PAIRS))
_ONE_EACH = {fan.name: FanCount(fan.name, fan.points, 1) for fan in FANS}  # shared: immutable


def _hand_fans(f: Facts, tile_level: bool) -> dict[str, int]:
    """Fans of scope ``hand`` (and ``tiles`` for shapes made of sets or pairs): they depend
    only on the tiles and the win's context, so they are evaluated once per hand."""
    found = {}
    m = f.mask
    if not f.open_melds:
        for fan in _CONCEALED_HAND:
            if fan.test(f):
                found[fan.name] = 1
    if f.self_drawn and _SELF_DRAWN.test(f):
        found[_SELF_DRAWN.name] = 1
    if m & WINDS and m & DRAGONS and _ALL_TYPES.test(f):
        found[_ALL_TYPES.name] = 1
    if 4 in f.counts:
        n = _TILE_HOG.test(f)
        if n:
            found[_TILE_HOG.name] = n
    kongs = f.melded_kongs + f.concealed_kongs
    if kongs:
        for fan in _ONE_KONG_FANS if kongs == 1 else _HAND_KONG:
            if fan.test(f):
                found[fan.name] = 1
    if f.last_wall or f.replacement or f.robbing:
        for fan in _HAND_EVENT:
            if fan.test(f):
                found[fan.name] = 1
    if f.last_copy and _LAST_TILE.test(f):
        found[_LAST_TILE.name] = 1
    if f.open_melds == 4 and _MELDED_HAND.test(f):
        found[_MELDED_HAND.name] = 1
    if tile_level:
        key = (((m & _HONOR_MASK != 0) << 11) | ((m & 0x1FF != 0) + (m & 0x3FE00 != 0) + (m & 0x7FC0000 != 0)) << 9
               | (m | m >> 9 | m >> 18) & 0x1FF)
        tile_tests = _TILE_TESTS_BY_KEY.get(key)
        for name, test in tile_tests if tile_tests is not None else _tile_tests_for(key):
            if test(f):
                found[name] = 1
    return found


_ONE_KONG_FANS = tuple(BY_NAME[n] for n in ("Concealed Kong", "Melded Kong"))  # the rest need 2+ kongs


def _fans_for(f: Facts, rules: McrRules, hand_cache: dict) -> tuple[dict[str, int], int]:
    """Every fan of one reading after the non-repeat principle (Chicken Hand when none is
    left), and their points before rule options.

    Fans of scope ``hand`` depend only on the tiles and the win's context, so they are
    evaluated once per hand (per kind of shape) and reused for every reading.

    Long because it is one pass down the fan groups (the reading's own fans, packs and chows,
    pungs, Nine Gates, the wait, the chow pairs; then the non-repeat principle), each gated
    by a cheap fact of the reading, and it runs for every reading and slot of every hand
    valued (``benchmarks.waits``' MCR line): a helper per group would add a call to each."""
    shape = f.reading.shape
    key = shape in _TILE_LEVEL_SHAPES
    found = hand_cache.get(key)
    if found is None:
        found = hand_cache[key] = _hand_fans(f, key)
    found = found.copy()
    always, pung_group, concealed_pung_group = _GROUPS[shape]
    for fan in always:
        n = fan.test(f)
        if n:
            found[fan.name] = n
    pungs = f.pungs
    if shape in _SET_BASED:
        if shape == S.STANDARD and True in _pack_traits(f):
            for fan in _PACK_FANS:
                if fan.test(f):
                    found[fan.name] = 1
        if not pungs and _ALL_CHOWS.test(f):
            found[_ALL_CHOWS.name] = 1
    if pungs:
        pm = 0
        for k in pungs:
            pm |= 1 << k
        if pm & _ANY_PUNG_GATE:
            for fan, gate in pung_group:
                if pm & gate:
                    n = fan.test(f)
                    if n:
                        found[fan.name] = n
        if f.concealed_pungs >= 2:
            for fan in concealed_pung_group:
                n = fan.test(f)
                if n:
                    found[fan.name] = n
        if len(pungs) > 1:
            found.update(pung_fans(pungs))
            if len(pungs) == 4 and _ALL_PUNGS.test(f):
                found[_ALL_PUNGS.name] = 1
    if f.nine_gates and _NINE_GATES.test(f):
        found["Nine Gates"] = 1
    if f.unique_wait:
        fan = _WAIT_FANS.get(f.slot)
        if fan is not None and fan.test(f):
            found[fan.name] = 1
    if len(f.chows) > 1:
        found.update(chow_fans(f.chows, f.pair))
    if not rules.seven_pairs_tile_hog and shape == S.SEVEN_PAIRS:
        found.pop("Tile Hog", None)
    # the non-repeat principle, Chicken Hand when nothing is left, the points (before rule
    # options)
    found = _exclude(found, f)
    if not found:
        found["Chicken Hand"] = 1
    return found, sum(map(mul, map(_POINTS.__getitem__, found), found.values()))  # points x count


def _forfeit_is_no_chicken(f: Facts, h, rules: McrRules, slot: str, found: dict[str, int],
                           pts: int) -> tuple[dict[str, int], int]:
    """A hand scored with its winning tile not shown (RULES.md 11) left with Chicken Hand
    alone: no fans and 0 points instead when the same reading, the tile shown, scores a fan
    (a wait, Last Tile, Nine Gates). Chicken Hand is for a hand that scores nothing (Green Book
    fan 43); a fan forfeited for a slip of procedure is still there, and must not buy 8
    points (RULES.md 13)."""
    unique = slot in _WAIT_SLOTS and _unique_wait(h, rules.fifth_copy_wait)
    as_shown, _ = _fans_for(replace(f, win_shown=True, unique_wait=unique), rules, {})
    if "Chicken Hand" in as_shown:
        return found, pts
    return {}, 0


def _fan_list(found: dict[str, int]) -> tuple[FanCount, ...]:
    """The fans of the chosen reading in table order (points, then Green Book number)."""
    return tuple([_ONE_EACH[n] if found[n] == 1 else FanCount(n, _POINTS[n], found[n])
                  for n in sorted(found, key=_NUMBER.__getitem__)])


_NUMBER = {fan.name: fan.no for fan in FANS}
# The table lists the fans by points, highest first, so the Green Book number orders them.
assert all(a.points >= b.points for a, b in zip(FANS, FANS[1:]))


_FLOWERS = {n: FanCount("Flower Tiles", 1, n) for n in range(1, 9)}


def _unique_wait(h: _Hand, fifth_copy: bool) -> bool:
    """The winning tile was the hand's only wait (:func:`scoring.mcr.shapes.waits` of the 13
    tiles before the win is ``[win]``). A kind of which the winner holds all four copies is no
    wait unless ``fifth_copy``; the winning tile itself is always a wait of a complete hand."""
    w = h.win
    c13 = h.c13
    held = h.held
    std = S.standard_waits(c13)
    # Most hands with another wait show it among the four-sets waits: no need to try the
    # special shapes then.
    for k in std:
        if k != w and (fifth_copy or held[k] < 4):
            return False
    mask13 = h.concealed_mask if c13[w] else h.concealed_mask & ~(1 << w)
    special = S.special_waits(c13, len(h.melds), mask13)
    if not special:  # the usual case: the four-sets waits are all there is
        return w in std
    special.update(std)
    return sorted(k for k in special if k == w or fifth_copy or held[k] < 4) == [w]


def score_mcr(req: HandRequest, rules: McrRules | None = None) -> McrResult:
    """Value one MCR win (Green Book 2006, 81 fans).

    ``req``: a :class:`~scoring.hand.HandRequest` with ``ruleset == "mcr"`` that passed
    :func:`scoring.hand.validate`. Returns an :class:`McrResult`; ``valid`` is False (with
    ``reason``) when the hand scores under ``rules.min_points`` without flowers.
    Raises :class:`NotCompleteError` (a HandError) when the tiles form no winning shape, and
    HandError for ``last_copy`` while the winner holds another copy of the winning tile.
    """
    rules = rules or _DEFAULT_RULES
    h = _reduce(req)
    w = h.win
    readings = S.all_readings(h.c14, h.melds, h.concealed_mask)
    if not readings:
        raise NotCompleteError(
            f"not a complete hand: {to_mpsz(req.concealed)} + {req.win_tile}"
            + (f" with {len(req.melds)} meld(s)" if req.melds else "")
            + " is not four sets and a pair, seven pairs, thirteen orphans, honors and knitted tiles"
              " or a knitted straight with a set and a pair")
    in_melds = h.held[w] - h.c14[w]
    last_copy = req.last_copy or (in_melds == 3)
    if req.last_copy and h.c14[w] > 1:
        raise HandError(f"last_copy: the winner holds another {req.win_tile} concealed, so the winning "
                        f"tile is not the last of its kind shown (Last Tile needs the other three exposed)")
    pts, found, reading = _best_reading(req, h, readings, rules, last_copy)
    fans = _fan_list(found)
    if rules.kong_pair_5 and "Concealed Kong" in found and "Melded Kong" in found:
        fans = [x for x in fans if x.name not in ("Concealed Kong", "Melded Kong")]
        fans.append(FanCount("Concealed Kong and Melded Kong", 5, 1))
        fans.sort(key=lambda x: -x.points)
        fans = tuple(fans)
    if req.flowers:
        fans += (_FLOWERS.get(req.flowers) or FanCount("Flower Tiles", 1, req.flowers),)
    return _settle(pts, req.flowers, fans, reading, rules, h.self_drawn)


def _best_reading(req: HandRequest, h: _Hand, readings, rules: McrRules,
                  last_copy: bool) -> tuple[int, dict[str, int], S.Reading]:
    """The reading (and the slot of the winning tile in it) that scores the most points
    (Green Book: the hand is scored the way that gives the most): (points, fans found,
    reading). Later readings win only with more points."""
    w = h.win
    nine_gates = not h.melds and w < 27 and _is_nine_gates(h)
    seat, prevalent = WIND_KIND[req.seat_wind], WIND_KIND[req.round_wind]
    shown = req.win_tile_shown
    self_drawn = h.self_drawn
    unique = None  # the winning tile was the hand's only wait: worked out when first needed
    counts = h.held
    mask = h.mask
    hand_cache: dict = {}
    kong_pair_5 = rules.kong_pair_5
    CHOW = S.CHOW
    best = None
    for r in readings:
        chows = []
        pungs = []
        concealed = 0
        for st in r.sets:
            if st.kind == CHOW:
                chows.append(st.tile)
            else:
                pungs.append(st.tile)
                if not st.open:
                    concealed += 1
        chows.sort()
        pungs.sort()
        chows = tuple(chows)
        pungs = tuple(pungs)
        for slot in _slots(r, w):
            waited_once = False
            if shown and slot in _WAIT_SLOTS:
                if unique is None:
                    unique = _unique_wait(h, rules.fifth_copy_wait)
                waited_once = unique
            # positional: Facts(reading, counts, mask, chows, pungs, pair, concealed_pungs,
            # melded_kongs, concealed_kongs, open_melds, slot, unique_wait, self_drawn,
            # last_wall, replacement, robbing, last_copy, win_shown, seat, prevalent, nine_gates)
            f = Facts(r, counts, mask, chows, pungs, r.pair,
                      concealed - (slot == "pung" and not self_drawn),
                      h.melded_kongs, h.concealed_kongs, h.open_melds, slot,
                      waited_once, self_drawn, req.last_wall_tile,
                      req.replacement_tile, req.robbing_kong, last_copy, shown, seat, prevalent, nine_gates)
            found, pts = _fans_for(f, rules, hand_cache)
            if not shown and "Chicken Hand" in found and len(found) == 1:
                found, pts = _forfeit_is_no_chicken(f, h, rules, slot, found, pts)
            if kong_pair_5 and "Concealed Kong" in found and "Melded Kong" in found:
                pts += 2  # 5 instead of 2 + 1
            if best is None or pts > best[0]:
                best = (pts, found, r)
    return best


def _settle(pts: int, flowers: int, fans: tuple[FanCount, ...], reading: S.Reading,
            rules: McrRules, self_drawn: bool) -> McrResult:
    """The result: a win needs ``rules.min_points`` without flowers; then each of the three
    others pays the base payment plus the total (flowers included) on a self-draw, and on a
    discard the discarder pays that and the other two the base payment."""
    total = pts + flowers
    valid = pts >= rules.min_points
    payment = None
    reason = None
    if valid:
        each = rules.base_payment + total
        if self_drawn:
            payment = {"total": 3 * each, "from_each": each}
        else:
            payment = {"total": each + 2 * rules.base_payment, "from_discarder": each,
                       "from_each_other": rules.base_payment}
    else:
        reason = (f"{pts} point{'' if pts == 1 else 's'} without flowers; a win needs at least {rules.min_points} "
                  f"(flowers never count toward the minimum)")
    return _result(valid, total, pts, fans, payment, reading, reason, self_drawn)


def describe(reading: S.Reading) -> str:
    """A reading as a referee would say it: ``chow 123m, melded pung 777z, pair 55p``."""
    def tiles(kinds) -> str:
        return to_mpsz([Tile(k) for k in kinds])

    if reading.shape == S.SEVEN_PAIRS:
        return "seven pairs " + " ".join(tiles([k, k]) for k in reading.pairs)
    if reading.shape == S.THIRTEEN_ORPHANS:
        return "thirteen orphans"
    if reading.shape == S.HONORS_KNITTED:
        return "honors and knitted tiles"
    parts = []
    if reading.knitted:
        parts.append("knitted straight " + tiles(reading.knitted))
    for s in sorted(reading.sets, key=lambda x: (x.from_hand, x.tile)):
        ks = [s.tile, s.tile + 1, s.tile + 2] if s.kind == S.CHOW else [s.tile] * (4 if s.kind == S.KONG else 3)
        state = "melded " if s.open else ("concealed " if not s.from_hand else "")
        parts.append(f"{state}{s.kind} {tiles(ks)}")
    parts.append(f"pair {tiles([reading.pair, reading.pair])}")
    return ", ".join(parts)
