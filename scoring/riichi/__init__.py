"""Riichi (Japanese) hand valuation: yaku table, fu, limits and payments, scorer.

Entry point :func:`score_riichi`; the rule differences from the ``mahjong`` package are in
``RULES.md`` next to this file.
"""
from .result import DoraCount, FuLine, Payment, RiichiResult, YakuLine
from .scorer import score_riichi

__all__ = ["score_riichi", "RiichiResult", "YakuLine", "FuLine", "DoraCount", "Payment"]
