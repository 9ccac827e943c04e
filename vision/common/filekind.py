"""What kind of file a few leading bytes are: a photo format (read or not) or text.

Kept free of OpenCV so the typed-hand commands can tell a photo handed to them by mistake
without loading it. ``vision.read.imageio`` decodes the formats in ``READ_FORMATS``.
"""
from __future__ import annotations

READ_FORMATS = ("JPEG", "PNG", "WebP", "BMP", "TIFF")
# the file name extensions of those formats (a folder's photos, for tilescope check and batch)
PHOTO_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp", ".bmp", ".tif", ".tiff")

_SIGNATURES = (
    (b"\xff\xd8\xff", "JPEG"),
    (b"\x89PNG\r\n\x1a\n", "PNG"),
    (b"BM", "BMP"),
    (b"II*\x00", "TIFF"),
    (b"MM\x00*", "TIFF"),
    (b"GIF87a", "GIF"),
    (b"GIF89a", "GIF"),
    (b"%PDF", "PDF"),
)
# ISO base media files (an ftyp box first) by their major brand: iPhone photos are HEIC
_FTYP_BRANDS = {b"heic": "HEIC", b"heix": "HEIC", b"hevc": "HEIC", b"hevx": "HEIC",
                b"heim": "HEIC", b"heis": "HEIC", b"mif1": "HEIF", b"msf1": "HEIF",
                b"avif": "AVIF", b"avis": "AVIF"}


def image_format(head: bytes) -> str | None:
    """The image format that ``head`` (a file's first 12 or more bytes) starts, one of
    ``READ_FORMATS`` or ``HEIC``, ``HEIF``, ``AVIF``, ``GIF``, ``PDF`` (named so a message can say
    what to do with it); None for anything else."""
    if head.startswith(b"RIFF") and head[8:12] == b"WEBP":
        return "WebP"
    if head[4:8] == b"ftyp":
        return _FTYP_BRANDS.get(head[8:12])
    return next((fmt for sig, fmt in _SIGNATURES if head.startswith(sig)), None)


def not_text_reason(head: bytes) -> str | None:
    """Why a file starting with ``head`` cannot be JSON Lines text, or None if it may be:
    a photo (named), UTF-16 text (PowerShell's ``>`` writes it), or other binary data."""
    fmt = image_format(head)
    if fmt:
        kind = "document" if fmt == "PDF" else "image"
        return f"{'an' if fmt == 'AVIF' else 'a'} {fmt} {kind}, not JSON Lines text"
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "UTF-16 text: save it as UTF-8"
    if b"\x00" in head:
        return "binary data, not JSON Lines text"
    return None
