"""Load a photo for the detector: a file path, raw bytes or an array -> ``(H, W, 3) uint8`` BGR.

EXIF orientation is honoured (phones store portrait shots as landscape pixels plus a rotation
tag): OpenCV's ``imread``/``imdecode`` with ``IMREAD_COLOR`` apply the tag, and the tests check
that on a tagged JPEG. Anything that is not a usable image raises ``ImageError`` with a message
that names the problem, so the CLI and the HTTP server can report it without a traceback.
"""
from __future__ import annotations

import os
from pathlib import Path

import cv2
import numpy as np

MAX_PIXELS = 50_000_000     # 50 MP: larger than any phone photo; guards memory on a 2-core box
MAX_BYTES = 100 * 1024 * 1024

# leading bytes of the formats OpenCV decodes here
_SIGNATURES = (
    (b"\xff\xd8\xff", "JPEG"),
    (b"\x89PNG\r\n\x1a\n", "PNG"),
    (b"RIFF", "WebP"),
    (b"BM", "BMP"),
    (b"II*\x00", "TIFF"),
    (b"MM\x00*", "TIFF"),
)


class ImageError(ValueError):
    """The input is not a usable image: missing, empty, not an image, truncated or too large."""


def _format_of(data: bytes) -> str | None:
    for sig, name in _SIGNATURES:
        if data.startswith(sig):
            return None if name == "WebP" and data[8:12] != b"WEBP" else name
    return None


def _looks_truncated(data: bytes, fmt: str) -> bool:
    """A JPEG must end with the EOI marker, a PNG with its IEND chunk."""
    tail = data.rstrip(b"\x00")[-12:]
    if fmt == "JPEG":
        return not tail.endswith(b"\xff\xd9")
    if fmt == "PNG":
        return b"IEND" not in tail
    return False


def _image_size(data: bytes, fmt: str) -> tuple[int, int] | None:
    """Width and height from the header, read before decoding so a huge image is never decoded."""
    if fmt == "PNG" and len(data) >= 24:
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    if fmt == "JPEG":
        i = 2
        while i + 9 < len(data):
            if data[i] != 0xFF:
                return None
            marker = data[i + 1]
            if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
                i += 2
                continue
            seg_len = int.from_bytes(data[i + 2:i + 4], "big")
            # SOF0..SOF15 except DHT (C4), JPG (C8), DAC (CC) carry the frame size
            if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
                h = int.from_bytes(data[i + 5:i + 7], "big")
                w = int.from_bytes(data[i + 7:i + 9], "big")
                return w, h
            i += 2 + seg_len
    return None


def decode_image(data: bytes, name: str = "image", max_pixels: int = MAX_PIXELS) -> np.ndarray:
    """Decode encoded image bytes to ``(H, W, 3) uint8`` BGR, EXIF orientation applied.

    ``name`` only labels error messages. Raises ``ImageError`` when the bytes are empty, not a
    JPEG/PNG/WebP/BMP/TIFF, truncated, undecodable or over ``max_pixels`` pixels.
    """
    if not data:
        raise ImageError(f"{name}: empty file (0 bytes)")
    if len(data) > MAX_BYTES:
        raise ImageError(f"{name}: file too large ({len(data) / 1e6:.0f} MB, limit "
                         f"{MAX_BYTES / 1e6:.0f} MB)")
    fmt = _format_of(data)
    if fmt is None:
        raise ImageError(f"{name}: not an image (expected JPEG, PNG, WebP, BMP or TIFF)")
    size = _image_size(data, fmt)
    if size is not None:
        w, h = size
        if w == 0 or h == 0:
            raise ImageError(f"{name}: empty image ({w}x{h} px)")
        if w * h > max_pixels:
            raise ImageError(f"{name}: image too large ({w}x{h} = {w * h / 1e6:.1f} MP, "
                             f"limit {max_pixels / 1e6:.1f} MP)")
    if _looks_truncated(data, fmt):
        raise ImageError(f"{name}: truncated {fmt} file (the end of the image is missing)")
    img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
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
        raise ImageError(f"{name}: image too large ({w}x{h} = {w * h / 1e6:.1f} MP, "
                         f"limit {max_pixels / 1e6:.1f} MP)")
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    elif img.shape[2] == 4:
        img = cv2.cvtColor(img, cv2.COLOR_BGRA2BGR)
    return np.ascontiguousarray(img)


def load_image(source: str | os.PathLike | bytes | bytearray | memoryview | np.ndarray,
               max_pixels: int = MAX_PIXELS) -> np.ndarray:
    """Load a photo from a path, encoded bytes or an array -> ``(H, W, 3) uint8`` BGR.

    Paths and bytes are decoded with EXIF orientation applied, so ``(H, W)`` is the photo as a
    viewer shows it. Arrays are taken as already oriented BGR (grey and BGRA are converted).
    Raises ``ImageError`` for a missing file, a folder, an empty or truncated file, something
    that is not an image, or an image over ``max_pixels`` pixels.
    """
    if isinstance(source, np.ndarray):
        return check_array(source, "array", max_pixels)
    if isinstance(source, (bytes, bytearray, memoryview)):
        return decode_image(bytes(source), "image bytes", max_pixels)
    if not isinstance(source, (str, os.PathLike)):
        raise ImageError(f"cannot load an image from a {type(source).__name__}")
    path = Path(source)
    if not path.exists():
        raise ImageError(f"{path}: no such file")
    if path.is_dir():
        raise ImageError(f"{path}: is a folder, not an image file")
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise ImageError(f"{path}: file too large ({size / 1e6:.0f} MB, limit "
                             f"{MAX_BYTES / 1e6:.0f} MB)")
        with path.open("rb") as fh:     # a pipe or device has no size: read up to the limit
            data = fh.read(MAX_BYTES + 1)
        if len(data) > MAX_BYTES:
            raise ImageError(f"{path}: more than {MAX_BYTES / 1e6:.0f} MB, not a photo")
    except OSError as exc:
        raise ImageError(f"{path}: cannot read ({exc.strerror or exc})") from exc
    return decode_image(data, str(path), max_pixels)
