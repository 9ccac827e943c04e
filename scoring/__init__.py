"""tilescope's scoring core: tiles, hands, riichi and MCR valuation, verdicts.

Pure Python: never imports OpenCV, onnxruntime or anything from ``vision``.
"""
