"""Read: a photo → :class:`Detections` — detector, zoom windows, classifier crops, set profiles,
reflections and the four-of-a-kind counts (``detector.TileReader.read``); ``imageio`` loads it.
Exports what the layout and the photo pipeline use; OpenCV and the models load on first use."""
from vision.common.lazy import lazy_exports

_EXPORTS = {"Detection": "detections", "Detections": "detections", "TILE_CLASSES": "classes",
            "TileReader": "detector", "load_image": "imageio", "TileSet": "tileset"}
__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)
