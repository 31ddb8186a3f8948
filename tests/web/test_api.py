"""The JSON API through Flask's test client: answers, errors and what is kept."""

from __future__ import annotations

import base64
import io
import json
import os
import subprocess
import sys
import threading

import cv2
import numpy as np
import pytest

from cribcam.scoring import score_hand
from cribcam.scoring.report import count_report
from cribcam.settings import DATA_ENV
from cribcam.vision.models import MODELS_DIR, ModelMissingError, model_files
from cribcam.vision.reading import Reading
from cribcam.vision.report import reading_report
from cribcam.web import create_app, reader_slot
from cribcam.web.reader_slot import ModelUnavailable, ReaderSlot
from image_tools import png_bomb, with_exif_orientation
from waiting import stays_false, wait_until
from webtools import DATA, StubReader, encode

HAND = {"hand": ["5H", "5C", "5S", "JD"], "starter": "5D"}


def upload(client, data: bytes, name: str = "hand.jpg", **fields):
    form = {"image": (io.BytesIO(data), name), **{k: str(v) for k, v in fields.items()}}
    return client.post("/api/read", data=form, content_type="multipart/form-data")


# --- the page ------------------------------------------------------------------------------


def test_index_page_has_the_camera_input_and_only_local_assets(client):
    response = client.get("/")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert 'capture="environment"' in html and 'accept="image/*"' in html
    assert "http://" not in html and "https://" not in html and "//cdn" not in html
    for asset in ("/static/app.js", "/static/style.css", "/static/favicon.svg"):
        assert asset in html
        assert client.get(asset).status_code == 200
    csp = response.headers["Content-Security-Policy"]
    assert "default-src 'self'" in csp and "script-src 'self'" in csp


def test_static_files_load_nothing_from_elsewhere(client):
    for asset in ("app.js", "style.css", "favicon.svg"):
        text = client.get(f"/static/{asset}").get_data(as_text=True)
        assert "http://" not in text.replace("http://www.w3.org/2000/svg", "")
        assert "https://" not in text and "@import" not in text and "url(" not in text


def test_unknown_page_is_the_apps_404_page_and_unknown_api_a_json_404(client):
    page = client.get("/nowhere")
    assert page.status_code == 404 and page.mimetype == "text/html"
    html = page.get_data(as_text=True)
    assert "There is no page at /nowhere on this server." in html
    assert '<a class="button primary" id="home-link" href="/">' in html
    assert '<link rel="stylesheet" href="/static/style.css">' in html
    response = client.get("/api/nowhere")
    assert response.status_code == 404 and response.json == {"error": "no such page or API endpoint"}


def test_wrong_method_on_a_page_is_the_apps_page_with_allow(client):
    response = client.post("/")
    assert response.status_code == 405 and response.mimetype == "text/html"
    assert "405 Method Not Allowed" in response.get_data(as_text=True)
    assert "GET" in response.headers["Allow"]


# --- /api/count ----------------------------------------------------------------------------


