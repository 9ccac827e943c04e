"""The one error the HTTP API answers with (and the phone page's own answers, ``vision.offline``): ``{"error": message, "code": short_name}`` with an HTTP status. No web framework here: the offline page imports it in Pyodide."""
from __future__ import annotations


class ApiError(Exception):
    """An error the API reports as ``{"error": message, "code": code}`` with HTTP ``status``."""

    def __init__(self, status: int, code: str, message: str, extra: dict | None = None):
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.extra = extra or {}     # more keys of the answer (``found`` of /api/set/learn)
