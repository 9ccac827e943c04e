"""The value of one riichi win, as plain data with the spec's JSON shape."""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from ..decompose import Reading


class YakuLine(NamedTuple):
    """One yaku and the han it is worth in this hand (open value if the hand is open)."""

    name: str
    han: int


class FuLine(NamedTuple):
    """One line of the fu count: why, and how many fu (before rounding up to 10)."""

    reason: str
    fu: int


class DoraCount(NamedTuple):
    """Han from dora indicators (kan dora included), red fives and ura dora."""

    dora: int = 0
    aka: int = 0
    ura: int = 0

    @property
    def total(self) -> int:
        return self.dora + self.aka + self.ura


class Payment(NamedTuple):
    """Points the winner receives; honba included in each payer's share (300 a ron, 100 from
    each payer of a tsumo: scoring/riichi/limits.py, the seed rules text).

    Ron: ``from_discarder``. Dealer tsumo: ``from_each``. Non-dealer tsumo: ``from_dealer`` and
    ``from_non_dealer``. ``total`` adds every payer and the riichi sticks on the table.
    """

    total: int
    from_discarder: int | None = None
    from_each: int | None = None
    from_dealer: int | None = None
    from_non_dealer: int | None = None

    def to_json(self) -> dict:  # noqa: D102 - the spec's payment object
        out = {"total": self.total}
        for name in ("from_discarder", "from_each", "from_dealer", "from_non_dealer"):
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        return out


@dataclass(slots=True)
class RiichiResult:
    """The best reading of a complete riichi hand.

    ``han``: total han, dora included (13 per yakuman for yakuman hands, as the ``mahjong``
    package reports it). ``fu``: rounded fu of the chosen reading. ``limit``: ``None``,
    ``mangan``, ``haneman``, ``baiman``, ``sanbaiman``, ``kazoe yakuman``, ``yakuman``,
    ``double yakuman`` ... ``sextuple yakuman``. ``valid`` is False (with ``reason``) for a
    complete hand without yaku; then ``payment`` is None.
    """

    valid: bool
    han: int
    fu: int
    limit: str | None
    yaku: tuple[YakuLine, ...]
    dora: DoraCount
    fu_breakdown: tuple[FuLine, ...]
    payment: Payment | None
    reason: str | None = None
    reading: Reading | None = None
    error: str | None = None

    @property
    def yakuman(self) -> bool:
        """A real yakuman (a yakuman hand), not a count of 13 han or more (kazoe yakuman,
        scoring/riichi/limits.py): the scorer prefers a real one between equal payments."""
        return self.valid and self.limit is not None and self.limit.endswith("yakuman") and not self.limit.startswith("kazoe")

    def to_json(self) -> dict:
        out = {
            "valid": self.valid,
            "han": self.han,
            "fu": self.fu,
            "limit": self.limit,
            "yaku": [{"name": y.name, "han": y.han} for y in self.yaku],
            "dora": {"dora": self.dora.dora, "aka": self.dora.aka, "ura": self.dora.ura},
            "fu_breakdown": [{"reason": f.reason, "fu": f.fu} for f in self.fu_breakdown],
            "payment": self.payment.to_json() if self.payment else None,
        }
        if not self.valid:
            out["reason"] = self.reason
        out["error"] = None
        return out
