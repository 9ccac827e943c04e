"""Score one hand: the Python entry points behind ``tilescope hand``.

- :func:`score_hand` takes a :class:`~scoring.hand.HandRequest` and returns a result object
  with ``.to_json()`` in the result shape of ``docs/hand-json.md`` (riichi:
  :class:`scoring.riichi.RiichiResult`; MCR: whatever ``scoring.mcr.score_mcr`` returns).
- :func:`score_json` takes one decoded JSON request and returns the result dict; it never
  raises — a malformed request, an impossible or incomplete hand gets ``"error"`` set.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .hand import HandError, HandRequest, check


@dataclass(frozen=True, slots=True)
class ErrorResult:
    """A request that could not be valued: malformed, impossible, or not a complete hand."""

    error: str
    valid: bool = False

    def to_json(self) -> dict:
        return {"valid": False, "error": self.error}


_score_riichi = None


def _riichi():
    # imported on first use so that ``import scoring.api`` stays light
    global _score_riichi
    if _score_riichi is None:
        from .riichi import score_riichi
        _score_riichi = score_riichi
    return _score_riichi


def score_hand(req: HandRequest) -> Any:
    """Value one win. Returns a result object (``.to_json()``, ``.error``).

    Checks ``req`` first (:func:`scoring.hand.check`); an impossible or incomplete hand
    returns an :class:`ErrorResult` naming the problem instead of raising. ``ruleset ==
    "mcr"`` goes to ``scoring.mcr.score_mcr``; until that module exists the result is the error
    "MCR scoring not supported yet".
    """
    try:
        tally = check(req)
        if req.ruleset == "riichi":
            return (_score_riichi or _riichi())(req, tally)
        try:
            from .mcr import score_mcr
        except ImportError:
            return ErrorResult("MCR scoring not supported yet")
        return score_mcr(req)
    except HandError as exc:
        return ErrorResult(str(exc))


def score_json(obj: Any) -> dict:
    """Value one decoded JSON request (a dict); returns the spec's result dict. Never raises:
    any problem becomes ``{"valid": false, "error": "..."}``."""
    from .request import parse_request
    try:
        req = parse_request(obj)
    except HandError as exc:
        return ErrorResult(str(exc)).to_json()
    try:
        return score_hand(req).to_json()
    except Exception as exc:  # a bug must not stop a JSON Lines run; say what happened
        return ErrorResult(f"internal error while scoring: {type(exc).__name__}: {exc}").to_json()
