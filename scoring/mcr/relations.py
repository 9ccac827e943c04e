"""Fans between sets: chows with chows, pungs with pungs (Green Book 2006, §2 and §3).

These fans obey the *account-once* principle ("套算一次": a set already combined into one
fan may combine with each other set at most once, so n sets make at most n - 1 such fans) and
the *non-identical* principle (a fan made by a group of sets is not counted again by a subset
of them). Because the principle limits the fans jointly, they are found here together and the
fan table's predicates read the result.

Chows are given by their lowest tile kind (0..26), pungs/kongs by their kind (0..33).
The order of search follows the reference engine (ChineseOfficialMahjong, MIT): a four-set
fan first, then a three-set fan plus the best one-point fan of the fourth set with one of the
three, then pairwise fans cut to the account-once limit.
"""
from __future__ import annotations

from functools import lru_cache

PDC, MDC, SS, TTC = "Pure Double Chow", "Mixed Double Chow", "Short Straight", "Two Terminal Chows"
_ONE_POINT_ORDER = (PDC, MDC, SS, TTC)  # preference when one fan must be chosen


def _two_chows(a: int, b: int) -> str | None:
    sa, sb, ra, rb = a // 9, b // 9, a % 9, b % 9
    if sa != sb:
        return MDC if ra == rb else None
    if ra == rb:
        return PDC
    if abs(ra - rb) == 3:
        return SS
    if {ra, rb} == {0, 6}:
        return TTC
    return None


