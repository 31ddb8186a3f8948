"""/api/read on the shipped models (tests/conftest.py's ``shipped_models``).

The bundled photos whose cards the shipped models read exactly are counted as their labels
say (tests/data/photos/labels.json), and odd images get a clear answer.
"""

from __future__ import annotations

import io

import cv2
import numpy as np
import pytest

from cribcam.vision.reading import CANNOT_COUNT, IMAGE_TOO_SMALL, NO_CARDS
from cribcam.web import create_app
from webtools import DATA, LABELS, encode


@pytest.fixture
def shipped_client(model_reader):
    """The app reading with the shipped models."""
    return create_app({"TESTING": True}, reader=model_reader).test_client()


def upload(client, data: bytes, **fields):
    return client.post("/api/read", data={"image": (io.BytesIO(data), "hand.jpg"), **fields},
                       content_type="multipart/form-data")


# Three cards in each photo: a five-card hand, the starter named (not in the photo). The counts
# worked by hand: 2D 8S 9S with 7C is fifteen two (8 7) and a run of three (7 8 9), 5; 6H AH JC
# with 5D is fifteen two (J 5), 2.
KNOWN = [("closeup-3-cards.jpg", "7C", 5, [("fifteen", ["8S", "7C"]), ("run", ["7C", "8S", "9S"])]),
         ("blackgold-3-cards.jpg", "5D", 2, [("fifteen", ["JC", "5D"])])]


@pytest.mark.parametrize("name,starter,total,items", KNOWN, ids=[k[0] for k in KNOWN])
def test_a_photo_is_read_and_counted_as_its_labels_say(shipped_client, name, starter, total, items):
    response = upload(shipped_client, (DATA / name).read_bytes(), annotate="true", claim="6",
                      variant="five-card", starter=starter)
    assert response.status_code == 200
    report = response.json
    cards = sorted(LABELS[name]["cards"])
    assert sorted(c["card"] for c in report["cards"]) == cards
    assert report["starter"] == starter and report["problems"] == [] and report["guesses"] == []
    count = report["count"]
    assert sorted(count["hand"]) == cards and count["starter"] == starter
    assert count["total"] == total
    assert sorted((i["kind"], sorted(i["cards"])) for i in count["items"]) == \
        sorted((kind, sorted(cards)) for kind, cards in items)
    assert (count["verdict"], count["difference"]) == ("overclaim", total - 6)
    assert report["annotated"].startswith("data:image/jpeg;base64,")


def test_one_pixel_image_is_a_reading_with_a_problem(shipped_client):
    response = upload(shipped_client, encode(np.zeros((1, 1, 3), np.uint8), ".png"))
    assert response.status_code == 200
    assert response.json["cards"] == [] and response.json["count"] is None
    assert response.json["problems"] == [{"code": IMAGE_TOO_SMALL, "message": "the image is only 1x1 pixels: take a "
                                                                        "photo with the cards filling more of it"}]


def test_blank_and_noise_images_are_read_as_no_cards_and_say_why_there_is_no_count(shipped_client):
    blank = np.full((480, 640, 3), 255, np.uint8)
    noise = np.random.default_rng(0).integers(0, 256, (480, 640, 3), np.uint8)
    for image in (blank, noise):
        response = upload(shipped_client, encode(image), starter="5D", variant="five-card")
        assert response.status_code == 200
        report = response.json
        assert (report["cards"], report["guesses"], report["count"]) == ([], [], None)
        assert report["problems"] == [
            {"code": NO_CARDS, "message": "no cards found: lay the cards face up with their corners in view"},
            {"code": CANNOT_COUNT, "message": "cannot count: a five-card cribbage hand needs 3 cards and a starter; "
                                              "1 card given (the starter alone)"}]
        assert report["problem_messages"] == [p["message"] for p in report["problems"]]


def test_big_photo_is_read(shipped_client):
    big = cv2.resize(cv2.imread(str(DATA / "webcam-5-cards.jpg")), (4032, 3024))
    response = upload(shipped_client, encode(big, ".jpg", [cv2.IMWRITE_JPEG_QUALITY, 80]))
    assert response.status_code == 200
    assert (response.json["width"], response.json["height"]) == (1920, 1440)
