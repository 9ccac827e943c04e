"""tilescope's scoring core: tiles, hands, riichi and MCR valuation, verdicts.

Pure Python: never imports OpenCV, onnxruntime or anything from ``vision``.
"""

from .api import ErrorResult, score_hand, score_json
from .hand import HandError, HandRequest
from .request import parse_request

__all__ = ["score_hand", "score_json", "parse_request", "HandRequest", "HandError", "ErrorResult"]
