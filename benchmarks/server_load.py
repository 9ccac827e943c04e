"""A club's Wi-Fi on one machine: ``tilescope serve`` under a burst, slow clients, and parallel
writers (issue 39). Servers on loopback only. Run from the repo root, by hand (not a test):

    python -m benchmarks.server_load [--photos 200] [--slow 8] [--adds 20]

1. **Burst**: ``--photos`` distinct uploads at once (the bundled sample
   ``vision/samples/riichi_open_red.jpg``, each with a few pixels changed so no two are the same
   bytes) to ``/api/score`` of a server at its default settings; each answer must be the
   sample's true value (ron, seat S, dora 1p: 2 han 30 fu, 2000). Prints how many were scored
   right, busy (503) and otherwise, the wall time and the server's peak RSS (VmHWM).
2. **Slow clients**: ``--slow`` sockets send a photo's body a byte every 2 s while one normal
   photo is sent; its latency beside them vs alone.
3. **Parallel writers**: ``--adds`` ``tilescope game g.jsonl --add …`` processes at once on one
   game; how many events the file keeps.
4. **Another site's page**: a ``text/plain`` POST with a foreign Origin to a game's events;
   its status (403 expected) and whether the file changed.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "vision" / "samples" / "riichi_open_red.jpg"
CONTEXT = json.dumps({"win": "ron", "seat_wind": "S", "dora_indicators": "1p"})
TRUTH = (2, 30, 2000)        # vision/samples/README.md


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def distinct_photos(n: int) -> list[bytes]:
    """``n`` JPEGs of the sample, each with one corner pixel block of its own grey level."""
    import cv2

    img = cv2.imread(str(SAMPLE))
    out = []
    for k in range(n):
        copy = img.copy()
        copy[0:4, 0:4] = (k * 7) % 256
        copy[0, 4] = k // 256
        ok, buf = cv2.imencode(".jpg", copy, [cv2.IMWRITE_JPEG_QUALITY, 92])
        out.append(buf.tobytes())
    assert len(set(out)) == n
    return out


def start_server(port: int, data: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TILESCOPE_DATA": data}
    proc = subprocess.Popen([sys.executable, "-m", "vision.cli", "serve", "--port", str(port)],
                            cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True)
    import httpx

    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=2).status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(0.3)
    proc.kill()
    raise SystemExit("the server did not start: " + (proc.stderr.read() if proc.stderr else ""))


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def right(answer: dict) -> bool:
    r = answer.get("result") or {}
    return (r.get("han"), r.get("fu"), (r.get("payment") or {}).get("total")) == TRUTH


async def burst(url: str, photos: list[bytes]) -> dict:
    import httpx

    limits = httpx.Limits(max_connections=len(photos), max_keepalive_connections=len(photos))
    async with httpx.AsyncClient(timeout=300, limits=limits) as client:
        async def one(k: int, data: bytes):
            r = await client.post(url + "/api/score", files={"image": (f"p{k}.jpg", data, "image/jpeg")},
                                  data={"context": CONTEXT})
            return r.status_code, r.json() if r.headers.get("content-type", "").startswith("application/json") else {}

        t = time.monotonic()
        answers = await asyncio.gather(*(one(k, d) for k, d in enumerate(photos)))
        wall = time.monotonic() - t
    return {"n": len(photos), "scored_right": sum(s == 200 and right(a) for s, a in answers),
            "busy": sum(s == 503 for s, _ in answers),
            "other": sorted({s for s, a in answers if s not in (200, 503)}), "wall_s": round(wall, 1)}


def one_photo_latency(url: str, data: bytes) -> tuple[float, bool]:
    import httpx

    t = time.monotonic()
    r = httpx.post(url + "/api/score", files={"image": ("one.jpg", data, "image/jpeg")},
                   data={"context": CONTEXT}, timeout=120)
    return time.monotonic() - t, r.status_code == 200 and right(r.json())


def slow_clients(port: int, url: str, fresh: list[bytes], n: int) -> dict:
    """Latency of a normal photo alone, then beside ``n`` slow clients (each photo new to the
    server: none is answered from its memo of recent readings)."""
    alone = [one_photo_latency(url, fresh.pop())[0] for _ in range(3)]
    socks = []
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(b"POST /api/score HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 200000\r\n"
                  b"Content-Type: multipart/form-data; boundary=x\r\n\r\n-")
        socks.append(s)
    try:
        beside = []
        for _ in range(3):
            time.sleep(2)
            for s in socks:
                s.sendall(b"-")          # a byte every 2 s
            beside.append(one_photo_latency(url, fresh.pop()))
    finally:
        for s in socks:
            s.close()
    return {"slow_clients": n, "alone_s": round(max(alone), 2),
            "beside_s": round(max(t for t, _ in beside), 2), "beside_right": all(ok for _, ok in beside)}


def parallel_adds(n: int, folder: str) -> dict:
    path = os.path.join(folder, "g.jsonl")
    with open(path, "w") as fh:
        fh.write(json.dumps({"type": "game", "players": ["Ann", "Bob", "Cai", "Dan"]}) + "\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    event = json.dumps({"type": "draw", "tenpai": ["Ann", "Bob", "Cai", "Dan"]})
    t = time.monotonic()
    procs = [subprocess.Popen([sys.executable, "-m", "vision.cli", "game", path, "--add", event],
                              cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
             for _ in range(n)]
    codes = [p.wait() for p in procs]
    with open(path) as fh:
        kept = sum(1 for ln in fh if ln.strip()) - 1
    return {"adds": n, "exit_0": codes.count(0), "events_kept": kept,
            "wall_s": round(time.monotonic() - t, 1)}


def foreign_page(url: str, data: str) -> dict:
    import httpx

    gid = httpx.post(url + "/api/games", json={"players": ["Ann", "Bob", "Cai", "Dan"]}).json()["id"]
    path = Path(data) / "games" / f"{gid}.jsonl"
    before = path.read_text()
    r = httpx.post(url + f"/api/games/{gid}/events", content='{"type": "riichi", "player": "Dan"}',
                   headers={"Origin": "http://evil.example", "Content-Type": "text/plain"})
    rebound = httpx.get(url + "/api/games", headers={"Host": "evil.example"})
    return {"cross_site_status": r.status_code, "file_unchanged": path.read_text() == before,
            "foreign_host_status": rebound.status_code}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--photos", type=int, default=200)
    ap.add_argument("--slow", type=int, default=8)
    ap.add_argument("--adds", type=int, default=20)
    args = ap.parse_args()
    photos = distinct_photos(args.photos + 6)
    with tempfile.TemporaryDirectory() as data:
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        server = start_server(port, data)
        try:
            print(f"server up, RSS {rss_mb(server.pid):.0f} MB")
            out = asyncio.run(burst(url, photos[:args.photos]))
            out["peak_rss_mb"] = round(peak_rss_mb(server.pid))
            time.sleep(1)
            out["rss_after_mb"] = round(rss_mb(server.pid))
            print("burst:", json.dumps(out))
            print("slow:", json.dumps(slow_clients(port, url, photos[args.photos:], args.slow)))
            print("foreign page:", json.dumps(foreign_page(url, data)))
        finally:
            server.terminate()
            server.wait(timeout=20)
        print("parallel adds:", json.dumps(parallel_adds(args.adds, data)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
