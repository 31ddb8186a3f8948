"""The reader's measurements: recall, precision, exact hands, confusions, per subset."""

import json
from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from cribcam.cli.main import main
from cribcam.vision.evaluate import evaluate, given_count, load_labels
from cribcam.vision.reading import Reading, SeenCard


def _box(x: float) -> list[float]:
    return [x, 10.0, x + 20.0, 40.0]


LABELS = {
    "a.png": {"subset": "phone", "cards": [{"card": "5H", "box": _box(0)}, {"card": "JD", "box": _box(100)}]},
    "b.png": {"subset": "phone", "cards": [{"card": "7C", "box": _box(0)}, {"card": "7C", "box": _box(200)}]},
    "c.png": {"subset": "webcam", "cards": []},  # every card hidden
}
# What a reader makes of each image (by its width): b's 7C misread as 7S, a ghost card in c.
READS = {
    10: [("5H", _box(0)), ("JD", _box(100))],
    11: [("7S", _box(200))],
    12: [("QS", _box(50))],
}


@pytest.fixture
def images(tmp_path) -> Path:
    for width, name in zip(READS, LABELS):
        cv2.imwrite(str(tmp_path / name), np.zeros((8, width, 3), np.uint8))
    return tmp_path


def _read(image: np.ndarray) -> Reading:
    cards = tuple(SeenCard(code, 0.9, (tuple(box),)) for code, box in READS[image.shape[1]])
    return Reading(cards=cards, width=image.shape[1], height=image.shape[0])


def test_the_tallies(images):
    report = evaluate(_read, images, LABELS).as_dict()
    overall = report["overall"]
    assert (overall["images"], overall["hands"]) == (3, 2)
    assert overall["recall"] == pytest.approx(2 / 3, abs=1e-4) and overall["precision"] == 0.5
    assert overall["exact_hand_rate"] == 0.5  # a is exact; c shows no card, so it is no hand
    assert report["subsets"]["webcam"]["exact_hand_rate"] is None
    assert report["subsets"]["phone"]["precision"] == pytest.approx(2 / 3, abs=1e-4)
    assert report["confusions"] == [{"labelled": "7C", "read": "7S", "times": 1}]


def test_guesses_and_warnings_are_tallied_per_kind_of_photo(images):
    def read(image):  # a read right but its JD unsure; b misread, its 7C guessed; c nothing
        width = image.shape[1]
        cards = tuple(SeenCard(code, 0.6 if code == "JD" else 0.9, (tuple(box),), unsure=code == "JD")
                      for code, box in READS[width] if width != 12)
        guesses = (SeenCard("7C", 0.3, (tuple(_box(0)),), unsure=True, guessed=True),) if width == 11 else ()
        return Reading(cards=cards, width=width, height=8, guesses=guesses)

    report = evaluate(read, images, LABELS).as_dict()
    overall = report["overall"]
    assert (overall["guesses"], overall["guesses_right"]) == (1, 1)
    assert overall["recall"] == pytest.approx(2 / 3, abs=1e-4)  # a guess is no card read
    assert (overall["warned_wrong"], overall["warned_right"], overall["wrong_unwarned"]) == (1.0, 1.0, 0.0)
    assert list(report["kinds"]) == ["no card", "one card", "two cards"]
    assert report["kinds"]["two cards"]["warned_right"] == 1.0 and report["kinds"]["one card"]["warned_wrong"] == 1.0

    quiet = evaluate(_read, images, LABELS).as_dict()["overall"]  # nothing warns: b is wrong unwarned
    assert (quiet["warned_wrong"], quiet["warned_right"], quiet["wrong_unwarned"]) == (0.0, 0.0, 0.5)


def test_the_finder_alone_is_measured_by_boxes_found_at_iou_one_half(images):
    def find(image):  # a: both boxes, the second shifted to IoU 0.6; b: one box at IoU 1/3
        return {10: [_box(0), [105, 10, 125, 40]], 11: [[10, 10, 30, 40]], 12: []}[image.shape[1]]

    report = evaluate(_read, images, LABELS, find=find).as_dict()
    assert report["overall"]["index_boxes_found"] == 0.5  # 2 of the 4 labelled boxes
    assert report["subsets"]["phone"]["index_boxes_found"] == 0.5
    assert report["subsets"]["webcam"]["index_boxes_found"] is None  # no box labelled
    assert evaluate(_read, images, LABELS).as_dict()["overall"]["index_boxes_found"] is None


