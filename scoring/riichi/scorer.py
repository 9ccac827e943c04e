"""Value a riichi win: every reading, its yaku, fu and points; the best reading wins.

Choice between readings (standard practice, as Tenhou and the ``mahjong`` package): the
highest payment, then a real yakuman over a counted one, then more han, then more fu.
"""
from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

from ..decompose import RUN, TRIPLET, Group, meld_groups, readings
from ..hand import HandError, HandRequest, Tally, check
from ..tiles import NUM_KINDS, dora_from_indicator, to_mpsz
from .fu import SetFu, fu_of, set_fu
from .limits import base_points, payment
from .result import DoraCount, RiichiResult
from .yaku import (KIND_FLAGS, ReadingFacts, ShapeFacts, facts_of, hand_facts, reading_facts,
                   shape_facts, yaku_of, yakuman_of)

SHAPE_CACHE_SIZE = 4096     # hands whose readings are kept (about 1 kB each)
NO_YAKU = "complete hand but no yaku (dora are not yaku); declaring this win is chombo"


_DORA_OF = tuple(dora_from_indicator(k) for k in range(NUM_KINDS))
_NO_DORA = DoraCount()
_new = tuple.__new__            # a NamedTuple straight from a tuple: cheaper than its keywords          # yakuman hands: dora are not added


_FLAG_CACHE: tuple[dict, dict, dict, dict] = ({}, {}, {}, {})   # suit counts -> (OR, AND) of KIND_FLAGS
for _cache, _empty in zip(_FLAG_CACHE, (bytes(9), bytes(9), bytes(9), bytes(7))):
    _cache[_empty] = (0, -1)        # an absent suit changes neither


def _suit_flags(part: bytes, suit: int) -> tuple[int, int]:
    a, z = 0, -1
    lo = 9 * suit
    for i, n in enumerate(part):
        if n:
            a |= KIND_FLAGS[lo + i]
            z &= KIND_FLAGS[lo + i]
    _FLAG_CACHE[suit][part] = (a, z)
    return a, z


def _flags(counts: list[int]) -> tuple[int, int]:
    """OR and AND of :data:`KIND_FLAGS` over the kinds present in ``counts`` (per suit, cached)."""
    b = bytes(counts)
    cm, cp, cs, cz = _FLAG_CACHE
    part = b[:9]
    am, zm = cm.get(part) or _suit_flags(part, 0)
    part = b[9:18]
    ap, zp = cp.get(part) or _suit_flags(part, 1)
    part = b[18:27]
    as_, zs = cs.get(part) or _suit_flags(part, 2)
    part = b[27:34]
    az, zz = cz.get(part) or _suit_flags(part, 3)
    return am | ap | as_ | az, zm & zp & zs & zz


class _Shape(NamedTuple):
    """What a hand's tiles, melds and winning tile decide, whatever the flags: its readings
    (each with its :class:`ReadingFacts`) and its :class:`ShapeFacts`."""

    readings: tuple[tuple[ReadingFacts, SetFu | None], ...]
    facts: ShapeFacts


@lru_cache(maxsize=SHAPE_CACHE_SIZE)
def _shape(hand: bytes, melds: tuple[Group, ...], win_kind: int) -> _Shape | None:
    """The readings and tile facts of a hand; None if it is not complete. Cached (bounded):
    the same hand scored again (a stream overlay re-reading a frame, a referee trying flags)
    skips the decomposition."""
    rs = readings(hand, melds, win_kind)
    if not rs:
        return None
    counts = list(hand)
    for shape, kind, _, _ in melds:
        if shape == RUN:
            counts[kind] += 1
            counts[kind + 1] += 1
            counts[kind + 2] += 1
        else:
            counts[kind] += 3 if shape == TRIPLET else 4
    sf = shape_facts(counts, melds, *_flags(counts))
    closed = sf.closed
    return _Shape(tuple([(reading_facts(r, closed), set_fu(r)) for r in rs]), sf)


