"""``tilescope serve``: the HTTP API and the phone web page (``vision.server.app``)."""
from __future__ import annotations

import argparse
import math
import sys

from .setflag import add_set_argument, with_set

HELP = ("HTTP API (/api/read, /api/score, /api/hand, /api/waits, /api/check, /api/check-photo, /api/set/..., "
        "/api/games..., /api/health, docs at /docs and /redoc, served offline), a phone web page at / and a table mode at /table; "
        "binds 127.0.0.1:8000 unless --host/--port say otherwise")

# every route the server has, one line each (kept so by tests/test_read_cli.py against the app)
EPILOG = """\
Endpoints (JSON in and out; the schemas at /docs and /redoc, served offline):
  GET  /                      the phone web page: photograph a hand, tap a tile to correct it
  GET  /table                 table mode: a game's score kept on this device (docs/game-json.md)
  GET  /phone/                the offline phone site (--site): opened once, it works with the
                              network off (the rules run in the browser)
  POST /api/read              a photo -> the tiles read
  POST /api/score             a photo (+ context) -> the hand's value (docs/hand-json.md)
  POST /api/hand              a typed hand -> its value
  POST /api/waits             a hand in play -> shanten, waits and their values (docs/waits-json.md)
  POST /api/check             a typed declared win -> the verdict
  POST /api/check-photo       a photographed declared win -> the verdict
  POST /api/set/learn         learn a tile set from a photo of it
  POST /api/set/add           add corrected tiles to a set
  POST /api/set/undo          take the last addition out
  GET  /api/sets              the sets learned
  GET  /api/games             the games kept on this device
  POST /api/games             start a game
  GET  /api/games/ID          a game's standings and history
  POST /api/games/ID/events   add one event (docs/game-json.md)
  POST /api/games/ID/undo     take the last event out
  GET  /api/health            liveness and limits
  POST /api/pair              pair a phone with the code printed at start (--host not loopback)

Bounds: photos wait in a line of --queue (for --queue-wait s) for --workers threads; other
POSTs: 4 at work, 64 waiting, each body under --max-body-kb; bodies held at once under 256 MiB;
GET /api/games reads the 200 newest games; a set learned here holds at most 400 references,
and 16 sets are kept loaded (each embedded once per version of its file). Changes (sets,
games) only from this server's pages.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = EPILOG
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to bind (default 127.0.0.1: this machine only; "
                             "0.0.0.0 lets phones on your network connect, and prints a pairing "
                             "code a phone enters once before its first change)")
    parser.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                        help="a further name the server is reached by (Host header), e.g. a "
                             "DNS name of this machine; repeatable. Known anyway: 127.0.0.1, "
                             "localhost, ::1, --host, and with 0.0.0.0 this machine's name and "
                             "addresses. Changes (sets, games) are taken only from this "
                             "server's own pages, as JSON or multipart")
    parser.add_argument("--port", type=int, default=8000, help="TCP port (default 8000)")
    parser.add_argument("--weights", default=None,
                        help="folder with detector.onnx (+ classifier.onnx) (default: the bundled vision/weights)")
    add_set_argument(parser)
    parser.add_argument("--max-upload-mb", type=float, default=20.0,
                        help="largest accepted upload in MiB (default 20)")
    # 50 = vision.read.imageio.MAX_PIXELS, the command line's limit (not imported: no cv2 for --help)
    parser.add_argument("--max-megapixels", type=float, default=50.0,
                        help="largest decoded image in megapixels (default %(default)g; a larger "
                             "JPEG is read at 1/2, 1/4 or 1/8 scale)")
    parser.add_argument("--timeout", type=float, default=30.0,
                        help="seconds one request may take before it gets 504 (default 30)")
    parser.add_argument("--workers", type=int, default=2,
                        help="threads reading photos (default 2; typed hands have a thread of "
                             "their own)")
    parser.add_argument("--queue", type=int, default=256, metavar="N",
                        help="photos that may wait in line for a worker once uploaded, served in "
                             "the order they came (default %(default)s); one more gets 503 busy "
                             "with Retry-After (the web page sends it again by itself)")
    parser.add_argument("--queue-wait", type=float, default=60.0, metavar="S",
                        help="seconds a photo may wait in that line before it gets 503 busy "
                             "(default %(default)g)")
    parser.add_argument("--max-body-kb", type=float, default=1024.0, metavar="KB",
                        help="largest body of a request that is not a photo (typed hand, game "
                             "event, ...) in KiB (default %(default)g); 4 such requests are at "
                             "work at once, 64 more wait in line")
    parser.add_argument("--body-timeout", type=float, default=60.0, metavar="S",
                        help="seconds a request's body may take to arrive (default %(default)g; "
                             "it is read whole before the request waits in line, so a slow "
                             "upload holds no worker)")
    parser.add_argument("--site", default=None, metavar="DIR",
                        help="the offline phone site served at /phone/ (built by `cd web && "
                             "npm ci && npm run build`; default: the checkout's web/dist when it "
                             "is built, this package's or the current folder's; 'none': no site)")
    parser.add_argument("--log-level", choices=("warning", "info", "debug"), default="warning",
                        help="what the server prints: warning (default: problems only), info (a "
                             "line per request with its status), debug")


def _site_dir(asked: str | None) -> tuple[str | None, str | None]:
    """The offline site to serve at /phone/ and the problem with it: ``--site DIR`` must be a
    built site; without it, this checkout's web/dist is served when it is built."""
    from vision.server.routes.site import SITE_DIRS, site_problem

    if asked is None:
        built = next((d for d in SITE_DIRS if site_problem(d) is None), None)
        return (str(built.resolve()), None) if built else (None, None)
    if asked.lower() == "none":
        return None, None
    problem = site_problem(asked)
    return (None, f"--site: {problem}") if problem else (asked, None)


