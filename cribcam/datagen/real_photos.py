"""The real photos (``shared/real-photos``) in the data set format, split by capture.

Neighbouring frames show the same table, light and often the same cards, so a split by frame
would put near-copies of validation images into training. Frames are grouped into captures
and whole captures go to one side. The file names tell the camera and the moment:

* ``IMG_YYYYMMDD_HHMMSS`` (phone, timestamped): a capture is a run of photos each taken at
  most ``PHONE_GAP`` seconds after the one before. The gaps fall into bursts of 1 to 14 s and
  pauses of 18 s or more, so 15 s separates them.
* ``WIN_YYYYMMDD_HH_MM_SS_Pro`` (webcam over a desk): the camera stays put and the cards are
  moved between frames of a sitting, so a capture is a run with gaps of at most
  ``WEBCAM_GAP`` seconds (sittings are minutes apart, frames within one 4 to 95 s).
* ``IMG_NNNN`` (phone, numbered): a run of numbers each at most ``NUMBER_GAP`` after the one
  before.
* Anything else is a capture of its own.

Captures are then dealt to validation subset by subset, in a fixed shuffled order, until the
subset's validation frames reach ``val_fraction`` of its frames: every subset is represented.
"""

from __future__ import annotations

import json
import re
import shutil
from collections import defaultdict
from datetime import datetime
from pathlib import Path

import cv2
import numpy as np

from cribcam.datagen import yolo

PHONE_GAP = 15.0
WEBCAM_GAP = 120.0
NUMBER_GAP = 2

ATTRIBUTION = """\
Real photographs of playing cards in this folder (images/, labels/, meta/ from {src}):
the "Card Detection" data set exported from Roboflow and published in the public GitHub
repository Ammememe/CardCounterML (commit a0e040bd), licence Creative Commons Attribution 4.0
International (CC BY 4.0, https://creativecommons.org/licenses/by/4.0/).
Changes: labels converted to YOLO format, images split into train and val by capture, and
the labels of {fixed} photos corrected to the cards they show (cribcam.datagen.real_photos.LABEL_FIXES,
LABEL_ADDITIONS and PARTLY_SHOWN).
Attribution must be kept wherever these images or anything derived from them is redistributed.
"""

# Labels the shared set has wrong, as the photos show them: photo -> {card as labelled: card
# as printed}, or {(card as labelled, its box's top left corner, rounded): card as printed} when
# only some of its boxes are wrong. A wrong label trains a misreading and counts a right reading
# as a miss and a false card. Found by looking at every labelled card whose boxes the reader
# read, all alike, as another card with probability 0.6 or more, and keeping those the photo
# shows plainly. The second look (2026-11-26) took every labelled box read as another card at
# 0.5 or more, and kept those the photo shows plainly and whose suit, laid out as a spread, then
# holds each card once.
LABEL_FIXES: dict[str, dict] = {
    "CardCounterML__IMG_7768_JPG.jpg": {"QC": "AC"},  # an "A" over a club, both corners
    "CardCounterML__IMG_7794_JPG.jpg": {"6S": "7S"},  # a "7" on both corners, seven pips
    "CardCounterML__IMG_20220921_201241_jpg.jpg": {"QH": "QS"},  # a black spade by both "Q"s
    "CardCounterML__IMG_20220921_201314_jpg.jpg": {"JS": "JC"},  # a club beside both "J"s
    "CardCounterML__WIN_20240627_12_04_16_Pro_jpg.jpg": {"4S": "3S"},  # the box holds a "3"
    "CardCounterML__WIN_20240627_17_18_46_Pro_jpg.jpg": {"QD": "2D"},  # the 2D's other corner
    "CardCounterML__IMG_7785_JPG.jpg": {"4S": "AS"},  # an "A" over a spade
    "CardCounterML__WIN_20240627_12_04_48_Pro_jpg.jpg": {"4C": "3C"},  # a "3" on both corners
    # Two of the three 4S boxes hold a "3" by a spade: the 3S's corners.
    "CardCounterML__WIN_20240627_11_38_29_Pro_jpg.jpg": {("4S", (253, 238)): "3S", ("4S", (358, 374)): "3S"},
    # Spreads of a suit, each card once: a spade "3" and "K" labelled as second 4S and TS, a
    # heart "5" as a second TH.
    # The third look (2026-11-26, 21:55 UTC) classified every labelled box itself: a spade "A"
    # labelled as a second 2S was read AS.
    "CardCounterML__WIN_20240627_17_01_00_Pro_jpg.jpg": {("4S", (379, 370)): "3S", ("TS", (180, 398)): "KS",
                                                         ("2S", (399, 358)): "AS"},
    "CardCounterML__WIN_20240627_17_01_16_Pro_jpg.jpg": {("4S", (389, 100)): "3S"},
    "CardCounterML__WIN_20240627_17_02_34_Pro_jpg.jpg": {("TH", (143, 507)): "5H"},
}

