"""The HTTP server's gate (ASGI middleware): a request's body is read whole, within bounds of
size and time, before it waits in line for the server's work (:mod:`.queue`), so that a
client sending slowly holds no place in the line and no worker.
"""
from __future__ import annotations

import asyncio
import json

from .queue import Busy, Gate

# the routes that read a photo: they wait in the photos' line (BodyGuard.photos)
PHOTO_PATHS = ("/api/read", "/api/score", "/api/check-photo", "/api/set/learn", "/api/set/add",
               "/api/waits")


class BodyGuard:
    """ASGI middleware in front of every POST.

    1. The body is read whole, before anything else: within ``max_upload_bytes`` plus
       ``FORM_SLACK`` for a photo route (``PHOTO_PATHS``), ``max_body_bytes`` for any other
       (413 past them, whether or not the client declared a Content-Length: a chunked body is
       counted as it arrives), within ``timeout_s`` seconds (408: an upload that stalled, or
       one sent a byte at a time, does not hold its connection for ever), and while the
       bodies held by all requests stay within ``max_held_bytes`` (else its rest is read and
       dropped, then 503 ``busy``: the client sees the answer, not a closed connection).
    2. Then the request waits in line: ``photos`` (a :class:`.queue.Gate` of the photo
       workers) for a photo route, ``others`` for any other POST; the line full or the wait
       over is 503 ``busy`` with ``Retry-After``.
    3. The app reads the body from memory.
    """

    FORM_SLACK = 1024 * 1024

    def __init__(self, app, max_upload_bytes: int, timeout_s: float, photos: Gate, others: Gate,
                 max_body_bytes: int = 1024 * 1024, max_held_bytes: int = 256 * 1024 * 1024):
        self.app, self.limit, self.timeout_s = app, max_upload_bytes, timeout_s
        self.photos, self.others = photos, others
        self.max_body_bytes, self.max_held_bytes = max_body_bytes, max_held_bytes
        self.held = 0       # bytes of bodies read or being read (one event loop: no lock)

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] != "POST":
            return await self.app(scope, receive, send)
        photo = scope.get("path") in PHOTO_PATHS
        limit = self.limit + self.FORM_SLACK if photo else self.max_body_bytes
        held = [0]
        try:
            body = await self._read(scope, receive, send, limit, held)
            if body is None:
                return None
            gate = self.photos if photo else self.others
            try:
                since = await gate.enter()
            except Busy as exc:
                return await send_error(send, 503, "busy", exc.message, exc.retry_after)
            try:
                return await self.app(scope, _replay(body, receive), send)
            finally:
                gate.leave(since)
        finally:
            self.held -= held[0]

    async def _read(self, scope, receive, send, limit: int, held: list) -> bytes | None:
        """The whole body; None once an error is answered (or the client left)."""
        length = dict(scope["headers"]).get(b"content-length", b"")
        if length.isdigit() and int(length) > limit:
            return await send_error(send, 413, "file_too_large", self._too_large(limit))
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timeout_s
        chunks = []
        while True:
            try:
                message = await asyncio.wait_for(receive(), max(deadline - loop.time(), 0.001))
            except asyncio.TimeoutError:
                return await send_error(send, 408, "body_timeout",
                                        f"the request body did not arrive within "
                                        f"{self.timeout_s:g} s; send it again")
            if message["type"] == "http.disconnect":
                return None
            chunk = message.get("body", b"")
            held[0] += len(chunk)
            self.held += len(chunk)
            if held[0] > limit:
                return await send_error(send, 413, "file_too_large", self._too_large(limit))
            if self.held > self.max_held_bytes:
                # the rest of the body is read and dropped before "busy" is answered: a
                # client (a browser above all) still sending would see the connection
                # closed, not the answer and its Retry-After, and could not send it again
                self.held -= held[0]
                held[0] = 0
                chunks.clear()
                if not await self._drop_rest(receive, message, deadline):
                    return None
                return await send_error(send, 503, "busy", "the server is busy: it holds as many "
                                        "uploads as it has room for; send it again in a few "
                                        "seconds", self.photos.retry_after())
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)

    @staticmethod
    async def _drop_rest(receive, message, deadline: float) -> bool:
        """Read the rest of a body, keeping none of it, until it ends or ``deadline`` passes;
        False if the client left."""
        loop = asyncio.get_running_loop()
        while message.get("more_body", False):
            try:
                message = await asyncio.wait_for(receive(), max(deadline - loop.time(), 0.001))
            except asyncio.TimeoutError:
                return True
            if message["type"] == "http.disconnect":
                return False
        return True

    def _too_large(self, limit: int) -> str:
        if limit == self.max_body_bytes:
            return f"request body is over the limit of {limit:,} bytes for this route"
        return f"request body is over the limit of {self.limit:,} bytes"


def _replay(body: bytes, receive):
    """The ASGI ``receive`` of a request whose body was read: the body, then the client's."""
    given = False

    async def replay():
        nonlocal given
        if not given:
            given = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()          # the client's disconnect, when it comes

    return replay


async def send_error(send, status: int, code: str, message: str,
                     retry_after: int | None = None) -> None:
    """An error answer of the documented shape, sent by ASGI middleware (before the app)."""
    body = json.dumps({"error": message, "code": code}).encode()
    headers = [(b"content-type", b"application/json"),
               (b"content-length", str(len(body)).encode()), (b"connection", b"close")]
    if retry_after is not None:
        headers.append((b"retry-after", str(retry_after).encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
