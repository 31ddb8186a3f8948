"""/api/read on a real ONNX model (tests/conftest.py's ``reader_models``; skipped without).

What the cards are is the reader's business (tests/vision); here the real runtime runs
behind the API: every photo gets the `cribcam read --json` record, odd images a clear answer.
"""

from __future__ import annotations

import io
import json

import cv2
import numpy as np
import pytest

from cribcam.vision.report import reading_report
from cribcam.web import create_app

from webtools import DATA, PHOTOS, encode


@pytest.fixture
def model_client(model_reader):
    return create_app({"TESTING": True}, reader=model_reader).test_client()


def upload(client, data: bytes, **fields):
    return client.post("/api/read", data={"image": (io.BytesIO(data), "hand.jpg"), **fields},
                       content_type="multipart/form-data")


@pytest.mark.parametrize("photo", PHOTOS, ids=lambda p: p.name)
def test_sample_photos_get_the_read_json(model_client, model_reader, photo):
    data = photo.read_bytes()
    response = upload(model_client, data, annotate="true", claim="6")
    assert response.status_code == 200
    report = response.json
    assert report.pop("annotated").startswith("data:image/jpeg;base64,")
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    expected = reading_report(model_reader.read(image, expected=5), None, False, 6)
    assert report == json.loads(json.dumps(expected))


def test_one_pixel_image_is_a_reading_with_a_problem(model_client):
    response = upload(model_client, encode(np.zeros((1, 1, 3), np.uint8), ".png"))
    assert response.status_code == 200
    assert response.json["cards"] == [] and response.json["count"] is None
    assert "only 1x1 pixels" in response.json["problems"][0]


def test_blank_and_noise_images_are_read_without_error(model_client):
    blank = np.full((480, 640, 3), 255, np.uint8)
    noise = np.random.default_rng(0).integers(0, 256, (480, 640, 3), np.uint8)
    for image in (blank, noise):
        response = upload(model_client, encode(image), starter="5D", variant="five-card")
        assert response.status_code == 200 and isinstance(response.json["problems"], list)


def test_big_photo_is_read(model_client):
    big = cv2.resize(cv2.imread(str(DATA / "webcam-5-cards.jpg")), (4032, 3024))
    response = upload(model_client, encode(big, ".jpg", [cv2.IMWRITE_JPEG_QUALITY, 80]))
    assert response.status_code == 200
    assert (response.json["width"], response.json["height"]) == (1920, 1440)
