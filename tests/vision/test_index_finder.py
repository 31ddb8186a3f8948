"""The finder's input: letterboxing to the square, or only to the stride for a free-shape model."""

import numpy as np

from cribcam.vision.finder import PAD_VALUE, letterbox


def test_a_square_letterbox_pads_a_4_3_frame_above_and_below():
    frame = np.zeros((480, 640, 3), np.uint8)
    blob, scale, (pad_x, pad_y) = letterbox(frame, 640)
    assert blob.shape == (1, 3, 640, 640) and scale == 1.0 and (pad_x, pad_y) == (0, 80)
    assert np.allclose(blob[0, :, 0, 0], PAD_VALUE / 255) and not blob[0, :, 80, 0].any()


def test_a_stride_letterbox_pads_only_to_the_next_multiple_of_the_stride():
    blob, scale, (pad_x, pad_y) = letterbox(np.zeros((480, 640, 3), np.uint8), 640, stride=32)
    assert blob.shape == (1, 3, 480, 640) and (pad_x, pad_y) == (0, 0)
    # 1920x1000 scales to 640x333: padded to 352 rows, centred.
    blob, scale, (pad_x, pad_y) = letterbox(np.zeros((1000, 1920, 3), np.uint8), 640, stride=32)
    assert blob.shape == (1, 3, 352, 640) and scale == 640 / 1920 and (pad_x, pad_y) == (0, 9)
