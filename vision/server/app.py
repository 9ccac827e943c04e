"""HTTP API and web page of ``tilescope serve`` (FastAPI).

Endpoints (all JSON; the result shapes are those of the CLI's ``--json``):

- ``POST /api/read``  multipart ``image`` → ``{"image": {...}, "tiles": [...]}`` (``tilescope read``)
- ``POST /api/score`` multipart ``image`` + optional ``context`` (JSON object of the hand-JSON
  request keys other than the tiles), ``fixes`` (JSON object ``{"3": "5p"}``: 1-based tile
  number → corrected tile, as ``--fix 3=5p``), ``melds`` (JSON object ``{"9-11": "chi"}``:
  tiles 9 to 11 are an exposed chi, as ``--meld 9-11=chi``) and ``win_tile`` → the
  ``tilescope score --json``
  result ``{"image", "tiles", "layout", "request", "result", "warnings"}``
- ``POST /api/hand``  hand JSON (``docs/hand-json.md``) → its result, never an HTTP error
  for a bad hand: the result's ``error`` says what is wrong, as in ``tilescope hand``
- ``POST /api/waits`` a hand in play, typed (JSON) or a photo (the fields of ``/api/score``
  less ``win_tile``, plus ``discards``) → ``tilescope waits --json`` (vision/server/routes/waits.py)
- ``POST /api/check`` disputed-hand JSON → verdict (``tilescope check --json``)
- ``POST /api/check-photo`` the fields of ``/api/score`` + ``table`` (JSON object: ``declared``,
  ``revealed``, ``discards``, ``tournament``, ``penalties``) → ``tilescope check PHOTO --json``
  (the verdict in ``result``; held back, ``ruling`` null, when the reader was unsure)
- ``POST /api/set/learn`` multipart ``image`` (a photo of one set's tiles), ``name``, ``tiles``
  (default ``vision.read.tileset.DEFAULT_SHEET``), ``trust_order`` → ``{"name", "references",
  "kinds", "learned", "disagreements", "swaps"}``: learned into the named set of the server's
  data folder (``tilescope set learn PHOTO --name NAME``); a count that does not match, or a
  sheet whose tiles mostly read as other kinds, is a 422 whose ``found`` holds the tiles found
- ``GET /api/sets`` the named sets and their sizes (``tilescope set list``)
- ``POST /api/set/add`` the fields of ``/api/score`` + ``name``, ``n`` (the tile's number, as
  the answer numbers the tiles) and ``tile`` → the set's new size: tile n's picture added to
  the set as that tile (``--fix N=TILE --learn NAME``); ``POST /api/set/undo`` ``name``
  (and ``expect``, the size the add answered) → the size with the last reference dropped
- ``set`` (a set's name) on ``/api/read``, ``/api/score``, ``/api/check-photo`` (and
  ``/api/set/add``): read the photo with that set (``--set NAME``) instead of the server's
  own (``tilescope serve --set``, else none); only named sets, never files, over HTTP
- ``GET /`` the phone web page (``vision/server/web``), ``GET /docs`` and ``/redoc`` the OpenAPI pages (served offline)
- ``GET /phone/`` the offline phone site (``web/build.mjs``, when ``site_dir`` is given): the
  page runs the rules in the browser and keeps working with the network off

Bounds: uploads over ``Limits.max_upload_bytes`` get 413 before they are decoded, images over
``Limits.max_pixels`` get 413 from their header alone (no decompression bomb is decoded; a JPEG
is read at 1/2, 1/4 or 1/8 scale first, as on the command line), work
that runs past ``Limits.timeout_s`` gets 504. Errors are always ``{"error": message, "code":
short_name}`` with status 400 (not an image, bad JSON), 408 (a body that did not arrive within
``Limits.body_timeout_s``), 413 (too big), 415 (a write that is not JSON or multipart), 422
(well-formed JSON of the wrong shape), 403 (a write from another site), 503 (model missing, or
``busy`` with ``Retry-After``: the line of ``Limits.queue_length`` photos waiting is full, or
one waited ``Limits.queue_wait_s``) or 504 (time limit). A request's body is read whole before
it takes its place in line (vision/server/routes/guard.py), so a slow upload holds no worker.

The detector is loaded once (lazily, on the first photo) and shared by all requests:
onnxruntime's ``InferenceSession.run`` is thread-safe, and every request works on its own
image and result values, so concurrent requests never see each other's data.

This module assembles the app; the routes live in :mod:`vision.server.routes`, one module per job,
each added by its ``install(app, state)`` with the one :class:`ServerState` they share.
"""
from __future__ import annotations

