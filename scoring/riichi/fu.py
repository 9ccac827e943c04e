"""Fu (minipoints) of one reading, with a reason per line.

Standard rules (JPML / WRC / Tenhou, the seed rules text; the ``mahjong`` package agrees):
20 base; +10 closed ron; +2 tsumo except pinfu; seven pairs 25 flat; +2 for a closed
(kanchan), edge (penchan) or single (tanki) wait; pair of dragons / seat wind / round wind
+2 each (a double wind pair 4, or 2 under that rule option); triplets 2, doubled for
terminals/honours, doubled again when concealed, kans 4x a triplet; a triplet completed by
ron counts as open; an open hand with no fu counts 30; the total rounds up to 10.
"""
from __future__ import annotations

from typing import NamedTuple

from ..decompose import KANCHAN, PENCHAN, RUN, SEVEN_PAIRS, STANDARD, TANKI, TRIPLET, Reading
from .result import FuLine
from .yaku import PINFU_SHAPE, WHITE, Facts

_TILE_CLASS = tuple(2 if k >= 27 else 1 if k % 9 in (0, 8) else 0 for k in range(34))


def _set_fu(triplet: bool, tiles: int, concealed: bool, by_ron: bool) -> FuLine:
    """Fu of a triplet or kan and its reason: 2, doubled for terminals/honours, doubled when
    concealed, x4 for a kan."""
    fu = (2 if triplet else 8) * (2 if tiles else 1) * (2 if concealed else 1)
    what = ("closed " if concealed else "open ") + ("pon" if triplet else "kan")
    name = ("simples", "terminals", "honours")[tiles]
    return FuLine(f"{what} of {name}" + (" (completed by ron)" if by_ron else ""), fu)


# [triplet?][simples/terminals/honours][concealed?][completed by ron?] -> FuLine
_SET_FU = tuple(tuple(tuple(tuple(_set_fu(bool(t), c, bool(k), bool(r)) for r in (0, 1))
                            for k in (0, 1)) for c in (0, 1, 2)) for t in (0, 1))


def set_fu_line(triplet: bool, tiles: int, concealed: bool, by_ron: bool) -> FuLine:
    """The shared fu line of a triplet (else a kan) of ``tiles`` 0 simples, 1 terminals,
    2 honours, ``concealed`` or not, completed ``by_ron`` or not (then it counts open)."""
    return _SET_FU[triplet][tiles][concealed][by_ron]


_WAIT_LINE = {KANCHAN: FuLine("closed wait", 2), PENCHAN: FuLine("edge wait", 2),
              TANKI: FuLine("single wait", 2)}
# the fixed lines, built once (a result holds them as they are)
_BASE, _CLOSED_RON, _TSUMO = FuLine("base", 20), FuLine("closed ron", 10), FuLine("tsumo", 2)
_SEVEN_PAIRS = FuLine("seven pairs", 25)
_DRAGON_PAIR, _SEAT_PAIR, _ROUND_PAIR = (
    FuLine("pair of dragons", 2), FuLine("pair of seat wind", 2), FuLine("pair of round wind", 2))
_DOUBLE_WIND_PAIR = {fu: FuLine("pair of seat and round wind", fu) for fu in (2, 4)}
_OPEN_NO_FU = FuLine("open hand without fu counts 30", 10)


def round_fu(raw: int) -> int:
    """Fu round up to the next 10 (25 for seven pairs is not rounded)."""
    return raw if raw == 25 else -(-raw // 10) * 10


class SetFu(NamedTuple):
    """The fu lines of a standard reading that do not depend on the win's flags: its triplets
    and kans by tsumo and by ron (a ron-completed triplet counts open) with their totals.
    Computed once per reading (:func:`set_fu`) and kept with the cached hand shape."""

    by_tsumo: tuple[FuLine, ...]
    raw_by_tsumo: int
    by_ron: tuple[FuLine, ...]
    raw_by_ron: int


def _set_lines(r: Reading, ron_group: int, lines: list[FuLine]) -> int:
    """Append the fu lines of reading ``r``'s triplets and kans to ``lines``; return their
    total. ``ron_group``: index of the set the winning tile completed by ron (it counts open),
    -1 for a tsumo."""
    raw = 0
    i = 0
    for shape, kind, concealed, _ in r.sets:
        if shape != RUN:                     # runs give no fu
            by_ron = i == ron_group and concealed
            line = _SET_FU[shape == TRIPLET][_TILE_CLASS[kind]][concealed and not by_ron][by_ron]
            lines.append(line)
            raw += line.fu
        i += 1
    return raw


def set_fu(r: Reading) -> SetFu | None:
    """:class:`SetFu` of reading ``r``; None for seven pairs and thirteen orphans."""
    if r.form != STANDARD:
        return None
    tsumo: list[FuLine] = []
    ron: list[FuLine] = []
    raw_tsumo = _set_lines(r, -1, tsumo)
    raw_ron = _set_lines(r, r.win_group, ron)
    return SetFu(tuple(tsumo), raw_tsumo, tuple(ron), raw_ron)


def fu_of(f: Facts) -> tuple[int, int, list[FuLine]]:
    """``(rounded fu, raw fu, [FuLine(reason, fu), ...])`` of reading ``f``. A pinfu reading
    gets no tsumo fu (pinfu tsumo is 20 fu). The triplets' and kans' lines are ``f.set_lines``
    when the facts carry them (else they are counted here)."""
    r, h = f.r, f.h
    if r.form != STANDARD:
        if r.form == SEVEN_PAIRS:
            return 25, 25, [_SEVEN_PAIRS]
        return 0, 0, []          # thirteen orphans: a yakuman, fu are not counted
    tsumo = h.tsumo
    lines = [_BASE]
    raw = 20
    if tsumo:
        if not f.traits & PINFU_SHAPE:     # the trait is exact: see yaku.is_pinfu_shape
            lines.append(_TSUMO)
            raw += 2
    elif h.closed:
        lines.append(_CLOSED_RON)
        raw += 10
    sets = f.set_lines
    if sets is None:            # this win's set lines, counted here
        raw += _set_lines(r, -1 if tsumo else r.win_group, lines)
    elif sets:
        lines += sets
        raw += f.set_fu
    wait = _WAIT_LINE.get(r.wait)
    pair = r.pair
    if pair >= 27:
        if pair >= WHITE:
            lines.append(_DRAGON_PAIR)
            raw += 2
        elif pair == h.seat:
            if pair == h.round:
                line = _DOUBLE_WIND_PAIR[h.rules.double_wind_pair_fu]
                lines.append(line)
                raw += line.fu
            else:
                lines.append(_SEAT_PAIR)
                raw += 2
        elif pair == h.round:
            lines.append(_ROUND_PAIR)
            raw += 2
    if wait is not None:
        lines.append(wait)
        raw += 2
    if raw == 20 and not h.closed:
        lines.append(_OPEN_NO_FU)
        raw = 30
    return -(-raw // 10) * 10, raw, lines      # round_fu, inlined (25 never reaches here)
