"""The classifier's crop: centred on the box, a margin around it, full even at the edge."""

import numpy as np

from cribcam.vision.crops import CROP_SIZE, MARGIN, crop_square, index_crop, tilted, to_blob


def _image_with_square(x1, y1, x2, y2, size=(400, 600)):
    image = np.zeros((*size, 3), np.uint8)
    image[y1:y2, x1:x2] = 255
    return image


def test_the_box_fills_the_crop_but_for_the_margin():
    crop = index_crop(_image_with_square(100, 100, 200, 200), (100, 100, 200, 200))
    assert crop.shape == (CROP_SIZE, CROP_SIZE, 3)
    lit = np.nonzero(crop[..., 0] > 127)
    edge = round(CROP_SIZE * MARGIN / (1 + 2 * MARGIN))
    assert abs(lit[0].min() - edge) <= 1 and abs(lit[1].min() - edge) <= 1
    assert abs(lit[0].max() - (CROP_SIZE - 1 - edge)) <= 1


def test_a_tall_box_is_centred_in_a_square_crop():
    crop = index_crop(_image_with_square(140, 100, 160, 200), (140, 100, 160, 200))
    lit = np.nonzero(crop[..., 0] > 127)[1]
    assert abs((lit.min() + lit.max()) / 2 - (CROP_SIZE - 1) / 2) <= 1


def test_a_box_at_the_image_edge_gives_a_full_crop_of_repeated_border():
    image = _image_with_square(0, 0, 30, 30)
    crop = index_crop(image, (0, 0, 30, 30))
    assert crop.shape == (CROP_SIZE, CROP_SIZE, 3)
    assert crop[0, 0, 0] == 255  # the white corner pixel repeated, not black padding


def test_a_square_outside_the_image_is_black():
    assert not crop_square(np.full((50, 50, 3), 200, np.uint8), (500, 500), 20).any()


def test_a_large_box_is_shrunk_with_averaging():
    image = np.zeros((400, 400, 3), np.uint8)
    image[:, ::2] = 255  # one-pixel stripes average to grey, they do not alias
    crop = crop_square(image, (200, 200), 300)
    assert 100 < crop.mean() < 155 and crop.std() < 40


def test_blob_is_rgb_in_unit_range():
    crop = np.zeros((2, CROP_SIZE, CROP_SIZE, 3), np.uint8)
    crop[..., 2] = 255  # red in BGR
    blob = to_blob(crop)
    assert blob.shape == (2, 3, CROP_SIZE, CROP_SIZE) and blob.dtype == np.float32
    assert blob[:, 0].min() == 1.0 and blob[:, 1:].max() == 0.0


def test_a_quarter_turn_is_exact_and_anticlockwise():
    crops = np.zeros((2, CROP_SIZE, CROP_SIZE, 3), np.uint8)
    crops[:, :10, :10] = 255  # top left
    turned = tilted(crops, 90)
    assert turned.shape == crops.shape and turned[:, -10:, :10].all() and turned.sum() == crops.sum()
    np.testing.assert_array_equal(tilted(crops, 0), crops)


def test_a_slanted_crop_keeps_its_centre_and_fills_its_corners():
    crop = np.full((1, CROP_SIZE, CROP_SIZE, 3), 90, np.uint8)
    crop[0, CROP_SIZE // 2 - 3:CROP_SIZE // 2 + 3, CROP_SIZE // 2 - 3:CROP_SIZE // 2 + 3] = 255
    crop[0, :, :4] = 200  # a light left edge to repeat
    slanted = tilted(crop, 30)
    assert slanted.shape == crop.shape
    assert slanted[0, CROP_SIZE // 2, CROP_SIZE // 2, 0] == 255
    assert (slanted[0, [0, 0, -1, -1], [0, -1, 0, -1], 0] > 0).all()  # no black where the turn uncovered