from typing import Callable, Sequence

from fastapi import FastAPI

from vision.layout.fixspec import in_api_words
from .routes import apidocs
from .routes import errors
from .routes import game
from .routes import photos
from .routes import sets
from .routes import site
from .routes import typed
from .routes import waits
from vision.server.routes.errors import ApiError
from vision.server.routes.guard import BodyGuard
from vision.server.routes.origin import Pairing, protect
from vision.server.routes.queue import Gate
from vision.server.routes.site import WEB_DIR
from vision.server.routes.state import Limits, Scorers, ServerState

__all__ = ["ApiError", "BodyGuard", "Limits", "ServerState", "WEB_DIR", "create_app",
           "in_api_words"]


def create_app(
    reader=None,
    limits: Limits = Limits(),
    *,
    score_photo: Callable | None = None,
    score_json: Callable | None = None,
    check_json: Callable | None = None,
    check_photo: Callable | None = None,
    allowed_hosts: Sequence[str] | None = None,
    pairing: Pairing | None = None,
    site_dir: str | None = None,
) -> FastAPI:
    """Build the FastAPI app.

    ``reader``: an object with ``read(image) -> vision.read.detections.Detections`` (a
    ``vision.read.detector.TileReader``); None loads the bundled model on the first photo, once.
    ``limits``: request bounds (see ``Limits``). ``score_photo``/``score_json``/``check_json``/
    ``check_photo`` replace ``vision.photo.pipeline.score_photo``, ``scoring.api.score_json``,
    ``scoring.verdict.check_json`` and ``vision.photo.pipeline.check_photo`` (for tests); by default
    they are imported on first use. ``allowed_hosts``: the ``Host`` names answered
    (``vision.server.routes.origin.known_hosts``; ``tilescope serve`` passes them); None: any.
    ``pairing``: writes only from clients paired with its code (``serve`` on a non-loopback
    ``--host``). ``site_dir``: a built offline phone site (``web/build.mjs``) served at
    ``/phone/`` (``serve --site``); None: none.
    """
    state = ServerState(limits, reader, Scorers(score_photo=score_photo, check_photo=check_photo,
                                                score_json=score_json, check_json=check_json))
    app = FastAPI(
        title="tilescope",
        description="Photograph a mahjong hand, get its value (riichi and MCR).",
        version="0.1.0",
        lifespan=state.lifespan,
        **apidocs.app_kwargs(),     # /docs and /redoc without a CDN (vision/server/routes/apidocs.py)
    )
    app.add_middleware(BodyGuard, max_upload_bytes=limits.max_upload_bytes,
                       timeout_s=limits.body_timeout_s,
                       photos=Gate(limits.workers, limits.queue_length, limits.queue_wait_s, "photos"),
                       others=Gate(limits.other_slots, limits.other_queue_length,
                                   limits.queue_wait_s),
                       max_body_bytes=limits.max_body_bytes, max_held_bytes=limits.max_held_bytes)
    protect(app, allowed_hosts, pairing)    # writes from this server's pages only; known Hosts
    app.state.load_model = state.load_model     # tilescope serve loads the model at start
    errors.install(app)
    apidocs.install(app)
    photos.install(app, state)
    sets.install(app, state)
    typed.install(app, state)
    waits.install(app, state)         # a hand in play: /api/waits
    game.install(app, state)          # the table mode: /api/games…, /table
    site.install(app, state, site_dir)
    return app
