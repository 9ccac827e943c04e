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
  less ``win_tile``, plus ``discards``) → ``tilescope waits --json`` (vision/routes/waits.py)
- ``POST /api/check`` disputed-hand JSON → verdict (``tilescope check --json``)
- ``POST /api/check-photo`` the fields of ``/api/score`` + ``table`` (JSON object: ``declared``,
  ``revealed``, ``discards``, ``tournament``, ``penalties``) → ``tilescope check PHOTO --json``
  (the verdict in ``result``; held back, ``ruling`` null, when the reader was unsure)
- ``POST /api/set/learn`` multipart ``image`` (a photo of one set's tiles), ``name``, ``tiles``
  (default ``vision.tileset.DEFAULT_SHEET``), ``trust_order`` → ``{"name", "references",
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
- ``GET /`` the phone web page (``vision/web``), ``GET /docs`` the OpenAPI page

Bounds: uploads over ``Limits.max_upload_bytes`` get 413 before they are decoded, images over
``Limits.max_pixels`` get 413 from their header alone (no decompression bomb is decoded; a JPEG
is read at 1/2, 1/4 or 1/8 scale first, as on the command line), work
that runs past ``Limits.timeout_s`` gets 504. Errors are always ``{"error": message, "code":
short_name}`` with status 400 (not an image, bad JSON), 413 (too big), 422 (well-formed JSON of
the wrong shape), 503 (model missing, or ``busy``: more photos at once than
``Limits.photos_per_worker`` per worker, answered before the upload is read) or 504 (time limit).

The detector is loaded once (lazily, on the first photo) and shared by all requests:
onnxruntime's ``InferenceSession.run`` is thread-safe, and every request works on its own
image and result values, so concurrent requests never see each other's data.
"""
from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from collections import OrderedDict
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable

from fastapi import Body, FastAPI, File, Form, Request, UploadFile
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from vision.fixspec import MAX_CODE as _MAX_CODE
from vision.fixspec import FixSpecError, fixes_from_json, in_api_words, melds_from_json
from vision.imageio import MAX_PIXELS
from vision.routes import waits as waits_routes
from scoring.tiles import quoted

WEB_DIR = Path(__file__).with_name("web")
log = logging.getLogger("tilescope.serve")


PHOTO_PATHS = ("/api/read", "/api/score", "/api/check-photo", "/api/set/learn", "/api/set/add", "/api/waits")


class BodyGuard:
    """ASGI middleware: a POST's body is read whole, before the app sees it, within
    ``max_upload_bytes`` plus ``FORM_SLACK`` for the form's other fields (413 past them,
    whether or not the client declared a Content-Length: a chunked upload is counted as it
    arrives, so nothing over the limit is held or spooled to disk) and ``timeout_s`` seconds
    (408: a phone whose upload stalled does not hold its connection, nor the server's
    shutdown, for ever). The app then reads the body from memory.
    At most ``max_photos`` photo requests (``PHOTO_PATHS``) are taken at once, from the first
    byte of their body to their answer; one more gets 503 ``busy``, its body dropped as it
    arrives (not held), so that a burst holds no more than ``max_photos`` uploads (the server
    grew to 1.2 GB under one).
    """

    FORM_SLACK = 1024 * 1024

    def __init__(self, app, max_upload_bytes: int, timeout_s: float, max_photos: int = 1 << 30):
        self.app, self.limit, self.timeout_s = app, max_upload_bytes, timeout_s
        self.max_bytes = max_upload_bytes + self.FORM_SLACK
        self.max_photos, self.photos = max_photos, 0     # one event loop: no lock needed

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] != "POST":
            return await self.app(scope, receive, send)
        if scope.get("path") not in PHOTO_PATHS:
            return await self._guarded(scope, receive, send)
        if self.photos >= self.max_photos:     # its body is read and dropped, as it arrives
            return await self._guarded(scope, receive, send, busy=True)
        self.photos += 1
        try:
            return await self._guarded(scope, receive, send)
        finally:
            self.photos -= 1

    async def _guarded(self, scope, receive, send, busy: bool = False):
        length = dict(scope["headers"]).get(b"content-length", b"")
        if length.isdigit() and int(length) > self.max_bytes:
            return await _send_error(send, 413, "file_too_large", self._too_large())
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timeout_s
        chunks, total = [], 0
        while True:
            try:
                message = await asyncio.wait_for(receive(), max(deadline - loop.time(), 0.001))
            except asyncio.TimeoutError:
                return await _send_error(send, 408, "body_timeout",
                                         f"the request body did not arrive within "
                                         f"{self.timeout_s:g} s; send it again")
            if message["type"] == "http.disconnect":
                return None
            total += len(message.get("body", b""))
            if total > self.max_bytes:
                return await _send_error(send, 413, "file_too_large", self._too_large())
            if not busy:
                chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        if busy:    # answered after the body (a browser still sending reports no answer at all)
            return await _send_error(send, 503, "busy", f"the server is reading {self.photos} "
                                     "photos, as many as it takes at once; send it again in a "
                                     "few seconds")
        body, given = b"".join(chunks), False

        async def replay():
            nonlocal given
            if not given:
                given = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()          # the client's disconnect, when it comes

        return await self.app(scope, replay, send)

    def _too_large(self) -> str:
        return f"request body is over the limit of {self.limit:,} bytes"


class _Readings:
    """What the reader saw in the last few photos, by the upload's bytes: the web page sends
    each photo to /api/score and /api/check-photo, and again with every correction, and the
    tiles seen do not change with the corrections (which apply after reading)."""

    SIZE = 8

    def __init__(self) -> None:
        self._seen: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def reader(self, reader, data: bytes, tag: tuple = ()) -> "_Readings._Memo":
        """``reader`` for the upload ``data``; ``tag`` names what else the reading depends on
        (the set read with, and its file's version): another set reads the photo anew."""
        return self._Memo(self, reader, (hashlib.blake2b(data, digest_size=16).digest(), tag))

    def _get(self, key, look: Callable):
        with self._lock:
            found = self._seen.get(key)
            if found is not None:
                self._seen.move_to_end(key)
        if found is None:
            found = look()
            with self._lock:
                self._seen[key] = found
                while len(self._seen) > self.SIZE:
                    self._seen.popitem(last=False)
        return replace(found, tiles=list(found.tiles))      # the caller's own list

    class _Memo:
        """The reader's ``read``/``look_again`` for one upload, remembered."""

        def __init__(self, owner: "_Readings", reader, digest: bytes):
            self._owner, self._reader, self._digest = owner, reader, digest
            if hasattr(reader, "look_again"):
                self.look_again = lambda array, how: owner._get(
                    (digest, "look_again", how), lambda: reader.look_again(array, how))

        def read(self, array, *args):
            return self._owner._get((self._digest, "read", args),
                                    lambda: self._reader.read(array, *args))


def trim_heap() -> None:
    """Hand the heap's free memory back to the system (glibc's ``malloc_trim``), called when
    the last job of a burst ends: glibc keeps what the decoded photos and the detector freed,
    and a server that grew to 1.2 GB under a burst stayed at 658 MB idle (139 MB at start).
    Nothing where the C library has no ``malloc_trim`` (musl, macOS)."""
    if _MALLOC_TRIM is not None:
        _MALLOC_TRIM(0)


def _malloc_trim():
    import ctypes
    import ctypes.util

    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None


_MALLOC_TRIM = _malloc_trim()


async def _send_error(send, status: int, code: str, message: str) -> None:
    """An error answer of the documented shape, sent by ASGI middleware (before the app)."""
    body = json.dumps({"error": message, "code": code}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()), (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


@dataclass(frozen=True)
class Limits:
    """Per-request bounds of the server.

    ``max_upload_bytes``: largest accepted image file (bytes). ``max_pixels``: largest image
    (width × height). ``timeout_s``: wall-clock seconds one request may spend decoding, detecting
    and scoring before it gets 504. ``workers``: threads that run detection and scoring (the
    event loop itself never blocks on them); typed hands have a thread of their own, so that
    they do not wait behind photos. ``body_timeout_s``: seconds a request's body may take to
    arrive (a phone whose upload stalled gets 408 and its connection is closed).
    ``photos_per_worker``: photo requests taken at once (being uploaded, waiting or read) per
    worker; one more gets 503 at once, so memory stays bounded by about that many uploads.
    """

    max_upload_bytes: int = 20 * 1024 * 1024
    max_pixels: int = MAX_PIXELS
    timeout_s: float = 30.0
    workers: int = 2
    body_timeout_s: float = 60.0
    photos_per_worker: int = 4


class ApiError(Exception):
    """An error the API reports as ``{"error": message, "code": code}`` with HTTP ``status``."""

    def __init__(self, status: int, code: str, message: str, extra: dict | None = None):
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.extra = extra or {}     # more keys of the answer (``found`` of /api/set/learn)


# ---- pydantic models: the documented shapes (responses are built by the pipeline/scorer) ----

class ErrorOut(BaseModel):
    """Every error answer: what was wrong, and a short code a script can test."""

    error: str = Field(description="what was wrong, in words")
    code: str = Field(description="short machine name: not_an_image, too_large, bad_json, ...")
    found: dict[str, Any] | None = Field(None, description="/api/set/learn's tile_count and "
                                         "out_of_order errors only: the tiles found, as /api/read "
                                         "answers them ({image, tiles}), in reading order "
                                         "(tile 1 first)")


class ImageSize(BaseModel):
    """The photo as read, in pixels (after EXIF rotation; a JPEG over the pixel limit is read
    at 1/2, 1/4 or 1/8 scale): the boxes are in these pixels."""

    width: int = Field(description="pixels")
    height: int = Field(description="pixels")


class TileOut(BaseModel):
    """One tile the reader found."""

    tile: str = Field(description="mpsz code (0m/0p/0s red fives, 1f..8f flowers) or 'back'")
    box: list[float] = Field(description="x1, y1, x2, y2 in pixels of the image as read (its "
                                         "size is `image`: a JPEG over the pixel limit is read "
                                         "at 1/2, 1/4 or 1/8 scale)")
    confidence: float = Field(description="0..1: the detector's score times the classifier's "
                                          "probability of this name")
    sideways: bool = Field(description="the tile lies turned across its row (a called tile)")


class ReadOut(BaseModel):
    """``/api/read``: the tiles of one photo (``tilescope read --json``)."""

    image: ImageSize
    tiles: list[TileOut]


class HandResultOut(BaseModel):
    """A hand result of ``docs/hand-json.md`` (riichi or MCR keys follow)."""

    model_config = ConfigDict(extra="allow")
    valid: bool | None = None
    error: str | None = None


class ScoreOut(BaseModel):
    """``tilescope score --json``."""

    model_config = ConfigDict(extra="allow")
    image: ImageSize
    tiles: list[TileOut]
    layout: dict[str, Any] | None = None
    request: dict[str, Any] | None = None
    result: dict[str, Any] | None = None
    warnings: list[Any] = []


class SetOut(BaseModel):
    """One named set profile (``docs/sets.md``)."""

    name: str
    references: int = Field(0, description="reference pictures it holds")
    kinds: int = Field(0, description="tile kinds they show")
    error: str | None = Field(None, description="the set's file cannot be read: why")


class SetsOut(BaseModel):
    """``/api/sets``: the named sets of the server's data folder (``tilescope set list``)."""

    sets: list[SetOut]
    server_set: str | None = Field(None, description="the set every photo is read with when "
                                                     "a request names none (serve --set)")


class DisagreementOut(BaseModel):
    """A tile of the sheet the reader names otherwise (learned as named)."""

    n: int = Field(description="the tile's number in reading order (1: top left)")
    given: str
    read: str
    confidence: float
    message: str


class SetLearnOut(BaseModel):
    """``/api/set/learn``: the set after learning."""

    name: str
    references: int = Field(description="references the set now holds")
    kinds: int = Field(description="tile kinds the set now holds")
    learned: int = Field(description="tiles learned from this photo")
    disagreements: list[DisagreementOut]
    swaps: list[dict[str, Any]] = Field(default_factory=list, description="pairs of tiles that each "
                                        "read as the other's kind: swapped on the table? "
                                        "(``tiles``: their numbers; ``message``); learned as named")


class SetChangeOut(BaseModel):
    """``/api/set/add`` and ``/api/set/undo``: the set after the change."""

    name: str
    references: int
    kinds: int
    tile: str = Field(description="the kind added (add) or dropped (undo)")
    n: int | None = Field(None, description="add: the photo's tile whose picture was added")


HAND_EXAMPLE = {
    "ruleset": "riichi",
    "concealed": "234m456p678s8s",
    "melds": [{"type": "pon", "tiles": "777z", "from": "across"}],
    "win_tile": "8s",
    "win": "tsumo",
    "seat_wind": "E",
    "round_wind": "E",
}

CHECK_EXAMPLE = {
    "ruleset": "riichi", "concealed": "234m456p678s8s",
    "melds": [{"type": "pon", "tiles": "999m", "from": "across"}],
    "win_tile": "8s", "win": "ron", "seat_wind": "S", "round_wind": "E",
    "declared": "hu", "revealed": True,
}

_ERRORS = {s: {"model": ErrorOut} for s in (400, 409, 413, 422, 503, 504)}


# ---- image bounds ----

def decode_upload(data: bytes, limits: Limits):
    """Bytes of an uploaded image → BGR ndarray (H, W, 3), EXIF orientation applied
    (``vision.imageio.decode_image``: the pixel limit is read from the header, and a JPEG over
    it is decoded at 1/2, 1/4 or 1/8 scale, as on the command line).

    Raises ApiError 400 (empty, not an image, truncated) or 413 (over ``limits.max_pixels``).
    """
    from vision.imageio import ImageError, ImageTooLarge, decode_image

    if not data:
        raise ApiError(400, "empty_file", "the uploaded file is empty")
    try:
        return decode_image(data, "the upload", max_pixels=limits.max_pixels)
    except ImageTooLarge as exc:
        raise ApiError(413, "too_many_pixels", str(exc)) from None
    except ImageError as exc:
        raise ApiError(400, "not_an_image", str(exc)) from None


_MAX_SHEET = 400    # characters of a set's tiles text (the default sheet is 48)


def _parse_json_field(name: str, text: str | None, default):
    """A JSON form field → its value; ApiError 400 when it is not JSON."""
    if text is None or text.strip() == "":
        return default
    from .jsontext import load_json

    try:
        return load_json(text.lstrip("\ufeff"))     # a byte-order mark, as the CLI reads it
    except ValueError as exc:
        raise ApiError(400, "bad_json", f"form field {name!r} is not valid JSON: {exc}") from None


def _photo_inputs(context: str | None, fixes: str | None, melds: str | None,
                  win_tile: str | None) -> tuple[dict, dict, dict, str | None]:
    """The form fields of a photo request, decoded and checked: ``(context, fixes, melds,
    winning tile)``. Raises ApiError 422 naming the field at fault."""
    ctx = _parse_json_field("context", context, {})
    if not isinstance(ctx, dict):
        raise ApiError(422, "bad_context", "context must be a JSON object of hand-request keys")
    win = (win_tile or "").strip() or None
    if win is not None and len(win) > _MAX_CODE:         # an error must not echo a megabyte back
        raise ApiError(422, "bad_win_tile", f"win_tile is one tile code such as '4m', not "
                                            f"{len(win)} characters")
    return (ctx, parse_fixes(_parse_json_field("fixes", fixes, None)),
            parse_melds(_parse_json_field("melds", melds, None)), win)


def parse_fixes(value) -> dict[int, str]:
    """Fixes as sent by the page or a script → ``{tile number (1-based): tile code}``
    (:func:`vision.fixspec.fixes_from_json`). Raises ApiError 422 naming the bad entry."""
    try:
        return fixes_from_json(value)
    except FixSpecError as exc:
        raise ApiError(422, exc.code, str(exc)) from None


def parse_melds(value) -> dict[tuple[int, int], str]:
    """Declared groups as sent by a script → ``{(first, last): type}``
    (:func:`vision.fixspec.melds_from_json`). Raises ApiError 422 naming the bad entry; types
    and sizes are checked against the photo's tiles by the pipeline (422 too)."""
    try:
        return melds_from_json(value)
    except FixSpecError as exc:
        raise ApiError(422, exc.code, str(exc)) from None


# ---- the app ----

def create_app(
    reader=None,
    limits: Limits = Limits(),
    *,
    score_photo: Callable | None = None,
    score_json: Callable | None = None,
    check_json: Callable | None = None,
    check_photo: Callable | None = None,
) -> FastAPI:
    """Build the FastAPI app.

    ``reader``: an object with ``read(image) -> vision.detections.Detections`` (a
    ``vision.detector.TileReader``); None loads the bundled model on the first photo, once.
    ``limits``: request bounds (see ``Limits``). ``score_photo``/``score_json``/``check_json``/
    ``check_photo`` replace ``vision.pipeline.score_photo``, ``scoring.api.score_json``,
    ``scoring.verdict.check_json`` and ``vision.pipeline.check_photo`` (for tests); by default
    they are imported on first use.
    """
    executor = ThreadPoolExecutor(max_workers=limits.workers, thread_name_prefix="tilescope")
    # typed hands take milliseconds: a thread of their own, not a place in the photos' queue
    typed = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tilescope-typed")

    @asynccontextmanager
    async def lifespan(_: FastAPI):
        yield
        executor.shutdown(wait=False, cancel_futures=True)
        typed.shutdown(wait=False, cancel_futures=True)

    app = FastAPI(
        title="tilescope",
        description="Photograph a mahjong hand, get its value (riichi and MCR).",
        version="0.1.0",
        lifespan=lifespan,
    )
    app.add_middleware(BodyGuard, max_upload_bytes=limits.max_upload_bytes,
                       timeout_s=limits.body_timeout_s,
                       max_photos=limits.workers * limits.photos_per_worker)
    reader_lock = threading.Lock()
    state: dict[str, Any] = {"reader": reader, "model_error": None}

    def get_reader():
        # Double-checked so that concurrent first requests load the model once.
        if state["reader"] is None:
            with reader_lock:
                if state["reader"] is None:
                    try:
                        from vision.pipeline import get_reader as shared_reader
                        state["reader"] = shared_reader()
                    except (ImportError, OSError, RuntimeError) as exc:  # ModelError is a RuntimeError
                        # the cause (a path on this server) goes to the log, not to the client
                        state["model_error"] = str(exc)
                        log.error("tilescope serve: the tile detector could not be loaded: %s", exc)
                        raise ApiError(503, "no_model", "the tile detector is not available on this "
                                                        "server (its model could not be loaded); "
                                                        "typed hands still work") from None
        return state["reader"]

    def load_model() -> str | None:
        """Load the model now (``tilescope serve`` does at start); the problem in words, or None."""
        try:
            get_reader()
        except ApiError:
            return state["model_error"]
        return None

    app.state.load_model = load_model

    def fn_score_photo():
        if score_photo is not None:
            return score_photo
        from vision.pipeline import score_photo as f
        return f

    def fn_check_photo():
        if check_photo is not None:
            return check_photo
        from vision.pipeline import check_photo as f
        return f

    readings = _Readings()
    busy, busy_lock = [0], threading.Lock()     # jobs running in the pools

    def photo_work(fn: Callable, data: bytes, inputs: tuple, extra: dict, set_name: str | None = None) -> dict:
        """Decode the upload and run ``fn`` (score_photo or check_photo) on it; a bad context,
        fix, meld or winning tile (PhotoError, validated as `tilescope hand` does) is a 422.
        The same photo sent again (the page asks /api/score, then /api/check-photo, and again
        after each tap that corrects a tile) is not read again (:class:`_Readings`)."""
        return photo_run(fn, data, inputs, extra, set_name)[0].to_json()

    def photo_run(fn: Callable, data: bytes, inputs: tuple, extra: dict, set_name: str | None):
        """:func:`photo_work`'s reading: ``(PhotoResult, image)``."""
        ctx, fix_map, meld_map, win = inputs
        reader, tag = reader_for(set_name)
        img = decode_upload(data, limits)
        try:
            result = fn(img, ctx, reader=readings.reader(reader, data, tag), fixes=fix_map or None,
                        win_tile=win, melds=meld_map or None, **extra)
        except ValueError as exc:
            raise ApiError(422, "invalid_request", in_api_words(str(exc))) from None
        return result, img

    # ---- set profiles: named sets of the data folder (vision.tileset), never files ----
    set_readers: OrderedDict = OrderedDict()    # (name, mtime_ns, size) -> reader with it
    set_readers_lock = threading.Lock()
    sets_lock = threading.Lock()                # one learn/add/undo changes a set at a time

    def set_path(name: str) -> Path:
        """The file of the named set; ApiError 422 for a name that is no set's name."""
        from vision.tileset import data_dir, is_name

        if not isinstance(name, str) or not is_name(name):
            raise ApiError(422, "bad_set_name", f"set {quoted(str(name)[:40])} is no set's name: "
                                                "letters, digits, '_', '-' or '.', at most 40")
        return data_dir() / f"{name}.npz"

    def set_reader_base():
        """The server's reader, which must be able to learn and read with sets."""
        reader = get_reader()
        if not hasattr(reader, "with_set") or not hasattr(reader, "embed"):
            raise ApiError(503, "no_sets", "this server's tile reader cannot learn or read with "
                                           "a set")
        return reader

    def reader_for(set_name: str | None) -> tuple[Any, tuple]:
        """The reader for a request's ``set`` field, and what names that reading for the memo:
        the server's own reader without one; the set is loaded once per version of its file."""
        if not set_name:
            return get_reader(), ()
        from vision.detector import ModelError
        from vision.tileset import SetError, TileSet

        path = set_path(set_name)
        try:
            st = path.stat()
        except OSError:
            from vision.tileset import data_dir
            known = ", ".join(sorted(p.stem for p in data_dir().glob("*.npz"))[:20]) or "none yet"
            raise ApiError(422, "unknown_set", f"no set named {quoted(set_name)} on this server "
                                               f"(sets learned: {known})") from None
        key = (set_name, st.st_mtime_ns, st.st_size)
        with set_readers_lock:
            found = set_readers.get(key)
            if found is not None:
                set_readers.move_to_end(key)
        if found is None:
            base = set_reader_base()
            try:
                found = base.with_set(TileSet.load(path))
            except (SetError, ModelError) as exc:
                raise ApiError(422, "bad_set", f"set {quoted(set_name)}: {exc}") from None
            with set_readers_lock:
                for old in [k for k in set_readers if k[0] == set_name]:
                    del set_readers[old]        # an older version of the same set
                set_readers[key] = found
                while len(set_readers) > 4:
                    set_readers.popitem(last=False)
        return found, key

    def set_answer(ts, **more) -> dict:
        return {"name": ts.name, "references": len(ts), "kinds": len(ts.held()), **more}

    def load_named(name: str, model: str | None = None):
        """The named set, or an empty one of that name (``model`` given) when there is none."""
        from vision.tileset import SetError, TileSet, empty

        path = set_path(name)
        if not path.exists():
            if model is None:
                raise ApiError(422, "unknown_set", f"no set named {quoted(name)} on this server")
            return path, empty(name, model)
        try:
            return path, TileSet.load(path)
        except SetError as exc:
            raise ApiError(422, "bad_set", f"set {quoted(name)}: {exc}") from None

    def save_set(ts, path: Path) -> None:
        from vision.tileset import SetError

        try:
            ts.save(path)
        except SetError as exc:
            log.error("tilescope serve: %s", exc)
            raise ApiError(500, "cannot_save", "the set could not be written on this server "
                                               "(its log says why)") from None

    def fn_score_json():
        if score_json is not None:
            return score_json
        from scoring.api import score_json as f
        return f

    def fn_check_json():
        if check_json is not None:
            return check_json
        from scoring.verdict import check_json as f
        return f

    async def run_bounded(fn: Callable, *args, pool: ThreadPoolExecutor = executor, **kwargs):
        """Run blocking ``fn`` in ``pool`` (the photo workers); ApiError 504 after
        ``limits.timeout_s``, saying whether the work had begun.

        A job still queued when its time is up never starts, so a burst of requests cannot
        leave the pool busy with answers nobody waits for.
        """
        deadline = time.monotonic() + limits.timeout_s
        started = threading.Event()

        def job():
            if time.monotonic() > deadline:
                raise ApiError(504, "timeout", "the server was too busy to start this request in time")
            started.set()
            with busy_lock:
                busy[0] += 1
            try:
                return fn(*args, **kwargs)
            finally:
                with busy_lock:
                    busy[0] -= 1
                    idle = busy[0] == 0
                if idle and pool is executor:
                    trim_heap()

        loop = asyncio.get_running_loop()
        fut = loop.run_in_executor(pool, job)
        try:
            return await asyncio.wait_for(fut, timeout=limits.timeout_s)
        except asyncio.TimeoutError:
            if not started.is_set():
                raise ApiError(504, "timeout",
                               f"the server was too busy to start this request within "
                               f"{limits.timeout_s:g} s (other photos were being read); try "
                               "again") from None
            raise ApiError(504, "timeout",
                           f"the request took longer than {limits.timeout_s:g} s and was given up "
                           "(its work may still finish in the background)") from None

    async def strict_body(request: Request) -> Any:
        """The JSON body read again as ``tilescope hand`` reads a line: a key given twice or
        NaN is refused (FastAPI's parse kept the last of two keys without a word)."""
        from .jsontext import load_json
        try:     # utf-8-sig: a byte-order mark is read past, as the command line does
            return load_json((await request.body()).decode("utf-8-sig"))
        except (ValueError, UnicodeDecodeError) as exc:
            raise ApiError(400, "bad_json", f"the request body is not valid JSON: {exc}") from None

    async def read_upload(image: UploadFile, request: Request) -> bytes:
        """The uploaded file's bytes, after checking that no form field came twice (a second
        photo or context would otherwise replace the first without a word)."""
        form = await request.form()
        twice = sorted({k for k in form.keys() if len(form.getlist(k)) > 1})
        if twice:
            raise ApiError(422, "repeated_field", f"form field {quoted(twice[0])} is sent twice: send "
                                                  "one photo, and each field once, per request")
        chunks, total = [], 0
        while True:
            chunk = await image.read(1 << 20)
            if not chunk:
                break
            total += len(chunk)
            if total > limits.max_upload_bytes:
                raise ApiError(413, "file_too_large",
                               f"upload is over the limit of {limits.max_upload_bytes:,} bytes")
            chunks.append(chunk)
        return b"".join(chunks)

    # ---- error shapes ----

    @app.exception_handler(ApiError)
    async def _api_error(_: Request, exc: ApiError):
        return JSONResponse({"error": exc.message, "code": exc.code, **exc.extra}, status_code=exc.status)

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request: Request, exc: RequestValidationError):
        errors = exc.errors()
        if request.url.path in ("/api/hand", "/api/check") and \
                "json" not in request.headers.get("content-type", ""):
            return JSONResponse({"error": f"{request.url.path} takes a JSON body (Content-Type: "
                                          "application/json), not a form or an upload; a photo "
                                          "goes to /api/score", "code": "invalid_request"},
                                status_code=422)
        if any(e.get("type") == "json_invalid" for e in errors):
            return JSONResponse({"error": "the request body is not valid JSON", "code": "bad_json"},
                                status_code=400)
        parts = []
        for e in errors:
            where = ".".join(str(p) for p in e.get("loc", ()) if p != "body") or "body"
            msg = e.get("msg", "invalid")
            if where == "image" and e.get("type") == "missing":
                # most often a photo sent as the raw body, not as a form's file field
                msg = ("a photo is sent as the form field 'image' of a multipart/form-data "
                       "request (curl -F image=@photo.jpg), not as the raw body")
            elif where == "image":      # a text field named image: pydantic's words name classes
                msg = ("send the photo as a file (curl -F image=@photo.jpg, with the @), "
                       "not as text")
            parts.append(f"{where}: {msg}")
        return JSONResponse({"error": "; ".join(parts), "code": "invalid_request"}, status_code=422)

    @app.exception_handler(Exception)
    async def _bug(_: Request, exc: Exception):
        # anything else is a bug in tilescope: still the documented error shape, not a bare 500
        return JSONResponse({"error": f"internal error ({type(exc).__name__}): this is a bug in "
                                      "tilescope; please report it with the photo or request",
                             "code": "internal"}, status_code=500)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException):
        if exc.status_code == 400 and request.url.path in ("/api/hand", "/api/check"):
            # FastAPI's own parse of the body failed where json does (nesting, a number of
            # thousands of digits, bytes that are not UTF-8): the documented code
            return JSONResponse({"error": "the request body is not valid JSON (not UTF-8 text, "
                                          "nested too deep, or a number too long to read)",
                                 "code": "bad_json"}, status_code=400)
        return JSONResponse({"error": str(exc.detail), "code": f"http_{exc.status_code}"},
                            status_code=exc.status_code)

    # ---- endpoints ----

    @app.post("/api/read", response_model=None, responses={200: {"model": ReadOut}, **_ERRORS},
              summary="Detect the tiles in a photo")
    async def api_read(request: Request, image: UploadFile = File(..., description="JPEG/PNG/WebP photo"),
                       set_name: str | None = Form(None, alias="set", description="read with this named set "
                                      "(GET /api/sets; default: the server's own, serve --set)"),):
        """The tiles in the photo: class, box (pixels of the image as read, whose size is
        ``image``), confidence, sideways."""
        data = await read_upload(image, request)

        def work():
            reader, _ = reader_for(set_name)
            img = decode_upload(data, limits)
            return reader.read(img).to_json()

        return JSONResponse(await run_bounded(work))

    @app.post("/api/score", response_model=None, responses={200: {"model": ScoreOut}, **_ERRORS},
              summary="Photo of a winning hand → its value")
    async def api_score(
        request: Request,
        image: UploadFile = File(..., description="JPEG/PNG/WebP photo of the hand"),
        context: str | None = Form(None, description='JSON object, e.g. {"ruleset": "riichi", '
                                                      '"win": "ron", "seat_wind": "S"}'),
        fixes: str | None = Form(None, description='JSON object {"3": "5p"}: tile 3 is really 5p'),
        melds: str | None = Form(None, description='JSON object {"9-11": "chi"}: tiles 9-11 are an '
                                                    'exposed chi ("concealed": part of the hand)'),
        win_tile: str | None = Form(None, description="the winning tile, when the photo does not show it apart"),
        set_name: str | None = Form(None, alias="set", description="read with this named set "
                                      "(GET /api/sets; default: the server's own, serve --set)"),
    ):
        """Recognised tiles, layout, the hand request and its score (``tilescope score --json``)."""
        data = await read_upload(image, request)
        inputs = _photo_inputs(context, fixes, melds, win_tile)
        return JSONResponse(await run_bounded(photo_work, fn_score_photo(), data, inputs, {}, set_name))

    @app.post("/api/check-photo", response_model=None, responses={200: {"model": ScoreOut}, **_ERRORS},
              summary="Verdict on a disputed win, from a photo of the hand")
    async def api_check_photo(
        request: Request,
        image: UploadFile = File(..., description="JPEG/PNG/WebP photo of the hand"),
        context: str | None = Form(None, description="as for /api/score"),
        fixes: str | None = Form(None, description="as for /api/score"),
        melds: str | None = Form(None, description="as for /api/score"),
        win_tile: str | None = Form(None, description="as for /api/score"),
        table: str | None = Form(None, description='JSON object of what happened at the table: '
                                                    '{"declared": "hu", "revealed": true, "discards": '
                                                    '"19m5p", "tournament": false, "penalties": {...}}'),
        set_name: str | None = Form(None, alias="set", description="as for /api/score"),
    ):
        """``tilescope check PHOTO --json``: the photo read as ``/api/score`` reads it, then the
        referee's verdict in ``result`` (``ruling``, ``valid``, ``penalty``, ``explanation``).
        A ruling against the player on tiles the reader was unsure of is held back:
        ``ruling`` null and ``error`` "Cannot rule from this photo: …", naming the tiles."""
        from scoring.hand import HandError
        from scoring.verdict import DECLARED_WINS, split_table_keys

        data = await read_upload(image, request)
        inputs = _photo_inputs(context, fixes, melds, win_tile)
        facts = _parse_json_field("table", table, {})
        if not isinstance(facts, dict):
            raise ApiError(422, "bad_table", "table must be a JSON object")
        try:
            rest, kw = split_table_keys(facts)
        except HandError as exc:
            raise ApiError(422, "bad_table", f"table: {exc}") from None
        if kw.get("declared", "hu") not in DECLARED_WINS:
            raise ApiError(422, "bad_table", f"table: declared {quoted(kw['declared'])}: only a declared "
                                             "win ('hu', or 'ron'/'tsumo' as the context's win) is "
                                             "ruled on")
        if kw.pop("count_as_typed", False):
            # a photo's count is no typing: one that does not add up holds the ruling back
            raise ApiError(422, "bad_table", "table: count_as_typed is for typed hands "
                                             "(/api/check): a photo whose tiles do not add up "
                                             "is not ruled on; count the tiles at the table and "
                                             "send the hand to /api/check")
        if rest:
            raise ApiError(422, "bad_table", f"table: unknown key {quoted(sorted(rest)[0])} (declared, "
                                             "revealed, discards, tournament, penalties; the "
                                             "hand's own keys go in context)")
        kw["discards"] = facts.get("discards", "")
        return JSONResponse(await run_bounded(photo_work, fn_check_photo(), data, inputs, kw, set_name))

    @app.post("/api/set/learn", response_model=None, responses={200: {"model": SetLearnOut}, **_ERRORS},
              summary="Teach a set from a photo of its tiles")
    async def api_set_learn(
        request: Request,
        image: UploadFile = File(..., description="photo of one set's tiles, face up, in rows"),
        name: str = Form(..., description="the set's name (letters, digits, _ - .); added to "
                                          "when it exists"),
        tiles: str | None = Form(None, description="the tiles in reading order (rows top to "
                                                   "bottom, each left to right), mpsz; default "
                                                   "the reference sheet of docs/sets.md"),
        trust_order: bool = Form(False, description="learn a sheet even when most of its tiles "
                                                    "read as other kinds than named"),
    ):
        """``tilescope set learn PHOTO --name NAME``: one reference per tile of the photo, added
        to the named set of the server's data folder. The tiles found must be as many as
        ``tiles`` names (else 422 ``tile_count``), and a sheet whose tiles mostly read as other
        kinds than named is refused (422 ``out_of_order``) unless ``trust_order``; both errors
        carry ``found``, the tiles found in reading order. A tile the reader names otherwise is
        learned as named and listed in ``disagreements``; two that each read as the other's
        kind (swapped on the table?) are also listed in ``swaps``."""
        from vision.set_learning import parse_sheet
        from vision.tileset import DEFAULT_SHEET, SetError

        data = await read_upload(image, request)
        path = set_path(name)
        text = DEFAULT_SHEET if tiles is None or not tiles.strip() else tiles
        if len(text) > _MAX_SHEET:
            raise ApiError(422, "bad_tiles", f"tiles is {len(text)} characters; a sheet is named in "
                                             f"at most {_MAX_SHEET}")
        try:
            kinds = parse_sheet(text)
        except SetError as exc:
            raise ApiError(422, "bad_tiles", str(exc).replace("--tiles", "tiles")) from None
        source = Path(image.filename or "").name[:60] or "upload"

        def work():
            from vision.set_learning import learn_sheet

            reader = set_reader_base()
            img = decode_upload(data, limits)
            with sets_lock:
                _, into = load_named(name, model=reader.model_id)
                try:
                    learned = learn_sheet(reader, img, kinds, into=into if len(into) else None,
                                          name=name, source=f"web {source}", trust_order=trust_order)
                except SetError as exc:
                    dets = getattr(exc, "detections", None)
                    if dets is None:
                        raise ApiError(422, "set_error", str(exc)) from None
                    found = dets.to_json()
                    if len(dets.tiles) != len(kinds):
                        raise ApiError(422, "tile_count", (
                            f"found {len(dets.tiles)} tiles in the photo, but tiles names "
                            f"{len(kinds)}: lay the tiles apart on a plain surface, in rows, and "
                            "name each once (found: the tiles found, numbered in reading order)"),
                            {"found": found}) from None
                    message = (str(exc).replace("--trust-order", "trust_order")
                               .replace("the --tiles text", "the tiles field"))
                    raise ApiError(422, "out_of_order", message, {"found": found}) from None
                save_set(learned.tileset, path)
            return set_answer(learned.tileset, learned=len(kinds), disagreements=[
                {"n": d.index + 1, "given": d.given, "read": d.read,
                 "confidence": round(d.confidence, 4), "message": str(d)}
                for d in learned.disagreements], swaps=[
                {"tiles": [d.index + 1, e.index + 1], "message": (
                    f"tiles {d.index + 1} and {e.index + 1} may be swapped: {d.index + 1} was named "
                    f"{d.given} and reads as {d.read}, {e.index + 1} was named {e.given} and reads "
                    f"as {e.read}; learned as named")} for d, e in learned.swaps])

        return JSONResponse(await run_bounded(work))

    @app.get("/api/sets", response_model=SetsOut, responses={200: {"model": SetsOut}},
             summary="The named sets")
    async def api_sets():
        """The named sets of the server's data folder, each with its size (``tilescope set
        list``), and the set photos are read with when a request names none."""
        def work():
            from vision.tileset import SetError, listed

            out = []
            for name, ts in listed():
                out.append({"name": name, "error": str(ts)} if isinstance(ts, SetError)
                           else set_answer(ts, name=name))
            own = getattr(state["reader"], "tileset", None)
            return {"sets": out, "server_set": getattr(own, "name", None)}

        return JSONResponse(await run_bounded(work, pool=typed))

    @app.post("/api/set/add", response_model=None, responses={200: {"model": SetChangeOut}, **_ERRORS},
              summary="Add a corrected tile of a photo to a set")
    async def api_set_add(
        request: Request,
        image: UploadFile = File(..., description="the photo, as sent to /api/score"),
        name: str = Form(..., description="the set to add to (made when new)"),
        n: int = Form(..., description="the tile's number, as /api/score's answer numbers it"),
        tile: str = Form(..., description="what the tile really is: a tile code such as '5p'"),
        context: str | None = Form(None, description="as sent to /api/score (tile numbers depend on it)"),
        fixes: str | None = Form(None, description="as for /api/score"),
        melds: str | None = Form(None, description="as for /api/score"),
        win_tile: str | None = Form(None, description="as for /api/score"),
        set_name: str | None = Form(None, alias="set", description="the set the photo was read "
                                                                   "with (default: the set added to, "
                                                                   "if it exists)"),
    ):
        """``--fix N=TILE --learn NAME``: the photo is read as ``/api/score`` reads it (the same
        fields; an answer given a moment ago is not read again) and tile ``n``'s picture is added
        to the named set as ``tile``. Answers the set's new size; ``/api/set/undo`` takes it
        back."""
        from vision.classes import CLASS_INDEX

        data = await read_upload(image, request)
        path = set_path(name)
        code = tile.strip()
        if code not in CLASS_INDEX:
            raise ApiError(422, "bad_tile", f"tile {quoted(code[:_MAX_CODE])} is not a tile code "
                                            "such as '5p', '7z', '0p', '1f' or 'back'")
        inputs = _photo_inputs(context, fixes, melds, win_tile)
        read_with = set_name or (name if path.exists() else None)

        def work():
            from vision.set_learning import learn_tile
            from vision.tileset import SetError

            reader = set_reader_base()
            photo, img = photo_run(fn_score_photo(), data, inputs, {}, read_with)
            order = photo.layout.order
            d = order[n - 1] if 0 < n <= len(order) else None
            if d is None or (n in inputs[1] and d.tile != code):
                same = [t for t in order if t.tile == code and t.confidence == 1.0]
                d = same[0] if len(same) == 1 else None
            if d is None:
                raise ApiError(422, "no_such_tile", f"the photo has no tile {n} (it has "
                                                    f"{len(order)}): nothing was added")
            with sets_lock:
                _, ts = load_named(name, model=reader.model_id)
                try:
                    ts = learn_tile(reader, img, d, code, ts, f"web fix {n}={code}")
                except SetError as exc:
                    raise ApiError(422, "set_error", str(exc)) from None
                save_set(ts, path)
            return set_answer(ts, tile=code, n=n)

        return JSONResponse(await run_bounded(work))

    @app.post("/api/set/undo", response_model=None, responses={200: {"model": SetChangeOut}, **_ERRORS},
              summary="Drop the last reference added to a set")
    async def api_set_undo(
        request: Request,
        name: str = Form(..., description="the set"),
        expect: int | None = Form(None, description="the size /api/set/add answered: the undo is "
                                                    "refused (409) when the set changed since"),
    ):
        """Undo of ``/api/set/add``: the set without its last reference."""
        def work():
            with sets_lock:
                path, ts = load_named(name)
                if not len(ts):
                    raise ApiError(422, "empty_set", f"set {quoted(name)} holds no reference to drop")
                if expect is not None and expect != len(ts):
                    raise ApiError(409, "set_changed", f"set {quoted(name)} holds {len(ts)} "
                                                       f"references, not {expect}: it changed "
                                                       "since, and nothing was dropped")
                dropped = ts.kinds[-1]
                ts = ts.without_last(1)
                save_set(ts, path)
            return set_answer(ts, tile=dropped)

        return JSONResponse(await run_bounded(work, pool=typed))

    @app.post("/api/hand", response_model=None,
              responses={200: {"model": HandResultOut}, **_ERRORS},
              summary="Score a typed hand (hand JSON)")
    async def api_hand(request: Request, hand: dict[str, Any] = Body(..., examples=[HAND_EXAMPLE])):
        """Score one hand request of ``hand-json.md`` (riichi or MCR). A hand that is malformed
        or incomplete still answers 200 with ``error`` set in the result, as ``tilescope hand``."""
        return JSONResponse(await run_bounded(fn_score_json(), await strict_body(request), pool=typed))

    @app.post("/api/check", response_model=None,
              responses={200: {"model": HandResultOut}, **_ERRORS},
              summary="Verdict on a disputed win")
    async def api_check(request: Request, claim: dict[str, Any] = Body(..., examples=[CHECK_EXAMPLE])):
        """The referee's verdict on a declared win (false hu, chombo, furiten), as
        ``tilescope check --json``: a hand request plus the table keys ``declared`` ("hu"),
        ``revealed``, ``discards`` (the winner's own, mpsz, for furiten), ``tournament``,
        ``penalties``, ``count_as_typed`` (a tile count that is not a hand's is what the player
        holds: rule on it; else it is an error, most often a typing slip). Answers
        ``{"ruleset", "ruling", "valid", "penalty", "result", "explanation", "error"}``."""
        return JSONResponse(await run_bounded(fn_check_json(), await strict_body(request), pool=typed))

    waits_routes.install(app, SimpleNamespace(read_upload=read_upload, run_bounded=run_bounded, strict_body=strict_body, reader_for=reader_for, readings=readings, limits=limits, typed=typed, ApiError=ApiError, errors=_ERRORS, json_field=_parse_json_field, decode_upload=decode_upload, parse_fixes=parse_fixes, parse_melds=parse_melds))  # noqa: E501

    @app.get("/api/health", summary="Liveness and limits")
    async def api_health():
        # ok: the server answers; photos need model_loaded (model_error: why not, once tried)
        return {"ok": True, "model_loaded": state["reader"] is not None,
                "model_error": None if state["model_error"] is None else "the tile detector could "
                               "not be loaded: photo requests get 503 (the server's log says why)",
                "limits": {"max_upload_bytes": limits.max_upload_bytes,
                           "max_pixels": limits.max_pixels, "timeout_s": limits.timeout_s}}

    @app.api_route("/", methods=["GET", "HEAD"], include_in_schema=False)
    async def index():      # HEAD too: uptime checks use it
        return FileResponse(WEB_DIR / "index.html", media_type="text/html")

    @app.get("/favicon.ico", include_in_schema=False)
    async def favicon():
        return Response(status_code=204)

    app.mount("/static", StaticFiles(directory=WEB_DIR), name="static")
    return app