def test_a_missing_image_is_listed_not_counted(images):
    (images / "b.png").unlink()
    report = evaluate(_read, images, LABELS).as_dict()
    assert report["unreadable_images"] == ["b.png"] and report["overall"]["images"] == 2


@pytest.fixture
def fake_reader(monkeypatch):
    """`cribcam eval` reading with ``_read`` (and a finder that finds nothing), not a model."""
    reader = SimpleNamespace(read=_read, find=lambda image: SimpleNamespace(xyxy=np.zeros((0, 4))))
    monkeypatch.setattr("cribcam.cli.eval.open_reader", lambda model, deck: reader)


def _eval(images: Path, labels: dict, *options: str) -> int:
    (images / "labels.json").write_text(json.dumps(labels))
    return main(["eval", "--images", str(images), "--labels", str(images / "labels.json"), *options])


def test_cribcam_eval_names_the_labelled_photos_it_could_not_read(images, fake_reader, capfd):
    (images / "b.png").unlink()
    assert _eval(images, LABELS) == 0
    out, err = capfd.readouterr()
    assert f"1 labelled photo could not be read in {images}, left out of the figures: b.png\n" in out
    assert "\noverall                       2 " in out
    assert "WARN" not in err  # OpenCV's own line on a file it cannot open: the report says it
    # Many are counted past the first few; --json lists them all.
    missing = {f"gone-{k}.png": {"cards": []} for k in range(7)}
    assert _eval(images, {**LABELS, **missing}) == 0
    assert ("8 labelled photos could not be read in " f"{images}, left out of the figures: b.png, gone-0.png, "
            "gone-1.png, gone-2.png, gone-3.png and 3 more\n") in capfd.readouterr().out
    assert _eval(images, {**LABELS, **missing}, "--json") == 0
    assert len(json.loads(capfd.readouterr().out)["unreadable_images"]) == 8


@pytest.mark.parametrize("json_flag", [[], ["--json"]])
def test_cribcam_eval_refuses_labels_of_which_no_photo_can_be_read(tmp_path, fake_reader, capfd, json_flag):
    elsewhere = tmp_path / "other"
    elsewhere.mkdir()
    assert _eval(elsewhere, LABELS, *json_flag) == 2
    out, err = capfd.readouterr()
    said = json.loads(out)["error"] if json_flag else err.splitlines()[-1]  # after the progress bar
    assert said.endswith(f"could be read in {elsewhere} (a.png, b.png, c.png): nothing to measure")
    assert "Traceback" not in err and "WARN" not in err


@pytest.mark.parametrize("json_flag", [[], ["--json"]])
def test_cribcam_eval_says_an_only_list_it_cannot_read(images, fake_reader, capsys, json_flag):
    assert _eval(images, LABELS, "--only", str(images / "no-such-list.txt"), *json_flag) == 2
    out, err = capsys.readouterr()
    said = json.loads(out)["error"] if json_flag else err
    assert f"--only {images / 'no-such-list.txt'} cannot be read: No such file or directory" in said
    (images / "binary.txt").write_bytes(b"\xff\xfe\x00\x81")
    assert _eval(images, LABELS, "--only", str(images / "binary.txt")) == 2
    assert "is not a text file of image names" in capsys.readouterr().err


def test_a_file_that_is_no_labels_file_is_refused(tmp_path, capsys):
    bad = tmp_path / "labels.json"
    bad.write_text('{"a.jpg": ["5H"]}')
    with pytest.raises(ValueError, match="not a labels file"):
        load_labels(bad)
    assert main(["eval", "--images", str(tmp_path), "--labels", str(bad)]) == 2
    assert "not a labels file" in capsys.readouterr().err


