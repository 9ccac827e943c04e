"""Helpers for the MCR tests: build a validated HandRequest from short arguments."""
from __future__ import annotations

from scoring.hand import validate
from scoring.request import parse_request


def mcr(concealed: str, win_tile: str, melds=(), win: str = "ron", seat: str = "S", round_: str = "E", **flags):
    """A validated MCR request. ``melds``: (type, mpsz) pairs, e.g. ("pon", "777z").
    Default seat South, prevalent East (so East and South pungs score wind fans)."""
    obj = {"ruleset": "mcr", "concealed": concealed, "win_tile": win_tile, "win": win,
           "seat_wind": seat, "round_wind": round_,
           "melds": [{"type": t, "tiles": tiles} for t, tiles in melds]}
    obj.update(flags)
    req = parse_request(obj)
    validate(req)
    return req
