"""The one value every route of the HTTP server shares: :class:`ServerState`.

It holds the server's limits, its tile reader (the bundled model, loaded once on the first
photo, shared by all requests: onnxruntime's ``InferenceSession.run`` is thread-safe, and every
request works on its own image and result values), the threads that do the work, the memo of
recent readings and the set profiles' storage. Each route module's ``install(app, state)``
takes it; nothing else is shared between requests.
"""
from __future__ import annotations

import importlib
import logging
import threading
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Callable

from vision.layout.fixspec import in_api_words
from vision.read.imageio import MAX_PIXELS

from .errors import ApiError
from .inputs import PhotoInputs, decode_upload
from .readings import Readings
from .setstore import SetStore
from .workers import Workers

log = logging.getLogger("tilescope.serve")


@dataclass(frozen=True)
class Limits:
    """Per-request bounds of the server.

    ``max_upload_bytes``: largest accepted image file (bytes). ``max_pixels``: largest image
    (width × height). ``timeout_s``: wall-clock seconds one request may spend decoding, detecting
    and scoring before it gets 504. ``workers``: threads that run detection and scoring (the
    event loop itself never blocks on them); typed hands have a thread of their own, so that
    they do not wait behind photos. ``body_timeout_s``: seconds a request's body may take to
    arrive (a phone whose upload stalled gets 408 and its connection is closed).
    ``queue_length``: photos that may wait in line, once their upload has arrived, for a
    worker (in the order they arrived); ``queue_wait_s``: how long one may wait there. A photo
    finding the line full, or waiting longer, gets 503 ``busy`` with ``Retry-After``.
    ``max_body_bytes``: largest body of a request that is not a photo (a typed hand, a game
    event, a set's undo); ``other_slots`` of those are at work at once, the rest wait in a line
    of ``other_queue_length`` as photos do. ``max_held_bytes``: the bodies of all requests
    held at once (read, waiting or at work); past it, 503 ``busy``.
    """

    max_upload_bytes: int = 20 * 1024 * 1024
    max_pixels: int = MAX_PIXELS
    timeout_s: float = 30.0
    workers: int = 2
    body_timeout_s: float = 60.0
    queue_length: int = 256
    queue_wait_s: float = 60.0
    max_body_bytes: int = 1024 * 1024
    other_slots: int = 4
    other_queue_length: int = 64
    max_held_bytes: int = 256 * 1024 * 1024


@dataclass(frozen=True)
class Scorers:
    """What the routes call to read and score: None is the real one (``vision.photo.pipeline``'s
    ``score_photo``/``check_photo``, ``scoring.api.score_json``, ``scoring.verdict.check_json``),
    imported on first use; tests pass fakes."""

    score_photo: Callable | None = None
    check_photo: Callable | None = None
    score_json: Callable | None = None
    check_json: Callable | None = None

    def get(self, name: str) -> Callable:
        given = getattr(self, name)
        if given is not None:
            return given
        module = {"score_photo": "vision.photo.pipeline", "check_photo": "vision.photo.pipeline",
                  "score_json": "scoring.api", "check_json": "scoring.verdict"}[name]
        return getattr(importlib.import_module(module), name)


@dataclass(eq=False)
class ServerState:
    """The server's shared state. ``reader``: an object with ``read(image) ->
    vision.read.detections.Detections`` (a ``vision.read.detector.TileReader``); None loads the bundled
    model on the first photo, once (``model_error`` then says why it could not be)."""

    limits: Limits = Limits()
    reader: Any = None
    scorers: Scorers = Scorers()
    model_error: str | None = field(default=None, init=False)
    workers: Workers = field(init=False)
    readings: Readings = field(init=False, default_factory=Readings)
    sets: SetStore = field(init=False)
    _reader_lock: Any = field(init=False, default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        self.workers = Workers(self.limits.workers, self.limits.timeout_s)
        self.sets = SetStore(self.get_reader)

    @asynccontextmanager
    async def lifespan(self, _app):
        """The app's lifespan: at shutdown, the jobs still queued are dropped."""
        yield
        self.workers.shutdown()

    def get_reader(self):
        """The server's reader; ApiError 503 when the bundled model cannot be loaded."""
        # Double-checked so that concurrent first requests load the model once.
        if self.reader is None:
            with self._reader_lock:
                if self.reader is None:
                    try:
                        from vision.photo.pipeline import get_reader as shared_reader
                        self.reader = shared_reader()
                    except (ImportError, OSError, RuntimeError) as exc:  # ModelError is a RuntimeError
                        # the cause (a path on this server) goes to the log, not to the client
                        self.model_error = str(exc)
                        log.error("tilescope serve: the tile detector could not be loaded: %s", exc)
                        raise ApiError(503, "no_model", "the tile detector is not available on this "
                                                        "server (its model could not be loaded); "
                                                        "typed hands still work") from None
        return self.reader

    def load_model(self) -> str | None:
        """Load the model now (``tilescope serve`` does at start); the problem in words, or None."""
        try:
            self.get_reader()
        except ApiError:
            return self.model_error
        return None

    def decode(self, data: bytes):
        """The upload's image, within the pixel limit (:func:`.inputs.decode_upload`)."""
        return decode_upload(data, self.limits.max_pixels)

    def photo_json(self, name: str, data: bytes, inputs: PhotoInputs, extra: dict,
                   set_name: str | None = None) -> dict:
        """The answer of scorer ``name`` (score_photo or check_photo) for the upload: see
        :meth:`photo_run`."""
        return self.photo_run(name, data, inputs, extra, set_name)[0].to_json()

    def photo_run(self, name: str, data: bytes, inputs: PhotoInputs, extra: dict,
                  set_name: str | None):
        """Decode the upload and run scorer ``name`` (score_photo or check_photo) on it:
        ``(PhotoResult, image)``. A bad context, fix, meld or winning tile (PhotoError, checked
        as `tilescope hand` does) is a 422. The same photo sent again (the page asks
        /api/score, then /api/check-photo, and again after each tap that corrects a tile) is
        not read again (:class:`.readings.Readings`)."""
        reader, tag = self.sets.reader_for(set_name)
        img = self.decode(data)
        try:
            result = self.scorers.get(name)(
                img, inputs.context, reader=self.readings.reader(reader, data, tag),
                fixes=inputs.fixes or None, win_tile=inputs.win_tile, melds=inputs.melds or None,
                **extra)
        except ValueError as exc:
            raise ApiError(422, "invalid_request", in_api_words(str(exc))) from None
        return result, img
