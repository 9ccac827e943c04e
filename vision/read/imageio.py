"""Load a photo for the detector: a file path, raw bytes or an array -> ``(H, W, 3) uint8`` BGR.

EXIF orientation is honoured (phones store portrait shots as landscape pixels plus a rotation
tag): OpenCV's ``imread``/``imdecode`` with ``IMREAD_COLOR`` apply the tag, and the tests check
that on a tagged JPEG. Anything that is not a usable image raises ``ImageError`` with a message
that names the problem, so the CLI and the HTTP server can report it without a traceback.
The size is read from the header before decoding (no decompression bomb is decoded; a JPEG over
the limit is decoded at a smaller scale), and bytes after a complete image (a phone's Motion
Photo video) are ignored, as every viewer does.
"""
from __future__ import annotations

import os
import re
import sys
from pathlib import Path

# OpenCV's own limit on the pixels of any image it decodes (it reads the variable once, when
# it is loaded; its default is 2^30): a file whose header the checks below cannot read is
# still not decoded past MAX_FULL_PIXELS (defined below; kept equal)
os.environ.setdefault("OPENCV_IO_MAX_IMAGE_PIXELS", str(256_000_000))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from vision.common.filekind import READ_FORMATS, image_format

MAX_PIXELS = 50_000_000     # decoded pixels: guards memory on a 2-core box (see decode_image)
MAX_BYTES = 100 * 1024 * 1024
JPEG_SCALES = (2, 4, 8)     # a JPEG over the limit is decoded at 1/2, 1/4 or 1/8 scale
# ... if it is sequential (a progressive JPEG keeps every coefficient of the full size in
# memory whatever the scale: 9 GB for a 541-byte 56000² file) and at most this big (200 MP
# phone modes): libjpeg's scaled decoding then needs memory for the small image only
MAX_FULL_PIXELS = 256_000_000
_SEQUENTIAL_SOF = (0xC0, 0xC1)
# scans (SOS segments) of one JPEG: libjpeg passes over every block of the image once per
# scan, so one small scan repeated 30,000 times in a 2.9 MB 7000x7000 file kept a CPU busy for
# ~90 s (and the server's photo workers with it). A baseline JPEG has 1 to 4 scans, a
# progressive one about 10 (libjpeg's default script; mozjpeg's and jpegli's up to ~20); 32
# scans of a 7000x7000 image decode in about 5 s on a 2-core box.
MAX_SCANS = 32

# the next marker in a JPEG's entropy-coded data: 0xFF not followed by a stuffed 0x00, a
# restart marker (D0-D7) or another fill 0xFF
_JPEG_NEXT_MARKER = re.compile(rb"\xff[^\x00\xd0-\xd7\xff]")


class ImageError(ValueError):
    """The input is not a usable image: missing, empty, not an image, truncated or too large."""


class ImageTooLarge(ImageError):
    """The image has more pixels than the limit (even at the smallest JPEG decoding scale)."""


def _format_of(data: bytes, name: str) -> str:
    """The format of ``data`` (JPEG, PNG, WebP, BMP, TIFF); ImageError naming any other."""
    fmt = image_format(data[:16])
    if fmt == "TIFF" and _is_raw(data):
        # a camera RAW: OpenCV reads its small preview page or calls the sensor data corrupt
        raise ImageError(f"{name}: a camera RAW (DNG) file, which tilescope cannot read: export "
                         "the photo as JPEG or PNG")
    if fmt == "TIFF" and _first_page_is_reduced(data):
        raise ImageError(f"{name}: the first page of this TIFF is a thumbnail (a reduced copy of "
                         "another page), the one OpenCV would read: save the photo as JPEG or PNG")
    if fmt in READ_FORMATS:
        return fmt
    if fmt in ("HEIC", "HEIF"):
        raise ImageError(f"{name}: a {fmt} file, which tilescope cannot read: save the photo as "
                         f"JPEG or PNG (an iPhone does so with Settings > Camera > Formats > "
                         f"Most Compatible)")
    if fmt == "AVIF":
        raise ImageError(f"{name}: an AVIF file, which tilescope cannot read: save the photo as "
                         "JPEG or PNG")
    if fmt:
        raise ImageError(f"{name}: a {fmt} file, which tilescope cannot read: save the photo "
                         f"as JPEG or PNG")
    raise ImageError(f"{name}: not an image (expected JPEG, PNG, WebP, BMP or TIFF)")


