"""Reading labelled photos with their count given, and contact sheets of the misread ones."""

from pathlib import Path

import cv2
import numpy as np

from cribcam.vision.evaluate import evaluate
from cribcam.vision.reading import Reading, SeenCard
from cribcam.vision.sheet import PER_SHEET, SheetWriter

BOX = (10.0, 10.0, 30.0, 40.0)


def labelled_photos(tmp_path: Path, hands: dict[str, list[str]]) -> dict:
    labels = {}
    for name, cards in hands.items():
        cv2.imwrite(str(tmp_path / name), np.full((120, 160, 3), 90, np.uint8))
        labels[name] = {"cards": [{"card": code, "box": list(BOX)} for code in cards]}
    return labels


class ReadsThree:
    """A stand-in reader that reads three cards, and notes the count it was given."""

    def __init__(self):
        self.given = []

    def __call__(self, image, expected=None):
        self.given.append(expected)
        return Reading(tuple(SeenCard(code, 0.9, (BOX,)) for code in ("5H", "5C", "5S")))


def test_the_count_is_given_for_photos_of_three_to_six_cards(tmp_path):
    labels = labelled_photos(tmp_path, {"a.jpg": ["5H"], "b.jpg": ["5H", "5C", "5S"],
                                        "c.jpg": ["5H", "5C", "5S", "JD", "5D", "2C", "3C"]})
    read = ReadsThree()
    evaluate(read, tmp_path, labels, count_given=True)
    assert read.given == [None, 3, None]
    read = ReadsThree()
    evaluate(read, tmp_path, labels)
    assert read.given == [None, None, None]


def test_misread_photos_go_to_the_sheets_and_right_ones_do_not(tmp_path):
    labels = labelled_photos(tmp_path, {"right.jpg": ["5H", "5C", "5S"], "wrong.jpg": ["5H", "5C", "6S"]})
    sheets = SheetWriter(tmp_path / "sheets")
    seen = []

    def add(name, image, cards, reading):
        seen.append(name)
        sheets.add(name, image, cards, reading)

    evaluate(ReadsThree(), tmp_path, labels, sheet=add)
    sheets.flush()
    assert seen == ["wrong.jpg"]
    assert [p.name for p in sheets.written] == ["misread-001.png"]
    sheet = cv2.imread(str(sheets.written[0]))
    assert sheet.shape[1] == 960 and sheet.shape[0] > 480


def test_a_sheet_is_written_every_few_photos(tmp_path):
    sheets = SheetWriter(tmp_path)
    image = np.full((300, 200, 3), 200, np.uint8)
    for i in range(PER_SHEET + 1):
        sheets.add(f"{i}.jpg", image, [{"card": "QH", "box": None}], Reading())
    assert len(sheets.written) == 1
    sheets.flush()
    assert len(sheets.written) == 2 and all(p.is_file() for p in sheets.written)
