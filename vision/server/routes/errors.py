"""Every error the HTTP API answers, in one shape: ``{"error": message, "code": short_name}``.

:class:`ApiError` is what a route raises; :func:`install` makes FastAPI's own errors (a form
field missing, a body that is not JSON, a path that does not exist) and any bug answer in the
same shape, never as a bare 500 or pydantic's words about classes.
"""
from __future__ import annotations

import json

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from vision.server.api_error import ApiError  # noqa: F401 - the routes raise it from here

# the routes that take a JSON body, not a form (their errors say so)
JSON_PATHS = ("/api/hand", "/api/check")


class ErrorResponse(JSONResponse):
    """An error answer: a message quoting what the client sent (a lone surrogate of a JSON
    ``"\\ud800"`` included) is still sent, not a second error while answering the first."""

    def render(self, content) -> bytes:
        import json

        return json.dumps(content, ensure_ascii=False, allow_nan=False,
                          separators=(",", ":")).encode("utf-8", "backslashreplace")


def install(app: FastAPI) -> None:
    """The app's error answers: ApiError, FastAPI's validation and HTTP errors, and bugs."""
    app.add_exception_handler(ApiError, _api_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(Exception, _bug)
    app.add_exception_handler(StarletteHTTPException, _http_error)


async def _api_error(_: Request, exc: ApiError):
    return ErrorResponse({"error": exc.message, "code": exc.code, **exc.extra}, status_code=exc.status)


async def _validation_error(request: Request, exc: RequestValidationError):
    errors = exc.errors()
    if request.url.path in JSON_PATHS and "json" not in request.headers.get("content-type", ""):
        return ErrorResponse({"error": f"{request.url.path} takes a JSON body (Content-Type: "
                                      "application/json), not a form or an upload; a photo "
                                      "goes to /api/score", "code": "invalid_request"},
                            status_code=422)
    if any(e.get("type") == "json_invalid" for e in errors):
        return ErrorResponse({"error": "the request body is not valid JSON", "code": "bad_json"},
                            status_code=400)
    parts = []
    multipart = request.headers.get("content-type", "").startswith("multipart/form-data")
    for e in errors:
        where = ".".join(str(p) for p in e.get("loc", ()) if p != "body") or "body"
        msg = e.get("msg", "invalid")
        if where == "image" and e.get("type") == "missing" and multipart:
            # a form without the field: the photo under another name (-F photo=@x.jpg)
            sent = await _form_fields(request)
            msg = ("the photo goes in the form field 'image' (curl -F image=@photo.jpg)"
                   + (f"; this form's fields are {', '.join(repr(f) for f in sent)}" if sent else
                      "; this form has none"))
        elif where == "image" and e.get("type") == "missing":
            # most often a photo sent as the raw body, not as a form's file field
            msg = ("a photo is sent as the form field 'image' of a multipart/form-data "
                   "request (curl -F image=@photo.jpg), not as the raw body")
        elif where == "body" and e.get("type") == "dict_type":
            # a JSON body that is no object ("junk", [], 3): said as `tilescope game` says it
            got = e.get("input")
            msg = (f"should be one JSON object, got "
                   f"{json.dumps(got, ensure_ascii=False)[:40] if got is not None else 'null'}")
        elif where == "image":      # a text field named image: pydantic's words name classes
            msg = ("send the photo as a file (curl -F image=@photo.jpg, with the @), "
                   "not as text")
        parts.append(f"{where}: {msg}")
    return ErrorResponse({"error": "; ".join(parts), "code": "invalid_request"}, status_code=422)


async def _form_fields(request: Request) -> list[str]:
    """The field names of the request's form, the first few (none when it cannot be read)."""
    try:
        form = await request.form()
    except Exception:           # noqa: BLE001 - a form already read or broken: no names, same message
        return []
    return list(dict.fromkeys(str(k)[:40] for k in form.keys()))[:5]


async def _bug(_: Request, exc: Exception):
    # anything else is a bug in tilescope: still the documented error shape, not a bare 500
    return ErrorResponse({"error": f"internal error ({type(exc).__name__}): this is a bug in "
                                  "tilescope; please report it with the photo or request",
                         "code": "internal"}, status_code=500)


async def _http_error(request: Request, exc: StarletteHTTPException):
    if exc.status_code == 400 and request.url.path in JSON_PATHS:
        # FastAPI's own parse of the body failed where json does (nesting, a number of
        # thousands of digits, bytes that are not UTF-8): the documented code
        return ErrorResponse({"error": "the request body is not valid JSON (not UTF-8 text, "
                                      "nested too deep, or a number too long to read)",
                             "code": "bad_json"}, status_code=400)
    return ErrorResponse({"error": str(exc.detail), "code": f"http_{exc.status_code}"},
                        status_code=exc.status_code)
