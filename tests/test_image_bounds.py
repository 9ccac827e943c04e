"""Issue 39, "bounded decoding": a TIFF's width and height are checked from its header
whatever whole-number type they are given in (a 2.6 MB TIFF typed SLONG, SSHORT or LONG8
skipped the pixel check: 16 s and 5.5 GB per upload), in score, batch and serve alike (they
all decode through vision.read.imageio.decode_image)."""
from __future__ import annotations

import struct
import time

import cv2
import numpy as np
import pytest

from vision.read.imageio import ImageError, ImageTooLarge, decode_image, image_size


def _tiff(kind: int, width: int, height: int) -> bytes:
    """An 8x8 TIFF (OpenCV's, little-endian) whose ImageWidth/ImageLength entries are
    rewritten as type ``kind`` holding ``width``/``height``: a header claiming a huge image."""
    ok, buf = cv2.imencode(".tif", np.zeros((8, 8, 3), np.uint8))
    data = bytearray(buf.tobytes())
    assert data[:4] == b"II*\x00"
    ifd = struct.unpack_from("<I", data, 4)[0]
    n = struct.unpack_from("<H", data, ifd)[0]
    for k in range(n):
        e = ifd + 2 + 12 * k
        tag = struct.unpack_from("<H", data, e)[0]
        if tag in (256, 257):
            value = width if tag == 256 else height
            if kind in (16, 17):                     # LONG8: 8 bytes, stored past the entry
                at = len(data)
                data += struct.pack("<q" if kind == 17 else "<Q", value)
                struct.pack_into("<HHII", data, e, tag, kind, 1, at)
            else:
                fmt = {8: "<h", 9: "<i", 3: "<H", 4: "<I", 5: "<I"}[kind]
                field = struct.pack(fmt, value).ljust(4, b"\0")
                struct.pack_into("<HHI", data, e, tag, kind, 1)
                data[e + 8:e + 12] = field
    return bytes(data)


@pytest.mark.parametrize("kind,name,side", [(9, "SLONG", 60000), (8, "SSHORT", 30000),
                                             (16, "LONG8", 60000), (17, "SLONG8", 60000)])
def test_a_tiff_whose_sizes_are_slong_sshort_or_long8_is_refused_from_its_header(kind, name, side):
    bomb = _tiff(kind, side, side)
    assert image_size(bomb) == (side, side), name
    t = time.monotonic()
    with pytest.raises(ImageTooLarge, match=f"{side}x{side}"):
        decode_image(bomb, "bomb.tif")
    assert time.monotonic() - t < 1.0


def test_a_tiff_whose_size_is_no_whole_number_is_not_decoded_blind():
    with pytest.raises(ImageError, match="does not say the image's width and height"):
        decode_image(_tiff(5, 60000, 60000), "rational.tif")       # RATIONAL: not a size
    with pytest.raises(ImageError, match="does not say"):
        decode_image(_tiff(9, -60000, 8), "negative.tif")


def test_a_small_tiff_with_slong_sizes_still_decodes():
    img = decode_image(_tiff(9, 8, 8), "fine.tif")
    assert img.shape == (8, 8, 3)


def test_the_server_answers_413_for_a_slong_tiff_bomb():
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from tests.test_server import PixelReader
    from vision.server.app import create_app

    c = TestClient(create_app(reader=PixelReader()))
    r = c.post("/api/read", files={"image": ("bomb.tif", _tiff(9, 60000, 60000), "image/tiff")})
    assert r.status_code == 413 and r.json()["code"] == "too_many_pixels"


def test_opencvs_own_pixel_limit_is_set_before_cv2_loads():
    import os

    import vision.read.imageio as io
    assert os.environ["OPENCV_IO_MAX_IMAGE_PIXELS"] == str(io.MAX_FULL_PIXELS)
