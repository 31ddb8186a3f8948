"""Photos are decoded under the same bound as they are read (issue 46: a 142 KB PNG of 50
megapixels decodes to 150 MB, and sixteen decoded at once took 4.2 GB beside the reads' bound)."""

from __future__ import annotations

import io
import threading

from cribcam.web import api, create_app, reader_slot
from webtools import StubReader


def test_a_photo_is_decoded_within_the_bound_of_photos_read_at_once(monkeypatch, photo_bytes):
    app = create_app({"TESTING": True, "CONCURRENT_READS": 1}, reader=StubReader())
    entered, finish = threading.Event(), threading.Event()
    real_decode = api.decode_image

    def decoding(*args, **kwargs):  # holds the decode until the test has looked
        entered.set()
        finish.wait(30)
        return real_decode(*args, **kwargs)

    monkeypatch.setattr(api, "decode_image", decoding)
    answers = []
    sender = threading.Thread(target=lambda: answers.append(app.test_client().post(
        "/api/read", data={"image": (io.BytesIO(photo_bytes), "hand.jpg")},
        content_type="multipart/form-data")))
    sender.start()
    try:
        assert entered.wait(30)
        # While it decodes, the one place for a photo's work is taken: no other read starts.
        assert not reader_slot(app).at_most().acquire(blocking=False)
    finally:
        finish.set()
        sender.join(60)
    assert answers[0].status_code == 200
    assert reader_slot(app).at_most().acquire(blocking=False)  # given back after
