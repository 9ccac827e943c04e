"""Limits and payments: from han and fu to points.

Rules (seed rules text; JPML / WRC / Tenhou; the ``mahjong`` package agrees):
base points = fu x 2^(2 + han), capped at 2000 (mangan: 5 han, or a base over 2000 such as
4 han 40 fu or 3 han 70 fu); 6-7 han haneman 3000; 8-10 baiman 4000; 11-12 sanbaiman 6000;
yakuman 8000 per multiple (at most 6). 13+ han without yakuman: kazoe yakuman, or capped at
sanbaiman, or uncapped (26 han = double yakuman) per ``rules.kazoe``. Kiriage mangan (option):
4 han 30 fu and 3 han 60 fu are mangan.
Ron: 4 x base from the discarder (dealer 6 x); tsumo: 1 x base from each non-dealer and
2 x from the dealer (dealer's tsumo: 2 x from each); every payment rounded up to 100.
Honba: 300 per ron, 100 per payer on a tsumo. Riichi sticks: 1000 each to the winner.
"""
from __future__ import annotations

from ..hand import RiichiRules
from .result import Payment

_MULTIPLE_NAMES = {1: "yakuman", 2: "double yakuman", 3: "triple yakuman",
                   4: "quadruple yakuman", 5: "quintuple yakuman", 6: "sextuple yakuman"}


def yaku_value_words(han: int) -> str:
    """A yaku's value as players say it: ``3 han``, or for a yakuman (13 han per multiple in
    the result, a weight, not a count of han) ``yakuman`` / ``double yakuman``."""
    if han >= 13 and han % 13 == 0:
        return _MULTIPLE_NAMES[min(han // 13, 6)]
    return f"{han} han"


def value_words(result: dict) -> str:
    """A riichi result's value as players say it: ``2 han 30 fu``, ``6 han 40 fu = haneman``,
    ``13 han 40 fu = kazoe yakuman`` (counted from ordinary yaku), and for a yakuman hand its
    limit and yakuman, ``yakuman (kokushi musou)``, ``double yakuman (daisangen, tsuuiisou)``:
    a yakuman is not 13 han 0 fu (seed 001: « il est incorrect de les traiter comme des mains
    à treize yakus »)."""
    yakuman = [y["name"] for y in result.get("yaku", ()) if y["han"] >= 13]
    limit = result.get("limit")
    if yakuman and limit:
        return f"{limit} ({', '.join(yakuman)})"
    return f"{result['han']} han {result['fu']} fu" + (f" = {limit}" if limit else "")



def limit_words(han: int, fu: int, yakuman: int = 0, limit: str | None = None,
                rules: RiichiRules | None = None) -> str:
    """A value as the overlay's banner says it, from han and fu alone (a typed win of a game's
    ledger): ``limit`` as the scorer named it, else from ``rules`` (default options).

    >>> limit_words(2, 30), limit_words(5, 30), limit_words(4, 40), limit_words(0, 0, yakuman=1)
    ('2 han 30 fu', 'mangan (5 han)', 'mangan (4 han)', 'yakuman')
    """
    if limit is None:
        limit = base_points(han, fu, rules or RiichiRules(), yakuman)[1]
    if yakuman or (limit and limit.endswith("yakuman") and not limit.startswith("kazoe")):
        return limit or "yakuman"
    if limit:
        return f"{limit} ({han} han)"
    return f"{han} han {fu} fu"

# Payment fields in order: total, from_discarder, from_each, from_dealer, from_non_dealer
# (built straight from the tuple: the keyword constructor costs more than the arithmetic)
_new_payment = tuple.__new__


def _ceil100(x: int) -> int:
    return -(-x // 100) * 100


def base_points(han: int, fu: int, rules: RiichiRules, yakuman: int = 0) -> tuple[int, str | None]:
    """``(base points, limit name or None)``.

    ``yakuman``: number of yakuman multiples (0 for an ordinary hand, whose ``han`` then
    decides, kazoe included).
    """
    if yakuman:
        m = min(yakuman, 6)
        return 8000 * m, _MULTIPLE_NAMES[m]
    if han >= 13:
        if rules.kazoe == "yakuman":
            return 8000, "kazoe yakuman"
        if rules.kazoe == "sanbaiman":
            return 6000, "sanbaiman"
        m = min(han // 13, 6)
        return 8000 * m, "kazoe " + _MULTIPLE_NAMES[m]
    if han >= 11:
        return 6000, "sanbaiman"
    if han >= 8:
        return 4000, "baiman"
    if han >= 6:
        return 3000, "haneman"
    if han >= 5:
        return 2000, "mangan"
    base = fu * (1 << (2 + han))
    if base > 2000:
        return 2000, "mangan"
    if rules.kiriage and ((han == 4 and fu == 30) or (han == 3 and fu == 60)):
        return 2000, "mangan"
    return base, None


def payment(base: int, dealer: bool, tsumo: bool, honba: int = 0, sticks: int = 0) -> Payment:
    """Who pays what for a win worth ``base`` points (see the module rules)."""
    # -(-x // 100) * 100: x rounded up to 100 (_ceil100, inlined)
    if not tsumo:
        p = -(-base * (6 if dealer else 4) // 100) * 100 + 300 * honba
        return _new_payment(Payment, (p + 1000 * sticks, p, None, None, None))
    if dealer:
        each = -(-base * 2 // 100) * 100 + 100 * honba
        return _new_payment(Payment, (3 * each + 1000 * sticks, None, each, None, None))
    d = -(-base * 2 // 100) * 100 + 100 * honba
    n = -(-base // 100) * 100 + 100 * honba
    return _new_payment(Payment, (d + 2 * n + 1000 * sticks, None, None, d, n))


# Yakuman with a liability payment (pao) under EMA/WRC riichi rules, and the honour kinds of
# the sets whose last call makes the discarder liable: dragons 31..33, winds 27..30.
_PAO_YAKUMAN = {"daisangen": (range(31, 34), "third dragon"), "daisuushi": (range(27, 31), "fourth wind")}


def liability_note(req, yaku_names) -> str | None:
    """A sentence for a win whose payment pao (sekinin barai) may change, or None.

    Pao (EMA and WRC riichi rules): the player whose discard was called for the
    third dragon set of a daisangen (fourth wind set of a daisuushi) pays the whole of a
    tsumo, and half of a ron with the discarder. Which call came last is not in a request,
    so tilescope pays as usual and says so when ``req`` (a HandRequest) holds an open set of
    those honours and ``yaku_names`` (the result's yaku) include such a yakuman.
    """
    for name in yaku_names:
        kinds_and_what = _PAO_YAKUMAN.get(name)
        if kinds_and_what is None:
            continue
        kinds, what = kinds_and_what
        if any(m.type != "ankan" and m.tiles[0].kind in kinds for m in req.melds):
            return (f"pao not applied: if another player's discard was called for the {what} "
                    f"set, that player pays all of a tsumo, or half of a ron with the discarder "
                    "(EMA/WRC riichi rules); the payment here is the usual one")
    return None