def run(args: argparse.Namespace) -> int:
    try:
        import uvicorn
        from vision.server.app import Limits, create_app
    except ImportError as exc:
        print(f"tilescope serve: needs the 'serve' extra (pip install '.[serve]' in a clone, or 'tilescope[serve]'): {exc}",
              file=sys.stderr)
        return 2
    problem = _argument_problem(args)
    if problem:
        print(f"tilescope serve: {problem}", file=sys.stderr)
        return 2
    from vision.stream.overlay import listen_problem

    problem = listen_problem(args.host, args.port)     # in one line, not in uvicorn's log
    if problem:
        print(f"tilescope serve: {problem}", file=sys.stderr)
        return 2
    reader = None
    if args.weights or args.set:  # else the bundled model is loaded before the first request
        from vision.photo.pipeline import get_reader
        from vision.read.tileset import SetError
        try:
            reader = get_reader(args.weights)
        except (OSError, RuntimeError) as exc:  # ModelError is a RuntimeError
            print(f"tilescope serve: cannot load weights {args.weights!r}: {exc}", file=sys.stderr)
            return 2
        try:
            reader = with_set(reader, args.set)     # every photo is read with the set
        except SetError as exc:
            print(f"tilescope serve: {exc}", file=sys.stderr)
            return 2
    limits = Limits(max_upload_bytes=int(args.max_upload_mb * 1024 * 1024),
                    max_pixels=int(args.max_megapixels * 1_000_000),
                    timeout_s=args.timeout, workers=args.workers, queue_length=args.queue,
                    queue_wait_s=args.queue_wait, max_body_bytes=int(args.max_body_kb * 1024),
                    body_timeout_s=args.body_timeout)
    from vision.server.routes.origin import Pairing, is_loopback, known_hosts

    # reachable from the network: changes need the pairing code printed below
    pairing = None if is_loopback(args.host) else Pairing()
    app = create_app(reader=reader, limits=limits, pairing=pairing,
                     allowed_hosts=known_hosts(args.host, tuple(args.allow_host)),
                     site_dir=(site_dir := _site_dir(args.site)[0]))
    import cv2     # its own warnings on odd uploads ("32-bit samples") say nothing to an operator

    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)
    problem = app.state.load_model()    # now, not when the first phone posts
    if problem:
        print(f"tilescope serve: the tile detector could not be loaded ({problem}): photo requests "
              "will get 503; typed hands work", file=sys.stderr)
    print(f"tilescope: serving on http://{args.host}:{args.port}/ (API docs at /docs and /redoc"
          f"{_site_note(site_dir, args.site)}){_lan_hint(args.host, args.port)}", file=sys.stderr)
    if pairing is not None:
        _print_pairing(pairing, args.host, args.port)
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level,
                access_log=args.log_level != "warning", http=_h11_with_header_timeout(),
                timeout_graceful_shutdown=SHUTDOWN_WAIT_S)
    return 0


