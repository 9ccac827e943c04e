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
- ``POST /api/check`` disputed-hand JSON → verdict (``tilescope check --json``)
- ``POST /api/check-photo`` the fields of ``/api/score`` + ``table`` (JSON object: ``declared``,
  ``revealed``, ``discards``, ``tournament``, ``penalties``) → ``tilescope check PHOTO --json``
  (the verdict in ``result``; held back, ``ruling`` null, when the reader was unsure)
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
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from collections import OrderedDict
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable

from fastapi import Body, FastAPI, File, Form, Request, UploadFile
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from vision.imageio import MAX_PIXELS
from scoring.tiles import quoted
from vision.jsontext import small_int

WEB_DIR = Path(__file__).with_name("web")
log = logging.getLogger("tilescope.serve")


PHOTO_PATHS = ("/api/read", "/api/score", "/api/check-photo")


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

    def reader(self, reader, data: bytes) -> "_Readings._Memo":
        return self._Memo(self, reader, hashlib.blake2b(data, digest_size=16).digest())

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

    def __init__(self, status: int, code: str, message: str):
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


# ---- pydantic models: the documented shapes (responses are built by the pipeline/scorer) ----

class ErrorOut(BaseModel):
    """Every error answer: what was wrong, and a short code a script can test."""

    error: str = Field(description="what was wrong, in words")
    code: str = Field(description="short machine name: not_an_image, too_large, bad_json, ...")


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

_ERRORS = {s: {"model": ErrorOut} for s in (400, 413, 422, 503, 504)}


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


_MAX_CODE = 8       # characters of a tile code or a winning tile sent in a form field


# the command line's options as an API caller writes them (a message names what was sent)
_API_WORDS = (
    # an error names the option it is about before ": ", whatever the value sent ("5p?", "a b")
    (re.compile(r"^--fix (\d+)=(.*?): "), r'fixes {"\1": "\2"}: '),
    (re.compile(r"^--meld (\d+(?:-\d+)?)=(.*?): "), r'melds {"\1": "\2"}: '),
    (re.compile(r"^--meld ([^=:]*)=(.*?): "), r'melds {"\1": "\2"}: '),
    (re.compile(r"^--win-tile (.*?): "), r'win_tile "\1": '),
    (re.compile(r"--fix (\d+)=(\w+)"), r'fixes {"\1": "\2"}'),
    (re.compile(r"--fix N=TILE"), r'fixes {"N": "TILE"}'),
    (re.compile(r"--meld (\d+(?:-\d+)?)=(\w+)"), r'melds {"\1": "\2"}'),
    (re.compile(r"--meld (\d+(?:-\d+)?)\b(?!=)"), r'melds "\1"'),
    (re.compile(r"--win-tile (\w+)"), r'win_tile "\1"'),
)


def in_api_words(message: str) -> str:
    """A pipeline error naming ``--fix 3=5p``, ``--meld 9-11=chi`` or ``--win-tile 4m`` with the
    form fields the API caller sent instead (``fixes {"3": "5p"}``…)."""
    for pattern, words in _API_WORDS:
        message = pattern.sub(words, message)
    return message


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
    """Fixes as sent by the page or a script → ``{tile number (1-based): tile code}``.

    Accepts ``{"3": "5p"}``, ``[[3, "5p"]]`` or ``["3=5p"]`` (the CLI's ``--fix`` form).
    Raises ApiError 422 naming the bad entry.
    """
    items: list[tuple[Any, Any]]
    if value is None:
        return {}
    if isinstance(value, dict):
        items = list(value.items())
    elif isinstance(value, list):
        items = []
        for entry in value:
            if isinstance(entry, str) and "=" in entry:
                items.append(tuple(entry.split("=", 1)))
            elif isinstance(entry, (list, tuple)) and len(entry) == 2:
                items.append((entry[0], entry[1]))
            else:
                raise ApiError(422, "bad_fixes", f"fix {quoted(entry)} is not 'N=TILE' or [N, TILE]")
    else:
        raise ApiError(422, "bad_fixes", "fixes must be an object {tile number: tile code}")
    out: dict[int, str] = {}
    for key, tile in items:
        if isinstance(key, str):
            n = small_int(key)
        elif isinstance(key, int) and not isinstance(key, bool) and key < 10**6:  # true is not tile 1
            n = key
        else:
            n = None
        if n is None:
            raise ApiError(422, "bad_fixes", f"fix key {quoted(key)} is not a tile number")
        # a tile code is a few characters ('5p', 'none'): a longer one would be echoed back
        # by every message about it
        if n < 1 or not isinstance(tile, str) or len(tile.strip()) > _MAX_CODE:
            raise ApiError(422, "bad_fixes", f"fix {quoted(key)}: {quoted(tile)} needs a tile "
                                             "number >= 1 and a tile code such as '5p'")
        if n in out and out[n] != tile.strip():
            raise ApiError(422, "bad_fixes", f"tile {n} is fixed twice ({out[n]} and {tile.strip()})")
        out[n] = tile.strip()
    return out


