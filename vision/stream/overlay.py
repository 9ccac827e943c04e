"""The OBS overlay of ``tilescope stream --overlay PORT``: a transparent page + a WebSocket.

``OverlayHub.publish(message)`` may be called from any thread (the stream loop); every
connected WebSocket client at ``/ws`` receives each message as JSON, in order, and a client
that connects late first receives the current hand. ``GET /`` serves
``vision/server/web/overlay.html`` (transparent background, for an OBS browser source).

Messages: ``{"type": "hand", "frame", "time_s", "hand": null | {"tiles", "request", "result",
"summary", "lines", "guessed", "unsure", "unsure_tiles", "warnings", "waits"}}`` when the
stable hand changes or is rescored (see ``vision.stream.live.hand_message``; before the first,
``frame`` is null), ``{"type": "table", ...}`` when the game's ledger changes (``--game``,
``vision.server.ledger``) and ``{"type": "end"}`` when the stream has stopped; described for users
in ``docs/overlay-json.md`` (``tests/test_stream.py`` checks the two agree). A late client
also receives the last ``table``.
"""
from __future__ import annotations

import asyncio
import socket
import threading
from pathlib import Path

from fastapi import FastAPI, WebSocket, WebSocketDisconnect
from fastapi.responses import FileResponse, Response

WEB_DIR = Path(__file__).parent.parent / "server" / "web"
# a WebSocket client that does not read (a stalled tab, a hostile client): its messages wait
# at most QUEUE_MAX in line (the oldest dropped: each is the whole state), and a message it
# has not taken within SEND_WAIT_S closes its connection
QUEUE_MAX = 32
SEND_WAIT_S = 10.0


def listen_problem(host: str, port: int) -> str | None:
    """Why a server could not listen on ``host:port`` (a taken port, an unknown host), in one
    line, found by binding once before uvicorn tries and logs its own error; None if it can."""
    try:
        with socket.create_server((host, port)):
            return None
    except OSError as exc:
        return f"cannot listen on {host}:{port}: {exc.strerror or exc}"


def _offer(queue: asyncio.Queue, message) -> None:
    """``message`` into a client's line, the oldest waiting dropped when it is full."""
    if queue.full():
        queue.get_nowait()
    queue.put_nowait(message)


