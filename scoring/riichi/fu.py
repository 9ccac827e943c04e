"""Fu (minipoints) of one reading, with a reason per line.

Standard rules (JPML / WRC / Tenhou, the seed rules text; the ``mahjong`` package agrees):
20 base; +10 closed ron; +2 tsumo except pinfu; seven pairs 25 flat; +2 for a closed
(kanchan), edge (penchan) or single (tanki) wait; pair of dragons / seat wind / round wind
+2 each (a double wind pair 4, or 2 under that rule option); triplets 2, doubled for
terminals/honours, doubled again when concealed, kans 4x a triplet; a triplet completed by
ron counts as open; an open hand with no fu counts 30; the total rounds up to 10.
"""
from __future__ import annotations

from ..decompose import KANCHAN, PENCHAN, SEVEN_PAIRS, STANDARD, TANKI, TRIPLET
from .yaku import DRAGONS, Facts

_TILE_CLASS = tuple(2 if k >= 27 else 1 if k % 9 in (0, 8) else 0 for k in range(34))


def _set_fu(triplet: bool, tiles: int, concealed: bool, by_ron: bool) -> tuple[int, str]:
    """Fu of a triplet or kan and its reason: 2, doubled for terminals/honours, doubled when
    concealed, x4 for a kan."""
    fu = (2 if triplet else 8) * (2 if tiles else 1) * (2 if concealed else 1)
    what = ("closed " if concealed else "open ") + ("pon" if triplet else "kan")
    name = ("simples", "terminals", "honours")[tiles]
    return fu, f"{what} of {name}" + (" (completed by ron)" if by_ron else "")


# [triplet?][simples/terminals/honours][concealed?][completed by ron?] -> (fu, reason)
_SET_FU = tuple(tuple(tuple(tuple(_set_fu(bool(t), c, bool(k), bool(r)) for r in (0, 1))
                            for k in (0, 1)) for c in (0, 1, 2)) for t in (0, 1))
_WAIT_REASON = {KANCHAN: "closed wait", PENCHAN: "edge wait", TANKI: "single wait"}


def round_fu(raw: int) -> int:
    """Fu round up to the next 10 (25 for seven pairs is not rounded)."""
    return raw if raw == 25 else -(-raw // 10) * 10


def fu_of(f: Facts, pinfu: bool) -> tuple[int, int, list[tuple[str, int]]]:
    """``(rounded fu, raw fu, [(reason, fu), ...])`` of reading ``f``. ``pinfu``: the reading scores pinfu
    (then a tsumo gets no tsumo fu: pinfu tsumo is 20 fu)."""
    r, h = f.r, f.h
    if r.form == SEVEN_PAIRS:
        return 25, 25, [("seven pairs", 25)]
    if r.form != STANDARD:       # thirteen orphans: a yakuman, fu are not counted
        return 0, 0, []
    lines = [("base", 20)]
    raw = 20
    if h.closed and not h.tsumo:
        lines.append(("closed ron", 10))
        raw += 10
    if h.tsumo and not pinfu:
        lines.append(("tsumo", 2))
        raw += 2
    ron_group = r.win_group if not h.tsumo else -2
    for i, g in enumerate(r.sets):
        if g.shape == "run":
            continue
        by_ron = g.concealed and i == ron_group
        fu, reason = _SET_FU[g.shape == TRIPLET][_TILE_CLASS[g.kind]][g.concealed and not by_ron][by_ron]
        lines.append((reason, fu))
        raw += fu
    pair = r.pair
    if pair in DRAGONS:
        lines.append(("pair of dragons", 2))
        raw += 2
    elif pair == h.seat and pair == h.round:
        fu = h.rules.double_wind_pair_fu
        lines.append(("pair of seat and round wind", fu))
        raw += fu
    elif pair == h.seat:
        lines.append(("pair of seat wind", 2))
        raw += 2
    elif pair == h.round:
        lines.append(("pair of round wind", 2))
        raw += 2
    if r.wait in _WAIT_REASON:
        lines.append((_WAIT_REASON[r.wait], 2))
        raw += 2
    if not h.closed and raw == 20:
        lines.append(("open hand without fu counts 30", 10))
        raw = 30
    return round_fu(raw), raw, lines