def cli_json(*args: str) -> dict:
    result = subprocess.run([sys.executable, "-m", "cribcam", "count", *args, "--json"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.mark.parametrize("body,args", [
    ({"hand": ["5H", "5C", "5S", "JD"], "starter": "5D", "claim": 28},
     ["5H", "5C", "5S", "JD", "--starter", "5D", "--claim", "28"]),
    ({"hand": ["2H", "4H", "8H", "QH"], "starter": "KS", "crib": True},
     ["2H", "4H", "8H", "QH", "--starter", "KS", "--crib"]),
    ({"hand": ["9s", "6D", "5♥"], "starter": "4D", "variant": "five-card", "claim": 30},
     ["9s", "6D", "5♥", "--starter", "4D", "--variant", "five-card", "--claim", "30"]),
])
def test_count_is_exactly_the_cli_json(client, body, args):
    response = client.post("/api/count", json=body)
    assert response.status_code == 200
    assert response.json == cli_json(*args)
    assert list(response.json) == list(cli_json(*args))  # same keys, same order


def test_count_takes_typed_cards_as_people_type_them(client):
    response = client.post("/api/count", json={"hand": "5h, 5c 5s jd", "starter": "5♦",
                                               "claim": 29})
    assert response.status_code == 200
    assert response.json["hand"] == ["5H", "5C", "5S", "JD"] and response.json["starter"] == "5D"
    assert response.json["verdict"] == "correct"


def test_count_answers_muggins_with_what_was_overlooked(client):
    report = client.post("/api/count", json={**HAND, "claim": 24}).json
    assert report["verdict"] == "muggins" and report["difference"] == 5
    assert sum(item["points"] for item in report["overlooked"]) == 5
    assert report == count_report(score_hand(HAND["hand"], "5D"), 24)


def test_count_ignores_a_json_content_type_it_was_not_told(client):
    response = client.post("/api/count", data=json.dumps(HAND), content_type="text/plain")
    assert response.status_code == 200 and response.json["total"] == 29


@pytest.mark.parametrize("body,words", [
    (b"not json", "not valid JSON"),
    (b"\xff\xfe\x00garbage", "not valid JSON"),
    (b"[" * 30_000 + b"]" * 30_000, "not valid JSON"),
    (b'["5H"]', "must be a JSON object"),
    (b"{}", '"hand" must be a list'),
    (json.dumps({"hand": [5, 6, 7, 8], "starter": "5D"}).encode(), '"hand" must be a list'),
    (json.dumps({"hand": ["5H", "5C", "5S", "JD"]}).encode(), '"starter" must be a card'),
    (json.dumps({**HAND, "starter": ["5D"]}).encode(), '"starter" must be a card'),
    (json.dumps({**HAND, "crib": "yes"}).encode(), '"crib" must be true or false'),
    (json.dumps({**HAND, "variant": "seven-card"}).encode(), '"variant" must be one of'),
    (json.dumps({**HAND, "claim": "12"}).encode(), '"claim" must be a whole number'),
    (json.dumps({**HAND, "claim": 12.5}).encode(), '"claim" must be a whole number'),
    (json.dumps({**HAND, "claim": -1}).encode(), '"claim" must be a whole number'),
    (json.dumps({**HAND, "claim": True}).encode(), '"claim" must be a whole number'),
    (b'{"hand": ["5H","5C","5S","JD"], "starter": "5D", "claim": 1e400}', '"claim" must be'),
    (b'{"hand": ["5H","5C","5S","JD"], "starter": "5D", "claim": NaN}', '"claim" must be'),
    (b'{"hand": [], "starter": "5D", "claim": ' + b"9" * 5000 + b"}", "not valid JSON"),
])
def test_malformed_count_requests_are_400(client, body, words):
    response = client.post("/api/count", data=body, content_type="application/json")
    assert response.status_code == 400, response.json
    assert words in response.json["error"]


@pytest.mark.parametrize("body,words", [
    ({"hand": ["5H", "5C", "5X", "JD"], "starter": "5D"}, "'5X' is not a card"),
    ({"hand": ["5H", "5C", "5S", "JD"], "starter": "5H"}, "5H appears twice"),
    ({"hand": ["5H", "5C", "5S"], "starter": "5D"}, "needs 4 cards and a starter; 4 cards given"),
    ({"hand": ["5H", "5C", "5S", "JD"], "starter": "5D", "variant": "five-card"}, "needs 3 cards and a starter; 5 cards given"),
    ({"hand": ["5H", "5C", "5S", "JD", "2C"], "starter": "5D", "crib": True}, "a crib needs 4 cards and a starter; 6 cards given"),
    ({"hand": [], "starter": "zz"}, "'zz' is not a card"),
])
def test_cards_that_make_no_hand_are_422_with_the_cores_message(client, body, words):
    response = client.post("/api/count", json=body)
    assert response.status_code == 422
    assert words in response.json["error"]


def test_count_body_over_64_kb_is_413(client):
    response = client.post("/api/count", json={**HAND, "pad": "x" * 70_000})
    assert response.status_code == 413 and "64 KB" in response.json["error"]


def test_wrong_method_is_a_json_405(client):
    response = client.get("/api/count")
    assert response.status_code == 405 and "error" in response.json
    assert "POST" in response.headers["Allow"]


def test_api_answers_are_not_cached(client):
    assert client.post("/api/count", json=HAND).headers["Cache-Control"] == "no-store"


# --- /api/read without a model -------------------------------------------------------------


def test_status_says_there_is_no_model(client):
    assert client.get("/api/status").json == {"model": False, "variants": ["six-card", "five-card"],
                                             "max_upload_bytes": 12 * 1024 * 1024}


def test_photo_without_a_model_is_a_clear_503(client, photo_bytes):
    response = upload(client, photo_bytes)
    assert response.status_code == 503
    assert response.json == {"error": "photos cannot be read: no card-reading model is installed "
                                      "on this server (start it with: cribcam serve --model "
                                      "PATH); type the cards in instead"}


def _models_shipped() -> bool:
    try:
        return bool(model_files(MODELS_DIR))
    except ModelMissingError:
        return False


def test_the_bundled_model_state_is_reported_truthfully():
    app = create_app({"TESTING": True})
    client = app.test_client()
    status = client.get("/api/status").json
    assert status["model"] == _models_shipped()
    response = upload(client, (DATA / "webcam-5-cards.jpg").read_bytes())
    if _models_shipped():
        assert response.status_code == 200 and "cards" in response.json
    else:
        assert response.status_code == 503 and "no card-reading model" in response.json["error"]


def test_image_problems_are_answered_before_the_missing_model(client):
    assert upload(client, b"hello, I am text", "hand.jpg").status_code == 415
    assert upload(client, b"").status_code == 400


# --- /api/read: bad requests and bad images ------------------------------------------------


@pytest.mark.parametrize("make,status,words", [
    (lambda c: c.post("/api/read", json={"image": "hand.jpg"}), 400, "multipart/form-data"),
    (lambda c: c.post("/api/read", data={"photo": (io.BytesIO(b"x"), "a.jpg")}), 400,
     'the multipart field "image"'),
    (lambda c: c.post("/api/read", data=b"--x\r\nnot really multipart",
                      content_type="multipart/form-data; boundary=x"), 400, '"image"'),
    (lambda c: c.post("/api/read", data=b"garbage",
                      content_type="multipart/form-data"), 400, '"image"'),
])
def test_malformed_read_requests_are_400(stub_client, make, status, words):
    response = make(stub_client)
    assert response.status_code == status
    assert words in response.json["error"]


@pytest.mark.parametrize("fields,status,words", [
    ({"starter": "ZZ"}, 422, "'ZZ' is not a card"),
    ({"crib": "maybe"}, 400, '"crib" must be true or false'),
    ({"claim": "twelve"}, 400, '"claim" must be a whole number'),
    ({"claim": "-3"}, 400, '"claim" must be a whole number'),
    ({"claim": "1001"}, 400, '"claim" must be a whole number'),
    ({"claim": "١٢"}, 400, '"claim" must be a whole number'),
    ({"variant": "seven-card"}, 400, '"variant" must be one of'),
    ({"annotate": "please"}, 400, '"annotate" must be true or false'),
])
def test_bad_read_options_are_answered(stub_client, photo_bytes, fields, status, words):
    response = upload(stub_client, photo_bytes, **fields)
    assert response.status_code == status
    assert words in response.json["error"]


def test_a_deck_name_no_deck_can_have_is_400_and_a_deck_not_taught_404(stub_client, photo_bytes,
                                                                       tmp_path, monkeypatch):
    monkeypatch.setenv(DATA_ENV, str(tmp_path))  # no decks taught here
    for deck in ("../models", "kitchen deck", "."):
        response = upload(stub_client, photo_bytes, deck=deck)
        assert response.status_code == 400, deck
        assert "cannot name a deck" in response.json["error"]
    stub_client.set_cookie("cribcam-deck", "../models")
    assert upload(stub_client, photo_bytes).status_code == 400
    response = upload(stub_client, photo_bytes, deck="kitchen")
    assert response.status_code == 404
    assert response.json["error"].startswith("no taught deck named 'kitchen'")


def tiny_png() -> bytes:
    return encode(np.zeros((1, 1, 3), np.uint8), ".png")


@pytest.mark.parametrize("data,name,status,words", [
    (b"", "hand.jpg", 400, "empty"),
    (b"Dear diary, today I renamed this file hand.jpg\n" * 5, "hand.jpg", 415, "not an image"),
    (b"\xff\xd8\xff\xe0" + b"\x00" * 64, "hand.jpg", 415, "damaged or cut short"),
    (b"\x89PNG\r\n\x1a\n" + b"\x00" * 8, "hand.png", 415, "damaged or cut short"),
    (b"\x00\x00\x00\x18ftypheic" + b"\x00" * 32, "IMG_0001.HEIC", 415, "HEIC"),
])
def test_bad_images_are_answered_clearly(stub_client, data, name, status, words):
    response = upload(stub_client, data, name)
    assert response.status_code == status
    assert words in response.json["error"]


def test_truncated_photo_is_415(stub_client, photo_bytes):
    response = upload(stub_client, photo_bytes[: len(photo_bytes) // 3])
    assert response.status_code == 415 and "cut short" in response.json["error"]


def test_png_bomb_is_413_and_never_reaches_the_reader(stub_client, stub_reader):
    response = upload(stub_client, png_bomb(20_000), "bomb.png")
    assert response.status_code == 413
    assert "20000x20000" in response.json["error"] and "megapixels" in response.json["error"]
    assert stub_reader.calls == []


def test_upload_over_12_mb_is_413(stub_client):
    response = upload(stub_client, b"\xff\xd8\xff" + os.urandom(12 * 1024 * 1024))
    assert response.status_code == 413
    assert response.json == {"error": "the upload is larger than the 12 MB limit: "
                                      "send a smaller photo"}


def test_one_pixel_image_is_read_not_crashed(stub_client, stub_reader):
    response = upload(stub_client, tiny_png(), "dot.png")
    assert response.status_code == 200
    assert stub_reader.calls[0][0] == (1, 1, 3)


# --- /api/read with a reader ---------------------------------------------------------------


def test_read_answers_the_read_json_and_an_annotated_photo(stub_client, stub_reader, photo_bytes):
    response = upload(stub_client, photo_bytes, annotate="true", claim="7")
    assert response.status_code == 200
    report = response.json
    annotated = report.pop("annotated")
    image = cv2.imdecode(np.frombuffer(photo_bytes, np.uint8), cv2.IMREAD_COLOR)
    expected = reading_report(stub_reader.read(image, expected=5), None, False, 7, "six-card")
    assert report == json.loads(json.dumps(expected))
    assert {"cards", "starter", "problems", "count", "totals_by_starter"} <= set(report)
    assert report["count"] is None  # the stub does not say which card is the starter
    assert annotated.startswith("data:image/jpeg;base64,")
    picture = cv2.imdecode(np.frombuffer(base64.b64decode(annotated.split(",")[1]), np.uint8),
                           cv2.IMREAD_COLOR)
    assert picture.shape == (640, 640, 3)


def test_read_without_annotate_has_no_picture(stub_client, photo_bytes):
    assert "annotated" not in upload(stub_client, photo_bytes).json


def test_read_counts_when_the_starter_is_named(stub_client, stub_reader, photo_bytes):
    report = upload(stub_client, photo_bytes, starter="qs", claim="4").json
    assert report["starter"] == "QS"
    assert report["count"] == count_report(score_hand(["AS", "QH", "KC", "AC"], "QS"), 4)
    assert [expected for _, expected in stub_reader.calls] == [5]


def test_a_starter_outside_the_photo_reads_the_photo_as_the_hand_alone(photo_bytes):
    reader = StubReader(cards=["AS", "QH", "KC", "AC"])
    client = create_app({"TESTING": True}, reader=reader).test_client()
    report = upload(client, photo_bytes, starter="5D").json
    assert [expected for _, expected in reader.calls] == [5, 4]
    assert report["count"]["hand"] == ["AS", "QH", "KC", "AC"] and report["count"]["starter"] == "5D"


@pytest.mark.parametrize("fields,expected", [
    ({}, 5), ({"crib": "true"}, 5), ({"variant": "five-card"}, 4),
    ({"variant": "five-card", "crib": "on"}, 5),
])
def test_read_tells_the_reader_how_many_cards_to_expect(stub_client, stub_reader, photo_bytes,
                                                        fields, expected):
    assert upload(stub_client, photo_bytes, **fields).status_code == 200
    assert stub_reader.calls[-1][1] == expected


def test_sideways_phone_photo_is_read_upright(stub_client, stub_reader):
    stored = np.zeros((300, 400, 3), np.uint8)  # as the sensor stored it: landscape
    jpeg = with_exif_orientation(encode(stored), 6)  # "rotate 90° to view"
    report = upload(stub_client, jpeg).json
    assert stub_reader.calls[-1][0] == (400, 300, 3)
    assert (report["width"], report["height"]) == (300, 400)


def test_huge_photo_is_scaled_down_before_reading(stub_client, stub_reader):
    big = cv2.resize(cv2.imread(str(DATA / "webcam-5-cards.jpg")), (5000, 3750))
    assert upload(stub_client, encode(big, ".jpg", [cv2.IMWRITE_JPEG_QUALITY, 60])).status_code == 200
    assert stub_reader.calls[-1][0] == (1440, 1920, 3)


def test_a_reader_bug_is_a_json_500_not_a_crash(photo_bytes, caplog):
    class Broken:
        def read(self, image, expected=None, starter=True):
            raise RuntimeError("boom")

    client = create_app({"TESTING": True}, reader=Broken()).test_client()
    response = upload(client, photo_bytes)
    assert response.status_code == 500
    assert response.json == {"error": "internal error: the server could not handle this request"}
    assert "boom" not in response.get_data(as_text=True)
    assert any("unexpected error" in r.message for r in caplog.records)


def test_a_bug_behind_a_page_is_the_error_page_not_json(caplog):
    app = create_app({"TESTING": True})

    def broken():
        raise RuntimeError("boom")

    app.add_url_rule("/broken", view_func=broken)
    response = app.test_client().get("/broken")
    assert response.status_code == 500 and response.mimetype == "text/html"
    page = response.get_data(as_text=True)
    assert "500 Internal Server Error" in page and "boom" not in page
    assert any("unexpected error" in r.message for r in caplog.records)


# --- nothing uploaded touches the disk -----------------------------------------------------

_WRITES: list = []
_WATCHING = threading.Event()


def _audit(event: str, args) -> None:
    if not _WATCHING.is_set():
        return
    if event == "open":
        path, mode, flags = args
        writing = (mode and any(c in mode for c in "wax+")) or (
            isinstance(flags, int) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT))
        if writing:
            _WRITES.append((event, path, mode, flags))
    elif event in ("tempfile.mkstemp", "tempfile.mkdtemp", "os.mkdir"):
        _WRITES.append((event, args))


_HOOKED = []


@pytest.fixture
def disk_writes():
    """Records every file opened for writing (by any thread of this process) while on."""
    if not _HOOKED:
        sys.addaudithook(_audit)  # audit hooks stay for the process: it is off unless watching
        _HOOKED.append(True)
    _WRITES.clear()
    _WATCHING.set()
    yield _WRITES
    _WATCHING.clear()


def multipart(data: bytes, name: str = "hand.png", **fields) -> tuple[bytes, str]:
    """A multipart body built here (werkzeug's test client spools big ones to a temp file)."""
    boundary = "cribcamboundary"
    body = b"".join(f"--{boundary}\r\nContent-Disposition: form-data; name=\"{key}\"\r\n\r\n"
                    f"{value}\r\n".encode() for key, value in fields.items())
    body += (f"--{boundary}\r\nContent-Disposition: form-data; name=\"image\"; "
             f"filename=\"{name}\"\r\nContent-Type: application/octet-stream\r\n\r\n").encode()
    body += data + f"\r\n--{boundary}--\r\n".encode()
    return body, f"multipart/form-data; boundary={boundary}"


def big_png(side: int) -> bytes:
    big = cv2.resize(cv2.imread(str(DATA / "webcam-5-cards.jpg")), (side, side))
    data = encode(big, ".png")  # several MB: werkzeug would spool it to a temporary file
    assert len(data) > 1024 * 1024
    return data


def test_uploads_are_never_written_to_disk(stub_client, disk_writes):
    body, content_type = multipart(big_png(3000), annotate="1")
    response = stub_client.post("/api/read", data=body, content_type=content_type)
    assert response.status_code == 200
    assert disk_writes == []


def test_uploads_through_waitress_are_never_written_to_disk(stub_app, live_server_factory,
                                                            disk_writes):
    import urllib.request

    server = live_server_factory(stub_app)
    # Over waitress's 512 KB in-memory request buffer; the answer over its 1 MB one.
    body, content_type = multipart(big_png(2500), annotate="true")
    request = urllib.request.Request(server.url + "/api/read", data=body,
                                     headers={"Content-Type": content_type})
    with urllib.request.urlopen(request, timeout=60) as response:
        assert response.status == 200
        assert json.loads(response.read())["annotated"].startswith("data:image/jpeg")
    assert disk_writes == []


# --- the reader is loaded once -------------------------------------------------------------


def test_the_model_is_loaded_once_however_many_threads_ask(monkeypatch):
    import cribcam.vision

    loads, loading, finish = [], threading.Event(), threading.Event()

    class SlowReader:  # loading until the test lets it finish
        def __init__(self, model_path=None, threads=0):
            loads.append(model_path)
            loading.set()
            finish.wait(30)

    monkeypatch.setattr(cribcam.vision, "CardReader", SlowReader)
    slot = ReaderSlot(model_path="m.onnx")
    got = []
    threads = [threading.Thread(target=lambda: got.append(slot.get())) for _ in range(8)]
    threads[0].start()
    assert loading.wait(30), "the first thread did not start loading the model"
    for t in threads[1:]:
        t.start()
    # Asked while the model loads, the other threads wait for it: none starts a load of its own
    # (one would start at once; this only asserts that none does in that time).
    assert stays_false(lambda: len(loads) > 1, seconds=0.3), f"loaded again: {loads}"
    finish.set()
    for t in threads:
        t.join(30)
    assert loads == ["m.onnx"] and len(got) == 8 and len({id(r) for r in got}) == 1


def test_a_model_installed_later_is_picked_up_without_a_restart(monkeypatch):
    import cribcam.vision
    from cribcam.vision import ModelMissingError

    installed = []

    class Reader:
        def __init__(self, model_path=None, threads=0):
            if not installed:
                raise ModelMissingError("no detector model at m.onnx")

    monkeypatch.setattr(cribcam.vision, "CardReader", Reader)
    slot = ReaderSlot(model_path="m.onnx")
    with pytest.raises(ModelUnavailable):
        slot.get()
    assert slot.error == "no detector model at m.onnx"
    installed.append(True)
    assert isinstance(slot.get(), Reader)


def test_a_damaged_model_file_is_a_503(tmp_path, photo_bytes):
    for name in ("finder.onnx", "classifier.onnx"):
        (tmp_path / name).write_bytes(b"this is not an onnx model")
    app = create_app({"TESTING": True, "MODEL_PATH": tmp_path})
    assert reader_slot(app).error  # logged at start-up
    response = upload(app.test_client(), photo_bytes)
    assert response.status_code == 503
    assert "could not be loaded" in response.json["error"]


def test_reading_record_keeps_the_reader_fields(stub_client, photo_bytes):
    report = upload(stub_client, photo_bytes).json
    assert set(Reading().as_dict()) <= set(report)


def test_photos_are_read_at_most_concurrent_reads_at_a_time():
    inside, peak, lock, finish = [0], [0], threading.Lock(), threading.Event()

    class Held:  # each read lasts until the test lets them finish
        def read(self, image, expected=None, starter=True):
            with lock:
                inside[0] += 1
                peak[0] = max(peak[0], inside[0])
            finish.wait(30)
            with lock:
                inside[0] -= 1
            return Reading()

    slot = ReaderSlot(Held(), concurrent_reads=2)
    read = []
    threads = [threading.Thread(target=lambda: read.append(slot.read(np.zeros((4, 4, 3), np.uint8))))
               for _ in range(8)]
    for t in threads:
        t.start()
    wait_until(lambda: inside[0] >= 2, message=lambda: f"{inside[0]} photos read at once, not 2")
    # The six others wait for a turn while the two are read (one let in would come at once;
    # this only asserts that none does in that time).
    assert stays_false(lambda: inside[0] > 2, seconds=0.3), f"{inside[0]} photos read at once"
    finish.set()
    for t in threads:
        t.join(30)
    assert peak[0] == 2 and len(read) == 8


def test_the_servers_default_threads_exceed_the_photos_read_at_once():
    # Typed counts are answered while photos are read: some request threads stay free.
    from cribcam.web import server

    assert server.DEFAULT_THREADS > create_app({"TESTING": True}).config["CONCURRENT_READS"]


@pytest.mark.parametrize("variant,most", [("six-card", 6), ("five-card", 5)])
def test_a_photo_of_a_deal_is_read_with_no_starter_and_no_count(stub_reader, stub_client, photo_bytes,
                                                                 variant, most):
    stub_reader.cards = ["5H", "5C", "6D", "JD", "QS", "KS"][:most]
    response = upload(stub_client, photo_bytes, deal="true", variant=variant)
    assert response.status_code == 200
    assert [c["card"] for c in response.json["cards"]] == stub_reader.cards
    assert response.json["starter"] is None and response.json["count"] is None
    # At most a deal's cards: a pair of fives stays two cards, never one card's two corners.
    assert stub_reader.calls[-1][1] == most and stub_reader.starters[-1] is False
    assert upload(stub_client, photo_bytes, deal="maybe").status_code == 400


def test_a_large_photos_annotated_picture_is_drawn_at_the_size_the_page_shows(stub_client, monkeypatch):
    from cribcam.vision import annotate
    from cribcam.vision.images import PAGE_SIDE

    drawn = []
    original = annotate.draw_reading

    def draw_reading(image, reading, max_side=None):
        picture = original(image, reading, max_side)
        drawn.append(picture.shape)
        return picture

    monkeypatch.setattr(annotate, "draw_reading", draw_reading)
    ok, large = cv2.imencode(".jpg", np.full((2400, 3200, 3), 128, np.uint8))
    answer = stub_client.post("/api/read", data={"image": (io.BytesIO(large.tobytes()), "big.jpg"),
                                                 "annotate": "true"}, content_type="multipart/form-data")
    assert answer.status_code == 200, answer.json
    assert drawn == [(960, PAGE_SIDE, 3)]