def score_riichi(req: HandRequest, tally: Tally | None = None) -> RiichiResult:
    """Value a riichi request.

    ``tally``: the request's counts from :func:`scoring.hand.check` when the caller has already
    checked it (``score_hand`` does); otherwise the request is checked here. Raises HandError
    for an impossible request or a hand that is not complete (no reading as four sets + pair,
    seven pairs or thirteen orphans). A complete hand without yaku is a result with
    ``valid=False``.
    """
    if tally is None:
        tally = check(req)
    melds = req.melds
    if tally.key:       # from check: the key and the meld groups are there
        shape = _shape(tally.key, tally.melds, req.win_tile.kind)
    else:
        shape = _shape(bytes(tally.hand), meld_groups(melds), req.win_tile.kind)
    if shape is None:
        shown = "".join(f" +{m.type} {to_mpsz(m.tiles)}" for m in melds)
        raise HandError(
            f"not a complete hand: {to_mpsz(req.concealed)} + {req.win_tile}{shown} is not four "
            "sets and a pair, seven different pairs or thirteen orphans")
    rs = shape.readings
    all_counts = tally.all
    h = hand_facts(req, all_counts, shape=shape.facts)
    rules = h.rules
    maybe_yakuman = h.yakuman_traits
    dealer = req.seat_wind == "E"
    tsumo = h.tsumo
    honba, sticks = req.honba, req.riichi_sticks
    dora_han = -1                               # counted when a reading first needs it
    several = len(rs) > 1
    best_key = None
    best = None     # (reading, yaku lines or None when no yaku, han, fu, fu lines, payment, limit, yakuman?)
    for p, sets in rs:
        f = facts_of(h, p)
        r = p.r
        ym = yakuman_of(f) if maybe_yakuman else None
        fu, raw, lines = fu_of(f, sets)           # yakuman hands report fu too, as mahjong does
        if ym:
            multiples = 0
            found = []
            for line, m in ym:
                multiples += m
                found.append(line)
            han = min(13 * multiples, 78)               # six yakuman at most
            base, limit = base_points(han, fu, rules, yakuman=multiples)
        else:
            found = yaku_of(f)
            if not found:
                key = (-1, False, 0, fu, raw)           # below any reading with a yaku
                if best_key is None or key > best_key:
                    best_key, best = key, (r, None, 0, fu, lines, None, None, False)
                continue
            if dora_han < 0:
                dora, dora_han = _dora(req, all_counts, tally.reds, rules)
            han = dora_han
            for line in found:
                han += line.han
            if han > 78:
                han = 78
            base, limit = base_points(han, fu, rules)
        pay = payment(base, dealer, tsumo, honba, sticks)
        if not several:             # the usual case: the only reading is the result
            return RiichiResult(True, han, fu, limit, tuple(found), _NO_DORA if ym else dora,
                                tuple(lines), pay, None, r)
        key = (pay.total, bool(ym), han, fu, raw)
        if best_key is None or key > best_key:
            best_key, best = key, (r, found, han, fu, lines, pay, limit, bool(ym))
    r, found, han, fu, lines, pay, limit, is_yakuman = best
    fu_lines = tuple(lines)
    if is_yakuman:
        dora = _NO_DORA
    elif dora_han < 0:
        dora = _dora(req, all_counts, tally.reds, rules)[0]
    if found is None:
        return RiichiResult(False, 0, fu, None, (), dora, fu_lines, None, NO_YAKU, r)
    return RiichiResult(True, han, fu, limit, tuple(found), dora, fu_lines, pay, None, r)


def _dora(req: HandRequest, all_counts: bytearray, reds: int, rules) -> tuple[DoraCount, int]:
    """Dora han of the hand: indicators (kan dora included), red fives, ura dora (riichi only);
    and their total."""
    dora = ura = 0
    for t in req.dora_indicators:
        dora += all_counts[_DORA_OF[t.kind]]
    if req.riichi != "none":
        for t in req.ura_dora_indicators:
            ura += all_counts[_DORA_OF[t.kind]]
    aka = reds if rules.aka else 0
    return _new(DoraCount, (dora, aka, ura)), dora + aka + ura