def _jpeg_walk(data: bytes) -> tuple[tuple[int, int] | None, bool]:
    """``((width, height) or None, complete)`` from a JPEG's segments: the frame size of the
    first SOF segment, and whether an EOI marker ends the image. Bytes after EOI (a phone's
    Motion Photo video, a maker's trailer) are not part of the image."""
    size, _, complete, _ = _jpeg_frame(data)
    return size, complete


def _jpeg_frame(data: bytes) -> tuple[tuple[int, int] | None, int | None, bool, int]:
    """``(size, SOF marker, complete, scans)``: :func:`_jpeg_walk` with the first frame's SOF
    marker (0xC0 baseline, 0xC2 progressive…) and the number of scans (SOS segments) before
    the end of the image; the walk stops (not complete) at ``MAX_SCANS + 1`` scans."""
    size, sof, scans, i, n = None, None, 0, 2, len(data)
    while i + 1 < n:
        if data[i] != 0xFF:          # garbage between segments: on to the next marker
            m = _JPEG_NEXT_MARKER.search(data, i)
            if m is None:
                break
            i = m.start()
            continue
        marker = data[i + 1]
        if marker == 0xFF:           # fill byte before a marker
            i += 1
            continue
        if marker == 0xD9:
            return size, sof, True, scans
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            i += 2
            continue
        if i + 4 > n:
            break
        end = i + 2 + int.from_bytes(data[i + 2:i + 4], "big")
        # SOF0..SOF15 except DHT (C4), JPG (C8), DAC (CC) carry the frame size
        if size is None and 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC) \
                and i + 9 <= n:
            size = (int.from_bytes(data[i + 7:i + 9], "big"), int.from_bytes(data[i + 5:i + 7], "big"))
            sof = marker
        if end > n:
            break
        if marker == 0xDA:           # a scan: entropy-coded data up to the next marker
            scans += 1
            if scans > MAX_SCANS:    # refused (decode_image): 20 MB of 11-byte scans took 2.6 s
                return size, sof, False, scans
            m = _JPEG_NEXT_MARKER.search(data, end)
            if m is None:
                break
            i = m.start()
        else:
            i = end
    return size, sof, False, scans