def test_class_only_labels_load_in_the_documented_form(tmp_path):
    path = tmp_path / "labels.json"
    path.write_text(json.dumps({
        "photo.jpg": {"cards": [{"card": "QH", "box": None}]},  # as `cribcam teach --labels` takes
        "two.PNG": {"subset": "kitchen", "n_cards": 2,
                    "cards": [{"card": "10h"}, {"card": "5C", "box": [1, 2, 30, 40.5]}]},
        "three.jpg": {"cards": ["AC", "qh"]},  # codes alone: class-only too
        "notes": "photographed on the kitchen table",
        "README.md": {"cards": []},
    }))
    labels = load_labels(path)
    assert labels == {
        "photo.jpg": {"cards": [{"card": "QH", "box": None}]},
        "two.PNG": {"subset": "kitchen", "n_cards": 2,
                    "cards": [{"card": "TH", "box": None}, {"card": "5C", "box": [1.0, 2.0, 30.0, 40.5]}]},
        "three.jpg": {"cards": [{"card": "AC", "box": None}, {"card": "QH", "box": None}]},
    }
    assert isinstance(labels, dict) and list(labels) == ["photo.jpg", "two.PNG", "three.jpg"]
    assert list(labels.skipped) == ["notes", "README.md"]
    assert "not an image name" in labels.skipped["notes"]


@pytest.mark.parametrize("entry, words", [
    (["5H"], "'a.jpg' holds [\"5H\"]"),
    ({"cards": [{"card": "5X", "box": None}]}, "'a.jpg': '5X' is not a card"),
    ({"cards": [{"card": "5H", "box": [1, 2, 3]}]}, "'a.jpg': the box of 5H is [1, 2, 3]"),
    ({"cards": [5]}, "'a.jpg' has the label 5;"),
    ({"cards": [], "subset": 3}, '"subset" must be a name'),
    ({"cards": [], "partly_shown": "5H"}, '"partly_shown" must be a list of card codes'),
    ({"cards": [], "partly_shown": ["5X"]}, '"partly_shown": \'5X\' is not a card'),
    ({"cards": ["5H", "6H"], "cards_in_view": 1}, '"cards_in_view" must be a whole number, at least'),
    ({"cards": [], "cards_in_view": "3"}, '"cards_in_view" must be a whole number'),
])
def test_an_image_entry_that_is_no_label_is_refused_by_name(tmp_path, entry, words):
    path = tmp_path / "labels.json"
    path.write_text(json.dumps({"notes": "fine", "a.jpg": entry}))
    with pytest.raises(ValueError, match="not a labels file") as error:
        load_labels(path)
    assert words in str(error.value)


def test_a_card_whose_index_shows_in_part_may_be_read_or_not(images, tmp_path):
    """c's ghost QS is a card partly shown: read, it counts neither for nor against the reader,
    and c still shows no hand; b's 7S read for a partly shown 7S is no card read wrongly, but
    the labelled 7C missed still is."""
    path = tmp_path / "labels.json"
    path.write_text(json.dumps({**LABELS, "b.png": {**LABELS["b.png"], "partly_shown": ["7s"]},
                                "c.png": {**LABELS["c.png"], "partly_shown": ["QS"]}}))
    labels = load_labels(path)
    assert labels["b.png"]["partly_shown"] == ["7S"] and "partly_shown" not in labels["a.png"]
    overall = evaluate(_read, images, labels).as_dict()["overall"]
    assert (overall["recall"], overall["precision"]) == (pytest.approx(2 / 3, abs=1e-4), 1.0)
    assert (overall["cards_read"], overall["hands"], overall["exact_hand_rate"]) == (2, 2, 0.5)
    right = {**labels, "b.png": {"cards": [{"card": "7S", "box": _box(200)}], "partly_shown": ["7C"]}}
    assert evaluate(_read, images, right).as_dict()["overall"]["exact_hand_rate"] == 1.0
    wrong = {**labels, "c.png": {"cards": [], "partly_shown": ["QH"]}}  # another card read: wrong
    assert evaluate(_read, images, wrong).as_dict()["overall"]["precision"] == pytest.approx(2 / 3, abs=1e-4)