# Index boxes a shared photo shows plainly that its labels leave out: photo -> [(card, box)]. A
# card left out teaches the finder its indices are background, the classifier's hard-negative
# mining that they are no index (what a finder boxes clear of every labelled box), and counts a
# right reading as a false card; a card's second corner left out, the first two. The boxes are
# the reader's, checked by eye (2026-11-26, 2026-12-01). As the set labels other cards that a
# photo's edge cuts off (IMG_7748's KC), a card with one index whole in view counts.
LABEL_ADDITIONS: dict[str, list[tuple[str, tuple[float, float, float, float]]]] = {
    "CardCounterML__IMG_7838_JPG.jpg": [("KS", (298.2, 499.8, 323.8, 523.4)), ("KS", (407.4, 510.7, 426.9, 530.9)),
                                        ("8D", (412.0, 466.8, 433.2, 486.8)), ("8D", (298.5, 459.7, 324.1, 484.5))],
    # Cards at a photo's edge beside the card photographed, their index whole: a "K" and club, a
    # "3" and spade (both in validation), a "J" and heart, an "A" and spade, a "6" and heart, a
    # "2" and spade (in training).
    "CardCounterML__IMG_20220921_195926_jpg.jpg": [("KC", (562.6, 60.6, 614.2, 126.9))],
    "CardCounterML__IMG_20220921_200304_jpg.jpg": [("3S", (501.0, 3.0, 571.4, 37.1))],
    "CardCounterML__IMG_20220921_195423_jpg.jpg": [("JH", (312.1, 3.0, 366.5, 72.4))],
    "CardCounterML__IMG_20220921_195322_jpg.jpg": [("AS", (496.9, 524.0, 602.0, 639.2)),
                                                   ("4C", (310.5, 450.2, 379.2, 552.8))],  # the 4C's second
    "CardCounterML__IMG_20220921_195411_jpg.jpg": [("6H", (598.9, 85.0, 640.0, 157.8))],
    "CardCounterML__IMG_20220921_195408_jpg.jpg": [("2S", (597.0, 37.8, 640.0, 114.2))],
    # The edge pass (2026-12-01): a whole "6" under a heart, upside down, at the top of a grey photo.
    "CardCounterML__IMG_20220921_200020_jpg.jpg": [("6H", (254.0, 28.0, 324.0, 105.0))],
    # Two whole cards at the foot of a gold deck's layout, read by the finders taught the real
    # photos turned (2026-12-01).
    "CardCounterML__IMG_7839_JPG.jpg": [("6H", (261.0, 565.0, 295.0, 577.0)), ("6H", (372.0, 487.0, 401.0, 497.0)),
                                        ("JC", (410.0, 514.0, 439.0, 526.0)), ("JC", (299.0, 586.0, 336.0, 600.0))],
    # A labelled card's second corner, whole, unlabelled: found where a reader read the card there
    # (the shipped models or run 28's finder), in the training photos only, so that the validation
    # photos' share of boxes found stays comparable (2026-12-01).
    "CardCounterML__IMG_20220921_194539_jpg.jpg": [("5D", (464.8, 303.8, 534.5, 400.0))],
    "CardCounterML__IMG_20220921_194651_jpg.jpg": [("8D", (343.0, 193.2, 395.4, 265.4))],
    "CardCounterML__IMG_20220921_194653_jpg.jpg": [("QD", (435.0, 163.0, 492.4, 233.2)),
                                                   ("9C", (450.8, 590.9, 502.4, 640.0))],
    "CardCounterML__IMG_20220921_194834_jpg.jpg": [("QD", (197.1, 524.2, 238.1, 586.5)),
                                                   ("7S", (188.9, 217.8, 220.8, 267.6)),
                                                   ("9H", (539.7, 212.2, 576.4, 268.2))],
    "CardCounterML__IMG_20220921_200013_jpg.jpg": [("6H", (365.2, 532.5, 421.5, 614.6))],
    "CardCounterML__IMG_20220921_200339_jpg.jpg": [("5D", (324.1, 399.2, 371.0, 443.8))],
    "CardCounterML__IMG_7723_JPG.jpg": [("6C", (418.8, 423.5, 478.8, 509.5))],
    "CardCounterML__WIN_20240627_12_48_18_Pro_jpg.jpg": [("3C", (159.3, 319.8, 181.4, 382.2))],
    "CardCounterML__WIN_20240627_17_13_02_Pro_jpg.jpg": [("8S", (198.0, 185.0, 231.0, 210.0))],
    "CardCounterML__WIN_20240627_17_19_07_Pro_jpg.jpg": [("8C", (229.0, 443.6, 266.2, 468.8))],
}

