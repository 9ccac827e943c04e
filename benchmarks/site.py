"""The offline phone site (``web/dist``) against ``tilescope score``, hand by hand, and its speed.

    python -m benchmarks.site [--site web/dist] [--rendered 20] [--style kmahjongg-jade]
                              [--real-crops 10] [--no-samples] [--throttle 4] [--json OUT]

Each photo is sent to the page's own ``/api/score`` (answered in the browser: the JavaScript
reader, then the project's Python in Pyodide) in headless Chromium, and scored in Python by
``vision.photo.pipeline.score_photo`` with the same context. Photos: the bundled samples,
``--rendered N`` hands rendered in a held-out style (``benchmarks.pipeline``'s hands, saved as
PNG so both sides decode the same pixels) and ``--real-crops N`` MCR photos composed of real
tile crops (``benchmarks.real_crop_hands``). Per photo: the same tiles (names, in order), the
largest box difference in pixels, the same grouping (the layout), the same request and result
(the score), the same warnings; any photo that differs is listed with what differs.

Speed, in this Chromium on this machine: the first load (bytes the static server sent until
the page is ready and the service worker keeps the site for offline use, and seconds until the
page is ready, an empty profile), and photo → score (the page's fetch of
``/api/score``, decoding and reading included) median and slowest; with ``--throttle R`` the
same again (a fresh profile: first load included) with the browser held to 1/R of one core, a
phone-class CPU: a cgroup's CPU quota (Linux, as root). DevTools' CPU throttling cannot serve:
the reading and the Python run in the page's Web Worker, and Chromium 156 answers
``Emulation.setCPUThrottlingRate`` for a worker with "Operation is only supported for pages, not
workers" (its throttling of the page left photo -> score as it was: 1.06 s against 0.70 s).
"""
from __future__ import annotations

import argparse
import base64
import contextlib
import functools
import http.server
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


class _Counting(http.server.SimpleHTTPRequestHandler):
    sent = 0            # bytes of files sent, all requests (class-wide: one server at a time)

    def log_message(self, *args):
        pass

    def end_headers(self):
        # cross-origin isolated, as `tilescope serve` serves the site (threads for onnxruntime)
        self.send_header("Cross-Origin-Opener-Policy", "same-origin")
        self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
        super().end_headers()

    def copyfile(self, source, outputfile):
        data = source.read()
        type(self).sent += len(data)
        outputfile.write(data)


CGROUP = Path("/sys/fs/cgroup/cpu")        # cgroup v1's cpu controller


@contextlib.contextmanager
def cpu_share(fraction: float):
    """Processes started inside the block (and their children) get ``fraction`` of one core:
    a cgroup with that CPU quota, this process in it only while they start. Yields None, or
    why it cannot be done here."""
    group = CGROUP / f"tilescope-bench-{os.getpid()}"
    try:
        group.mkdir()
        (group / "cpu.cfs_period_us").write_text("100000")
        (group / "cpu.cfs_quota_us").write_text(str(max(1000, round(100000 * fraction))))
    except OSError as exc:
        yield f"no CPU quota here ({exc.strerror}: {group}); run as root on Linux with cgroup v1's cpu controller"
        return
    try:
        (group / "cgroup.procs").write_text(str(os.getpid()))
        yield None
    finally:
        (CGROUP / "cgroup.procs").write_text(str(os.getpid()))   # this process back out


def run_throttled(url: str, items, rate: float):
    """:func:`run_page` in a Chromium started with 1/``rate`` of one core (:func:`cpu_share`);
    None (and why, on stderr) where no quota can be set."""
    from browsing import chromium

    with contextlib.ExitStack() as stack:
        with cpu_share(1 / rate) as problem:
            if problem is None:     # Chromium starts inside the quota and stays in it
                d = stack.enter_context(chromium(window="800,1200"))
        if problem:
            print(f"--throttle: {problem}", file=sys.stderr)
            return None
        _Counting.sent = 0
        out = run_page(d, url, items, f"1/{rate:g} of a core")
    group = CGROUP / f"tilescope-bench-{os.getpid()}"
    with contextlib.suppress(OSError):
        group.rmdir()               # its processes gone with the browser
    return out


