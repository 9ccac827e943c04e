"""Issue 39, "queue, then shed": photos wait in a bounded line in the order they came, "busy"
(503 + Retry-After) only when the line is full or the wait is over, bodies other than photos
bounded, and a client sending its body slowly holds no worker.

The fake reader (tests/test_server.py's PixelReader) reads back the grey level of the image,
so every answer says which upload it was for.
"""
from __future__ import annotations

import asyncio
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402

from tests.test_server import PixelReader, coded_image, png  # noqa: E402
from vision.read.classes import TILE_CLASSES  # noqa: E402
from vision.server.routes.queue import Busy, Gate  # noqa: E402
from vision.server.app import Limits, create_app  # noqa: E402


def _photo(code: int) -> dict:
    return {"image": (f"{code}.png", png(coded_image(code)), "image/png")}


def _wait_for(cond, timeout=5.0):
    deadline = time.monotonic() + timeout
    while not cond() and time.monotonic() < deadline:
        time.sleep(0.01)


def test_ten_phones_at_once_are_all_scored_not_two_told_busy():
    # 10 phones uploading at once: 2 were told "busy" (8 photos in flight at most)
    hold = threading.Event()
    reader = PixelReader(hold)
    with TestClient(create_app(reader=reader, limits=Limits(workers=1))) as c:
        with ThreadPoolExecutor(10) as pool:
            answers = [pool.submit(c.post, "/api/read", files=_photo(code)) for code in range(10)]
            _wait_for(lambda: reader.calls >= 1)
            hold.set()
            results = [a.result() for a in answers]
    assert [r.status_code for r in results] == [200] * 10
    assert [r.json()["tiles"][0]["tile"] for r in results] == list(TILE_CLASSES[:10])


def test_photos_waiting_in_line_are_served_in_the_order_they_came():
    async def main():
        gate = Gate(1, 10, 5.0)
        order = []
        first = await gate.enter()

        async def one(k):
            since = await gate.enter()
            order.append(k)
            gate.leave(since)

        tasks = []
        for k in range(5):
            tasks.append(asyncio.create_task(one(k)))
            await asyncio.sleep(0)          # each in line before the next comes
        gate.leave(first)
        await asyncio.gather(*tasks)
        return order, gate.running

    assert asyncio.run(main()) == ([0, 1, 2, 3, 4], 0)


def test_busy_only_when_the_line_is_full_with_retry_after():
    hold = threading.Event()
    reader = PixelReader(hold)
    with TestClient(create_app(reader=reader, limits=Limits(workers=1, queue_length=2))) as c:
        with ThreadPoolExecutor(3) as pool:
            held = [pool.submit(c.post, "/api/read", files=_photo(4))]
            _wait_for(lambda: reader.calls >= 1)
            held += [pool.submit(c.post, "/api/read", files=_photo(5)) for _ in range(2)]
            time.sleep(0.3)                   # both in line
            busy = c.post("/api/read", files=_photo(6))
            typed = c.post("/api/hand", json={"ruleset": "riichi"})   # typed hands: their own line
            hold.set()
            assert [h.result().status_code for h in held] == [200, 200, 200]
    assert busy.status_code == 503 and busy.json()["code"] == "busy"
    assert "2 photos are waiting" in busy.json()["error"]
    assert 1 <= int(busy.headers["retry-after"]) <= 60
    assert typed.status_code == 200


def test_busy_when_the_wait_in_line_is_over():
    hold = threading.Event()
    reader = PixelReader(hold)
    with TestClient(create_app(reader=reader, limits=Limits(workers=1, queue_wait_s=0.3))) as c:
        with ThreadPoolExecutor(2) as pool:
            first = pool.submit(c.post, "/api/read", files=_photo(4))
            _wait_for(lambda: reader.calls >= 1)
            late = c.post("/api/read", files=_photo(5))
            hold.set()
            assert first.result().status_code == 200
    assert late.status_code == 503 and "waited 0.3 s in line" in late.json()["error"]
    assert "retry-after" in late.headers


def test_a_non_photo_body_over_its_bound_is_413():
    # 150 concurrent 20 MB JSON bodies to /api/hand peaked at 3.4 GB
    c = TestClient(create_app(reader=PixelReader(), limits=Limits(max_body_bytes=1000)))
    r = c.post("/api/hand", content=b'{"a": "' + b"x" * 2000 + b'"}',
               headers={"content-type": "application/json"})
    assert r.status_code == 413 and "1,000 bytes for this route" in r.json()["error"]
    assert c.post("/api/hand", json={"ruleset": "riichi"}).status_code == 200


def test_non_photo_requests_are_bounded_in_number():
    async def main():
        gate = Gate(1, 1, 0.2)
        held = await gate.enter()
        waiting = asyncio.create_task(gate.enter())
        await asyncio.sleep(0.01)
        with pytest.raises(Busy):
            await gate.enter()          # the line (1) is full
        with pytest.raises(Busy):
            await waiting               # and the one in it waited past 0.2 s
        gate.leave(held)
        return gate.running

    assert asyncio.run(main()) == 0


