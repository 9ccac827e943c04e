"""vision.imageio: EXIF orientation and clear errors for unusable inputs."""
from __future__ import annotations

import struct
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.imageio import ImageError, check_array, decode_image, load_image

RED, BLUE = (0, 0, 255), (255, 0, 0)


def _jpeg(img: np.ndarray) -> bytes:
    ok, enc = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 95])
    assert ok
    return enc.tobytes()


def _with_orientation(jpeg: bytes, orientation: int) -> bytes:
    """Insert an EXIF APP1 segment holding only the Orientation tag (0x0112, SHORT)."""
    ifd = struct.pack(">H", 1) + struct.pack(">HHIHH", 0x0112, 3, 1, orientation, 0) + b"\0\0\0\0"
    payload = b"Exif\0\0" + b"MM\0*" + struct.pack(">I", 8) + ifd
    return jpeg[:2] + b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload + jpeg[2:]


def _left_red_right_blue() -> np.ndarray:
    img = np.zeros((20, 40, 3), np.uint8)   # landscape 40x20: left half red, right half blue
    img[:, :20], img[:, 20:] = RED, BLUE
    return img


def _is(pixel, colour) -> bool:
    return bool(np.all(np.abs(pixel.astype(int) - colour) < 40))


@pytest.mark.parametrize("source", ["path", "bytes"])
def test_exif_orientation_6_rotates_clockwise(tmp_path, source):
    # EXIF 6 = "rotate 90 CW to display": the stored left (red) edge ends up on top
    data = _with_orientation(_jpeg(_left_red_right_blue()), 6)
    path = tmp_path / "portrait.jpg"
    path.write_bytes(data)
    img = load_image(path if source == "path" else data)
    assert img.shape == (40, 20, 3)
    assert _is(img[2, 10], RED) and _is(img[37, 10], BLUE)


def test_exif_orientation_3_turns_upside_down():
    img = load_image(_with_orientation(_jpeg(_left_red_right_blue()), 3))
    assert img.shape == (20, 40, 3)
    assert _is(img[10, 2], BLUE) and _is(img[10, 37], RED)


def test_without_exif_pixels_are_as_stored():
    img = load_image(_jpeg(_left_red_right_blue()))
    assert img.shape == (20, 40, 3) and img.dtype == np.uint8
    assert _is(img[10, 2], RED)


def test_png_bytes_and_grey_png(tmp_path):
    ok, enc = cv2.imencode(".png", np.full((5, 7), 200, np.uint8))
    img = load_image(enc.tobytes())
    assert img.shape == (5, 7, 3) and img[0, 0].tolist() == [200, 200, 200]


def test_missing_file(tmp_path):
    with pytest.raises(ImageError, match="no such file"):
        load_image(tmp_path / "nope.jpg")


def test_folder_is_not_an_image(tmp_path):
    with pytest.raises(ImageError, match="folder"):
        load_image(tmp_path)


def test_empty_file(tmp_path):
    (tmp_path / "empty.jpg").write_bytes(b"")
    with pytest.raises(ImageError, match="empty file"):
        load_image(tmp_path / "empty.jpg")


def test_text_file_is_not_an_image(tmp_path):
    (tmp_path / "notes.jpg").write_text("1m 2m 3m\n")
    with pytest.raises(ImageError, match="not an image"):
        load_image(tmp_path / "notes.jpg")


def test_truncated_jpeg_and_png():
    jpeg = _jpeg(np.random.default_rng(0).integers(0, 255, (64, 64, 3), dtype=np.uint8))
    with pytest.raises(ImageError, match="truncated JPEG"):
        decode_image(jpeg[: len(jpeg) // 2])
    ok, png = cv2.imencode(".png", np.zeros((8, 8, 3), np.uint8))
    with pytest.raises(ImageError, match="truncated PNG"):
        decode_image(png.tobytes()[:-20])


def test_too_many_pixels_from_header_without_decoding():
    # a PNG whose header claims 20000 x 20000 = 400 MP; only the IHDR is needed to refuse it
    ihdr = struct.pack(">II", 20000, 20000) + b"\x08\x02\x00\x00\x00"
    data = b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + ihdr + b"\0\0\0\0"
    with pytest.raises(ImageError, match="too large.*400.0 MP"):
        decode_image(data)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero here")
def test_endless_file_is_refused_after_the_size_limit(monkeypatch):
    import vision.imageio as imageio
    monkeypatch.setattr(imageio, "MAX_BYTES", 1000)     # a device has no size to check first
    with pytest.raises(ImageError, match="more than"):
        load_image("/dev/zero")


def test_pixel_limit_is_configurable():
    data = _jpeg(np.zeros((30, 40, 3), np.uint8))       # 1200 px
    assert load_image(data, max_pixels=1200).shape == (30, 40, 3)
    with pytest.raises(ImageError, match="too large"):
        load_image(data, max_pixels=1199)


def test_arrays_are_checked_and_converted():
    assert check_array(np.zeros((4, 5), np.uint8)).shape == (4, 5, 3)
    bgra = np.zeros((4, 5, 4), np.uint8)
    bgra[..., 2] = 255
    assert load_image(bgra)[0, 0].tolist() == [0, 0, 255]
    with pytest.raises(ImageError, match="empty image"):
        load_image(np.zeros((0, 5, 3), np.uint8))
    with pytest.raises(ImageError, match="uint8"):
        load_image(np.zeros((4, 5, 3), np.float32))
    with pytest.raises(ImageError, match="shape"):
        load_image(np.zeros((4, 5, 2), np.uint8))


def test_unsupported_source_type():
    with pytest.raises(ImageError, match="int"):
        load_image(42)
