"""Offline: the phone page's own answers, in the browser with no server (Pyodide runs this).
The browser's reader (web/src/reader) reads the photo; ``api.answer`` answers the page's
``/api/...`` requests with the server's own Python, so a phone alone scores as the server does."""
from vision.common.lazy import lazy_exports

_EXPORTS = {"answer": "api", "BrowserReader": "reader", "BrowserPhoto": "reader", "LookNeeded": "reader"}
__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)
