"""The annotated photo: a sensible size and format, every label inside it and clear of the others."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from cribcam.vision import annotate
from cribcam.vision.annotate import draw_reading, write_annotated
from cribcam.vision.reading import Reading, SeenCard

# Two cards whose corners nearly touch (their labels fell on each other: "QS 0.955S 0.97"), one
# in the bottom-right corner (its label ran off the edge: "QD 0"), one at the top edge.
CROWDED = Reading((SeenCard("QS", 0.955, ((100, 100, 300, 350),)),
                   SeenCard("5S", 0.97, ((250, 120, 450, 370),)),
                   SeenCard("QD", 0.99, ((5800, 3700, 5990, 3990),)),
                   SeenCard("7C", 0.9, ((5850, 0, 5999, 200), (3000, 0, 3150, 180)))),
                  starter="QD", width=6000, height=4000, unreadable_boxes=((5700, 3650, 5850, 3900),))


def _tags(monkeypatch, image, reading, max_side=None):
    """The drawn picture and where each label tag went."""
    tags = []
    place = annotate._label

    def recording(*args, **kwargs):
        tags.append(place(*args, **kwargs))
        return tags[-1]

    monkeypatch.setattr(annotate, "_label", recording)
    return draw_reading(image, reading, max_side), tags


def _overlap(a, b) -> float:
    return max(0, min(a[2], b[2]) - max(a[0], b[0])) * max(0, min(a[3], b[3]) - max(a[1], b[1]))


@pytest.mark.parametrize("max_side", [None, 1600, 800])
def test_labels_lie_inside_the_picture_and_clear_of_each_other(monkeypatch, max_side):
    image = np.full((4000, 6000, 3), 128, np.uint8)
    out, tags = _tags(monkeypatch, image, CROWDED, max_side)
    height, width = out.shape[:2]
    assert max(height, width) == (max_side or 6000)
    assert len(tags) == 5
    for tag in tags:
        assert 0 <= tag[0] < tag[2] <= width and 0 <= tag[1] < tag[3] <= height, tag
    assert all(_overlap(a, b) == 0 for i, a in enumerate(tags) for b in tags[i + 1:]), tags


def test_a_label_goes_beside_its_own_card(monkeypatch):
    image = np.full((480, 640, 3), 128, np.uint8)
    reading = Reading((SeenCard("5H", 0.9, ((300, 200, 330, 240),)),), width=640, height=480)
    _, [tag] = _tags(monkeypatch, image, reading)
    assert tag[0] == 300 and tag[3] == 200  # just above the corner, left-aligned with it


@pytest.mark.parametrize("name, magic", [("out.jpg", b"\xff\xd8\xff"), ("out.JPEG", b"\xff\xd8\xff"),
                                         ("out.png", b"\x89PNG")])
def test_a_large_photo_is_annotated_at_1600_pixels_in_the_format_named(tmp_path, name, magic):
    image = np.random.default_rng(0).integers(0, 255, (4000, 6000, 3), np.uint8)
    write_annotated(tmp_path / name, image, CROWDED)
    data = (tmp_path / name).read_bytes()
    assert data.startswith(magic)
    assert cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR).shape == (1067, 1600, 3)
    assert len(data) < 8_000_000  # noise is the worst case; a photo is far smaller


def test_a_small_photo_keeps_its_size_and_other_names_are_refused(tmp_path):
    image = np.zeros((480, 640, 3), np.uint8)
    write_annotated(tmp_path / "small.png", image, CROWDED)
    assert cv2.imread(str(tmp_path / "small.png")).shape == (480, 640, 3)
    with pytest.raises(ValueError, match="not out.gif"):
        write_annotated(tmp_path / "out.gif", image, CROWDED)


def test_an_unsure_card_is_drawn_apart_and_labelled_to_check():
    image = np.full((300, 400, 3), 255, np.uint8)
    reading = Reading((SeenCard("5H", 0.55, ((40.0, 40.0, 80.0, 100.0),), unsure=True),), None, (), 400, 300)
    drawn = draw_reading(image, reading)
    amber = np.all(drawn == np.array(annotate._UNSURE, np.uint8), axis=2)
    assert amber[40:101, 40].any()  # the box's edge in the unsure colour