def test_serve_help_documents_the_queue_and_its_wait(capsys):
    from vision.cli.dispatch import main
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "--queue N" in out and "default 256" in out and "--queue-wait S" in out
    assert "default 60" in out and "--max-body-kb" in out


def test_the_web_page_sends_again_by_itself_on_503_and_says_so():
    from vision.server.app import WEB_DIR
    js = (WEB_DIR / "app.js").read_text() + (WEB_DIR / "table.js").read_text()
    assert js.count("retry-after") >= 2 and "sending it again" in js


def test_slow_clients_hold_no_worker_slot():
    # 8 sockets sending a photo body a byte every 2 s made every other photo "busy" for 60 s
    import httpx
    from tests.browsing import serve

    app = create_app(reader=PixelReader(), limits=Limits(workers=1, queue_length=1))
    with serve(app) as url:
        port = int(url.rsplit(":", 1)[1])
        slow = []
        for _ in range(8):
            s = socket.create_connection(("127.0.0.1", port))
            s.sendall(b"POST /api/read HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100000\r\n"
                      b"Content-Type: multipart/form-data; boundary=x\r\n\r\n-")
            slow.append(s)
        try:
            time.sleep(0.5)
            for s in slow:
                s.sendall(b"-")
            t = time.monotonic()
            r = httpx.post(url + "/api/read", files=_photo(7), timeout=10)
            took = time.monotonic() - t
        finally:
            for s in slow:
                s.close()
    assert r.status_code == 200 and r.json()["tiles"][0]["tile"] == TILE_CLASSES[7]
    assert took < 1.0


def test_an_upload_past_the_bodies_held_is_read_to_its_end_then_told_busy():
    # 100 concurrent 20 MB uploads: 83 saw their connection closed while they still sent
    # (the 503 was sent and the socket shut mid-body), so a page could not send them again
    from vision.server.routes.guard import BodyGuard

    async def app(scope, receive, send):
        raise AssertionError("a request past the bodies held reached the app")

    async def main():
        guard = BodyGuard(app, max_upload_bytes=10_000, timeout_s=5.0, photos=Gate(1, 4, 1.0),
                          others=Gate(1, 4, 1.0), max_body_bytes=10_000, max_held_bytes=1000)
        guard.held = 900                     # other requests' bodies
        chunks = [{"type": "http.request", "body": b"x" * 100, "more_body": k < 9}
                  for k in range(10)]
        sent, read = [], []

        async def receive():
            read.append(chunks[len(read)])
            return read[-1]

        async def send(message):
            sent.append((len(read), message))

        scope = {"type": "http", "method": "POST", "path": "/api/score", "headers": []}
        await guard(scope, receive, send)
        return guard.held, sent, read

    held, sent, read = asyncio.run(main())
    assert len(read) == 10                            # the whole body was read ...
    start = sent[0][1]
    assert sent[0][0] == 10 and start["status"] == 503     # ... before "busy" was answered
    assert any(k == b"retry-after" for k, _ in start["headers"])
    assert held == 900                                # and none of it is still counted


def test_an_overlay_client_that_never_reads_is_let_go_and_holds_a_bounded_line(monkeypatch):
    # a WebSocket client of stream --overlay that stops reading: its line of messages grew
    # without end, its handler waited for ever, and stopping the server cancelled it with a
    # traceback
    from vision.stream import overlay
    from vision.stream.overlay import OverlayHub, OverlayServer

    monkeypatch.setattr(overlay, "SEND_WAIT_S", 0.5, raising=False)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    hub = OverlayHub()
    server = OverlayServer(hub, port)
    server.start()
    stalled = socket.create_connection(("127.0.0.1", port))
    stalled.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    try:
        stalled.sendall(f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                        "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                        "Sec-WebSocket-Version: 13\r\n\r\n".encode())
        _wait_for(lambda: hub.client_count == 1)
        assert hub.client_count == 1
        queue = next(iter(hub._clients))[1]
        deadline, longest = time.monotonic() + 20, 0
        while hub.client_count and time.monotonic() < deadline:    # until the buffers fill
            for k in range(50):
                hub.publish({"type": "hand", "frame": k, "hand": "x" * 100_000})
            time.sleep(0.02)
            longest = max(longest, queue.qsize())
        assert longest <= overlay.QUEUE_MAX                # the oldest dropped
        assert hub.client_count == 0                       # let go once a send waited 0.5 s
    finally:
        stalled.close()
        server.stop()
    assert not server.thread.is_alive()


def test_the_overlay_line_keeps_the_newest_messages():
    from vision.stream.overlay import _offer

    q = asyncio.Queue(3)
    for k in range(5):
        _offer(q, k)
    assert [q.get_nowait() for _ in range(3)] == [2, 3, 4]
