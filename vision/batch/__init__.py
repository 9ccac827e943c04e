"""Batch: folders of photos and hours of video scored on every core or a Ray cluster
(``run``): photos through the photo pipeline, videos cut in segments through the stream reader.
Exports ``Settings`` and ``plan``; ``vision.batch.X`` still finds what ``vision/batch.py`` held."""
from vision.common.lazy import lazy_exports

_EXPORTS = {"Settings": "run", "plan": "run"}
__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS, fallback="run")