def parse_melds(value) -> dict[tuple[int, int], str]:
    """Declared groups as sent by a script → ``{(first, last): type}`` (``--meld``).

    Accepts ``{"9-11": "chi"}`` or ``["9-11=chi"]`` (the CLI's form). Raises ApiError 422
    naming the bad entry; types and sizes are checked against the photo's tiles by the
    pipeline (422 too)."""
    from vision.commands.score import UsageError
    from vision.commands.score import parse_melds as parse_items

    if value is None:
        return {}
    if isinstance(value, dict) and all(isinstance(v, str) for v in value.values()):
        items = [f"{k}={v}" for k, v in value.items()]
    elif isinstance(value, list) and all(isinstance(v, str) for v in value):
        items = value
    else:
        raise ApiError(422, "bad_melds", 'melds must be an object such as {"9-11": "chi"}')
    long = next((item for item in items if len(item) > 4 * _MAX_CODE), None)
    if long is not None:        # its every message would repeat it: "9-11=concealed" is short
        raise ApiError(422, "bad_melds", f"melds: {quoted(long)} is not tiles and a type such "
                                         'as {"9-11": "chi"}')
    try:
        return parse_items(items)
    except UsageError as exc:
        raise ApiError(422, "bad_melds", in_api_words(str(exc))) from None


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

    def photo_work(fn: Callable, data: bytes, inputs: tuple, extra: dict) -> dict:
        """Decode the upload and run ``fn`` (score_photo or check_photo) on it; a bad context,
        fix, meld or winning tile (PhotoError, validated as `tilescope hand` does) is a 422.
        The same photo sent again (the page asks /api/score, then /api/check-photo, and again
        after each tap that corrects a tile) is not read again (:class:`_Readings`)."""
        ctx, fix_map, meld_map, win = inputs
        img = decode_upload(data, limits)
        try:
            result = fn(img, ctx, reader=readings.reader(get_reader(), data), fixes=fix_map or None,
                        win_tile=win, melds=meld_map or None, **extra)
        except ValueError as exc:
            raise ApiError(422, "invalid_request", in_api_words(str(exc))) from None
        return result.to_json()

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
        return JSONResponse({"error": exc.message, "code": exc.code}, status_code=exc.status)

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
    async def api_read(request: Request, image: UploadFile = File(..., description="JPEG/PNG/WebP photo")):
        """The tiles in the photo: class, box (pixels of the image as read, whose size is
        ``image``), confidence, sideways."""
        data = await read_upload(image, request)

        def work():
            img = decode_upload(data, limits)
            return get_reader().read(img).to_json()

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
    ):
        """Recognised tiles, layout, the hand request and its score (``tilescope score --json``)."""
        data = await read_upload(image, request)
        inputs = _photo_inputs(context, fixes, melds, win_tile)
        return JSONResponse(await run_bounded(photo_work, fn_score_photo(), data, inputs, {}))

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
        return JSONResponse(await run_bounded(photo_work, fn_check_photo(), data, inputs, kw))

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
