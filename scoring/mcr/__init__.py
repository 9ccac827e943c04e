"""MCR (Chinese Official mahjong, Green Book 2006) valuation: 81 fans, the combination
principles, payments. Entry point: :func:`score_mcr`. Rule choices: ``RULES.md`` here."""
from .fans import FANS, Fan
from .score import FanCount, McrResult, McrRules, NotCompleteError, describe, score_mcr

__all__ = ["FANS", "Fan", "FanCount", "McrResult", "McrRules", "NotCompleteError", "describe", "score_mcr"]
