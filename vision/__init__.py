"""tilescope's vision side, one package per job, each importing only the jobs before it:
``common`` → ``read`` (photo → detections) → ``layout`` (→ a hand) → ``photo`` (corrected,
judged, reported) → the programs: ``server``, ``stream``, ``batch``, ``cli``."""

from typing import TYPE_CHECKING

from vision.common.moved import install as _install_moved

_install_moved()     # vision.pipeline & co., the paths before issue 41: for one release

__all__ = ["score_photo", "check_photo", "PhotoError"]

if TYPE_CHECKING:       # for type checkers and IDEs; at run time the names load lazily below
    from vision.photo.api import check_photo, score_photo
    from vision.photo.judging import PhotoError


def __getattr__(name: str):
    # Lazy: ``import vision`` must not load OpenCV or onnxruntime (``tilescope hand`` uses it).
    if name in ("score_photo", "check_photo"):
        from vision.photo import api       # the pipeline's, its errors in the words of their arguments

        return getattr(api, name)
    if name == "PhotoError":    # what score_photo raises for a bad context, fix or winning tile
        from vision.photo.judging import PhotoError

        return PhotoError
    raise AttributeError(f"module 'vision' has no attribute {name!r}")
