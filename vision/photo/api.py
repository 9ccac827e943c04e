"""The photo functions as a Python caller meets them (``vision.score_photo``,
``vision.check_photo``): :mod:`vision.photo.pipeline`'s, whose errors about ``fixes``, ``melds``
and ``win_tile`` name those arguments rather than the command line's ``--fix``, ``--meld``
and ``--win-tile`` (which the CLI, calling the pipeline itself, keeps)."""
from __future__ import annotations

from functools import wraps

from vision.photo import pipeline
from vision.layout.fixspec import in_python_words
from .judging import PhotoError


def _in_python_words(run):
    @wraps(run)
    def call(*args, **kwargs):
        try:
            return run(*args, **kwargs)
        except PhotoError as exc:
            raise PhotoError(in_python_words(str(exc))) from None
    return call


score_photo = _in_python_words(pipeline.score_photo)
check_photo = _in_python_words(pipeline.check_photo)