def serve(root: Path):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Counting, directory=str(root)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def photos(args, tmp: Path) -> list[tuple[str, Path, dict]]:
    """(label, photo file, context) of every photo the run compares."""
    out = []
    if not args.no_samples:
        for p in sorted((REPO / "vision" / "samples").glob("*.jpg")):
            if p.stem == "set_sheet":
                continue
            out.append((f"sample {p.stem}", p, json.loads(p.with_suffix(".json").read_text()).get("context", {})))
    if args.rendered:
        import cv2
        import numpy as np

        from benchmarks.pipeline import context_for
        from datasets.art import load_style
        from datasets.hands import random_hand
        from datasets.render import Look, render_hand

        style = load_style(args.style, args.art)
        rng = np.random.default_rng(args.seed)
        k = 0
        while k < args.rendered:
            ruleset = "mcr" if rng.random() < 0.35 else "riichi"
            spec = random_hand(rng, ruleset)
            try:
                img, ann = render_hand(spec, rng, style, imgsz=args.imgsz,
                                       upside_down=bool(rng.random() < 0.15), look=Look(occlude=0.0))
            except KeyError:
                continue
            shown_dora = any(t["group"] == "dora" for t in ann["tiles"])
            path = tmp / f"rendered-{k:03d}.png"
            cv2.imwrite(str(path), img)
            out.append((f"rendered {k}", path, context_for(ann["request"], shown_dora)))
            k += 1
    if args.real_crops:
        from benchmarks.real_crop_hands import make_photos

        crops = Path(args.real) / "camerash" / "crops"
        for p in make_photos(args.real_crops, args.seed, tmp / "real", crops):
            req = json.loads(p.with_suffix(".json").read_text())["request"]
            out.append((f"real-crop {p.stem}", p, {k: req[k] for k in ("ruleset", "win", "seat_wind", "round_wind")}))
    return out


SCORE_JS = """
const [b64, type, context, done] = arguments;
const bytes = Uint8Array.from(atob(b64), c => c.charCodeAt(0));
const form = new FormData();
form.append("image", new Blob([bytes], {type}), "photo");
form.append("context", JSON.stringify(context));
const t0 = performance.now();
fetch("/api/score", {method: "POST", body: form})
  .then(async r => done({status: r.status, body: await r.json(), ms: performance.now() - t0}),
        e => done({status: 0, body: {error: String(e)}, ms: 0}));
"""


def ready(d, timeout: float = 600) -> float:
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        state = d.execute_script("return window.tilescopeOffline && [tilescopeOffline.state, tilescopeOffline.error]")
        if state and state[0] != "loading":
            if state != ["ready", None]:
                raise RuntimeError(f"the page did not start: {state}")
            return time.monotonic() - t0
        time.sleep(0.2)
    raise RuntimeError("the page never got ready")


def compare(got: dict, want: dict) -> tuple[list[str], float]:
    """What differs between the page's answer and Python's, and the largest box difference."""
    diffs = []
    gt, wt = got.get("tiles") or [], want.get("tiles") or []
    if [t["tile"] for t in gt] != [t["tile"] for t in wt]:
        diffs.append("tiles")
    box = max((abs(a - b) for g, w in zip(gt, wt) for a, b in zip(g["box"], w["box"])), default=0.0)
    for key, name in (("layout", "grouping"), ("request", "request"), ("result", "score")):
        if got.get(key) != want.get(key):
            diffs.append(name)
    if [w["code"] for w in got.get("warnings", [])] != [w["code"] for w in want.get("warnings", [])]:
        diffs.append("warnings")
    return diffs, box


