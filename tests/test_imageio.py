"""vision.read.imageio: EXIF orientation and clear errors for unusable inputs."""
from __future__ import annotations

import struct
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.read.imageio import (ImageError, ImageTooLarge, check_array, decode_image, image_size,
                                 load_image)

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
def test_endless_file_is_refused_by_name_as_a_device(monkeypatch):
    # a device has no size to check first: it is no photo file, refused before it is read
    with pytest.raises(ImageError, match="is a device, not a file"):
        load_image("/dev/zero")


def test_pixel_limit_is_configurable():
    ok, data = cv2.imencode(".png", np.zeros((30, 40, 3), np.uint8))       # 1200 px
    assert load_image(data.tobytes(), max_pixels=1200).shape == (30, 40, 3)
    with pytest.raises(ImageError, match="too large"):
        load_image(data.tobytes(), max_pixels=1199)


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


# ---- header sizes, complete files with trailers, formats named, big JPEGs read smaller ----

@pytest.mark.parametrize("ext", [".png", ".jpg", ".bmp", ".webp", ".tif"])
def test_image_size_from_the_header(ext):
    ok, buf = cv2.imencode(ext, np.zeros((123, 321, 3), np.uint8))
    assert ok
    assert image_size(buf.tobytes()) == (321, 123)


def test_image_size_unknown():
    assert image_size(b"hello") is None


def test_jpeg_with_fill_bytes_before_a_marker_still_has_its_size_read():
    # JPEG allows any number of 0xFF fill bytes before a marker: a 64 MP bomb hid behind one
    data = _jpeg(np.zeros((30, 40, 3), np.uint8))
    assert image_size(data[:2] + b"\xff" + data[2:]) == (40, 30)


def test_tiff_big_is_refused_from_its_header():
    # an 8000 x 8000 TIFF costs 190 MB decoded: its IFD says so first (SHORT and LONG tags)
    ok, buf = cv2.imencode(".tif", np.zeros((30, 40, 3), np.uint8))
    data = buf.tobytes()
    assert image_size(data) == (40, 30)
    with pytest.raises(ImageTooLarge, match="40x30"):
        decode_image(data, max_pixels=1000)


@pytest.mark.parametrize("fmt", [".jpg", ".png"])
def test_data_after_a_complete_image_is_ignored(fmt):
    # a Pixel Motion Photo keeps its video after the JPEG's EOI; Samsung and others add trailers
    ok, buf = cv2.imencode(fmt, _left_red_right_blue())
    data = buf.tobytes() + b"\x00\x00\x00\x18ftypmp42isom" + b"\x01" * 5000
    img = decode_image(data)
    assert img.shape == (20, 40, 3) and _is(img[10, 2], RED)


