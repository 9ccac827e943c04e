"""The hand model: melds, rule options and the scoring request, plus their validation.

A :class:`HandRequest` is everything a scorer needs about one win, exactly the request fields
of ``docs/hand-json.md``: the concealed tiles *without* the winning tile, the exposed
(and closed-kan) melds, the winning tile, how it was won, the winds, the win events and, per
ruleset, riichi context (riichi, dora indicators, honba, sticks, rule options) or MCR context
(flowers, last copy).

:func:`check` (or :func:`validate`) checks that a request describes a hand that could exist at
a table and raises :class:`HandError` naming the first problem; ``check`` also returns the
tile counts (:class:`Tally`) so that a scorer does not count the tiles again.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from itertools import permutations
from operator import attrgetter
from typing import NamedTuple

from .decompose import MELD_GROUPS, RUN, TRIPLET, Group
from .tiles import (FLOWER_BASE, NUM_KINDS, Tile, TileError, check_physical, parse_tile,
                    parse_tiles, quoted, to_mpsz)

RULESETS = ("riichi", "mcr")
WIN_KINDS = ("tsumo", "ron")
WINDS = ("E", "S", "W", "N")
RIICHI_KINDS = ("none", "riichi", "double")
MELD_TYPES = ("chi", "pon", "daiminkan", "kakan", "ankan")
MELD_SOURCES = ("left", "across", "right")
KAZOE_MODES = ("yakuman", "sanbaiman", "none")
# honba and riichi sticks: a four-player game holds 100 sticks' worth of points at most, and
# real tables rarely pass 10 honba; more is a typing slip (or an attack on the payment's size)
MAX_COUNTERS = 99


class HandError(ValueError):
    """A request that does not describe a possible hand; the message names the problem."""


@dataclass(frozen=True, slots=True)
class Meld:
    """One declared set.

    ``type``: ``chi`` (run called from the left), ``pon`` (called triplet), ``daiminkan``
    (open kan called from a discard), ``kakan`` (a pon upgraded with the fourth tile drawn),
    ``ankan`` (closed kan: concealed for every yaku and for fu, but shown).
    ``tiles``: 3 tiles (chi, pon) or 4 (kans). ``called``: the tile taken from a discard (not
    for ankan). ``from_``: ``left``, ``across`` or ``right`` (who discarded ``called``).
    """

    type: str
    tiles: tuple[Tile, ...]
    called: Tile | None = None
    from_: str | None = None

    def __post_init__(self) -> None:
        if type(self.tiles) is not tuple or (self.tiles and type(self.tiles[0]) is not Tile):
            object.__setattr__(self, "tiles", _as_tiles("meld tiles", self.tiles))
        if self.called is not None and type(self.called) is not Tile:
            object.__setattr__(self, "called", _as_tile("meld's called tile", self.called))

    @property
    def is_open(self) -> bool:
        """Every meld but a closed kan opens the hand."""
        return self.type != "ankan"

    @property
    def is_kan(self) -> bool:
        return self.type in ("daiminkan", "kakan", "ankan")

    @property
    def is_run(self) -> bool:
        return self.type == "chi"

    @property
    def kind(self) -> int:
        """The lowest tile kind of the meld (0..33)."""
        return min(t.kind for t in self.tiles)

    def __str__(self) -> str:
        return f"{self.type} {to_mpsz(self.tiles)}"


@dataclass(frozen=True, slots=True)
class RiichiRules:
    """Riichi rule options; defaults are the tournament-common ones (spec ``rules``).

    ``aka``: red fives are dora. ``open_tanyao``: kuitan allowed. ``kiriage``: 4 han 30 fu and
    3 han 60 fu are mangan. ``double_yakuman``: 13-sided kokushi, suuankou tanki, pure nine
    gates and daisuushi count double. ``kazoe``: 13+ han without yakuman is ``yakuman``, capped
    at ``sanbaiman``, or ``none`` (no cap: 26 han is a double yakuman, as the ``mahjong``
    package's KAZOE_NO_LIMIT). ``double_wind_pair_fu``: fu for a pair of a wind that is both seat
    and round wind (4, or 2 in some rule sets).
    """

    aka: bool = True
    open_tanyao: bool = True
    kiriage: bool = False
    double_yakuman: bool = False
    kazoe: str = "yakuman"
    double_wind_pair_fu: int = 4


@dataclass(frozen=True, slots=True, kw_only=True)
class HandRequest:
    """One win to value (see ``docs/hand-json.md`` for every field).

    ``concealed``: the concealed tiles without the winning tile (13 - 3 x melds of them).
    ``melds``: declared sets, closed kans included. ``win_tile``; ``win``: ``tsumo``/``ron``.
    ``seat_wind``/``round_wind``: ``E S W N`` (East seat = dealer). Win events:
    ``last_wall_tile`` (haitei/houtei), ``replacement_tile`` (rinshan), ``robbing_kong``
    (chankan). Riichi only: ``riichi`` (``none``/``riichi``/``double``), ``ippatsu``,
    ``tenhou``, ``chiihou``, ``dora_indicators``, ``ura_dora_indicators``, ``honba``,
    ``riichi_sticks``, ``rules``. MCR only: ``flowers`` (0..8), ``last_copy``,
    ``win_tile_shown``.
    """

    ruleset: str = "riichi"
    concealed: tuple[Tile, ...]
    melds: tuple[Meld, ...] = ()
    win_tile: Tile
    win: str
    seat_wind: str = "E"
    round_wind: str = "E"
    last_wall_tile: bool = False
    replacement_tile: bool = False
    robbing_kong: bool = False
    riichi: str = "none"
    ippatsu: bool = False
    tenhou: bool = False
    chiihou: bool = False
    dora_indicators: tuple[Tile, ...] = ()
    ura_dora_indicators: tuple[Tile, ...] = ()
    honba: int = 0
    riichi_sticks: int = 0
    rules: RiichiRules = field(default_factory=RiichiRules)
    flowers: int = 0
    last_copy: bool = False
    win_tile_shown: bool = True

    def __post_init__(self) -> None:
        # a library caller may write tiles as mpsz text ("234m", "8s") or in a list: made
        # tuples of Tile here, so that no check miscounts a string's characters as tiles
        for name in ("concealed", "dora_indicators", "ura_dora_indicators"):
            v = getattr(self, name)
            if type(v) is not tuple or (v and type(v[0]) is not Tile):
                object.__setattr__(self, name, _as_tiles(name, v))
        if type(self.win_tile) is not Tile:
            object.__setattr__(self, "win_tile", _as_tile("win_tile", self.win_tile))
        if type(self.melds) is not tuple:
            if not isinstance(self.melds, (list, tuple)):
                _fail(f"melds must be a tuple of Meld, got {type(self.melds).__name__}")
            object.__setattr__(self, "melds", tuple(self.melds))
        for m in self.melds:
            if type(m) is not Meld:
                _fail(f"melds must be Meld objects (scoring.hand.Meld), got {type(m).__name__}")

    @property
    def hand_tiles(self) -> tuple[Tile, ...]:
        """Concealed tiles plus the winning tile (14 - 3 x melds tiles)."""
        return self.concealed + (self.win_tile,)

    @property
    def all_tiles(self) -> tuple[Tile, ...]:
        """Every tile of the hand: concealed, winning tile and all meld tiles."""
        out = list(self.concealed)
        out.append(self.win_tile)
        for m in self.melds:
            out.extend(m.tiles)
        return tuple(out)

    @property
    def is_dealer(self) -> bool:
        """Riichi: the East seat is the dealer."""
        return self.seat_wind == "E"

    @property
    def is_closed(self) -> bool:
        """No called meld (closed kans keep the hand closed)."""
        return all(not m.is_open for m in self.melds)

    @property
    def is_tsumo(self) -> bool:
        return self.win == "tsumo"

    @property
    def kan_count(self) -> int:
        return sum(1 for m in self.melds if m.is_kan)


def _fail(msg: str) -> None:
    raise HandError(msg)


def _as_tiles(name: str, value) -> tuple[Tile, ...]:
    """``value`` (mpsz text, or a sequence of Tile objects or tile codes) as a tuple of
    Tile; HandError naming ``name`` for anything else."""
    try:
        if isinstance(value, str):
            return tuple(parse_tiles(value))
        if isinstance(value, (list, tuple)):
            return tuple(t if type(t) is Tile else _as_tile(name, t) for t in value)
    except TileError as exc:
        raise HandError(f"{name}: {exc}") from None
    raise HandError(f"{name} must be tiles (mpsz text such as '234m', or Tile objects), "
                    f"got {type(value).__name__}")


def _as_tile(name: str, value) -> Tile:
    if type(value) is Tile:
        return value
    if isinstance(value, str):
        try:
            return parse_tile(value)
        except TileError as exc:
            raise HandError(f"{name}: {exc}") from None
    raise HandError(f"{name} must be a tile (a code such as '5p', or a Tile), got {type(value).__name__}")


def _where(m: Meld, index: int) -> str:
    tiles = m.tiles
    if len(tiles) > _MAX_SHOWN:     # a meld of 500,000 tiles is not written out in full
        return f"meld {index + 1} ({m.type} {to_mpsz(tiles[:_MAX_SHOWN], sort=False)}... {len(tiles):,} tiles)"
    return f"meld {index + 1} ({m.type} {to_mpsz(tiles, sort=False)})"


_MAX_SHOWN = 8      # tiles of a meld an error message writes out


_MELD_SIZE = {"chi": 3, "pon": 3, "daiminkan": 4, "kakan": 4, "ankan": 4}
_KIND, _RED = attrgetter("kind"), attrgetter("red")
_new = tuple.__new__              # a NamedTuple straight from a tuple: cheaper than its keywords
_UP_TO_FOUR = bytes(range(5))     # bytes.translate(None, this) leaves the counts over 4
_FIVES = frozenset((4, 13, 22))                                    # a pon/kan of fives
_CHI_FIVES = frozenset(k for k in range(27) if k % 9 in (2, 3, 4))  # lowest kinds of a chi with a five


def validate_meld(m: Meld, index: int = 0) -> None:
    """Raise HandError if ``m`` is not a legal chi/pon/kan (shape, called tile, source)."""
    _checked_meld_kind(m, index)


def _checked_meld(m: Meld, index: int) -> tuple:
    """:func:`validate_meld`, returning the meld's ``_LEGAL_MELDS`` entry: the shape from one
    look-up, then the called tile and the source; a shape not found is named by
    :func:`_checked_meld_kind`."""
    shapes = _LEGAL_MELDS.get(m.type)
    info = shapes.get(tuple([t.kind for t in m.tiles])) if shapes is not None else None
    if info is None:
        _checked_meld_kind(m, index)    # raises: the shape is not legal
    called = m.called
    if m.type == "ankan":
        if called is not None or m.from_ is not None:
            _checked_meld_kind(m, index)    # raises: a closed kan has no called tile or source
        return info
    if called is not None:
        if not info[0] <= called.kind <= info[1]:
            _fail(f"{_where(m, index)}: called tile {called} is not in the meld")
        if called.red and not any(t.red for t in m.tiles):
            _fail(f"{_where(m, index)}: called tile {called} is red but the meld has no red five")
    source = m.from_
    if source is not None and source not in MELD_SOURCES:
        _fail(f"{_where(m, index)}: 'from' must be left, across or right, got {quoted(source)}")
    return info


def _checked_meld_kind(m: Meld, index: int) -> int:
    """:func:`validate_meld`, returning the meld's lowest kind."""
    mtype = m.type
    want = _MELD_SIZE.get(mtype)
    if want is None:
        _fail(f"meld {index + 1}: unknown meld type {quoted(mtype)} (use {', '.join(MELD_TYPES)})")
    tiles = m.tiles
    if len(tiles) != want:
        _fail(f"{_where(m, index)}: a {mtype} has {want} tiles, got {len(tiles)}")
    if want == 3:           # three kinds in order, without sorted()'s cost
        a, b, c = tiles
        k0, k1, hi = a.kind, b.kind, c.kind
        if k0 > k1:
            k0, k1 = k1, k0
        if k1 > hi:
            k1, hi = hi, k1
            if k0 > k1:
                k0, k1 = k1, k0
    else:
        kinds = sorted(map(_KIND, tiles))
        k0, k1, hi = kinds[0], kinds[1], kinds[-1]
    if hi >= NUM_KINDS:
        _fail(f"{_where(m, index)}: flowers cannot be in a meld")
    if mtype == "chi":
        if k0 >= 27 or k0 % 9 > 6 or k1 != k0 + 1 or hi != k0 + 2:
            _fail(f"{_where(m, index)}: a chi is three consecutive tiles of one suit")
    elif hi != k0:
        _fail(f"{_where(m, index)}: {'an' if mtype == 'ankan' else 'a'} {mtype} is {want} identical tiles")
    called = m.called
    if mtype == "ankan":
        if called is not None:
            _fail(f"{_where(m, index)}: a closed kan has no called tile")
        if m.from_ is not None:
            _fail(f"{_where(m, index)}: a closed kan is not called from anyone")
        return k0
    if called is not None:
        if not k0 <= called.kind <= hi:     # the meld's kinds run from k0 to hi, none missing
            _fail(f"{_where(m, index)}: called tile {called} is not in the meld")
        if called.red and not any(t.red for t in tiles):
            _fail(f"{_where(m, index)}: called tile {called} is red but the meld has no red five")
    # 'from' is who discarded: recorded, not checked against the meld type (a chi comes from
    # the left at the table, but the source changes no score and photos rarely show it)
    source = m.from_
    if source is not None and source not in MELD_SOURCES:
        _fail(f"{_where(m, index)}: 'from' must be left, across or right, got {quoted(source)}")
    return k0


class Tally(NamedTuple):
    """Tile counts of a checked hand, by kind 0..33 (red fives count as fives).

    ``hand``: the concealed tiles and the winning tile. ``all``: those and every meld tile.
    ``reds``: red fives anywhere in the hand. ``key``: ``hand`` as bytes (a hashable key).
    ``melds``: the melds as :class:`scoring.decompose.Group` values
    (:func:`scoring.decompose.meld_groups`). ``shape``: the hand's shape (concealed counts,
    melds, winning tile) as one bytes key (:func:`shape_key`).
    """

    hand: bytearray
    all: bytearray | bytes
    reds: int
    key: bytes = b""
    melds: tuple[Group, ...] = ()
    shape: bytes = b""


_KIND_BYTES = tuple(bytes((k,)) for k in range(NUM_KINDS))


def _group_code(g: Group) -> int:
    """A declared meld's byte in a shape key: its shape (run, triplet, open or closed kan) and
    lowest kind, 0..135 (what :func:`scoring.decompose.meld_groups` keeps of a meld)."""
    base = 0 if g.shape == RUN else 34 if g.shape == TRIPLET else 102 if g.concealed else 68
    return base + g.kind


# _group_code of each meld type's group by lowest kind, for check()'s meld loop
_MELD_CODES = {t: tuple(_group_code(by_kind[0]) for by_kind in kinds) for t, kinds in MELD_GROUPS.items()}


def _legal_melds() -> dict[str, dict[tuple[int, ...], tuple]]:
    """Every legal meld shape by type and its tiles' kinds in any order: ``(lowest kind, highest
    kind, groups by meld index, shape-key byte, holds a five)`` (a five can be red)."""
    out: dict[str, dict[tuple[int, ...], tuple]] = {}
    for mtype, size in _MELD_SIZE.items():
        shapes = {}
        for k in range(NUM_KINDS):
            if mtype == "chi":
                if k >= 27 or k % 9 > 6:
                    continue
                kinds = (k, k + 1, k + 2)
                five = k in _CHI_FIVES
            else:
                kinds = (k,) * size
                five = k in _FIVES
            info = (k, kinds[-1], MELD_GROUPS[mtype][k], _MELD_CODES[mtype][k], five)
            for order in permutations(kinds):
                shapes[order] = info
        out[mtype] = shapes
    return out


_LEGAL_MELDS = _legal_melds()


def shape_key(hand: bytes, melds: tuple[Group, ...], win_kind: int) -> bytes:
    """One bytes value naming a hand's shape: ``hand`` (the concealed counts with the winning
    tile, 34 bytes), a byte per declared meld (:func:`_group_code`, in order), the winning
    kind last. Bytes rather than a tuple of groups: hashed once (bytes keep their hash) and
    not tracked by the garbage collector while a cache keeps it."""
    if melds:
        return hand + bytes([_group_code(g) for g in melds]) + _KIND_BYTES[win_kind]
    return hand + _KIND_BYTES[win_kind]


def validate(req: HandRequest) -> None:
    """Raise HandError naming the first thing that makes ``req`` impossible (see :func:`check`)."""
    check(req)


def check(req: HandRequest, count: bool = True) -> Tally:
    """Validate ``req`` and return its tile counts; raise HandError naming the first problem.
    ``count=False`` skips the number of tiles alone (a verdict rules on a hand of the wrong
    size as a false win, but every other check still holds).

    Checks, in order: ruleset and enum fields; legal melds (at most 4); tile count (13 - 3 x
    melds concealed tiles); flowers only as the MCR ``flowers`` count; physical tile set (at
    most 4 of a kind, a red five counting as its five, one red five per suit); dora and ura
    indicators among the tiles left; win-event flags that cannot go together (chankan: the
    robbed tile is the only one of its kind the winner can hold; rinshan without a kan or by
    ron, chankan on a tsumo, haitei/houtei with rinshan or chankan); the ruleset's own checks
    (riichi: ippatsu without riichi, riichi on an open hand, tenhou for a non-dealer, chiihou
    for the dealer, tenhou/chiihou after a call or by ron, no flowers; MCR: riichi-only fields
    at their defaults). ``last_copy`` and ``win_tile_shown`` are ignored by riichi. Every hand
    valued passes here: a step is called only when the hand has what it checks."""
    if (req.ruleset not in RULESETS or req.win not in WIN_KINDS or req.seat_wind not in WINDS
            or req.round_wind not in WINDS):
        _check_fields(req)      # raises, naming the first unknown value
    melds = req.melds
    if len(melds) > 4:
        _fail(f"{len(melds)} melds; a hand has at most 4 sets")
    groups, codes, meld_reds = _meld_facts(melds) if melds else ((), b"", 0)
    want = 13 - 3 * len(melds)
    if len(req.concealed) != want and count:
        _fail(f"wrong tile count: {len(req.concealed)} concealed tiles (without the winning tile) "
              f"with {len(melds)} meld(s); expected {want}")
    concealed, win_tile = req.concealed, req.win_tile
    hand = bytearray(NUM_KINDS)     # counts by kind (a bytearray: its bytes() key is a copy)
    try:
        for t in concealed:
            hand[t.kind] += 1
        hand[win_tile.kind] += 1
    except IndexError:          # kinds 34.. are flowers
        _fail("flowers are not part of the hand; give their number in 'flowers' (MCR)")
    # only a five can be red (Tile checks it): no five, no red to count
    reds = sum(map(_RED, concealed)) + win_tile.red if hand[4] or hand[13] or hand[22] else 0
    key = bytes(hand)
    counts = key
    if melds:
        reds += meld_reds
        counts = _with_melds(hand, groups)
    # more than 4 of a kind or two red fives: the precise message comes from check_physical
    if reds > 1 or counts.translate(None, _UP_TO_FOUR):
        try:
            check_physical(req.all_tiles)
        except TileError as exc:
            raise HandError(str(exc)) from None
    shown = _shown_indicators(req, counts) if req.dora_indicators or req.ura_dora_indicators else ()
    if (counts[4] == 4 or counts[13] == 4 or counts[22] == 4) and req.ruleset == "riichi" and req.rules.aka:
        four_plain_fives(req.all_tiles, "")     # a red five written plain: its dora lost
    if req.robbing_kong or req.replacement_tile:
        _check_win_events(req, counts, shown)
    if req.ruleset == "riichi":
        _validate_riichi(req)
    else:
        _validate_mcr(req)
    # shape_key(key, groups, win kind), from the meld bytes found above
    shape = key + codes + _KIND_BYTES[win_tile.kind]
    return _new(Tally, (hand, counts, reds, key, groups, shape))


def _check_fields(req: HandRequest) -> None:
    """Raise HandError naming the first of the ruleset and the enum fields (win, seat and
    round wind) that is not a known value."""
    if req.ruleset not in RULESETS:
        _fail(f"unknown ruleset {quoted(req.ruleset)} (use riichi or mcr)")
    if req.win not in WIN_KINDS:
        _fail(f"'win' must be tsumo or ron, got {quoted(req.win)}")
    if req.seat_wind not in WINDS:
        _fail(f"seat_wind must be E, S, W or N, got {quoted(req.seat_wind)}")
    if req.round_wind not in WINDS:
        _fail(f"round_wind must be E, S, W or N, got {quoted(req.round_wind)}")


def _meld_facts(melds: tuple[Meld, ...]) -> tuple[tuple[Group, ...], bytes, int]:
    """Each meld checked (:func:`_checked_meld`, in order): the melds' groups, their bytes of
    the shape key (:func:`shape_key`) and the red fives among their tiles."""
    groups = ()
    codes = []
    meld_reds = 0
    i = 0
    for m in melds:
        _, _, by_index, code, five = _checked_meld(m, i)
        groups += (by_index[i],)
        codes.append(code)
        if five:
            meld_reds += sum(map(_RED, m.tiles))
        i += 1
    return groups, bytes(codes), meld_reds


def _with_melds(hand: bytearray, groups: tuple[Group, ...]) -> bytes:
    """Every tile of the hand by kind: the concealed counts ``hand`` plus the melds' tiles."""
    counts = hand.copy()
    for shape, k, _, _ in groups:
        if shape == RUN:
            counts[k] += 1
            counts[k + 1] += 1
            counts[k + 2] += 1
        else:
            counts[k] += 3 if shape == TRIPLET else 4
    return bytes(counts)


def _shown_indicators(req: HandRequest, counts: bytes) -> tuple[Tile, ...]:
    """The dora and ura indicators (at most 5 each, no flowers), checked against the hand's
    ``counts``: an indicator is a tile of the same set, so a kind held four times cannot also
    be one. Returns them, dora first."""
    indicators = req.dora_indicators
    if indicators:
        for t in indicators:
            if t.kind >= FLOWER_BASE or len(indicators) > 5:
                _check_indicators("dora_indicators", indicators)
    shown = req.ura_dora_indicators
    if shown:
        for t in shown:
            if t.kind >= FLOWER_BASE or len(shown) > 5:
                _check_indicators("ura_dora_indicators", shown)
        shown = indicators + shown
    else:
        shown = indicators
    if shown:
        most = 5 - len(shown)       # below this many in the hand, no kind can pass 4
        for t in shown:             # (nor a five reach four, all plain)
            if counts[t.kind] >= most or t.red or (t.kind in _FIVES and counts[t.kind] >= most - 1):
                _check_shown(req, counts, shown)
                break
    return shown


def _check_win_events(req: HandRequest, counts: bytes, shown: tuple[Tile, ...]) -> None:
    """Chankan and rinshan fit the hand and the win: a robbed tile completes another player's
    kan (a ron; the winner holds no other copy, none is an indicator), a replacement tile
    follows the winner's kan (a tsumo), and neither is the last tile of the wall (riichi)."""
    if req.robbing_kong:
        if req.win != "ron":
            _fail("robbing_kong (chankan) is a win on another player's tile, not a tsumo")
        if counts[req.win_tile.kind] != 1:
            _fail(
                f"robbing_kong: the robbed tile {req.win_tile} completes another player's kan, "
                f"so the winner cannot hold another {req.win_tile}"
            )
        if any(t.kind == req.win_tile.kind for t in shown):
            _fail(f"robbing_kong: the other three {req.win_tile} are in the robbed kan, so none "
                  "can be a dora indicator")
    if req.replacement_tile:
        if not any(m.type in ("daiminkan", "kakan", "ankan") for m in req.melds):
            _fail("replacement_tile (rinshan) needs a kan among the melds")
        if req.win != "tsumo":
            _fail("replacement_tile (rinshan) is a self-drawn win, not a ron")
        if req.last_wall_tile and req.ruleset == "riichi":
            # riichi draws replacements from the dead wall; MCR from the wall's end, whose
            # last tile a replacement can be (Last Tile Draw with Out with Replacement Tile)
            _fail("replacement_tile and last_wall_tile cannot go together (no haitei on a replacement tile)")
    if req.robbing_kong and req.last_wall_tile:
        _fail("robbing_kong and last_wall_tile cannot go together (no kan on the last tile)")


def _check_shown(req: HandRequest, counts: bytes, shown: tuple[Tile, ...]) -> None:
    """Raise HandError when the hand (``counts`` by kind, melds included) and its dora and ura
    indicators ``shown`` need more tiles than one set holds: an indicator is a tile of the
    same set, so a kind held four times cannot also be an indicator."""
    seen = bytearray(counts)
    red = False
    for t in shown:
        seen[t.kind] += 1
        red = red or t.red
    if seen.translate(None, _UP_TO_FOUR):
        k = next(k for k, n in enumerate(seen) if n > 4)
        _fail(f"{seen[k]} copies of {Tile(k)} ({Tile(k).name}) in the hand and the dora "
              "indicators; a set has only 4")
    if req.ruleset == "riichi" and req.rules.aka:
        four_plain_fives(req.all_tiles + shown, "in the hand and the dora indicators")
    if red:
        try:
            check_physical(req.all_tiles + shown)
        except TileError as exc:
            raise HandError(f"{exc}, counting the dora indicators") from None


def four_plain_fives(tiles, where: str) -> None:
    """Raise HandError when ``tiles`` (tiles of one set seen at once: a hand, its indicators,
    a player's discards; ``where`` says which) hold all four fives of a suit and none is red,
    which a set with red fives (``rules.aka``: one per suit) cannot."""
    fives = {4: 0, 13: 0, 22: 0}
    red = set()
    for t in tiles:
        if t.kind in fives:
            fives[t.kind] += 1
            if t.red:
                red.add(t.kind)
    for k, n in fives.items():
        if n == 4 and k not in red:
            suit = "mps"[k // 9]
            seen = f" {where}" if where else ""
            _fail(f"all four 5{suit}{seen} and none red: with red fives in play (rules.aka) one "
                  f"5{suit} of the set is red; write it 0{suit} (e.g. 0555{suit})")


def _check_indicators(name: str, tiles: tuple[Tile, ...]) -> None:
    """Raise HandError for a flower among dora indicators or more than 5 of them."""
    for t in tiles:
        if t.kind >= FLOWER_BASE:
            _fail(f"{name}: a flower cannot be a dora indicator")
    if len(tiles) > 5:
        _fail(f"{name}: {len(tiles)} indicators; at most 5 (one plus one per kan)")


def _validate_riichi(req: HandRequest) -> None:
    riichi = req.riichi
    if riichi not in RIICHI_KINDS:
        _fail(f"riichi must be none, riichi or double, got {quoted(riichi)}")
    r = req.rules
    if r.kazoe not in KAZOE_MODES:
        _fail(f"rules.kazoe must be yakuman, sanbaiman or none, got {quoted(r.kazoe)}")
    if r.double_wind_pair_fu not in (2, 4):
        _fail(f"rules.double_wind_pair_fu must be 2 or 4, got {quoted(r.double_wind_pair_fu)}")
    if not 0 <= req.honba <= MAX_COUNTERS:
        _fail(f"honba must be 0..{MAX_COUNTERS} (counters on the table)")
    if not 0 <= req.riichi_sticks <= MAX_COUNTERS:
        _fail(f"riichi_sticks must be 0..{MAX_COUNTERS} (1000-point sticks on the table)")
    if riichi != "none" and req.melds and not req.is_closed:
        _fail("riichi on an open hand: riichi needs a closed hand (closed kans allowed)")
    if req.ippatsu:
        if riichi == "none":
            _fail("ippatsu without riichi")
        if req.replacement_tile:
            _fail("ippatsu with replacement_tile: declaring a kan ends the ippatsu turn")
        if req.last_wall_tile:
            # riichi needs 4 tiles left in the wall (EMA/WRC): the riichi player draws the
            # last of them at the latest, so no one else's last discard falls in the turn
            if riichi == "double":
                _fail("ippatsu with last_wall_tile after a double riichi: the first go-around "
                      "ends long before the wall does")
            if req.win == "ron":
                _fail("ippatsu with last_wall_tile by ron (houtei): riichi needs at least 4 tiles "
                      "left in the wall, so the riichi player draws the last tile before anyone "
                      "else can discard it")
    ura, dora = len(req.ura_dora_indicators), len(req.dora_indicators)
    if ura > dora:
        _fail(f"{ura} ura dora indicator{'s' if ura > 1 else ''} but {dora} dora "
              f"indicator{'s' if dora != 1 else ''}: each ura indicator lies under a dora "
              "indicator; give the dora indicators too")
    if req.tenhou or req.chiihou:
        _validate_first_draw(req)
    if req.flowers:
        _fail("flowers count only in MCR; riichi sets have no flowers")


def _validate_first_draw(req: HandRequest) -> None:
    """Tenhou / chiihou: the dealer's (non-dealer's) tsumo on the first draw, nothing before."""
    if req.tenhou and req.chiihou:
        _fail("tenhou and chiihou cannot go together")
    flag = "tenhou" if req.tenhou else "chiihou"
    if flag == "tenhou" and not req.is_dealer:
        _fail("tenhou is the dealer's win on the first draw; the seat wind is not East")
    if flag == "chiihou" and req.is_dealer:
        _fail("chiihou is a non-dealer's win on the first draw; the seat wind is East")
    if req.win != "tsumo":
        _fail(f"{flag} is a win on the first draw, not a ron (a ron before one's first draw "
              "is renhou, which tilescope does not model)")
    if req.melds:
        _fail(f"{flag} is impossible after a call or a kan")
    if req.riichi != "none" or req.ippatsu:
        _fail(f"{flag} is a win on the first draw, before any riichi")
    if req.last_wall_tile or req.replacement_tile:
        _fail(f"{flag} cannot be on the last wall tile or a replacement tile")


def _validate_mcr(req: HandRequest) -> None:
    if not 0 <= req.flowers <= 8:
        _fail(f"flowers must be 0..8, got {req.flowers}")
    riichi_only = {
        "riichi": "none", "ippatsu": False, "tenhou": False, "chiihou": False,
        "dora_indicators": (), "ura_dora_indicators": (), "honba": 0, "riichi_sticks": 0,
    }
    for name, default in riichi_only.items():
        if getattr(req, name) != default:
            _fail(f"{name} is a riichi field; it has no MCR meaning")
    if req.rules != RiichiRules():
        _fail("rules are riichi rule options; they have no MCR meaning")