class OverlayHub:
    """Fan-out of overlay messages from the stream thread to WebSocket clients."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._clients: set[tuple[asyncio.AbstractEventLoop, asyncio.Queue]] = set()
        self.current: dict = {"type": "hand", "frame": None, "time_s": 0.0, "hand": None}
        self.table: dict | None = None      # the game's scoreboard (--game), sent to late clients

    def publish(self, message: dict) -> None:
        """Send ``message`` to every client (thread-safe, never blocks on a slow client)."""
        with self._lock:
            if message.get("type") == "hand":
                self.current = message
            elif message.get("type") == "table":
                self.table = message
            clients = list(self._clients)
        for loop, queue in clients:
            try:
                loop.call_soon_threadsafe(_offer, queue, message)
            except RuntimeError:  # that client's loop has closed
                pass

    def subscribe(self) -> asyncio.Queue:
        """A queue for the calling event loop, primed with the current hand."""
        queue: asyncio.Queue = asyncio.Queue(QUEUE_MAX)
        with self._lock:
            queue.put_nowait(self.current)
            if self.table is not None:
                queue.put_nowait(self.table)
            self._clients.add((asyncio.get_running_loop(), queue))
        return queue

    def close(self) -> None:
        """Tell every client's handler to close its WebSocket (the server is stopping: a
        handler still waiting would be cancelled, and uvicorn logs that as an error)."""
        with self._lock:
            clients = list(self._clients)
        for loop, queue in clients:
            try:
                loop.call_soon_threadsafe(_offer, queue, None)
            except RuntimeError:
                pass

    def unsubscribe(self, queue: asyncio.Queue) -> None:
        with self._lock:
            self._clients = {c for c in self._clients if c[1] is not queue}

    @property
    def client_count(self) -> int:
        with self._lock:
            return len(self._clients)


def create_overlay_app(hub: OverlayHub, control=None, allowed_hosts=None, pairing=None) -> FastAPI:
    """The overlay's web app: ``GET /`` page, ``GET /api/current`` and WebSocket ``/ws``;
    with ``control`` (``vision.stream.control.Control``) the control page ``GET /control`` and its
    API (``vision.stream.control.add_routes``). Its writes are taken from its own pages only, and
    only the ``allowed_hosts`` names are answered (None: any), as ``tilescope serve``'s
    (``vision.server.routes.origin``); with ``pairing``, from paired clients only."""
    from vision.server.routes.guard import BodyGuard
    from vision.server.routes.origin import protect
    from vision.server.routes.queue import Gate

    app = FastAPI(title="tilescope overlay", docs_url=None, redoc_url=None)
    # bodies read whole within 64 KiB and 30 s, a few at a time (the control page sends one
    # setting or event per tap)
    app.add_middleware(BodyGuard, max_upload_bytes=0, timeout_s=30.0, photos=Gate(1, 0, 1.0),
                       others=Gate(2, 16, 10.0), max_body_bytes=64 * 1024,
                       max_held_bytes=4 * 1024 * 1024)
    protect(app, allowed_hosts, pairing)
    if control is not None:
        from .control import add_routes

        add_routes(app, control)

    @app.get("/")
    async def page():
        return FileResponse(WEB_DIR / "overlay.html", media_type="text/html")

    @app.get("/{name}.js")
    async def script(name: str):
        if name not in ("overlay", "tiles", "events") + (("control", "pairing") if control is not None else ()):
            return Response(status_code=404)
        return FileResponse(WEB_DIR / f"{name}.js", media_type="text/javascript")

    @app.get("/api/current")
    async def current():
        return hub.current

    @app.websocket("/ws")
    async def ws(websocket: WebSocket):
        await websocket.accept()
        queue = hub.subscribe()
        try:
            while True:
                message = await queue.get()
                if message is None:             # OverlayHub.close: the server is stopping
                    await websocket.close()
                    break
                await asyncio.wait_for(websocket.send_json(message), SEND_WAIT_S)
        except (WebSocketDisconnect, RuntimeError, asyncio.TimeoutError):
            pass        # gone, or not reading: its connection is closed as the handler ends
        except asyncio.CancelledError:
            pass        # the server stopping while a send waits on a client that never reads
        finally:
            hub.unsubscribe(queue)

    return app


class OverlayServer:
    """uvicorn serving ``create_overlay_app(hub)`` on a background thread."""

    def __init__(self, hub: OverlayHub, port: int, host: str = "127.0.0.1", control=None):
        import uvicorn

        # an OBS browser source never closes its WebSocket: waiting for it made every stop 5 s
        self.hub = hub
        from vision.server.routes.origin import Pairing, is_loopback, known_hosts

        # reachable from the network: the control page's writes need the printed code
        self.pairing = None if is_loopback(host) or control is None else Pairing()
        app = create_overlay_app(hub, control, known_hosts(host), self.pairing)
        config = uvicorn.Config(app, host=host, port=port, log_level="warning",
                                timeout_graceful_shutdown=0.5)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, name="overlay", daemon=True)

    def start(self, wait_s: float = 10.0) -> None:
        """Start serving; raises RuntimeError if the port could not be bound in ``wait_s``."""
        import time

        problem = listen_problem(self.server.config.host, self.server.config.port)
        if problem:
            raise RuntimeError(problem)
        self.thread.start()
        deadline = time.monotonic() + wait_s
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the overlay server did not start (is the port in use?)")
            time.sleep(0.05)

    def stop(self) -> None:
        import time

        self.hub.close()            # the clients' sockets close before the server stops
        deadline = time.monotonic() + 0.5
        while self.hub.client_count and time.monotonic() < deadline:
            time.sleep(0.02)
        self.server.should_exit = True
        self.thread.join(timeout=5)