def test_truncated_progressive_jpeg_and_one_with_an_exif_thumbnail():
    rng = np.random.default_rng(1)
    img = rng.integers(0, 255, (64, 64, 3), dtype=np.uint8)
    ok, prog = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_PROGRESSIVE, 1])
    prog = prog.tobytes()
    assert decode_image(prog).shape == (64, 64, 3)
    with pytest.raises(ImageError, match="truncated JPEG"):
        decode_image(prog[: len(prog) * 2 // 3])
    # an APP1 holding a whole little JPEG (a thumbnail, with its own EOI) does not end the image
    thumb = _jpeg(np.zeros((8, 8, 3), np.uint8))
    payload = b"Exif\0\0" + thumb
    full = _jpeg(img)
    data = full[:2] + b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload + full[2:]
    assert decode_image(data).shape == (64, 64, 3)
    with pytest.raises(ImageError, match="truncated JPEG"):
        decode_image(data[: len(data) - 300])


@pytest.mark.parametrize("head, name", [
    (b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic", "HEIC"),
    (b"\x00\x00\x00\x1cftypavif\x00\x00\x00\x00avifmif1", "AVIF"),
    (b"GIF89a\x10\x00\x10\x00", "GIF"),
    (b"%PDF-1.7\n", "PDF"),
])
def test_formats_not_read_are_named(head, name):
    article = "an" if name == "AVIF" else "a"
    with pytest.raises(ImageError, match=f"{article} {name} file, which tilescope cannot read: save"):
        decode_image(head + b"\x00" * 100)


def test_a_jpeg_over_the_limit_is_decoded_at_a_smaller_scale():
    # a 48 or 108 MP phone photo: libjpeg decodes it at 1/2, 1/4 or 1/8 scale, never in full
    data = _with_orientation(_jpeg(np.repeat(_left_red_right_blue(), 8, axis=0).repeat(8, axis=1)), 6)
    full = decode_image(data)                       # 320 x 160 stored, shown 160 x 320
    assert full.shape == (320, 160, 3)
    half = decode_image(data, max_pixels=160 * 320 // 2)
    assert half.shape == (160, 80, 3)               # 1/2 scale, EXIF orientation still applied
    assert _is(half[5, 40], RED) and _is(half[155, 40], BLUE)
    assert decode_image(data, max_pixels=800).shape == (40, 20, 3)     # 1/8
    with pytest.raises(ImageTooLarge, match="320x160.*1/8 scale"):
        decode_image(data, max_pixels=799)
    ok, png = cv2.imencode(".png", full)
    with pytest.raises(ImageTooLarge, match="160x320"):      # other formats: refused
        decode_image(png.tobytes(), max_pixels=160 * 320 - 1)


def test_standard_input(monkeypatch):
    import io
    import sys

    data = _jpeg(_left_red_right_blue())
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert load_image("-").shape == (20, 40, 3)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"")))
    with pytest.raises(ImageError, match="standard input: empty"):
        load_image("-")


def test_a_progressive_or_huge_jpeg_over_the_limit_is_refused_not_read_smaller():
    # libjpeg keeps a progressive JPEG's coefficients at full size whatever the scale (a
    # 541-byte 56000² file took 9 GB): only a baseline one is read smaller, up to 256 MP
    import vision.read.imageio as imageio

    img = np.zeros((160, 320, 3), np.uint8)
    ok, prog = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_PROGRESSIVE, 1])
    with pytest.raises(ImageTooLarge, match="320x160.*a progressive JPEG is not read smaller"):
        decode_image(prog.tobytes(), max_pixels=160 * 320 // 2)
    base = _jpeg(img)
    assert decode_image(base, max_pixels=160 * 320 // 2).shape == (80, 160, 3)
    old = imageio.MAX_FULL_PIXELS
    try:
        imageio.MAX_FULL_PIXELS = 160 * 320 - 1
        with pytest.raises(ImageTooLarge):
            decode_image(base, max_pixels=160 * 320 // 2)
    finally:
        imageio.MAX_FULL_PIXELS = old


def test_tiff_size_is_its_first_width_tag_as_libtiff_reads():
    ok, buf = cv2.imencode(".tif", np.zeros((30, 40, 3), np.uint8))
    data = bytearray(buf.tobytes())
    order = "little" if data[:2] == b"II" else "big"
    ifd = int.from_bytes(data[4:8], order)
    count = int.from_bytes(data[ifd:ifd + 2], order)
    # repeat the IFD's first entry (ImageWidth) as its last, saying 10: the first still counts
    entries = [bytes(data[ifd + 2 + 12 * k: ifd + 14 + 12 * k]) for k in range(count)]
    fake = bytearray(entries[0])
    fake[8:12] = (10).to_bytes(2, order) + b"\0\0" if order == "little" else (10).to_bytes(2, order) + b"\0\0"
    data[ifd + 2 + 12 * (count - 1): ifd + 14 + 12 * (count - 1)] = fake
    assert image_size(bytes(data))[0] == 40


def test_closed_standard_input(monkeypatch):
    import sys

    monkeypatch.setattr(sys, "stdin", None)       # `tilescope score - <&-`
    with pytest.raises(ImageError, match="standard input is closed"):
        load_image("-")


def test_a_binary_file_object_is_read_and_a_text_one_named(tmp_path):
    import io

    data = _jpeg(_left_red_right_blue())
    assert load_image(io.BytesIO(data)).shape == (20, 40, 3)
    path = tmp_path / "photo.jpg"
    path.write_bytes(data)
    with path.open("rb") as fh:
        assert load_image(fh).shape == (20, 40, 3)
    with path.open("r", encoding="latin-1") as fh:
        with pytest.raises(ImageError, match="read as text, not bytes: open the photo with mode 'rb'"):
            load_image(fh)
    with pytest.raises(ImageError, match="cannot load an image from a int"):
        load_image(5)


def test_a_camera_raw_is_named_not_called_corrupt_or_read_as_its_preview():
    # a DNG (Adobe DNG spec: DNGVersion tag 50706 in the first IFD) or a TIFF whose first page
    # is sensor data (PhotometricInterpretation CFA 32803): OpenCV read a 256x192 preview of
    # one silently and called the other "corrupt"
    def tiff(entries):
        ifd = len(entries).to_bytes(2, "little") + b"".join(
            tag.to_bytes(2, "little") + kind.to_bytes(2, "little") + (1).to_bytes(4, "little")
            + value.to_bytes(4, "little") for tag, kind, value in entries) + b"\0\0\0\0"
        return b"II*\0" + (8).to_bytes(4, "little") + ifd + b"\0" * 64

    size = [(256, 3, 256), (257, 3, 192)]
    for extra in ([(50706, 1, 0x00040101)], [(262, 3, 32803)]):
        with pytest.raises(ImageError, match=r"a camera RAW \(DNG\) file, which tilescope cannot read"):
            decode_image(tiff(size + extra), "photo.dng")
    # a first page marked a reduced-resolution copy (NewSubfileType 254, bit 0): a thumbnail
    with pytest.raises(ImageError, match="the first page of this TIFF is a thumbnail"):
        decode_image(tiff([(254, 4, 1)] + size), "scan.tif")
    with pytest.raises(ImageError, match="an AVIF file") as exc:
        decode_image(b"\0\0\0\x1cftypavif" + b"\0" * 64, "photo.avif")
    assert "iPhone" not in str(exc.value)


def _with_last_scan_repeated(jpeg: bytes, times: int) -> bytes:
    """``jpeg`` with its last scan (SOS segment and its data) written ``times`` more times:
    libjpeg passes over the whole image once per scan (warning of a bogus progression)."""
    last = jpeg.rindex(b"\xff\xda")
    return jpeg[:-2] + jpeg[last:-2] * times + b"\xff\xd9"


def test_a_jpeg_of_too_many_scans_is_refused_before_it_is_decoded(monkeypatch):
    # one scan repeated 30,000 times in a 7000x7000 file kept a CPU decoding for ~90 s:
    # the scans are counted first, and a photo's ~10 are far under the limit
    import vision.read.imageio as imageio

    img = np.random.default_rng(1).integers(0, 255, (64, 64, 3), dtype=np.uint8)
    ok, prog = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_PROGRESSIVE, 1])
    prog = prog.tobytes()
    assert imageio._jpeg_frame(prog)[3] == 10           # libjpeg's progressive script
    bomb = _with_last_scan_repeated(prog, 30_000)
    with pytest.raises(ImageError, match="a JPEG of more than 32 scans"):
        decode_image(bomb)
    assert imageio._jpeg_frame(bomb)[3] == 33           # the walk stops there too
    monkeypatch.setattr(imageio, "MAX_SCANS", 11)
    assert decode_image(_with_last_scan_repeated(prog, 1)).shape == (64, 64, 3)
    with pytest.raises(ImageError, match="more than 11 scans"):
        decode_image(_with_last_scan_repeated(prog, 2))
