"""tilescope's vision side: detector, layout parser, photo → score pipeline, CLI and server."""

from typing import TYPE_CHECKING

__all__ = ["score_photo", "check_photo", "PhotoError"]

if TYPE_CHECKING:       # for type checkers and IDEs; at run time the names load lazily below
    from .api import check_photo, score_photo
    from .judging import PhotoError


def __getattr__(name: str):
    # Lazy: ``import vision`` must not load OpenCV or onnxruntime (``tilescope hand`` uses it).
    if name in ("score_photo", "check_photo"):
        from . import api       # the pipeline's, its errors in the words of their arguments

        return getattr(api, name)
    if name == "PhotoError":    # what score_photo raises for a bad context, fix or winning tile
        from .judging import PhotoError

        return PhotoError
    raise AttributeError(f"module 'vision' has no attribute {name!r}")