# Cards a shared photo shows only in part, cut by its edge or under another card, that its labels
# leave out: photo -> each such card, as the cards it may be. A reader may read such a card or not
# (the drawn sets' "partly_shown"); read as anything else, it is a card read wrongly. Where the ink
# shows a rank but not its suit, both suits of its colour are named; a court card whose rank is
# blurred, all three; a card whose rank cannot be told is not listed. Each card listed is one more
# card in view: a player counts it (the labels' "cards_in_view"). Found by an edge pass (2026-12-01) over every real
# photo with its labelled boxes drawn, not where a reader disagreed (models/HISTORY.md, "An edge
# pass over the real photos").
PARTLY_SHOWN: dict[str, list[tuple[str, ...]]] = {
    "CardCounterML__IMG_20220921_193931_jpg.jpg": [("TD", "TH"), ("KD", "KH")],  # a red "10" above, a red "K" below
    "CardCounterML__IMG_20220921_193933_jpg.jpg": [("5D", "5H")],  # a red "5" below
    "CardCounterML__IMG_20220921_194224_jpg.jpg": [("QD", "QH")],  # a court card's red "Q" above
    "CardCounterML__IMG_20220921_194653_jpg.jpg": [("8D",)],  # a diamond under an "8" whose top is cut
    "CardCounterML__IMG_20220921_194702_jpg.jpg": [("TC", "TS")],  # a black "10" above
    "CardCounterML__IMG_20220921_194705_jpg.jpg": [("6C",)],  # a club above an upside-down "6", at the corner
    "CardCounterML__IMG_20220921_195318_jpg.jpg": [("5D", "5H")],  # a red "5" above
    "CardCounterML__IMG_20220921_195320_jpg.jpg": [("4C",), ("TD", "TH")],  # a club and half a "4"; a red "10"
    "CardCounterML__IMG_20220921_195407_jpg.jpg": [("6S",)],  # a "6" and half a spade at the edge
    "CardCounterML__IMG_20220921_195408_jpg.jpg": [("7D", "7H")],  # a red "7" above
    "CardCounterML__IMG_20220921_195457_jpg.jpg": [("AS",)],  # half an "A" and a spade at the edge
    "CardCounterML__IMG_20220921_195503_jpg.jpg": [("KC", "KS")],  # a court card's black "K" above
    "CardCounterML__IMG_20220921_195508_jpg.jpg": [("KC",)],  # a "K" and club at the edge
    "CardCounterML__IMG_20220921_200821_jpg.jpg": [("AD", "AH")],  # a red "A", its suit under the queen
    "CardCounterML__IMG_20220921_200246_jpg.jpg": [("JD", "KD", "QD")],  # a court card of diamonds, its rank blurred
    "CardCounterML__IMG_20220921_200254_jpg.jpg": [("4C",)],  # four clubs and a blurred "4" at the corner
    "CardCounterML__IMG_7727_JPG.jpg": [("AD", "AH")],  # a gold "A" under the stack's top card
}

