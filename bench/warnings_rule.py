"""Choose when a reading warns: how many misread hands warn, and how many right ones.

Run: python bench/warnings_rule.py SET [SET ...] [--model DIR] [--save readings.json]
where a SET is ``IMAGES_DIR:LABELS_JSON``; or ``--load readings.json`` to sweep saved readings.

A reading warns (``Reading.warns``) when a card is unsure (its probability under
``corners.UNSURE_CONF``, the second reading of a card seen twice, or one of a card or two that
the photo's edge cuts off: ``reader.EDGE_MARGIN``), a card is guessed, or it
has a problem other than the starter's: a count that does not add up, two cards alike, or a
mark that could not be read (an index-like box that no card claims, whose no-index probability
is under ``reader.MARK_NONE`` and which lies ``reader.MARK_APART`` index sizes or more from every
index read).

Each photo is read once as the photo page reads it (``cribcam eval --count-given``), every
index-like mark kept; then the three thresholds are swept. Per set, the rules are printed that
warn on the most misread hands while warning on at most 5 % and 10 % of right ones, and the
fewest right ones while warning on at least 90 % of misread ones; then, for the rule in the code,
the figures per kind of photo (``evaluate.KINDS``); last, per set, how the cards read surely but
wrongly differ from those read surely and rightly in the finder's score and the index's size
(``sure_misreads``: neither separates them; models/HISTORY.md, "The finder's score as a
warning"). The rule is chosen on the choosing sets
(synth-choose, -b and -c, and the real training photos), never on the real validation photos or the held-out
designs (issue 31, point 3).
"""

from __future__ import annotations

import argparse
import itertools
import json
from pathlib import Path

import cv2
import numpy as np

from cribcam.vision import CardReader
from cribcam.vision import reader as reader_module
from cribcam.vision.corners import UNSURE_CONF
from cribcam.vision.evaluate import KINDS, cards_counted, given_count, load_labels, photo_kind
from cribcam.vision.reading import CARD_UNREADABLE, IMAGE_UNREADABLE, STARTER_UNKNOWN

UNSURE = (0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85)
NONE = (0.5, 0.4, 0.3, 0.2, 0.1)
APART = (0.0, 1.5, 2.0, 3.0, 4.0)
CHOOSING = ("synth-choose/train", "synth-choose-b/train", "synth-choose-c/train", "real/train")
# Problems that are not warnings of their own: the marks are weighed apart ("marks").
NOT_WARNINGS = {STARTER_UNKNOWN, CARD_UNREADABLE, IMAGE_UNREADABLE}
IN_CODE = (UNSURE_CONF, reader_module.MARK_NONE, reader_module.MARK_APART)  # before read_sets loosens them


def read_sets(sets: list[str], model: Path | None) -> list[dict]:
    """One record per photo: its set, labelled cards, the cards read (probability, unsure for
    another reason), whether some were guessed, its other problems, and every index-like mark
    with its no-index probability and its distance from the indices read, in index sizes."""
    looks = []  # every look's boxes, finder scores and no-index probabilities, for the features
    reader = CardReader(model, on_look=lambda *look: looks.append(look))
    reader_module.MARK_NONE, reader_module.MARK_APART = 1.0, 0.0  # every mark, to sweep both
    records = []
    for spec in sets:
        images, labels_file = (Path(part) for part in spec.split(":", 1))
        for name, entry in sorted(load_labels(labels_file).items()):
            image = cv2.imread(str(images / name))
            if image is None:
                continue
            labelled = sorted({c["card"] for c in entry["cards"]})
            looks.clear()
            reading = reader.read(image, expected=given_count(entry))
            boxes = [box for seen in (*reading.cards, *reading.guesses) for box in seen.boxes]
            records.append({
                "set": f"{images.parent.parent.name}/{images.name}", "name": name, "labelled": labelled,
                "partly_shown": entry.get("partly_shown", []),
                "cards": [{"card": s.card, "probability": s.confidence,
                           "unsure_otherwise": s.unsure and s.confidence >= UNSURE_CONF,
                           "finder": _finder_score(s.boxes, looks),
                           "index_side": max(min(x2 - x1, y2 - y1) for x1, y1, x2, y2 in s.boxes)}
                          for s in reading.cards],
                "guessed": bool(reading.guesses),
                "problems": [p.message for p in reading.problems if p.code not in NOT_WARNINGS],
                "marks": [_mark(box, boxes, looks) for box in reading.unreadable_boxes]})
    return records


def _looked_up(box, looks):
    """A box's finder score and no-index probability in each look that holds it."""
    box = np.asarray(box, np.float32)
    for found, index_score, no_index in looks:
        for i in np.flatnonzero((np.abs(found.xyxy - box) < 0.01).all(axis=1)):
            yield float(index_score[i]), float(no_index[i])


def _finder_score(boxes, looks) -> float:
    """The finder's score of a card's surest box."""
    return max((score for box in boxes for score, _ in _looked_up(box, looks)), default=0.0)