def _site_note(site_dir: str | None, asked: str | None) -> str:
    """What the start line says of the offline site: where it is, or how to build one when
    none was found (nothing when ``--site none`` turned it off)."""
    if site_dir:
        return "; the offline phone site at /phone/"
    return "; no offline phone site: `cd web && npm ci && npm run build` in the checkout" if asked is None else ""


def _argument_problem(args: argparse.Namespace) -> str | None:
    """What is wrong with the numbers (or the --site) given, in one line; None when nothing."""
    if not 0 < args.port < 65536:
        return f"--port {args.port} is not a TCP port (1..65535)"
    sizes = (args.max_upload_mb, args.max_megapixels, args.timeout, args.queue_wait,
             args.max_body_kb, args.body_timeout)
    if not all(math.isfinite(v) and v > 0 for v in sizes) or args.workers < 1 or args.queue < 0:
        return ("--max-upload-mb, --max-megapixels, --timeout, --queue-wait, --max-body-kb, "
                "--body-timeout must be finite numbers > 0, --workers >= 1 and --queue >= 0")
    if args.max_upload_mb * 1024 * 1024 < 1024 or args.max_megapixels * 1_000_000 < 1:
        return "--max-upload-mb or --max-megapixels is too small for any photo"
    return _site_dir(args.site)[1]


SHUTDOWN_WAIT_S = 10        # Ctrl-C/SIGTERM waits this long for requests in flight, then stops
HEADER_TIMEOUT_S = 30       # a new connection must send its request line and headers within this


def _print_pairing(pairing, host: str, port: int) -> None:
    """The pairing code, then the page's link with it and the link's QR code."""
    from vision.server.routes.origin import pairing_words

    print(f"tilescope: pairing code {pairing.code}: a phone's page asks for it once, "
          "before its first change to a set or a game (scripts send it as the header "
          "X-Tilescope-Pairing)", file=sys.stderr)
    print(pairing_words(pairing, host, port), end="", file=sys.stderr, flush=True)


def _lan_hint(host: str, port: int) -> str:
    """For a server bound to every address: the address phones on the network open."""
    if host not in ("0.0.0.0", "::"):
        return ""
    from vision.server.routes.origin import lan_address

    address = lan_address()
    if address is None:
        return "; phones open http://THIS-MACHINE'S-ADDRESS:%d/" % port
    return f"; phones on this network open http://{address}:{port}/"


def _h11_with_header_timeout():
    """uvicorn's h11 protocol, closing a connection that has not sent a whole request head
    within HEADER_TIMEOUT_S (uvicorn times out idle connections only between requests: a
    client that connects and stalls would hold its connection for ever)."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class TimedH11(H11Protocol):
        def connection_made(self, transport) -> None:
            super().connection_made(transport)
            self.loop.call_later(HEADER_TIMEOUT_S, self._head_late)

        def _head_late(self) -> None:
            if getattr(self, "cycle", None) is None and not self.transport.is_closing():
                self.transport.close()

    return TimedH11