def _png_walk(data: bytes) -> tuple[tuple[int, int] | None, bool]:
    """``((width, height) or None, complete)`` from a PNG's chunks: IHDR's size, and whether
    the IEND chunk is there (bytes after it are ignored, as every viewer does)."""
    size = (int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")) \
        if len(data) >= 24 and data[12:16] == b"IHDR" else None
    i = 8
    while i + 8 <= len(data):
        if data[i + 4:i + 8] == b"IEND":
            return size, True
        i += 12 + int.from_bytes(data[i:i + 4], "big")
    return size, False


def _webp_size(data: bytes) -> tuple[int, int] | None:
    chunk = data[12:16]
    if chunk == b"VP8X" and len(data) >= 30:
        return int.from_bytes(data[24:27], "little") + 1, int.from_bytes(data[27:30], "little") + 1
    if chunk == b"VP8 " and len(data) >= 30:
        return int.from_bytes(data[26:28], "little") & 0x3FFF, int.from_bytes(data[28:30], "little") & 0x3FFF
    if chunk == b"VP8L" and len(data) >= 25:
        b = data[21:25]
        return (1 + (((b[1] & 0x3F) << 8) | b[0]),
                1 + (((b[3] & 0xF) << 10) | (b[2] << 2) | ((b[1] & 0xC0) >> 6)))
    return None


DNG_VERSION_TAG = 50706       # in the first IFD of every DNG (Adobe's DNG specification)


# TIFF field types that hold whole numbers: (bytes per value, signed). libtiff takes an
# ImageWidth or ImageLength of any of them (a 2.6 MB TIFF whose sizes were SLONG, SSHORT or
# LONG8 passed a check that read SHORT and LONG only, and took 16 s and 5.5 GB to decode)
_TIFF_INTS = {1: (1, False), 3: (2, False), 4: (4, False), 6: (1, True), 8: (2, True),
              9: (4, True), 13: (4, False), 16: (8, False), 17: (8, True), 18: (8, False)}


def _tiff_entries(data: bytes):
    """``(tag, type, value)`` of each entry of a TIFF's first IFD (the page OpenCV decodes),
    as far as ``data`` holds them; the value is the entry's first whole number (read where the
    entry points when it does not fit in the entry, as LONG8 does not), None for a type that
    holds no whole number or a value past the data."""
    order = "little" if data[:2] == b"II" else "big"
    ifd = int.from_bytes(data[4:8], order)
    if ifd + 2 > len(data):
        return
    for k in range(int.from_bytes(data[ifd:ifd + 2], order)):
        e = ifd + 2 + 12 * k
        if e + 12 > len(data):
            break
        kind, count = int.from_bytes(data[e + 2:e + 4], order), int.from_bytes(data[e + 4:e + 8], order)
        size, signed = _TIFF_INTS.get(kind, (0, False))
        raw = data[e + 8:e + 8 + size]
        if size * count > 4:
            at = int.from_bytes(data[e + 8:e + 12], order)
            raw = data[at:at + size]
        value = int.from_bytes(raw, order, signed=signed) if size and count and len(raw) == size else None
        yield int.from_bytes(data[e:e + 2], order), kind, value


def _is_raw(data: bytes) -> bool:
    """A TIFF that is a camera RAW: a DNG (its version tag), or a first page of sensor data
    (PhotometricInterpretation CFA 32803 or LinearRaw 34892)."""
    for tag, _kind, value in _tiff_entries(data):
        if tag == DNG_VERSION_TAG:
            return True
        if tag == 262 and value in (32803, 34892):
            return True
    return False


def _first_page_is_reduced(data: bytes) -> bool:
    """NewSubfileType (254) of the first IFD has bit 0 set: a reduced-resolution copy."""
    return any(tag == 254 and value is not None and value & 1
               for tag, _kind, value in _tiff_entries(data))


def _tiff_size(data: bytes) -> tuple[int, int] | None:
    """ImageWidth (256) and ImageLength (257) of the first IFD (the page OpenCV decodes),
    whatever whole-number type they are given in; None when either is missing, not a whole
    number or negative (the decoder is then not asked: :func:`decode_image` refuses it)."""
    found: dict[int, int | None] = {}
    for tag, _kind, value in _tiff_entries(data):
        if tag in (256, 257):
            # the first of a repeated tag counts, as libtiff takes it
            found.setdefault(tag, value)
    w, h = found.get(256), found.get(257)
    return (w, h) if w is not None and h is not None and w >= 0 and h >= 0 else None


def _bmp_size(data: bytes) -> tuple[int, int] | None:
    if len(data) < 26:
        return None
    if int.from_bytes(data[14:18], "little") == 12:       # OS/2 core header: 16-bit sizes
        return int.from_bytes(data[18:20], "little"), int.from_bytes(data[20:22], "little")
    w, h = (int.from_bytes(data[18:22], "little", signed=True),
            int.from_bytes(data[22:26], "little", signed=True))
    return abs(w), abs(h)        # a negative height is a top-down bitmap


def _header(data: bytes, fmt: str) -> tuple[tuple[int, int] | None, bool]:
    """``((width, height) or None, complete)`` of ``data`` in format ``fmt``, from its header
    and structure alone. Only JPEG and PNG can tell a missing end; the others count as whole."""
    if fmt == "JPEG":
        size, complete = _jpeg_walk(data)
        # a file whose structure the walk cannot follow still counts when it ends as a JPEG ends
        return size, complete or data.rstrip(b"\x00").endswith(b"\xff\xd9")
    if fmt == "PNG":
        return _png_walk(data)
    return {"WebP": _webp_size, "TIFF": _tiff_size, "BMP": _bmp_size}[fmt](data), True


def image_size(data: bytes) -> tuple[int, int] | None:
    """``(width, height)`` in pixels from the header of a JPEG, PNG, WebP, BMP or TIFF, without
    decoding it (so a decompression bomb is refused before it costs memory); None when the
    format is not one of these or its header does not say."""
    try:
        fmt = _format_of(data, "")
    except ImageError:
        return None
    return _header(data, fmt)[0]


def _too_large(name: str, w: int, h: int, max_pixels: int, fmt: str) -> ImageTooLarge:
    also = (f"; a baseline JPEG up to {MAX_FULL_PIXELS / 1e6:.0f} MP is read at down to "
            f"1/{JPEG_SCALES[-1]} scale") if fmt == "JPEG" else ""
    if fmt == "progressive JPEG":   # libjpeg decodes those whole before any scaling
        also = "; a progressive JPEG is not read smaller: save it as a baseline JPEG or smaller"
    return ImageTooLarge(f"{name}: image too large ({w}x{h} = {w * h / 1e6:.1f} MP, "
                         f"limit {max_pixels / 1e6:.1f} MP{also})")


def decode_image(data: bytes, name: str = "image", max_pixels: int = MAX_PIXELS) -> np.ndarray:
    """Decode encoded image bytes to ``(H, W, 3) uint8`` BGR, EXIF orientation applied.

    A baseline JPEG over ``max_pixels`` pixels (a 108 MP phone photo; at most
    ``MAX_FULL_PIXELS``) is decoded at the first of 1/2, 1/4, 1/8 scale that fits (libjpeg
    scales while decoding, so the full size is never in memory); the array, and every box
    found in it, is then in that smaller size's pixels. A progressive JPEG that big is refused. ``name`` only labels error messages.

    Raises ``ImageError`` when the bytes are empty, not a JPEG/PNG/WebP/BMP/TIFF (HEIC, AVIF,
    GIF and PDF are named), truncated (data after a complete image is ignored), a JPEG of more
    than ``MAX_SCANS`` scans (whose decoding would take minutes) or undecodable;
    ``ImageTooLarge`` (an ``ImageError``) when the header or the decoded array is over
    ``max_pixels`` (a JPEG: even at 1/8 scale).
    """
    if not data:
        raise ImageError(f"{name}: empty file (0 bytes)")
    if len(data) > MAX_BYTES:
        raise ImageError(f"{name}: file too large ({len(data) / 1e6:.0f} MB, limit "
                         f"{MAX_BYTES / 1e6:.0f} MB)")
    fmt = _format_of(data, name)
    sof, scans = _jpeg_frame(data)[1::2] if fmt == "JPEG" else (None, 0)
    if scans > MAX_SCANS:           # decoding time grows with scans x pixels (see MAX_SCANS)
        raise ImageError(f"{name}: a JPEG of more than {MAX_SCANS} scans (a camera's JPEG has "
                         "at most about 10), which would take minutes to decode: save the "
                         "photo again as JPEG")
    size, complete = _header(data, fmt)
    if size is None and fmt != "JPEG":      # a JPEG's walk may fail on a sound file; libjpeg
        # and OPENCV_IO_MAX_IMAGE_PIXELS still bound it. The others would be decoded blind.
        raise ImageError(f"{name}: the {fmt} header does not say the image's width and height "
                         "as whole numbers (not decoded)")
    flags = cv2.IMREAD_COLOR
    if size is not None:
        w, h = size
        if w == 0 or h == 0:
            raise ImageError(f"{name}: empty image ({w}x{h} px)")
        if w * h > max_pixels:
            scale = next((s for s in JPEG_SCALES if -(-w // s) * -(-h // s) <= max_pixels), None)
            sequential = sof in _SEQUENTIAL_SOF
            if not sequential or scale is None or w * h > MAX_FULL_PIXELS:
                raise _too_large(name, w, h, max_pixels,
                                 fmt if sequential else "progressive JPEG" if fmt == "JPEG" else "")
            flags = {2: cv2.IMREAD_REDUCED_COLOR_2, 4: cv2.IMREAD_REDUCED_COLOR_4,
                     8: cv2.IMREAD_REDUCED_COLOR_8}[scale]
    if not complete:
        raise ImageError(f"{name}: truncated {fmt} file (the end of the image is missing)")
    img = cv2.imdecode(np.frombuffer(data, np.uint8), flags)
    if img is None:
        raise ImageError(f"{name}: {fmt} data could not be decoded (corrupt file)")
    return check_array(img, name, max_pixels)


def check_array(img: np.ndarray, name: str = "image", max_pixels: int = MAX_PIXELS) -> np.ndarray:
    """Validate an in-memory image and return it as contiguous ``(H, W, 3) uint8`` BGR.

    Accepts ``(H, W)`` grey, ``(H, W, 3)`` BGR or ``(H, W, 4)`` BGRA uint8. Raises
    ``ImageError`` for other shapes or dtypes, a zero-sized image or one over ``max_pixels``.
    """
    if not isinstance(img, np.ndarray):
        raise ImageError(f"{name}: expected a numpy array, got {type(img).__name__}")
    if img.dtype != np.uint8:
        raise ImageError(f"{name}: expected uint8 pixels, got {img.dtype}")
    if img.ndim == 3 and img.shape[2] == 1:
        img = img[..., 0]
    if img.ndim not in (2, 3) or (img.ndim == 3 and img.shape[2] not in (3, 4)):
        raise ImageError(f"{name}: expected an (H, W), (H, W, 3) or (H, W, 4) array, "
                         f"got shape {img.shape}")
    h, w = img.shape[:2]
    if h == 0 or w == 0:
        raise ImageError(f"{name}: empty image ({w}x{h} px)")
    if h * w > max_pixels:
        raise _too_large(name, w, h, max_pixels, "array")
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    elif img.shape[2] == 4:
        img = cv2.cvtColor(img, cv2.COLOR_BGRA2BGR)
    return np.ascontiguousarray(img)


def load_image(source: str | os.PathLike | bytes | bytearray | memoryview | np.ndarray,
               max_pixels: int = MAX_PIXELS) -> np.ndarray:
    """Load a photo from a path, encoded bytes, a binary file object (``.read()``) or an array
    -> ``(H, W, 3) uint8`` BGR.

    Paths and bytes are decoded with EXIF orientation applied, so ``(H, W)`` is the photo as a
    viewer shows it (a JPEG over ``max_pixels`` at a smaller scale: :func:`decode_image`). The
    path ``"-"`` is standard input, as on the command line. Arrays are taken as already oriented
    BGR (grey and BGRA are converted).
    Raises ``ImageError`` for a missing file, a folder, an empty or truncated file, something
    that is not an image, or an image over ``max_pixels`` pixels.
    """
    if isinstance(source, np.ndarray):
        return check_array(source, "array", max_pixels)
    if isinstance(source, (bytes, bytearray, memoryview)):
        return decode_image(bytes(source), "image bytes", max_pixels)
    if not isinstance(source, (str, os.PathLike)):
        read = getattr(source, "read", None)
        if not callable(read):
            raise ImageError(f"cannot load an image from a {type(source).__name__} (give a path, "
                             "encoded bytes, a binary file object or a BGR array)")
        try:                    # a binary file object (open(..., "rb"), io.BytesIO, an upload)
            data = read(MAX_BYTES + 1)
        except (OSError, ValueError) as exc:
            raise ImageError(f"cannot read the file object ({exc})") from exc
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise ImageError(f"a {type(source).__name__} read as text, not bytes: open the photo "
                             "with mode 'rb'")
        if len(data) > MAX_BYTES:
            raise ImageError(f"file object: more than {MAX_BYTES / 1e6:.0f} MB, not a photo")
        return decode_image(bytes(data), "file object", max_pixels)
    if str(source) == "-":
        if sys.stdin is None:
            raise ImageError("standard input is closed: give the photo's file name")
        data = sys.stdin.buffer.read(MAX_BYTES + 1)
        if len(data) > MAX_BYTES:
            raise ImageError(f"standard input: more than {MAX_BYTES / 1e6:.0f} MB, not a photo")
        return decode_image(data, "standard input", max_pixels)
    path = Path(source)
    return decode_image(_file_bytes(path), str(path), max_pixels)


def _file_bytes(path: Path) -> bytes:
    """The bytes of the photo file at ``path``, up to MAX_BYTES; ImageError naming the problem."""
    from vision.common.safe_files import NotRegular, open_regular

    if not path.exists():
        raise ImageError(f"{path}: no such file")
    if path.is_dir():
        raise ImageError(f"{path}: is a folder, not an image file")
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise ImageError(f"{path}: file too large ({size / 1e6:.0f} MB, limit "
                             f"{MAX_BYTES / 1e6:.0f} MB)")
        # a FIFO named like a photo would wait for a writer for ever, a device never end:
        # refused by name before they are opened (a photo from a pipe goes to "-")
        with open_regular(path) as fh:
            data = fh.read(MAX_BYTES + 1)
        if len(data) > MAX_BYTES:
            raise ImageError(f"{path}: more than {MAX_BYTES / 1e6:.0f} MB, not a photo")
    except NotRegular as exc:
        raise ImageError(f"{exc}: give a photo file, or pipe the photo to '-' (standard "
                         "input)") from None
    except OSError as exc:
        raise ImageError(f"{path}: cannot read ({exc.strerror or exc})") from exc
    return data

