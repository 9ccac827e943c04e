"""tilescope's scoring core: tiles, hands, riichi and MCR valuation, verdicts.

    from scoring import request_from_text, score_hand
    req = request_from_text("234m456p678s8s8s +pon 777z", win="tsumo", seat_wind="S")
    print(score_hand(req).to_json())

:func:`request_from_text` reads a typed hand, :func:`request_from_json` a request of
``docs/hand-json.md`` (a dict or its text); :func:`score_hand` values a :class:`HandRequest`
(or a request dict), :func:`score_json` a request dict into the result dict.
Pure Python: never imports OpenCV, onnxruntime or anything from ``vision``.
"""

from .api import ErrorResult, score_hand, score_json
from .hand import HandError, HandRequest, Meld, RiichiRules
from .request import parse_request, request_from_json, request_from_text

__all__ = ["request_from_text", "request_from_json", "score_hand", "score_json", "parse_request",
           "HandRequest", "Meld", "RiichiRules", "HandError", "ErrorResult"]
