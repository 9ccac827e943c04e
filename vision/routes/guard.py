"""The HTTP server's gate (ASGI middleware): a request's body is read whole, within bounds of
size and time, before the app sees it, and photo requests in flight are counted.
"""
from __future__ import annotations

import asyncio
import json

# the routes that read a photo: at most BodyGuard.max_photos of them are taken at once
PHOTO_PATHS = ("/api/read", "/api/score", "/api/check-photo", "/api/set/learn", "/api/set/add",
               "/api/waits")


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
            return await send_error(send, 413, "file_too_large", self._too_large())
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timeout_s
        chunks, total = [], 0
        while True:
            try:
                message = await asyncio.wait_for(receive(), max(deadline - loop.time(), 0.001))
            except asyncio.TimeoutError:
                return await send_error(send, 408, "body_timeout",
                                         f"the request body did not arrive within "
                                         f"{self.timeout_s:g} s; send it again")
            if message["type"] == "http.disconnect":
                return None
            total += len(message.get("body", b""))
            if total > self.max_bytes:
                return await send_error(send, 413, "file_too_large", self._too_large())
            if not busy:
                chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        if busy:    # answered after the body (a browser still sending reports no answer at all)
            return await send_error(send, 503, "busy", f"the server is reading {self.photos} "
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


async def send_error(send, status: int, code: str, message: str) -> None:
    """An error answer of the documented shape, sent by ASGI middleware (before the app)."""
    body = json.dumps({"error": message, "code": code}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()), (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})