# A labelled box narrower than this many pixels is a slip of the labeller's hand: IMG_20220921_200957
# holds a 1-pixel 9D box beside that card's two corners. It would teach the finder a sliver.
THINNEST_BOX = 3.0

_PHONE = re.compile(r"IMG_(\d{8})_(\d{6})")
_WEBCAM = re.compile(r"WIN_(\d{8})_(\d{2})_(\d{2})_(\d{2})")
_NUMBERED = re.compile(r"IMG_(\d{3,6})_")


def _stamp(name: str) -> tuple[str, float, float] | None:
    """(camera, position, largest gap within one capture) from a file name, if it has them."""
    if m := _PHONE.search(name):
        t = datetime.strptime(m[1] + m[2], "%Y%m%d%H%M%S")
        return "phone", t.timestamp(), PHONE_GAP
    if m := _WEBCAM.search(name):
        t = datetime.strptime(m[1] + m[2] + m[3] + m[4], "%Y%m%d%H%M%S")
        return "webcam", t.timestamp(), WEBCAM_GAP
    if m := _NUMBERED.search(name):
        return "numbered", float(m[1]), float(NUMBER_GAP)
    return None


def group_captures(names: list[str]) -> dict[str, str]:
    """Capture id of every image name (see the module docs for the rule).

    A capture's id is its camera and the name of its first frame.
    """
    runs: dict[str, list[tuple[float, float, str]]] = defaultdict(list)
    capture = {}
    for name in names:
        stamp = _stamp(name)
        if stamp is None:
            capture[name] = f"single:{name}"
        else:
            runs[stamp[0]].append((stamp[1], stamp[2], name))
    for camera, frames in runs.items():
        frames.sort()
        current, last = None, None
        for position, gap, name in frames:
            if last is None or position - last > gap:
                current = f"{camera}:{name}"
            capture[name] = current
            last = position
    return capture


def split_captures(subsets: dict[str, str], captures: dict[str, str], val_fraction: float = 0.25,
                   seed: int = 0) -> dict[str, str]:
    """"train" or "val" for every image, whole captures at a time.

    Args:
        subsets: Image name -> subset.
        captures: Image name -> capture id.
        val_fraction: Share of each subset's images to put in val, roughly.
        seed: Seed of the fixed order in which captures are dealt.
    """
    frames: dict[str, list[str]] = defaultdict(list)
    subset_of: dict[str, str] = {}
    for name, cap in captures.items():
        frames[cap].append(name)
        subset_of[cap] = subsets[name]  # a capture comes from one camera, hence one subset
    by_subset: dict[str, list[str]] = defaultdict(list)
    for cap in sorted(frames):
        by_subset[subset_of[cap]].append(cap)
    rng = np.random.default_rng(seed)
    val = set()
    for subset in sorted(by_subset):
        caps = by_subset[subset]
        order = [caps[i] for i in rng.permutation(len(caps))]
        total = sum(len(frames[c]) for c in caps)
        taken = 0
        for cap in order[:-1] if len(order) > 1 else []:  # leave training at least one capture
            if taken >= val_fraction * total:
                break
            val.add(cap)
            taken += len(frames[cap])
    return {name: "val" if cap in val else "train" for name, cap in captures.items()}


def fixed_label(name: str, card: str, box) -> str:
    """The card a labelled box of a shared photo shows: its label, unless ``LABEL_FIXES`` mends it."""
    fixes = LABEL_FIXES.get(name, {})
    return fixes.get((card, (round(box[0]), round(box[1]))), fixes.get(card, card))


def mended_boxes(name: str, entry: dict) -> list[tuple[str, tuple]]:
    """A shared photo's labelled boxes as (card, box), mended (``LABEL_FIXES``) and completed
    (``LABEL_ADDITIONS``), less boxes too thin to hold an index (``THINNEST_BOX``)."""
    return [(fixed_label(name, c["card"], c["box"]), tuple(c["box"])) for c in entry["cards"]
            if min(c["box"][2] - c["box"][0], c["box"][3] - c["box"][1]) >= THINNEST_BOX] + \
        [(card, tuple(box)) for card, box in LABEL_ADDITIONS.get(name, [])]


