"""Who may write: the server's second gate (ASGI middleware), for ``serve`` and for
``stream --overlay``'s server alike.

Every request that changes something (a set, a game, the control page's hand and ledger:
:func:`is_write`) is taken only

- from this server's own pages: a browser names the page's origin in ``Origin`` (or, failing
  that, ``Referer``), and it must be this server's (scheme and ``Host``); ``Sec-Fetch-Site``
  saying ``cross-site`` or ``same-site`` is refused too. A client that names no origin at all
  (curl, a script) is no browser page and is taken;
- with a JSON or multipart body (``Content-Type``), so that no HTML form and no ``text/plain``
  fetch of another page can send one without the browser first asking (CORS preflight, which
  this server never grants); an empty body needs no type.

Refusals answer 403 ``cross_origin`` and 415 ``unsupported_media_type``. Which ``Host`` names
the server answers to at all is Starlette's ``TrustedHostMiddleware`` (:func:`known_hosts`):
a page of another site that rebinds its DNS name to this machine names its own host, and is
refused with 400.
"""
from __future__ import annotations

import hmac
import secrets
import socket
import time

from starlette.datastructures import URL, Headers

from .guard import send_error

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1", "[::1]")
WRITE_TYPES = ("application/json", "multipart/form-data")
_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


def is_write(method: str, path: str) -> bool:
    """A request that changes a set, a game or the control page's state."""
    if method in ("GET", "HEAD", "OPTIONS"):
        return False
    return (path.startswith(("/api/set/", "/api/games/", "/api/control/"))
            or path in ("/api/games", "/api/control"))


def known_hosts(host: str, extra: tuple[str, ...] = ()) -> list[str]:
    """The ``Host`` names a server bound to ``host`` answers to: the loopback names, ``host``
    itself, ``extra``; bound to every address (0.0.0.0, ::), this machine's name and its
    addresses too (phones open ``http://ADDRESS:PORT/``)."""
    names = list(LOOPBACK_HOSTS) + list(extra)
    if host in ("0.0.0.0", "::", ""):
        machine = socket.gethostname()
        names += [machine, f"{machine}.local"]
        try:
            names += [info[4][0] for info in socket.getaddrinfo(machine, None)]
        except OSError:
            pass
        address = lan_address()        # the address a LAN route leaves by
        if address:
            names.append(address)
    else:
        names.append(host)
    names += [f"[{n}]" for n in names if ":" in n and not n.startswith("[")]
    return sorted(set(names))


def _netloc(url: URL) -> tuple[str, int | None]:
    port = url.port or _DEFAULT_PORTS.get(url.scheme)
    return (url.hostname or "").lower().strip("[]"), port


def same_origin(headers: Headers, scheme: str) -> bool:
    """The request names no origin, or this server's own (its scheme and Host)."""
    site = headers.get("sec-fetch-site")
    if site in ("cross-site", "same-site"):
        return False
    named = headers.get("origin") or headers.get("referer")
    if named is None:
        return site in (None, "same-origin", "none")
    if named == "null":
        return False
    host = headers.get("host", "")
    return _netloc(URL(named)) == _netloc(URL(f"{scheme}://{host}/")) \
        and URL(named).scheme in (scheme, {"http": "ws", "https": "wss"}.get(scheme))


PAIR_PATH = "/api/pair"
PAIR_COOKIE = "tilescope_pair"
PAIR_HEADER = "x-tilescope-pairing"


class Pairing:
    """The pairing code of a server reachable from the network: ``code`` (6 digits) is printed
    where the server runs; a phone enters it once (``POST /api/pair {"code"}``) and gets a
    cookie holding ``token``; a script sends the code in ``X-Tilescope-Pairing``. Wrong codes
    are counted: past ``MAX_WRONG`` in ``WINDOW_S`` seconds, every try is refused until the
    window passes (a million codes cannot be tried)."""

    MAX_WRONG, WINDOW_S = 10, 60.0

    def __init__(self, code: str | None = None):
        self.code = code or f"{secrets.randbelow(10 ** 6):06d}"
        self.token = secrets.token_urlsafe(24)
        self._wrong: list[float] = []

    def paired(self, headers: Headers) -> bool:
        """The request carries this server's pairing cookie or code."""
        cookies = {}
        for part in headers.get("cookie", "").split(";"):
            name, _, value = part.strip().partition("=")
            cookies[name] = value
        return (_same(cookies.get(PAIR_COOKIE, ""), self.token)
                or self.try_code(headers.get(PAIR_HEADER)))

    def try_code(self, code: str | None) -> bool:
        """``code`` is the pairing code (a wrong one counted); False while locked out."""
        if code is None:
            return False
        now = time.monotonic()
        self._wrong = [t for t in self._wrong if now - t < self.WINDOW_S]
        if len(self._wrong) >= self.MAX_WRONG:
            return False
        if _same(str(code).strip(), self.code):
            return True
        self._wrong.append(now)
        return False


def _same(given: str, secret: str) -> bool:
    """``given`` is ``secret``, compared in constant time; any text (``compare_digest`` raises
    TypeError on a str that is not ASCII: a header or cookie of other bytes, a code "é")."""
    return hmac.compare_digest(given.encode("utf-8", "surrogatepass"), secret.encode("utf-8"))


