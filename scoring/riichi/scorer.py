"""Value a riichi win: every reading, its yaku, fu and points; the best reading wins.

Choice between readings (standard practice, as Tenhou and the ``mahjong`` package): the
highest payment, then a real yakuman over a counted one, then more han, then more fu.

Speed: a new hand's readings and their facts are added up from per-suit tables of every suit
pattern's splits (scoring/riichi/suits.py, scoring/riichi/readings.py; an entry is built when
a hand first needs it, the whole tables once a process has built 512), and its yaku are one
look-up by the reading's traits (scoring/riichi/yaku.py). What the tiles, melds and winning tile
decide is also kept, bounded, from a hand shape's second sighting (see ``_SHAPES``); a request
then only adds its flags, winds and dora.
"""
from __future__ import annotations

from collections import OrderedDict
from typing import Sequence

from ..decompose import Group, meld_groups
from ..hand import HandError, HandRequest, Tally, check, shape_key
from ..tiles import NUM_KINDS, dora_from_indicator, to_mpsz
from .fu import fu_of, set_fu
from .limits import base_points, payment
from .result import DoraCount, RiichiResult
from .readings import hand_readings
from .yaku import (Facts, facts_of, hand_facts, reading_facts, shape_facts,
                   yaku_and_han, yakuman_of)

SHAPE_CACHE_SIZE = 4096     # hand shapes whose readings are kept (about 1 kB each)
NO_YAKU = "complete hand but no yaku (dora are not yaku); declaring this win is chombo"


_DORA_OF = tuple(dora_from_indicator(k) for k in range(NUM_KINDS))
_NO_DORA = DoraCount()          # yakuman hands: dora are not added
_new = tuple.__new__            # a NamedTuple straight from a tuple: cheaper than its keywords


# The shape cache: the hand's shape key (scoring.hand.shape_key: concealed counts, melds,
# winning kind, as bytes) -> (readings as ReadingFacts, ShapeFacts), or None for a hand that
# is not complete: what the tiles, melds and winning tile decide whatever the flags, so the
# same hand scored again (a stream overlay re-reading a frame, a referee trying flags, a client
# retrying) skips the decomposition. A hand is kept from its second sighting on (_SEEN
# remembers the keys seen once): a stream of hands that never repeat then costs no more than
# no cache at all (no entry built to be thrown away; a bytes key is no object for the garbage
# collector to walk). Both are bounded: when full, the oldest shape goes (an OrderedDict: a
# plain dict emptied from the front slows down), and _SEEN, a plain dict (cheaper on every new
# hand), is emptied.
_SHAPES: OrderedDict = OrderedDict()
_SEEN: dict = {}
_MISSING = object()


def clear_cache() -> None:
    """Forget every cached hand shape."""
    _SHAPES.clear()
    _SEEN.clear()


def _bounded_put(cache: OrderedDict, key, value, size: int) -> None:
    cache[key] = value
    if len(cache) > size:
        try:
            cache.popitem(last=False)
        except KeyError:                    # another thread emptied it first
            pass


def _first_facts(req: HandRequest, key: bytes, hand: bytes, melds: tuple[Group, ...],
                 win_kind: int, all_counts: Sequence[int]) -> list[Facts]:
    """The Facts of every reading of a hand whose shape ``key`` is not cached (empty if it is
    not complete), from the per-suit tables (scoring/riichi/readings.py); the shape is cached
    when it was seen once before (see :data:`_SHAPES`). ``hand``, ``melds``, ``win_kind``: what
    the key names; ``all_counts``: every tile of the hand by kind, melds included."""
    seen = len(_SEEN)
    if seen >= 2 * SHAPE_CACHE_SIZE:
        _SEEN.clear()
        seen = 0
    _SEEN.setdefault(key, None)     # one look-up
    counts = bytes(all_counts)
    sf = shape_facts(counts, melds)
    fs = hand_readings(hand_facts(req, counts, shape=sf), hand, melds, win_kind)
    if len(_SEEN) == seen:          # seen before: keep what the flags do not decide
        closed = sf.closed
        shape = (tuple([reading_facts(f.r, closed, set_fu(f.r)) for f in fs]), sf) if fs else None
        _bounded_put(_SHAPES, key, shape, SHAPE_CACHE_SIZE)
    return fs


