"""Box helpers of ``cribcam.vision.detections``."""

import numpy as np

from cribcam.vision.detections import box_iou, holds


def test_holds_counts_the_edges_and_takes_any_number_of_boxes():
    boxes = np.array([[0, 0, 10, 10], [5, 5, 20, 20], [11, 0, 12, 1]], np.float32)
    assert holds(boxes, np.array([10, 10])).tolist() == [True, True, False]
    assert holds(boxes[0], np.array([10.5, 3])).tolist() == [False]
    assert holds(np.zeros((0, 4)), np.array([1, 1])).tolist() == []


def test_box_iou_of_a_box_with_itself_and_with_a_half_of_it():
    a = np.array([[0, 0, 10, 10]], np.float32)
    assert box_iou(a, np.array([[0, 0, 10, 10], [0, 0, 5, 10]], np.float32)).round(3).tolist() == [[1.0, 0.5]]