async def _pair(scope, receive, send, pairing: Pairing) -> None:
    """``POST /api/pair`` ``{"code": "123456"}``: the cookie, or 403 ``wrong_code``."""
    from vision.common.jsontext import load_json

    body, more = b"", True
    while more and len(body) <= 1024:
        message = await receive()
        body += message.get("body", b"")
        more = message.get("more_body", False)
    try:        # any body: not JSON, nested thousands deep, not an object is no code
        code = load_json(body.decode("utf-8-sig") or "{}").get("code")
    except (ValueError, AttributeError):
        code = None
    if not pairing.try_code(code if isinstance(code, str) else None):
        return await send_error(send, 403, "wrong_code", "that is not the pairing code shown "
                                "where tilescope runs (after 10 wrong tries, wait a minute)")
    answer = b'{"paired": true}'
    cookie = (f"{PAIR_COOKIE}={pairing.token}; Path=/; Max-Age=2592000; HttpOnly; "
              "SameSite=Strict").encode()
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"application/json"), (b"set-cookie", cookie),
                            (b"content-length", str(len(answer)).encode())]})
    await send({"type": "http.response.body", "body": answer})


class WriteGuard:
    """ASGI middleware: writes (:func:`is_write`) only from this server's pages, with a JSON
    or multipart body (see the module's words); with ``pairing``, only from a paired client
    (401 ``pairing_needed``), and ``POST /api/pair`` pairs one."""

    def __init__(self, app, pairing: Pairing | None = None):
        self.app, self.pairing = app, pairing

    async def __call__(self, scope, receive, send):
        path = scope.get("path", "")
        pair = self.pairing is not None and path == PAIR_PATH and scope.get("method") == "POST"
        if scope["type"] != "http" or not (pair or is_write(scope["method"], path)):
            return await self.app(scope, receive, send)
        headers = Headers(scope=scope)
        if not same_origin(headers, scope.get("scheme", "http")):
            return await send_error(send, 403, "cross_origin",
                                    "this server takes changes only from its own pages (the "
                                    "request came from another site's page)")
        kind = headers.get("content-type", "").split(";")[0].strip().lower()
        empty = headers.get("content-length", "0") == "0" and "transfer-encoding" not in headers
        if kind not in WRITE_TYPES and not (kind == "" and empty):
            return await send_error(send, 415, "unsupported_media_type",
                                    "a change is sent as application/json or "
                                    f"multipart/form-data, not {kind or 'a body of no type'}")
        if pair:
            return await _pair(scope, receive, send, self.pairing)
        if self.pairing is not None and not self.pairing.paired(headers):
            return await send_error(send, 401, "pairing_needed",
                                    "enter the pairing code shown where tilescope runs (asked "
                                    "once per phone)")
        return await self.app(scope, receive, send)


def lan_address() -> str | None:
    """The address this machine's LAN route leaves by (a UDP "connect" sends nothing); None
    when there is no route."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("192.0.2.1", 9))
            return probe.getsockname()[0]
    except OSError:
        return None


def pairing_link(host: str, port: int, code: str, path: str = "/") -> str | None:
    """The page's address with the pairing code (``?pair=CODE``: the page pairs by itself)
    as a phone on the network opens it; None when this machine's address is not known."""
    if host in ("0.0.0.0", "::", ""):
        host = lan_address()
        if host is None:
            return None
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"http://{host}:{port}{path}?pair={code}"


def qr_text(text: str) -> str | None:
    """``text`` as a QR code drawn with half blocks (two modules a character, for a dark
    terminal: dark modules are blanks), its quiet zone included; None without the ``qrcode``
    package (the ``serve`` extra)."""
    try:
        import qrcode
    except ImportError:
        return None
    import io

    qr = qrcode.QRCode(border=4, error_correction=qrcode.constants.ERROR_CORRECT_L)
    qr.add_data(text)
    out = io.StringIO()
    qr.print_ascii(out=out, invert=True)
    return out.getvalue()


def pairing_words(pairing: Pairing, host: str, port: int, path: str = "/") -> str:
    """What ``serve`` and ``stream --overlay`` print under the pairing code: the page's
    link with the code and its QR code (a phone's camera opens it, paired)."""
    link = pairing_link(host, port, pairing.code, path)
    if link is None:
        return ""
    qr = qr_text(link)
    if qr is None:
        return (f"tilescope: or open {link} (paired at once; pip install 'tilescope[serve]' "
                "prints its QR code here)\n")
    return f"tilescope: or scan this QR code with the phone's camera: {link}\n{qr}"


def is_loopback(host: str) -> bool:
    """A bind address only this machine reaches (no pairing needed)."""
    return host in LOOPBACK_HOSTS or host.startswith("127.")


def protect(app, allowed_hosts=None, pairing: Pairing | None = None) -> None:
    """Put the write gate on FastAPI ``app`` (with ``pairing``: writes from paired clients
    only), and Starlette's TrustedHostMiddleware with ``allowed_hosts`` when given (the
    outermost: an unknown Host goes no further)."""
    from starlette.middleware.trustedhost import TrustedHostMiddleware

    app.add_middleware(WriteGuard, pairing=pairing)
    if allowed_hosts is not None:
        app.add_middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts))