def _three_chows(a: int, b: int, c: int) -> str | None:
    s = {a // 9, b // 9, c // 9}
    r = sorted((a % 9, b % 9, c % 9))
    if len(s) == 3:
        if r[0] + 1 == r[1] and r[1] + 1 == r[2]:
            return "Mixed Shifted Chows"
        if r[0] == r[2]:
            return "Mixed Triple Chow"
        if r == [0, 3, 6]:
            return "Mixed Straight"
        return None
    if len(s) == 1:
        if r == [0, 3, 6]:
            return "Pure Straight"
        if (r[0] + 1 == r[1] and r[1] + 1 == r[2]) or (r[0] + 2 == r[1] and r[1] + 2 == r[2]):
            return "Pure Shifted Chows"
        if r[0] == r[2]:
            return "Pure Triple Chow"
    return None


_VALUE = {"Pure Straight": 16, "Pure Shifted Chows": 16, "Pure Triple Chow": 24,
          "Mixed Shifted Chows": 6, "Mixed Triple Chow": 8, "Mixed Straight": 8}


def _cut(found: list[str], limit: int) -> dict[str, int]:
    """Keep at most ``limit`` one-point fans, dropping repeats of a fan first."""
    table = {n: found.count(n) for n in _ONE_POINT_ORDER}
    cnt = len(found)
    for keep in (1, 0):
        for name in reversed(_ONE_POINT_ORDER):
            while table[name] > keep and cnt > limit:
                table[name] -= 1
                cnt -= 1
    return {n: v for n, v in table.items() if v}


@lru_cache(maxsize=4096)
def chow_fans(chows: tuple[int, ...], pair: int) -> dict[str, int]:
    """Fans among the chows of a reading (``chows`` sorted lowest kinds, ``pair`` kind or -1).

    Returns ``{fan name: count}``; Three-Suited / Pure Terminal Chows need the pair (a 5).
    """
    n = len(chows)
    if n == 4 and 0 <= pair < 27 and pair % 9 == 4:
        suits = [k // 9 for k in chows]
        ranks = sorted(k % 9 for k in chows)
        ps = pair // 9
        if ranks == [0, 0, 6, 6]:
            if all(s == ps for s in suits):
                return {"Pure Terminal Chows": 1}
            lo = {k // 9 for k in chows if k % 9 == 0}
            hi = {k // 9 for k in chows if k % 9 == 6}
            if lo == hi and len(lo) == 2 and ps not in lo:
                return {"Three-Suited Terminal Chows": 1}
    if n == 4:
        a, b, c, d = chows
        if a // 9 == d // 9:
            if a == b == c == d:
                return {"Quadruple Chow": 1}
            if (b - a == c - b == d - c) and (b - a) in (1, 2):
                return {"Four Pure Shifted Chows": 1}
        best: dict[str, int] | None = None
        best_v = -1
        for skip in range(4):
            trio = [chows[i] for i in range(4) if i != skip]
            fan = _three_chows(*trio)
            if fan is None:
                continue
            res = {fan: 1}
            extras = [_two_chows(t, chows[skip]) for t in trio]
            for name in _ONE_POINT_ORDER:
                if name in extras:
                    res[name] = res.get(name, 0) + 1
                    break
            v = _VALUE[fan] * 10 + (len(res) - 1)
            if v > best_v:
                best, best_v = res, v
        if best is not None:
            return best
        pairs = [(i, j) for i in range(4) for j in range(i + 1, 4)]
        fans = {p: _two_chows(chows[p[0]], chows[p[1]]) for p in pairs}
        limit = 3 - sum(1 for i in range(4) if all(fans[p] is None for p in pairs if i in p))
        found = [f for f in fans.values() if f]
        return _cut(found, limit) if limit > 0 else {}
    if n == 3:
        fan = _three_chows(*chows)
        if fan:
            return {fan: 1}
        found = [f for f in (_two_chows(chows[0], chows[1]), _two_chows(chows[0], chows[2]),
                             _two_chows(chows[1], chows[2])) if f]
        return _cut(found, 2)
    if n == 2:
        fan = _two_chows(*chows)
        return {fan: 1} if fan else {}
    return {}


def _two_pungs(a: int, b: int) -> str | None:
    if a < 27 and b < 27:
        return "Double Pung" if a % 9 == b % 9 and a // 9 != b // 9 else None
    if a >= 31 and b >= 31:
        return "Two Dragon Pungs"
    return None


def _three_pungs(a: int, b: int, c: int) -> str | None:
    if a < 27 and b < 27 and c < 27:
        s = {a // 9, b // 9, c // 9}
        r = sorted((a % 9, b % 9, c % 9))
        if len(s) == 3:
            if r[0] + 1 == r[1] and r[1] + 1 == r[2]:
                return "Mixed Shifted Pungs"
            if r[0] == r[2]:
                return "Triple Pung"
        elif len(s) == 1 and r[0] + 1 == r[1] and r[1] + 1 == r[2]:
            return "Pure Shifted Pungs"
        return None
    if all(27 <= k <= 30 for k in (a, b, c)):
        return "Big Three Winds"
    if all(k >= 31 for k in (a, b, c)):
        return "Big Three Dragons"
    return None


_PVALUE = {"Mixed Shifted Pungs": 8, "Triple Pung": 16, "Pure Shifted Pungs": 24,
           "Big Three Winds": 12, "Big Three Dragons": 88}


@lru_cache(maxsize=4096)
def pung_fans(pungs: tuple[int, ...]) -> dict[str, int]:
    """Fans among the pungs and kongs of a reading (``pungs`` sorted kinds)."""
    n = len(pungs)
    if n == 4:
        a, b, c, d = pungs
        if d < 27 and a // 9 == d // 9 and b == a + 1 and c == a + 2 and d == a + 3:
            return {"Four Pure Shifted Pungs": 1}
        if pungs == (27, 28, 29, 30):
            return {"Big Four Winds": 1}
    res: dict[str, int] = {}
    if n >= 3:
        best_v = -1
        for skip in range(n) if n == 4 else (None,):
            trio = [pungs[i] for i in range(n) if i != skip]
            fan = _three_pungs(*trio)
            if fan is None:
                continue
            cand = {fan: 1}
            if skip is not None:
                for t in trio:
                    extra = _two_pungs(t, pungs[skip])
                    if extra:
                        cand[extra] = 1
                        break
            v = _PVALUE[fan] * 10 + len(cand)
            if v > best_v:
                res, best_v = cand, v
        if best_v >= 0:
            return res
    for i in range(n):
        for j in range(i + 1, n):
            fan = _two_pungs(pungs[i], pungs[j])
            if fan:
                res[fan] = res.get(fan, 0) + 1
    return res