def score_riichi(req: HandRequest, tally: Tally | None = None) -> RiichiResult:
    """Value a riichi request.

    ``tally``: the request's counts from :func:`scoring.hand.check` when the caller has already
    checked it (``score_hand`` does); otherwise the request is checked here. Raises HandError
    for an impossible request or a hand that is not complete (no reading as four sets + pair,
    seven pairs or thirteen orphans). A complete hand without yaku is a result with
    ``valid=False``.

    Steps: the readings' facts (cached by the hand's shape); each reading valued as the rules
    do: yakuman, or yaku plus dora → han; fu; base points; payment with honba and riichi
    sticks. A lone reading with a yaku is the result; else the one paid most
    (:func:`_best_reading`).

    Long because every hand valued runs it (``benchmarks.waits`` values each wait both ways):
    the facts' look-up as a function of its own cost 1-2% of its time (measured, 2,000 hands).
    """
    if tally is None:
        tally = check(req)
    melds = req.melds
    win_kind = req.win_tile.kind
    if tally.shape:     # from check: the keys and the meld groups are there
        key, hand, groups = tally.shape, tally.key, tally.melds
    else:
        hand, groups = bytes(tally.hand), meld_groups(melds)
        key = shape_key(hand, groups, win_kind)
    all_counts = tally.all
    shape = _SHAPES.get(key, _MISSING)
    if shape is _MISSING:
        fs = _first_facts(req, key, hand, groups, win_kind, all_counts)
    elif shape is None:
        fs = None
    else:
        rs, sf = shape
        h = hand_facts(req, all_counts, shape=sf)
        fs = [facts_of(h, p) for p in rs]
    if not fs:
        shown = "".join(f" +{m.type} {to_mpsz(m.tiles)}" for m in melds)
        raise HandError(
            f"not a complete hand: {to_mpsz(req.concealed)} + {req.win_tile}{shown} is not four "
            "sets and a pair, seven different pairs or thirteen orphans")
    h = fs[0].h
    rules = h.rules
    maybe_yakuman = h.yakuman_traits
    dealer = req.seat_wind == "E"
    tsumo = h.tsumo
    honba, sticks = req.honba, req.riichi_sticks
    dora, dora_han = None, -1                   # counted when a reading first needs it
    several = len(fs) > 1
    best_key = None
    best = None     # (reading, yaku lines or None when no yaku, han, fu, fu lines, payment, limit, yakuman?)
    for f in fs:
        r = f.r
        ym = yakuman_of(f) if maybe_yakuman else None
        fu, raw, lines = fu_of(f)           # yakuman hands report fu too, as mahjong does
        if ym:
            multiples = 0
            found = []
            for line, m in ym:
                multiples += m
                found.append(line)
            han = min(13 * multiples, 78)               # six yakuman at most
            base, limit = base_points(han, fu, rules, yakuman=multiples)
        else:
            found, yaku_han = yaku_and_han(f)
            if not found:
                key = (-1, False, 0, fu, raw)           # below any reading with a yaku
                if best_key is None or key > best_key:
                    best_key, best = key, (r, None, 0, fu, lines, None, None, False)
                continue
            if dora_han < 0:
                dora, dora_han = _dora(req, all_counts, tally.reds, rules)
            han = dora_han + yaku_han
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
    return _best_reading(req, tally, rules, best, dora, dora_han)


def _best_reading(req: HandRequest, tally: Tally, rules, best: tuple, dora,
                  dora_han: int) -> RiichiResult:
    """The result of a hand with several readings, or with none that has a yaku: ``best``,
    the reading paid most (with no yaku, the one with most fu, as a result with
    ``valid=False``). Its dora are counted here when no reading needed them."""
    r, found, han, fu, lines, pay, limit, is_yakuman = best
    fu_lines = tuple(lines)
    if is_yakuman:
        dora = _NO_DORA
    elif dora_han < 0:
        dora = _dora(req, tally.all, tally.reds, rules)[0]
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