def run_page(d, url: str, items, label: str) -> tuple[list[dict], float]:
    from vision.photo.pipeline import get_reader, score_photo

    get_reader()        # loaded before the first photo is timed, as the page's reader is
    d.get(url)
    ready_s = ready(d)
    # the first load is everything the first visit downloads: the page's own loading and the
    # service worker's precache (the site kept for use offline), so until that controls the page
    kept_s = kept(d)
    first_bytes = _Counting.sent
    d.set_script_timeout(600)
    rows = []
    for name, path, context in items:
        kind = "image/png" if path.suffix == ".png" else "image/jpeg"
        got = d.execute_async_script(SCORE_JS, base64.b64encode(path.read_bytes()).decode(), kind, context)
        start = time.perf_counter()
        want = json.loads(json.dumps(score_photo(str(path), context).to_json()))
        python_ms = (time.perf_counter() - start) * 1000
        if got["status"] != 200:
            rows.append({"photo": name, "ms": got["ms"], "python_ms": python_ms, "box_px": None,
                         "differs": [f"HTTP {got['status']}: {got['body'].get('error')}"]})
            continue
        diffs, box = compare(got["body"], want)
        rows.append({"photo": name, "ms": got["ms"], "python_ms": python_ms, "differs": diffs, "box_px": round(box, 2),
                     "score": (want["result"].get("total"), got["body"]["result"].get("total"))})
    print(f"{label}: ready in {ready_s:.1f} s, kept for offline use in {kept_s:.1f} s" + (
          f"; photo -> score median {statistics.median(r['ms'] for r in rows) / 1000:.2f} s, "
          f"slowest {max(r['ms'] for r in rows) / 1000:.2f} s (tilescope score in this process: median "
          f"{statistics.median(r['python_ms'] for r in rows) / 1000:.2f} s, slowest "
          f"{max(r['python_ms'] for r in rows) / 1000:.2f} s)" if rows else ""))
    return rows, ready_s, first_bytes


def kept(d, timeout: float = 600) -> float:
    """Seconds until the service worker controls the page (every file kept); 0 where the page
    has none (not a secure context)."""
    t0 = time.monotonic()
    if not d.execute_script("return 'serviceWorker' in navigator && window.isSecureContext"):
        return 0.0
    while time.monotonic() - t0 < timeout:
        if d.execute_script("return !!navigator.serviceWorker.controller"):
            return time.monotonic() - t0
        time.sleep(0.2)
    raise RuntimeError("no service worker took control of the page")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.site", description=__doc__.splitlines()[0])
    ap.add_argument("--site", default=str(REPO / "web" / "dist"))
    ap.add_argument("--rendered", type=int, default=0)
    ap.add_argument("--style", default="kmahjongg-jade")
    ap.add_argument("--art", default=None)
    ap.add_argument("--imgsz", type=int, default=960)
    ap.add_argument("--real-crops", type=int, default=0)
    ap.add_argument("--real", default=str(REPO.parent / "shared" / "real"))
    ap.add_argument("--no-samples", action="store_true")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--throttle", type=float, default=0, help="also run under CPU throttling xR")
    ap.add_argument("--throttle-photos", type=int, default=5, help="photos timed under throttling")
    ap.add_argument("--json", help="write the per-photo rows here")
    args = ap.parse_args(argv)
    site = Path(args.site)
    if not (site / "index.html").is_file():
        print(f"error: no built site in {site} (cd web && npm ci && npm run build)", file=sys.stderr)
        return 2
    sys.path.insert(0, str(REPO / "tests"))
    from browsing import chromium

    with tempfile.TemporaryDirectory(prefix="tilescope-site-bench-") as tmp:
        items = photos(args, Path(tmp))
        server, url = serve(site)
        try:
            with chromium(window="800,1200") as d:
                _Counting.sent = 0
                rows, ready_s, first_bytes = run_page(d, url, items, "page")
                first_mb = first_bytes / 1e6
            throttled = (run_throttled(url, items[:args.throttle_photos], args.throttle)
                         if args.throttle else None)
        finally:
            server.shutdown()
    same = [r for r in rows if not r["differs"]]
    print(f"first load: {first_mb:.1f} MB in {ready_s:.1f} s")
    print(f"same answer as tilescope score: {len(same)} of {len(rows)} photos "
          f"(largest box difference {max((r['box_px'] or 0) for r in rows):.2f} px)" if rows else
          "no photos compared")
    for r in rows:
        if r["differs"]:
            print(f"  {r['photo']}: differs in {', '.join(r['differs'])}  {r.get('score', '')}")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "first_load_mb": first_mb, "ready_s": ready_s,
                                               "throttled": throttled and {"rows": throttled[0], "ready_s": throttled[1]}},
                                              indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
