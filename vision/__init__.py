"""tilescope's vision side: detector, layout parser, photo → score pipeline, CLI and server."""

__all__ = ["score_photo", "check_photo"]


def __getattr__(name: str):
    # Lazy: ``import vision`` must not load OpenCV or onnxruntime (``tilescope hand`` uses it).
    if name in ("score_photo", "check_photo"):
        from . import pipeline

        return getattr(pipeline, name)
    raise AttributeError(f"module 'vision' has no attribute {name!r}")
