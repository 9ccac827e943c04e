"""Stream: a hand's value live on video — frames read again only when they change
(``frame_change``, ``read_plan``), the hand tracked (``live``), the OBS overlay and its control page.
Exports ``StreamRunner`` and ``FrameSource``; ``vision.stream.X`` still finds what ``vision/stream.py`` held."""
from vision.common.lazy import lazy_exports

_EXPORTS = {"StreamRunner": "live", "FrameSource": "live"}
__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS, fallback="live")