def test_the_count_given_is_the_cards_in_view_shown_in_part_or_whole(images):
    """A hand of three labelled cards and two shown in part is read as the five a player counts;
    a photo of two cards, or of more than a hand with its starter, is read without a count."""
    three = {"cards": [{"card": code, "box": None} for code in ("5H", "JD", "7C")]}
    assert given_count(three) == 3 and given_count({**three, "cards_in_view": 5}) == 5
    assert given_count({**three, "cards_in_view": 7}) is None
    assert given_count({"cards": [{"card": "5H", "box": None}] * 2}) is None  # one card's two corners
    asked = []

    def read(image, expected=None):
        asked.append(expected)
        return _read(image)

    labels = {**LABELS, "a.png": {**LABELS["a.png"], "partly_shown": ["7S", "8S"], "cards_in_view": 4}}
    evaluate(read, images, labels, count_given=True)
    assert asked == [4, None, None]  # a: two labelled, two in part; b: one card's two corners; c: none


def test_class_only_labels_are_measured_but_not_for_boxes_found(images):
    class_only = {name: {**entry, "cards": [{"card": c["card"], "box": None} for c in entry["cards"]]}
                  for name, entry in LABELS.items()}
    find = lambda image: [_box(0)]  # noqa: E731 - the finder is asked for nothing here
    report = evaluate(_read, images, class_only, find=find).as_dict()
    boxed = evaluate(_read, images, LABELS).as_dict()
    for key in ("images", "hands", "recall", "precision", "exact_hand_rate"):
        assert report["overall"][key] == boxed["overall"][key]
    assert report["overall"]["index_boxes_found"] is None
    assert report["overall"]["index_boxes_labelled"] == 0 and report["overall"]["cards_without_box"] == 4
    assert report["confusions"] == []  # without boxes, which card was read as which is not known
    mixed = {**LABELS, "b.png": class_only["b.png"]}
    overall = evaluate(_read, images, mixed, find=find).as_dict()["overall"]
    assert (overall["index_boxes_labelled"], overall["cards_without_box"]) == (2, 2)
    assert overall["index_boxes_found"] == 0.5  # a's first box, not its second


def test_cribcam_eval_on_class_only_labels_with_a_key_that_is_no_image(shipped_models, real_photos,
                                                                       tmp_path, capsys):
    real = dict(sorted(json.loads((real_photos / "labels.json").read_text()).items())[:2])
    labels = {name: {"cards": [{"card": c["card"], "box": None} for c in entry["cards"]]}
              for name, entry in real.items()}
    labels["notes"] = "two photos, cards named without boxes"
    (tmp_path / "labels.json").write_text(json.dumps(labels))
    args = ["eval", "--images", str(real_photos / "images"), "--labels", str(tmp_path / "labels.json"),
            "--model", str(shipped_models)]
    assert main(args) == 0
    out, err = capsys.readouterr()
    assert "skipped 'notes': not an image name" in err
    assert "found: not measured: the labels give no index boxes" in out
    assert main([*args, "--json"]) == 0
    overall = json.loads(capsys.readouterr().out)["overall"]
    assert overall["images"] == 2 and overall["index_boxes_found"] is None
    assert overall["cards_labelled"] == sum(len({c["card"] for c in e["cards"]}) for e in real.values())


def test_cribcam_eval_measures_real_models_on_labelled_photos(shipped_models, real_photos, tmp_path, capsys):
    labels = dict(sorted(json.loads((real_photos / "labels.json").read_text()).items())[:3])
    (tmp_path / "labels.json").write_text(json.dumps(labels))
    assert main(["eval", "--images", str(real_photos / "images"), "--labels", str(tmp_path / "labels.json"),
                 "--model", str(shipped_models), "--json"]) == 0
    overall = json.loads(capsys.readouterr().out)["overall"]
    assert overall["images"] == 3
    assert main(["eval", "--images", str(real_photos / "images"), "--labels", str(tmp_path / "labels.json"),
                 "--model", str(shipped_models)]) == 0
    said = capsys.readouterr().out
    assert "guesses (asked, never counted): " in said and "wrong, no warning" in said
    assert "\noverall " in said.split("kind of photo")[1]
    assert overall["cards_labelled"] == sum(len({c["card"] for c in e["cards"]}) for e in labels.values())
    assert 0.0 <= overall["index_boxes_found"] <= 1.0
