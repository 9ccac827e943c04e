"""A scored hand said in one line, for a live banner (the overlay, the stream window, batch
summaries)."""
from __future__ import annotations

from typing import NamedTuple

# « Chaque compteur rapporte un bonus de 300 points » (riichi rules text): 300 a ron, 100 from
# each of three payers of a tsumo, 300 either way; a riichi stick is 1,000 points
HONBA_POINTS = 300
STICK_POINTS = 1000


class Takings(NamedTuple):
    """What a riichi winner takes in all, split: the hand's own payment, the counters' bonus
    and the riichi sticks on the table (``payment.total`` adds the three)."""

    hand: int
    honba: int
    sticks: int


def takings(result: dict | None, request: dict | None) -> Takings | None:
    """The winner's takings split by the counters and sticks of ``request`` (the hand request
    scored, or the context it was scored under: ``honba``, ``riichi_sticks``); None when the
    result pays nothing or is MCR (no counters, no sticks)."""
    if not result or "fans" in result:
        return None
    total = (result.get("payment") or {}).get("total")
    if total is None:
        return None
    req = request or {}
    honba = HONBA_POINTS * int(req.get("honba") or 0)
    sticks = STICK_POINTS * int(req.get("riichi_sticks") or 0)
    return Takings(total - honba - sticks, honba, sticks)


def payment_words(result: dict | None, request: dict | None) -> str | None:
    """'3900', '3900 + 300 honba + 1000 sticks' (the hand's payment first, then what the table
    adds); MCR's total as it is; None when nothing is paid."""
    pay = (result or {}).get("payment") or {}
    split = takings(result, request)
    if split is None:
        return None if pay.get("total") is None else str(pay["total"])
    extras = [f"{n} {what}" for n, what in ((split.honba, "honba"), (split.sticks, "sticks")) if n]
    return " + ".join([str(split.hand), *extras])


def summarize(result: dict | None, request: dict | None = None) -> str:
    """One line for a banner: '3 han 40 fu · 5200', '3 han 30 fu · 3900 + 1000 sticks' (with
    the ``request``'s counters and sticks apart from the hand's payment), '17 points · 41',
    or the error or reason."""
    if not result:
        return "not scored"
    if result.get("error"):
        # the command line's advice ("pass --fix N=TILE …") is no use on a live banner
        reason = result["error"].split(" (see the warnings")[0].split(" — ")[0].split("; pass ")[0]
        return f"not scored: {reason}"
    if result.get("valid") is False:
        return f"no valid win: {result.get('reason', '')}".rstrip(": ")
    pay = payment_words(result, request)
    if "fans" in result:
        value = f"{result.get('total')} points"
    elif result.get("limit"):
        value = f"{result['limit']} ({result.get('han')} han)"
    else:
        value = f"{result.get('han')} han {result.get('fu')} fu"
    return f"{value} · {pay}" if pay is not None else value
