"""Value a riichi win: every reading, its yaku, fu and points; the best reading wins.

Choice between readings (standard practice, as Tenhou and the ``mahjong`` package): the
highest payment, then a real yakuman over a counted one, then more han, then more fu.
"""
from __future__ import annotations

from ..decompose import meld_groups, readings
from ..hand import HandError, HandRequest
from ..tiles import NUM_KINDS, dora_from_indicator, to_mpsz
from .fu import fu_of
from .limits import base_points, payment
from .result import DoraCount, FuLine, RiichiResult, YakuLine
from .yaku import facts_for, hand_facts, yaku_of, yakuman_of

NO_YAKU = "complete hand but no yaku (dora are not yaku); declaring this win is chombo"


def _dora_count(indicators, counts: list[int]) -> int:
    return sum(counts[dora_from_indicator(t.kind)] for t in indicators)


def score_riichi(req: HandRequest) -> RiichiResult:
    """Value a validated riichi request (see :func:`scoring.hand.validate`).

    Raises HandError if the hand is not complete (no reading as four sets + pair, seven pairs
    or thirteen orphans). A complete hand without yaku is a result with ``valid=False``.
    """
    hand = req.hand_tiles
    counts = [0] * NUM_KINDS
    for t in hand:
        counts[t.kind] += 1
    groups = meld_groups(req.melds)
    rs = readings(counts, groups, req.win_tile.kind)
    if not rs:
        melds = "".join(f" +{m.type} {to_mpsz(m.tiles)}" for m in req.melds)
        raise HandError(
            f"not a complete hand: {to_mpsz(req.concealed)} + {req.win_tile}{melds} is not four "
            "sets and a pair, seven different pairs or thirteen orphans")
    all_counts = list(counts)
    for m in req.melds:
        for t in m.tiles:
            all_counts[t.kind] += 1
    h = hand_facts(req, all_counts)
    rules = req.rules
    dora = DoraCount(
        dora=_dora_count(req.dora_indicators, all_counts),
        aka=sum(1 for t in req.all_tiles if t.red) if rules.aka else 0,
        ura=_dora_count(req.ura_dora_indicators, all_counts) if req.riichi != "none" else 0,
    )
    dealer = req.is_dealer
    tsumo = h.tsumo
    best = None
    best_key = None
    for r in rs:
        f = facts_for(h, r)
        ym = yakuman_of(f)
        if ym:
            multiples = sum(m for _, m in ym)
            yaku = tuple(YakuLine(name, 13 * m) for name, m in ym)
            han = min(13 * multiples, 78)
            pinfu = False
            fu, raw, lines = fu_of(f, False)
            base, limit = base_points(han, fu, rules, yakuman=multiples)
        else:
            found = yaku_of(f)
            pinfu = any(name == "pinfu" for name, _ in found)
            fu, raw, lines = fu_of(f, pinfu)
            if not found:
                key = (-1, 0, 0, fu, raw)
                if best_key is None or key > best_key:
                    best_key = key
                    best = RiichiResult(False, 0, fu, None, (), dora, tuple(lines), None, NO_YAKU, r)
                continue
            yaku = tuple(YakuLine(n, v) for n, v in found)
            han = min(sum(v for _, v in found) + dora.total, 78)
            base, limit = base_points(han, fu, rules)
        pay = payment(base, dealer, tsumo, req.honba, req.riichi_sticks)
        key = (pay.total, bool(ym), han, fu, raw)
        if best_key is None or key > best_key:
            best_key = key
            best = RiichiResult(True, han, fu, limit, yaku, dora if not ym else DoraCount(),
                                tuple(lines), pay, None, r)
    return best
