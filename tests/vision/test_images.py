"""Upload decoding: formats by their bytes, limits from the header, EXIF orientation."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from cribcam.vision import images
from cribcam.vision.images import EmptyImage, ImageTooLarge, NotAnImage, data_url, decode_image, exif_orientation, sniff
from image_tools import DATA, encode, png_bomb, test_image, with_exif_orientation


@pytest.mark.parametrize("ext,fmt", [(".jpg", "jpeg"), (".png", "png"), (".webp", "webp"),
                                     (".bmp", "bmp")])
def test_each_format_is_recognised_by_its_bytes_and_decoded(ext, fmt):
    data = encode(test_image(), ext)
    info = sniff(data)
    assert (info.format, info.width, info.height) == (fmt, 120, 80)
    image, _ = decode_image(data)
    assert image.shape == (80, 120, 3) and image.dtype == np.uint8


def test_lossless_webp_and_grey_and_alpha_pngs_decode_to_bgr():
    assert sniff(encode(test_image(), ".webp", [cv2.IMWRITE_WEBP_QUALITY, 101])).width == 120
    grey = encode(test_image()[:, :, 0], ".png")
    alpha = encode(np.dstack([test_image(), np.full((80, 120), 255, np.uint8)]), ".png")
    for data in (grey, alpha):
        assert decode_image(data)[0].shape == (80, 120, 3)


def test_sixteen_bit_png_decodes_to_eight_bits():
    image = (test_image().astype(np.uint16) * 257)
    decoded, _ = decode_image(encode(image, ".png"))
    assert decoded.dtype == np.uint8 and decoded.shape == (80, 120, 3)


@pytest.mark.parametrize("orientation", range(1, 9))
@pytest.mark.parametrize("byte_order", ["<", ">"])
def test_exif_orientation_turns_the_photo_upright_as_opencv_does(orientation, byte_order):
    jpeg = with_exif_orientation(encode(test_image(), ".jpg", [cv2.IMWRITE_JPEG_QUALITY, 100]),
                                 orientation, byte_order)
    image, info = decode_image(jpeg)
    assert info.orientation == orientation
    # OpenCV's own reader applies the EXIF orientation: the same pixels must come out.
    reference = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert image.shape == reference.shape
    assert np.array_equal(image, reference)
    assert image.shape[:2] == ((120, 80) if orientation >= 5 else (80, 120))


def test_a_phone_photo_stored_sideways_comes_out_upright():
    # Orientation 6: the camera stored the picture turned; the red block (top left when
    # upright) is stored bottom left and must come back top left.
    upright = test_image()
    stored = cv2.rotate(upright, cv2.ROTATE_90_COUNTERCLOCKWISE)
    image, _ = decode_image(with_exif_orientation(encode(stored, ".jpg",
                                                         [cv2.IMWRITE_JPEG_QUALITY, 100]), 6))
    assert image.shape == upright.shape
    assert image[5, 5, 2] > 200 and image[5, 5, 0] < 60  # red, top left


def test_exif_orientation_parser_ignores_nonsense():
    assert exif_orientation(b"") == 1
    assert exif_orientation(b"II*\x00\xff\xff\xff\xff") == 1
    assert exif_orientation(b"MM\x00*\x00\x00\x00\x08\x00\x01" + b"\x01\x12\x00\x03\x00\x00\x00\x01\x00\x09\x00\x00") == 1


def test_empty_file_is_a_400():
    with pytest.raises(EmptyImage) as info:
        decode_image(b"")
    assert info.value.status == 400 and "empty" in str(info.value)


@pytest.mark.parametrize("data,words", [
    (b"just some text, renamed hand.jpg\n", "not an image"),
    (b"%PDF-1.7\n", "not an image"),
    (b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00", "HEIC"),
    (b"GIF89a\x01\x00\x01\x00", "GIF"),
    (b"II*\x00\x08\x00\x00\x00", "TIFF"),
])
def test_other_files_are_415_with_a_reason(data, words):
    with pytest.raises(NotAnImage) as info:
        decode_image(data)
    assert info.value.status == 415 and words in str(info.value)


@pytest.mark.parametrize("ext", [".jpg", ".png", ".webp", ".bmp"])
def test_truncated_headers_are_415(ext):
    data = encode(test_image(), ext)
    with pytest.raises(NotAnImage) as info:
        decode_image(data[:12])
    assert "damaged or cut short" in str(info.value)


@pytest.mark.parametrize("ext", [".png", ".webp"])
def test_headers_without_the_pixels_are_415(ext):
    data = encode(test_image(), ext)
    with pytest.raises(NotAnImage) as info:
        decode_image(data[:40])
    assert "could not be decoded" in str(info.value)


def test_a_cut_short_jpeg_is_415():
    data = (DATA / "webcam-5-cards.jpg").read_bytes()
    with pytest.raises(NotAnImage) as info:
        decode_image(data[: len(data) // 2])
    assert "could not be decoded: it is damaged or cut short" in str(info.value)


def test_png_bomb_is_refused_from_its_header_without_decoding(monkeypatch):
    bomb = png_bomb(30_000)  # 900 megapixels in about 100 KB
    assert len(bomb) < 200_000

    def no_decoding(*args, **kwargs):
        raise AssertionError("the bomb was decoded")

    monkeypatch.setattr(images.cv2, "imdecode", no_decoding)
    with pytest.raises(ImageTooLarge) as info:
        decode_image(bomb)
    assert info.value.status == 413
    assert "30000x30000" in str(info.value) and "900 megapixels" in str(info.value)


@pytest.mark.parametrize("ext", [".jpg", ".png", ".webp", ".bmp"])
def test_header_pixel_limit_for_every_format(ext):
    data = encode(test_image(), ext)
    with pytest.raises(ImageTooLarge):
        decode_image(data, max_pixels=120 * 80 - 1)
    assert decode_image(data, max_pixels=120 * 80)[0].shape == (80, 120, 3)


def test_zero_sized_header_is_415():
    data = bytearray(encode(test_image(), ".png"))
    data[16:20] = b"\x00\x00\x00\x00"
    with pytest.raises(NotAnImage):
        decode_image(bytes(data))


def test_one_pixel_image_decodes():
    image, info = decode_image(encode(np.zeros((1, 1, 3), np.uint8), ".png"))
    assert image.shape == (1, 1, 3) and info.pixels == 1


def test_huge_photos_are_decoded_reduced_and_scaled_to_the_reader_size():
    big = cv2.resize(test_image(), (6000, 4000), interpolation=cv2.INTER_NEAREST)
    data = encode(big, ".jpg", [cv2.IMWRITE_JPEG_QUALITY, 80])
    image, info = decode_image(data, max_side=1920)
    assert (info.width, info.height) == (6000, 4000)
    assert image.shape == (1280, 1920, 3)
    assert image[10, 10, 2] > 200  # still the red block top left
    png, _ = decode_image(encode(big[:2000, :3000], ".png"), max_side=1000)
    assert png.shape == (667, 1000, 3)


def test_annotated_data_url_is_a_small_jpeg():
    url = data_url(np.zeros((3000, 2000, 3), np.uint8), max_side=1280)
    assert url.startswith("data:image/jpeg;base64,")
    import base64

    decoded = cv2.imdecode(np.frombuffer(base64.b64decode(url.split(",", 1)[1]), np.uint8),
                           cv2.IMREAD_COLOR)
    assert decoded.shape == (1280, 853, 3)
