"""Server: the HTTP API and web pages (``app.create_app``, ``routes/``, ``web/``) over the photo
pipeline, and a game's file and ledger (``game_file``, ``ledger``) the table pages keep.
Exports ``create_app`` and ``Limits``; ``vision.server.X`` still finds what ``vision/server.py`` held."""
from vision.common.lazy import lazy_exports

_EXPORTS = {"create_app": "app", "Limits": "app"}
__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS, fallback="app")
