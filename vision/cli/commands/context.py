"""``--context``: the table's facts as request keys, a JSON object or a file holding one (one
reader for every verb that takes it)."""
from __future__ import annotations

import os


class UsageError(ValueError):
    """A flag or context the user must correct (exit 2); a malformed ``--fix``/``--meld`` is a
    :class:`vision.layout.fixspec.FixSpecError`, caught alike."""


def load_context(text: str | None) -> dict:
    """``--context``: a JSON object, or the path of a file holding one. Raises UsageError."""
    if not text:
        return {}
    raw = text
    looks_like_json = text.lstrip().startswith(("{", "[", '"'))
    if not looks_like_json:
        if not os.path.exists(text):
            raise UsageError(f"--context: {text}: no such file (give a file or a JSON object "
                             "such as '{\"win\": \"ron\"}')")
        try:
            with open(text, encoding="utf-8-sig") as fh:
                raw = fh.read()
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageError(f"--context: cannot read {text}: {getattr(exc, 'strerror', None) or exc}") from None
    from vision.common.jsontext import load_json

    try:
        obj = load_json(raw)
    except ValueError as exc:
        where = f"in {text}" if not looks_like_json else "not valid JSON"
        raise UsageError(f"--context: {where} ({exc})") from None
    if not isinstance(obj, dict):
        raise UsageError("--context: must be a JSON object of hand-request keys")
    return obj