def _shown_in_part(name: str, labelled: int) -> dict:
    """A photo's meta fields for the cards it shows only in part (``PARTLY_SHOWN``), beside its
    ``labelled`` cards: what they may be, and how many cards are in view."""
    if name not in PARTLY_SHOWN:
        return {}
    return {"partly_shown": sorted({code for card in PARTLY_SHOWN[name] for code in card}),
            "cards_in_view": labelled + len(PARTLY_SHOWN[name])}


def convert(src: Path, out: Path, val_fraction: float = 0.25, force: bool = False) -> dict[str, int]:
    """Writes the real photos as a data set in ``out``; returns image counts per part.

    Raises:
        DataSetError: ``src`` lacks labels.json, its labels.json is not JSON or labels no photo,
            a labelled photo is missing or not an image, or ``out`` already holds a data set.
    """
    src, out = Path(src), Path(out)
    labels_file = src / "labels.json"
    if not labels_file.is_file():
        raise yolo.DataSetError(f"no labels.json in {src}")
    try:
        entries = json.loads(labels_file.read_text())
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise yolo.DataSetError(f"{labels_file} is not JSON ({exc})") from None
    if not isinstance(entries, dict) or not entries:
        raise yolo.DataSetError(f"no labelled photo found in {labels_file}: nothing to convert")
    for name, entry in entries.items():  # the split needs each photo's subset, the labels its cards
        if not isinstance(entry, dict) or not isinstance(entry.get("subset"), str) \
                or not isinstance(entry.get("cards"), list):
            raise yolo.DataSetError(f"{labels_file} labels {name} without its \"subset\" and \"cards\": "
                                    f"each photo needs both")
    if (out / "data.yaml").exists() and not force:
        raise yolo.DataSetError(f"{out} already holds a data set; choose another folder or pass --force")
    for name in ("images", "labels", "meta"):
        shutil.rmtree(out / name, ignore_errors=True)
    captures = group_captures(sorted(entries))
    parts = split_captures({n: e["subset"] for n, e in entries.items()}, captures, val_fraction)
    yolo.make_dirs(out, ["train", "val"])
    counts = {"train": 0, "val": 0}
    for name, entry in sorted(entries.items()):
        part, stem = parts[name], Path(name).stem
        image = src / "images" / name
        pixels = cv2.imread(str(image), cv2.IMREAD_UNCHANGED) if image.is_file() else None
        if pixels is None:  # the data set is left unfinished: without data.yaml, nothing trains on it
            raise yolo.DataSetError(f"{labels_file} labels {name}, but {image} is missing or not an image")
        h, w = pixels.shape[:2]
        shutil.copyfile(image, out / "images" / part / f"{stem}.jpg")
        boxes = mended_boxes(name, entry)
        (out / "labels" / part / f"{stem}.txt").write_text(yolo.label_lines(boxes, w, h))
        cards: dict[str, list] = defaultdict(list)
        for code, box in boxes:
            cards[code].append({"box": list(box), "labelled": True})
        yolo.write_json(out / "meta" / part / f"{stem}.json", {
            "image": f"{stem}.jpg", "source": entry.get("source"), "subset": entry["subset"],
            "capture": captures[name], "width": w, "height": h, "starter": None,
            "cards": [{"code": code, "face_up": True, "readable": True, "corners": corners}
                      for code, corners in sorted(cards.items())],
            **_shown_in_part(name, len(cards))})
        counts[part] += 1
    for part in counts:
        yolo.write_eval_labels(out, part)
    yolo.write_data_yaml(out, {"train": "images/train", "val": "images/val"},
                         "real card photos (CC BY 4.0, see ATTRIBUTION.txt), split by capture")
    mended = LABEL_FIXES.keys() | LABEL_ADDITIONS.keys() | PARTLY_SHOWN.keys()
    (out / "ATTRIBUTION.txt").write_text(ATTRIBUTION.format(src=src, fixed=len(mended)))
    yolo.write_json(out / "captures.json", {name: {"capture": captures[name], "part": parts[name]}
                                            for name in sorted(entries)})
    return counts
