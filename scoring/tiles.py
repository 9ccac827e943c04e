"""Tiles and mpsz notation.

A tile is a small frozen value: ``kind`` is an index 0..41 and ``red`` marks a red five.

==========  =====================================================
kind        tiles
==========  =====================================================
0..8        1m..9m (characters / manzu)
9..17       1p..9p (dots / pinzu)
18..26      1s..9s (bamboo / souzu)
27..33      1z..7z = East South West North White Green Red
34..41      1f..8f = plum orchid chrysanthemum bamboo, spring summer autumn winter
==========  =====================================================

mpsz notation (the riichi community's standard, as used by Tenhou and the ``mahjong``
package): digits followed by their suit letter, ``0`` for a red five (``0m 0p 0s``),
e.g. ``123m0p55z``. Groups may come in any order.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

SUITS = "mpsz"
NUM_KINDS = 34          # distinct playing tiles (no flowers)
FLOWER_BASE = 34        # 1f is kind 34
NUM_ALL_KINDS = 42

HONOR_NAMES = ("East", "South", "West", "North", "White", "Green", "Red")
WIND_LETTERS = ("E", "S", "W", "N")
FLOWER_NAMES = ("Plum", "Orchid", "Chrysanthemum", "Bamboo", "Spring", "Summer", "Autumn", "Winter")

# U+1F000 block: winds E S W N, dragons Red Green White, then 1m..9m, 1s..9s, 1p..9p, flowers.
_GLYPH_WIND = ["\U0001F000", "\U0001F001", "\U0001F002", "\U0001F003"]
_GLYPH_DRAGON = {4: "\U0001F006", 5: "\U0001F005", 6: "\U0001F004"}  # white green red


class TileError(ValueError):
    """A tile string or tile set that breaks the notation or the physical tile set."""


@dataclass(frozen=True, slots=True)
class Tile:
    """One physical tile.

    ``kind``: 0..41 (see module docstring). ``red``: True only for a red five (kinds 4, 13, 22).
    Raises TileError for a kind outside 0..41 or a red tile that is not a five.
    """

    kind: int
    red: bool = False

    def __post_init__(self) -> None:
        if not 0 <= self.kind < NUM_ALL_KINDS:
            raise TileError(f"tile kind {self.kind} out of range 0..41")
        if self.red and self.kind not in (4, 13, 22):
            raise TileError("only a five of a suit can be red")

    @property
    def suit(self) -> str:
        """'m', 'p', 's', 'z' or 'f'."""
        return "f" if self.kind >= FLOWER_BASE else SUITS[self.kind // 9]

    @property
    def number(self) -> int:
        """1..9 for suits, 1..7 for honours, 1..8 for flowers."""
        if self.kind >= FLOWER_BASE:
            return self.kind - FLOWER_BASE + 1
        return self.kind % 9 + 1 if self.kind < 27 else self.kind - 26

    @property
    def is_honor(self) -> bool:
        return 27 <= self.kind < 34

    @property
    def is_flower(self) -> bool:
        return self.kind >= FLOWER_BASE

    @property
    def is_terminal(self) -> bool:
        """1 or 9 of a suit."""
        return self.kind < 27 and self.kind % 9 in (0, 8)

    @property
    def is_terminal_or_honor(self) -> bool:
        return self.is_terminal or self.is_honor

    def __str__(self) -> str:
        return ("0" if self.red else str(self.number)) + self.suit

    def __repr__(self) -> str:
        return f"Tile({self})"

    @property
    def name(self) -> str:
        """English name a referee would say: '5 dots (red)', '1 character', 'East', 'Plum'."""
        if self.is_flower:
            return FLOWER_NAMES[self.number - 1]
        if self.is_honor:
            return HONOR_NAMES[self.number - 1]
        # one character, one dot: the suit word is plural from two on (bamboo either way)
        one = self.number == 1
        suit = {"m": "character" if one else "characters", "p": "dot" if one else "dots",
                "s": "bamboo"}[self.suit]
        return f"{self.number} {suit}" + (" (red)" if self.red else "")

    @property
    def glyph(self) -> str:
        """Unicode mahjong tile (U+1F000 block); a red five shows as its five."""
        return kind_glyph(self.kind)


# One shared instance per tile value (Tile is immutable): parsing and the random hands hand out
# these, so a hand's tiles are a few objects that stay in the CPU's caches, not 14 new ones.
_SHARED = {(k, red): Tile(k, red) for k in range(NUM_ALL_KINDS) for red in (False, True)
           if not red or k in (4, 13, 22)}


def tile(kind: int, red: bool = False) -> Tile:
    """The shared :class:`Tile` of ``kind`` (0..41) and ``red``; same checks as ``Tile(...)``."""
    t = _SHARED.get((kind, red))
    return t if t is not None else Tile(kind, red)     # raises TileError


def kind_glyph(kind: int) -> str:
    """Unicode glyph of a tile kind 0..41."""
    if kind < 9:
        return chr(0x1F007 + kind)
    if kind < 18:
        return chr(0x1F019 + kind - 9)
    if kind < 27:
        return chr(0x1F010 + kind - 18)
    if kind < 31:
        return _GLYPH_WIND[kind - 27]
    if kind < 34:
        return _GLYPH_DRAGON[kind - 27]
    return chr(0x1F022 + kind - 34)


def kind_of(text: str) -> int:
    """Kind index of one tile code ('5m', '0p', '7z', '3f'). Raises TileError."""
    return parse_tile(text).kind


def parse_tile(text: str) -> Tile:
    """Parse exactly one tile code such as ``'5m'``, ``'0s'`` (red five) or ``'7z'``.

    Raises TileError naming the bad code.
    """
    tiles = parse_tiles(text)
    if len(tiles) != 1:
        raise TileError(f"expected one tile, got {len(tiles)} in {quoted(text)}")
    return tiles[0]


def parse_tiles(text: str) -> list[Tile]:
    """Parse an mpsz string (``'123m0p55z'``, spaces allowed) into tiles, in written order.

    Raises TileError for an unknown suit letter, a digit with no suit, ``8z``/``9z``/``0z``,
    ``9f``/``0f`` and any other character.
    """
    if not isinstance(text, str):
        raise TileError(f"tiles must be an mpsz string, got {type(text).__name__}")
    out: list[Tile] = []
    pending: list[str] = []
    for ch in text:
        if ch.isspace():
            continue
        if "0" <= ch <= "9":        # not str.isdigit: '²' and '２' are no tile numbers
            pending.append(ch)
            continue
        suit = ch.lower()
        if suit not in "mpszf":
            raise TileError(f"unknown tile code {ch!r} in {quoted(text)} (suits are m p s z f)")
        if not pending:
            raise TileError(f"suit letter {ch!r} with no digits before it in {quoted(text)}")
        for d in pending:
            out.append(_make(int(d), suit, text))
        pending = []
    if pending:
        raise TileError(f"digits {''.join(pending)!r} have no suit letter in {quoted(text)}")
    return out


def quoted(value: object, most: int = 40) -> str:
    """``repr(value)`` for an error message, cut short past ``most`` characters (a message
    relayed to a chat or a log must not repeat a megabyte of input): a long string keeps its
    first characters and says how many it had."""
    if isinstance(value, str) and len(value) > most:
        return f"{value[:most - 10]!r}... ({len(value)} characters)"
    text = repr(value)
    return text if len(text) <= most else f"{text[:most - 10]}... ({len(text)} characters)"



def _make(n: int, suit: str, text: str) -> Tile:
    if suit in "mps":
        base = SUITS.index(suit) * 9
        if n == 0:
            return _SHARED[base + 4, True]
        return _SHARED[base + n - 1, False]
    if suit == "z":
        if not 1 <= n <= 7:
            raise TileError(f"unknown tile code '{n}z' in {quoted(text)} (honours are 1z..7z)")
        return _SHARED[27 + n - 1, False]
    if not 1 <= n <= 8:
        raise TileError(f"unknown tile code '{n}f' in {quoted(text)} (flowers are 1f..8f)")
    return _SHARED[FLOWER_BASE + n - 1, False]


def to_mpsz(tiles: Iterable[Tile], sort: bool = True) -> str:
    """Compact mpsz string. With ``sort`` the tiles are ordered m, p, s, z, f and by number
    (a red five sorts with the fives, written ``0``)."""
    seq = list(tiles)
    if sort:
        seq.sort(key=lambda t: (t.kind, not t.red))
    parts: list[str] = []
    cur_suit = None
    digits: list[str] = []
    for t in seq:
        if t.suit != cur_suit and digits:
            parts.append("".join(digits) + cur_suit)
            digits = []
        cur_suit = t.suit
        digits.append("0" if t.red else str(t.number))
    if digits:
        parts.append("".join(digits) + cur_suit)
    return "".join(parts)


def to_unicode(tiles: Iterable[Tile]) -> str:
    """The tiles as Unicode mahjong glyphs, in the given order."""
    return "".join(t.glyph for t in tiles)


def counts34(tiles: Iterable[Tile]) -> list[int]:
    """Counts per kind 0..33 (red fives counted as fives; flowers ignored)."""
    c = [0] * NUM_KINDS
    for t in tiles:
        if t.kind < NUM_KINDS:
            c[t.kind] += 1
    return c


def check_physical(tiles: Sequence[Tile], max_red: dict[int, int] | None = None) -> None:
    """Raise TileError if ``tiles`` could not come from one physical set.

    More than 4 of a kind (a red five counts as its five), a flower more than once, or more red
    fives of a suit than ``max_red`` allows (default one red five per suit, the usual riichi set).
    """
    c = [0] * NUM_ALL_KINDS
    red = {4: 0, 13: 0, 22: 0}
    for t in tiles:
        c[t.kind] += 1
        if t.red:
            red[t.kind] += 1
    for k in range(NUM_KINDS):
        if c[k] > 4:
            raise TileError(f"{c[k]} copies of {Tile(k)} ({Tile(k).name}); a set has only 4")
    for k in range(FLOWER_BASE, NUM_ALL_KINDS):
        if c[k] > 1:
            raise TileError(f"{c[k]} copies of flower {Tile(k)}; a set has only 1")
    limits = max_red if max_red is not None else {4: 1, 13: 1, 22: 1}
    for k, n in red.items():
        if n > limits.get(k, 0):
            raise TileError(
                f"{n} red fives of {'mps'[k // 9]} ({'0' + 'mps'[k // 9]}); the rules allow {limits.get(k, 0)}"
            )


def dora_from_indicator(indicator: int) -> int:
    """The dora kind shown by an indicator kind (riichi rule: next in sequence, 9→1,
    North→East, Red→White). Raises TileError for a flower."""
    if indicator < 27:
        return indicator // 9 * 9 + (indicator % 9 + 1) % 9
    if indicator < 31:
        return 27 + (indicator - 27 + 1) % 4
    if indicator < 34:
        return 31 + (indicator - 31 + 1) % 3
    raise TileError("a flower cannot be a dora indicator")


def wind_index(letter: str) -> int:
    """'E' 'S' 'W' 'N' → 0..3. Raises TileError for anything else."""
    try:
        return WIND_LETTERS.index(letter)
    except ValueError:
        raise TileError(f"unknown wind {letter!r} (use E, S, W or N)") from None
