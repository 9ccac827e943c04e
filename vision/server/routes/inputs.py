"""A request's inputs, read and checked: the uploaded photo, the JSON body, the form fields.

Every check raises :class:`.errors.ApiError` with one line naming the field at fault (quoted
short: a field of a megabyte is never echoed back). The fixes and declared groups are parsed by
:mod:`vision.layout.fixspec`, the one parser the command line uses too.
"""
from __future__ import annotations

from typing import Any

from fastapi import Request, UploadFile

from scoring.tiles import quoted
from vision.server.fields import PhotoInputs, parse_json_field, photo_inputs  # noqa: F401 - the routes' names

from .errors import ApiError


async def read_upload(image: UploadFile, request: Request, max_bytes: int) -> bytes:
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
        if total > max_bytes:
            raise ApiError(413, "file_too_large", f"upload is over the limit of {max_bytes:,} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


def decode_upload(data: bytes, max_pixels: int):
    """Bytes of an uploaded image → BGR ndarray (H, W, 3), EXIF orientation applied
    (``vision.read.imageio.decode_image``: the pixel limit is read from the header, and a JPEG over
    it is decoded at 1/2, 1/4 or 1/8 scale, as on the command line).

    Raises ApiError 400 (empty, not an image, truncated) or 413 (over ``max_pixels``).
    """
    from vision.read.imageio import ImageError, ImageTooLarge, decode_image

    if not data:
        raise ApiError(400, "empty_file", "the uploaded file is empty")
    try:
        return decode_image(data, "the upload", max_pixels=max_pixels)
    except ImageTooLarge as exc:
        raise ApiError(413, "too_many_pixels", str(exc)) from None
    except ImageError as exc:
        raise ApiError(400, "not_an_image", str(exc)) from None


async def strict_body(request: Request) -> Any:
    """The JSON body read again as ``tilescope hand`` reads a line: a key given twice or
    NaN is refused (FastAPI's parse kept the last of two keys without a word)."""
    from vision.common.jsontext import load_json
    try:     # utf-8-sig: a byte-order mark is read past, as the command line does
        return load_json((await request.body()).decode("utf-8-sig"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise ApiError(400, "bad_json", f"the request body is not valid JSON: {exc}") from None
