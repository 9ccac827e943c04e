"""Score one hand: the Python entry points behind ``tilescope hand``.

- :func:`score_hand` takes a :class:`~scoring.hand.HandRequest` and returns a result object
  with ``.to_json()`` in the result shape of ``docs/hand-json.md`` (riichi:
  :class:`scoring.riichi.RiichiResult`; MCR: :class:`scoring.mcr.McrResult`).
- :func:`score_json` takes one decoded JSON request and returns the result dict; it never
  raises — a malformed request, an impossible or incomplete hand gets ``"error"`` set.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .hand import HandError, HandRequest, check

if TYPE_CHECKING:
    from .mcr import McrResult, McrRules
    from .riichi import RiichiResult


@dataclass(frozen=True, slots=True)
class ErrorResult:
    """A request that could not be valued: malformed, impossible, or not a complete hand."""

    error: str
    valid: bool = False

    def to_json(self) -> dict:
        return {"valid": False, "error": self.error}

    def __getattr__(self, name: str):
        # a valued result's fields (.han, .fu, .payment …) asked of a refused hand: say why
        # there are none, and what to check, instead of a bare "has no attribute 'han'"
        if name.startswith("__"):
            raise AttributeError(name)
        try:
            why = object.__getattribute__(self, "error")
        except AttributeError:
            raise AttributeError(name) from None
        raise AttributeError(f"{name!r}: the hand was not valued (an ErrorResult: check "
                             f"result.valid first; result.error says why: {why})")


_score_riichi = None


def _riichi():
    # imported on first use so that ``import scoring.api`` stays light
    global _score_riichi
    if _score_riichi is None:
        from .riichi import score_riichi
        _score_riichi = score_riichi
    return _score_riichi


def score_hand(req: HandRequest | dict, mcr_rules: McrRules | None = None) -> RiichiResult | McrResult | ErrorResult:
    """Value one win. Returns a result object (``.to_json()``, ``.valid``, ``.error``).

    ``req``: a :class:`HandRequest`, or a request dict as ``docs/hand-json.md`` writes it
    (read by :func:`scoring.request.parse_request`; a malformed one returns an
    :class:`ErrorResult` naming the problem). Raises ``TypeError`` for anything else.

    Checks ``req`` first (:func:`scoring.hand.check`); an impossible or incomplete hand
    returns an :class:`ErrorResult` naming the problem instead of raising. ``ruleset ==
    "riichi"``: a :class:`scoring.riichi.RiichiResult` (rule options in ``req.rules``);
    ``"mcr"``: a :class:`scoring.mcr.McrResult`, under ``mcr_rules``
    (:class:`scoring.mcr.McrRules`, the Green Book's by default: its options, such as the
    8-point minimum, are for the Python API only).
    """
    if isinstance(req, dict):
        from .request import parse_request
        try:
            req = parse_request(req)
        except HandError as exc:
            return ErrorResult(str(exc))
    elif not isinstance(req, HandRequest):
        from .request import as_request
        as_request(req, "score_hand")       # raises TypeError saying what to pass
    try:
        tally = check(req)
        if req.ruleset == "riichi":
            return (_score_riichi or _riichi())(req, tally)
        from .mcr import score_mcr
        return score_mcr(req, mcr_rules)
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
