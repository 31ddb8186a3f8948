"""A form of too many fields is said as that, not as an upload over the size limit (issue 46)."""

from __future__ import annotations

import io


def test_a_form_of_too_many_fields_is_said_as_too_many_fields(stub_client, photo_bytes):
    form = {f"field{k}": "x" for k in range(2000)}  # a few KB, far within the 12 MB
    form["image"] = (io.BytesIO(photo_bytes), "hand.jpg")
    answer = stub_client.post("/api/read", data=form, content_type="multipart/form-data")
    assert answer.status_code == 413
    assert answer.json == {"error": "the form has more than 1000 fields: send the photo and the few "
                                    "fields the endpoint takes"}