def _mark(box, read_boxes, looks) -> list[float]:
    """A mark's no-index probability and its distance from the nearest index read, in its sizes."""
    none = next((none for _, none in _looked_up(box, looks)), 0.0)
    box = np.asarray(box, np.float32)
    if not read_boxes:
        return [none, float("inf")]
    read = np.asarray(read_boxes, np.float32)
    centre, centres = (box[:2] + box[2:]) / 2, (read[:, :2] + read[:, 2:]) / 2
    return [none, float(np.linalg.norm(centres - centre, axis=1).min() / max(box[2:] - box[:2]))]


def warns(record: dict, unsure: float, none: float, apart: float) -> bool:
    return (any(card["probability"] < unsure or card["unsure_otherwise"] for card in record["cards"])
            or record["guessed"]
            or bool(record["problems"]) or any(n < none and d >= apart for n, d in record["marks"]))


def figures(records: list[dict], rule: tuple) -> tuple[float, float, float]:
    """The share of misread hands that warn, of right hands that warn, and of all hands misread
    without a warning."""
    hands = [r for r in records if r["labelled"]]
    right = [r for r in hands if cards_counted({c["card"] for c in r["cards"]}, set(r["labelled"]),
                                               set(r.get("partly_shown", ()))) == set(r["labelled"])]
    wrong = [r for r in hands if r not in right]
    warned_wrong = sum(warns(r, *rule) for r in wrong)
    return (warned_wrong / max(len(wrong), 1), sum(warns(r, *rule) for r in right) / max(len(right), 1),
            (len(wrong) - warned_wrong) / max(len(hands), 1))


def sweep(records: list[dict]) -> None:
    rules = list(itertools.product(UNSURE, NONE, APART))
    groups = {"choosing sets": [r for r in records if r["set"] in CHOOSING],
              **{name: [r for r in records if r["set"] == name] for name in sorted({r["set"] for r in records})}}
    for name, group in groups.items():
        if not group:
            continue
        scored = [(figures(group, rule), rule) for rule in rules]
        print(f"\n{name}: {len(group)} photos; rule (unsure below, mark no-index below, mark apart): "
              f"misread warned, right warned, misread without warning")
        print(f"  in the code {IN_CODE}: {_said(figures(group, IN_CODE))}")
        for cap in (0.05, 0.10):
            best = max((s for s in scored if s[0][1] <= cap), key=lambda s: (s[0][0], -s[0][1]), default=None)
            if best:
                print(f"  most misread warned, at most {cap:.2f} of right: {best[1]}: {_said(best[0])}")
        best = min((s for s in scored if s[0][0] >= 0.9), key=lambda s: (s[0][1], -s[0][0]), default=None)
        if best:
            print(f"  fewest right warned, at least 0.90 of misread: {best[1]}: {_said(best[0])}")
        for kind in KINDS:
            some = [r for r in group if photo_kind(len(r["labelled"])) == kind and r["labelled"]]
            if some:
                print(f"    {kind:<18} {len(some):>4} photos, the rule in the code: {_said(figures(some, IN_CODE))}")


def sure_misreads(records: list[dict]) -> None:
    """What else might tell a card read surely (at or above the unsure line, not unsure for another
    reason) and wrongly from one read surely and rightly: the finder's score of its surest box, and
    its index's short side in the photo's pixels. Printed as quantiles (0.05, 0.25, 0.5) per set,
    with the share of right cards that a line at the misread cards' median would mark unsure."""
    for name in sorted({r["set"] for r in records}):
        sure = [(card, card["card"] in {*r["labelled"], *r.get("partly_shown", ())})
                for r in records if r["set"] == name and r["labelled"]
                for card in r["cards"] if card["probability"] >= UNSURE_CONF and not card["unsure_otherwise"]]
        wrong = [card for card, right in sure if not right]
        if not wrong:
            continue
        print(f"\n{name}: cards read surely, {len(sure) - len(wrong)} right, {len(wrong)} misread")
        for feature in ("finder", "index_side"):
            right_values = np.array([card[feature] for card, right in sure if right])
            wrong_values = np.array([card[feature] for card in wrong])
            line = float(np.median(wrong_values))
            print(f"  {feature:<10} right {_quantiles(right_values)}, misread {_quantiles(wrong_values)}; "
                  f"under {line:.3g}: half the misread, {(right_values < line).mean():.3f} of the right")


def _quantiles(values: np.ndarray) -> str:
    return " / ".join(f"{value:.3g}" for value in np.quantile(values, (0.05, 0.25, 0.5)))


def _said(figures: tuple[float, float, float]) -> str:
    return " / ".join(f"{value:.3f}" for value in figures)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("sets", nargs="*", help="IMAGES_DIR:LABELS_JSON")
    parser.add_argument("--model", type=Path)
    parser.add_argument("--save", type=Path, help="write the readings here")
    parser.add_argument("--load", type=Path, help="sweep readings saved before instead of reading")
    args = parser.parse_args()
    records = json.loads(args.load.read_text()) if args.load else read_sets(args.sets, args.model)
    if args.save:
        args.save.write_text(json.dumps(records))
    sweep(records)
    sure_misreads(records)


if __name__ == "__main__":
    main()
