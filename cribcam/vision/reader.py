"""The card reader: a photo in, the cards of a hand out, ready for counting.

Two models: the finder boxes every printed index at a low threshold, the classifier names the
card in each box or rejects it, and ``corners.cards_from_corners`` decides per physical card.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from cribcam.scoring.spoken import counted
from cribcam.vision.classifier import DeckClassifier, IndexClassifier
from cribcam.vision.corners import card_faces, cards_from_corners
from cribcam.vision.detections import NUM_CLASSES, Detections, box_iou, holds, suppress
from cribcam.vision.finder import IndexFinder
from cribcam.vision.models import ModelMissingError, model_files, rank_reader_file
from cribcam.vision.pips import card_outline, read_face
from cribcam.vision.rank_reader import RankReader, with_rank_opinion
from cribcam.vision.reading import (
    CARD_UNREADABLE,
    CARDS_MISSING,
    GUESSED,
    IMAGE_TOO_SMALL,
    IMAGE_UNREADABLE,
    NO_CARDS,
    PARTLY_IN_PHOTO,
    READ_BY_FACE,
    STARTER_UNKNOWN,
    Problem,
    Reading,
    SeenCard,
)
from cribcam.vision.starter import find_starter

MAX_SIDE = 1920  # larger photos are scaled down first: phone photos are 4000 px and more
MIN_SIDE = 32
# Both chosen on synthetic validation scenes and the real training photos (the mean of their
# exact-hand rates), never on the real validation photos:
CARD_CONF = 0.50  # a box counts for a card with at least this probability
FINDER_CONF = 0.30  # the finder's threshold
UNREADABLE_FINDER = 0.40  # a box this sure to be an index that no card claims is "unreadable"
UNREADABLE_NONE = 0.50  # ... unless the classifier is this sure that it is no index
# Such a box is said to the player as a card that could not be read (a mark) only when the
# classifier is less sure than this that it is no index, and it lies at least this many index
# sizes from every index read: nearer, it is the pips or art of a card read. Chosen with
# ``corners.UNSURE_CONF`` on the choosing sets (``bench/warnings_rule.py``).
MARK_NONE = 0.30
MARK_APART = 2.0
# A photo read without its count gets a closer look when the indices read are smaller than
# this on their short side, in the finder's input pixels: about where the finder's finest grid
# starts to miss them (models/HISTORY.md, "Run 8").
CLOSER_BELOW = 14
# A photo read with its count and cards missing gets a closer look unless the indices read are
# at least this large there: the cards not found are then hidden or out of the photo, not too
# small to see, and enlarging the photo four times over (the slowest look) found little.
# Chosen on the choosing sets (count given, against a closer look at any size): synth-choose read
# 0.0015 fewer of its cards, 0.0009 more precisely, one hand in 300 less exactly; the real
# training photos the same (models/HISTORY.md, "Speed, again").
CLOSER_UNLESS = 40
SAME_BOX = 0.5  # IoU at which a box of the closer look is one the first look found
# A photo is read first with the finder's quick look (``IndexFinder.quick``, a quarter of the
# pixels), and that reading stands when its indices are at least this large there (the median
# short side, in pixels of the quick look's input), every index-like box is a card's, and, with
# the count given, it reads that many cards and guesses none; else the whole look reads it. Without
# a count, a card missed is not seen to be missing, so only large print will do. Chosen on the
# choosing sets (onnxruntime), against the whole look alone: 16 / 28 read the real training photos
# 0.985 / 0.971 / 0.920 -> 0.985 / 0.972 / 0.924 (0.44 of them quick), synth-choose 0.764 / 0.971
# / 0.655 -> 0.765 / 0.973 / 0.662 (0.22 quick); 16 / 24 lost a card of each set (models/HISTORY.md,
# "A quick look first").
QUICK_COUNTED = 16
QUICK_UNCOUNTED = 28
# In a photo of one card or two, a card seen only where the photo cuts it off (every box within
# this share of the photo's longer side of its border) is more often a card of the table around
# than one photographed: it is read, marked unsure, and said. On the choosing sets' real photos of
# one card, such cards were most of the misreads that did not warn; a hand or a spread holds its
# own cards at the edge too often to say so there (``bench/warnings_rule.py``; models/HISTORY.md,
# "Cards cut off by the photo's edge").
EDGE_MARGIN = 0.005
EDGE_ALONE = 2  # cards read at most
# A photo of one card whose corner is read sure but under this probability has its face read
# too (``pips.read_face``): where its pips count another rank, the corner is not sure and the
# face's card is asked. Above it the corner stands. Chosen on the choosing side: the training
# designs' dim webcam singles (``bench/dim_webcam_singles.py --split train``), where the face
# counted another rank for 3 corners read wrongly at 0.73 to 0.82 (right all three times) and 9
# read rightly at 0.90 to 0.99 (four-index designs, whose corner pips it counts), and the real
# training photos of one card, where it did so once, at 0.96 (models/HISTORY.md, "A corner its
# face contradicts").
FACE_CHECKS_BELOW = 0.85


class CardReader:
    """Reads the cards of a hand from a photo.

    Args:
        model_path: a folder holding ``finder.onnx`` and ``classifier.onnx``; the bundled
            models by default.
        conf: minimum card probability for a corner box to count.
        threads: onnxruntime threads (0: as many as it likes).
        finder_conf: the finder's threshold.
        classifier: a taught deck's heads file, read on the folder's classifier's features
            (``DeckClassifier``).
        rank_reader: whether the text recognizer gives a second opinion on the ranks the
            classifier is unsure of (``vision.rank_reader``), when its model is there.
        on_look: called with every look's classified boxes (quick, whole, closer, farther,
            negative), as ``detect`` answers them: for benches that weigh what a reading saw.

    Example:
        >>> reader = CardReader()
        >>> reading = reader.read(cv2.imread("hand.jpg"), expected=5)
        >>> reading.codes, reading.starter, reading.problems
    """

    def __init__(self, model_path: str | Path | None = None, conf: float = CARD_CONF, threads: int = 0,
                 finder_conf: float = FINDER_CONF, classifier: str | Path | None = None,
                 rank_reader: bool = True,
                 on_look: Callable[[Detections, np.ndarray, np.ndarray], None] | None = None):
        finder, bundled = model_files(model_path)
        if classifier and not Path(classifier).is_file():
            raise ModelMissingError(f"no taught deck at {classifier}")
        self.folder = finder.parent
        self.conf = conf
        self.finder = IndexFinder(finder, conf=finder_conf, threads=threads)
        self.classifier = IndexClassifier(bundled, threads=threads)
        if classifier:
            self.classifier = DeckClassifier(Path(classifier), self.classifier)
        recognizer = rank_reader_file(self.folder) if rank_reader else None
        self.rank_reader = RankReader(recognizer, threads, self.classifier.texts) if recognizer else None
        self.on_look = on_look

    def with_deck(self, classifier: str | Path) -> CardReader:
        """This reader with a taught deck's heads file (``classifier``), sharing its models: a
        deck costs its heads, not a copy of the three models (a server keeps several decks).

        Raises:
            ModelMissingError: no heads file there.
            DeckError: heads taught on another classifier (``DeckClassifier``).
        """
        if not Path(classifier).is_file():
            raise ModelMissingError(f"no taught deck at {classifier}")
        reader = copy.copy(self)
        bundled = self.classifier.bundled if isinstance(self.classifier, DeckClassifier) else self.classifier
        reader.classifier = DeckClassifier(Path(classifier), bundled)
        if self.rank_reader is not None:
            reader.rank_reader = self.rank_reader.with_texts(reader.classifier.texts)
        return reader

    def find(self, image: np.ndarray, closer: bool = False, farther: bool = False) -> Detections:
        """The finder's index boxes in a BGR image's pixels, one score column.

        The finder reads a copy scaled down to ``MAX_SIDE``: phone photos are 4000 px and more.
        ``closer`` also reads it in tiles (``IndexFinder``), for small indices; ``farther``
        reads it shrunk instead, for large ones.
        """
        return self._found(image, self.finder.farther if farther else lambda small: self.finder(small, closer))

    def _found(self, image: np.ndarray, look) -> Detections:
        """The boxes of ``look`` (a finder's look at a BGR image) on ``image`` scaled down to
        ``MAX_SIDE``, in ``image``'s pixels."""
        height, width = image.shape[:2]
        scale = min(1.0, MAX_SIDE / max(height, width))
        small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) \
            if scale < 1 else image
        found = look(small)
        return Detections(found.xyxy / scale, found.scores)

    def detect(self, image: np.ndarray, closer: bool = False,
               farther: bool = False) -> tuple[Detections, np.ndarray, np.ndarray]:
        """The classified index boxes of a BGR image, each box's finder score, and the
        classifier's probability that the box holds no index.

        The classifier crops the photo itself, so small print keeps every pixel it has; the
        rank reader reads the boxes whose rank the classifier is unsure of.
        """
        return self._classified(image, self.find(image, closer, farther))

    def _classified(self, image: np.ndarray, found: Detections,
                    read_before: tuple[Detections, np.ndarray, np.ndarray] | None = None):
        """``detect``'s answer for the finder's boxes ``found``. A box of ``read_before`` (an
        answer of ``detect`` on the same image) is not read again: its probabilities are taken."""
        probabilities = np.zeros((len(found), NUM_CLASSES + 1))
        fresh = np.ones(len(found), bool)
        if read_before is not None and len(read_before[0]) and len(found):
            before, _, before_none = read_before
            same = (found.xyxy[:, None, :] == before.xyxy[None]).all(axis=2)
            fresh = ~same.any(axis=1)
            known = same.argmax(axis=1)[~fresh]
            probabilities[~fresh] = np.column_stack([before.scores[known], before_none[known]])
        if fresh.any():
            boxes = found.xyxy[fresh]
            read = self.classifier(image, boxes)
            if self.rank_reader is not None:
                read = with_rank_opinion(read, lambda asked: self.rank_reader(image, boxes[asked]))
            probabilities[fresh] = read
        look = Detections(found.xyxy, probabilities[:, :-1]), found.scores[:, 0], probabilities[:, -1]
        if self.on_look is not None:
            self.on_look(*look)
        return look

    def _quick_look(self, image: np.ndarray, expected: int | None, starter: bool):
        """``detect`` with the finder's quick look and its decision, when they can stand for the
        whole look's (``QUICK_COUNTED``); else None. Boxes too small to make it so are not read."""
        if self.finder.quick_size is None:
            return None
        found = self.finder.quick(image)  # straight from the photo's pixels: no MAX_SIDE copy first
        if not len(found):
            return None
        least = QUICK_COUNTED if expected is not None else QUICK_UNCOUNTED
        at_quick = self.finder.quick_size / max(image.shape[:2])
        # Boxed print mostly too small: the reading would not stand, and its boxes are not read.
        # (The median of every box, not of the indices read; on the choosing sets it never turned
        # away a reading that would have stood, and read half as many photos in vain as the
        # largest box did: models/HISTORY.md, "A quick look first".)
        if float(np.median(found.short_sides)) * at_quick < least:
            return None
        seen = self._classified(image, found)
        decided = cards, _, index_like = self._decide(*seen, expected, starter)
        read = seen[0][seen[0].confidence >= self.conf]
        claimed = {box for card in cards for box in card.boxes}
        unclaimed = any(tuple(map(float, box)) not in claimed for box in seen[0].xyxy[index_like])
        # A card read only from two corners too weak alone is left to the whole look too.
        counted = expected is None or _cards_read(cards, self.conf) == len(cards) == expected
        if cards and counted and not unclaimed and len(read) and float(np.median(read.short_sides)) * at_quick >= least:
            return seen, decided
        return None

    def _wants_closer_look(self, image: np.ndarray, cards: list[SeenCard], found: Detections,
                           expected: int | None) -> bool:
        """Whether an image is worth a closer look (``IndexFinder``): cards are missing from its
        known count, unless the indices read are large at the finder's input size; without a
        count, the indices read are tiny there (or none was read)."""
        read = found[found.confidence >= self.conf]
        sides = read.short_sides
        at_input = self.finder.imgsz / max(image.shape[:2])  # the whole look's scale
        side = float(np.median(sides)) * at_input if len(sides) else 0.0
        if expected is not None:
            return len(cards) < expected and side < CLOSER_UNLESS
        return side < CLOSER_BELOW

    def _closer_look(self, image: np.ndarray, whole: tuple[Detections, np.ndarray, np.ndarray],
                     plain: Detections) -> tuple[Detections, np.ndarray, np.ndarray]:
        """``detect`` with the finder's closer look, given ``detect``'s ``whole`` look: only the
        enlarged pass is run, and only the boxes it adds are read, so no pass reads the same
        pixels twice. (The boxes are ``detect(image, closer=True)``'s; a box's rank opinion may
        differ a little, as the rank reader pads the lines it reads together to one width.)
        ``plain`` holds the boxes already found (the whole look's, or the farther look's)."""
        return self._with_look(image, self.finder.enlarged, whole, plain)

    def _negative_look(self, image: np.ndarray,
                       seen: tuple[Detections, np.ndarray, np.ndarray]) -> tuple[Detections, np.ndarray, np.ndarray]:
        """``detect``'s ``seen`` boxes with those the finder boxes on the photo's negative
        (``IndexFinder.negative``), read on the photo itself: the negative boxes pips and art
        as often as indices."""
        return self._with_look(image, self.finder.negative, seen, seen[0])

    def _with_look(self, image: np.ndarray, look, read_before: tuple[Detections, np.ndarray, np.ndarray],
                   plain: Detections) -> tuple[Detections, np.ndarray, np.ndarray]:
        """``read_before`` (``detect``'s answer on ``image``) with the boxes of another finder's
        ``look`` at it merged in; only the boxes it adds are read. A box not in ``plain`` (the
        boxes already found) counts only when read as a card: let the closer look's unread boxes
        fill missing cards as guesses, and they were wrong more often than right
        (models/HISTORY.md, "Run 8")."""
        before = Detections(read_before[0].xyxy, read_before[1][:, None])
        found = suppress(Detections.merge([before, self._found(image, look)]), self.finder.iou)
        found, index_score, no_index = self._classified(image, found, read_before)
        if not len(found):
            return found, index_score, no_index
        seen = box_iou(found.xyxy, plain.xyxy).max(axis=1) >= SAME_BOX if len(plain) else np.zeros(len(found), bool)
        keep = seen | (found.confidence >= self.conf)
        return found[keep], index_score[keep], no_index[keep]

    def _farther_look(self, image: np.ndarray, expected: int | None, starter: bool, cards: list[SeenCard]):
        """``detect`` from farther away (``IndexFinder.farther``) and its decision, when that reads
        better than the whole look's ``cards``: a photo in which nothing was read, or only
        guessed, or with cards of its count missing or guessed and no closer look, may be a
        close-up, its indices larger than any the finder learnt. Better is more cards read
        (``_cards_read``), or any card where the whole look had none. None otherwise."""
        seen = self.detect(image, farther=True)
        decided = self._decide(*seen, expected, starter)
        better = _cards_read(decided[0], self.conf) > _cards_read(cards, self.conf) or (decided[0] and not cards)
        return (seen, decided) if better else None

    def _decide(self, found: Detections, index_score: np.ndarray, no_index: np.ndarray, expected: int | None,
                starter: bool, outline: np.ndarray | None = None) -> tuple[list[SeenCard], list[Problem], np.ndarray]:
        """The cards of ``detect``'s boxes (``cards_from_corners``; ``outline``: the one card's
        outline, where the photo shows one), their problems, and which boxes look like an index
        (an unread one is a card that could not be read)."""
        index_like = (index_score >= UNREADABLE_FINDER) & (no_index < UNREADABLE_NONE)
        cards, problems = cards_from_corners(found, self.conf, expected, index_like if starter else None,
                                             at_most=not starter, outline=outline)
        return cards, problems, index_like

    def read(self, image: np.ndarray | None, expected: int | None = None, starter: bool = True) -> Reading:
        """Reads a BGR image.

        Args:
            image: a BGR (or grayscale) uint8 image, as ``cv2.imread`` gives; None or empty
                gives a reading with a problem, not an exception.
            expected: how many cards should be in view (hand plus starter), when known; for
                cards dealt (``starter=False``), how many at most.
            starter: whether a starter is in view (False: the cards dealt to a player, which
                the discard advisor reads; fewer than ``expected`` is then a smaller deal).
        """
        if image is None or not isinstance(image, np.ndarray) or image.size == 0:
            return Reading(problems=(Problem(IMAGE_UNREADABLE,
                                             "the image could not be read: send a JPEG or PNG photo"),))
        image = _as_bgr(image)
        height, width = image.shape[:2]
        if min(height, width) < MIN_SIDE:
            return Reading(problems=(Problem(IMAGE_TOO_SMALL, f"the image is only {width}x{height} pixels: "
                                                              f"take a photo with the cards filling more of it"),),
                           width=width, height=height)
        quick = self._quick_look(image, expected, starter)
        whole = found, index_score, no_index = quick[0] if quick else self.detect(image)
        cards, problems, index_like = quick[1] if quick else self._decide(*whole, expected, starter)
        none_read = not _cards_read(cards, self.conf)
        farther = self._farther_look(image, expected, starter, cards) if none_read else None
        if farther is not None:
            (found, index_score, no_index), (cards, problems, index_like) = farther
        if self._wants_closer_look(image, cards, found, expected):
            closer = self._closer_look(image, whole, found)
            decided = self._decide(*closer, expected, starter)
            if farther is None or len(decided[0]) > len(cards):  # the farther look's cards stay if as many
                (found, index_score, no_index), (cards, problems, index_like) = closer, decided
        elif not none_read and expected is not None and _cards_read(cards, self.conf) < expected:
            # Cards missing from the count, or made up by guesses, and no closer look taken (the
            # print is large, or the count is filled): they may be larger than the finder learnt.
            farther = self._farther_look(image, expected, starter, cards)
            if farther is not None:
                (found, index_score, no_index), (cards, problems, index_like) = farther
        # Cards of the count still missing: they may be light print on a dark face. (Cards dealt,
        # ``starter=False``, are counted at most: fewer is a smaller deal or a play under way, and
        # each of the play's frames would pay for the look.)
        if starter and expected is not None and _cards_read(cards, self.conf) < expected:
            negative = self._negative_look(image, (found, index_score, no_index))
            decided = self._decide(*negative, expected, starter)
            if _cards_read(decided[0], self.conf) > _cards_read(cards, self.conf):
                (found, index_score, no_index), (cards, problems, index_like) = negative, decided
        outline = None
        if expected is None and len(cards) == 2:
            outline = card_outline(image)  # one card's two corners, read as two cards?
            if outline is not None:
                cards, problems, index_like = self._decide(found, index_score, no_index, expected, starter, outline)
        # With every card read, index-like marks are pips and art.
        marks = _marks(found[(found.confidence < self.conf) & index_like & (no_index < MARK_NONE)], cards) \
            if expected is None or len(cards) < expected else np.zeros((0, 4))
        problems += [_unreadable(box, width, height) for box in marks]
        guesses = [card for card in cards if card.guessed]  # questions for the player, not cards
        cards = [card for card in cards if not card.guessed]
        by_face = _by_face(image, cards, expected, self.classifier, outline)
        if by_face is not None:  # the face's card stands for the guesses and the marks
            against = _against_the_corners(cards)
            cards, guesses, marks = [by_face], [], np.zeros((0, 4))
            problems = [problem for problem in problems if problem.code != CARD_UNREADABLE]
            problems.append(Problem(READ_BY_FACE, f"the {by_face.card} was read from its pips{against}: "
                                                  f"check it, or tap it to fix it"))
        cards, cut_off = _cut_off(cards, width, height)
        problems += [Problem(PARTLY_IN_PHOTO, f"the {seen.card} {_where(seen.boxes[0], width, height)} is only "
                                              f"partly in the photo: check that it is one of the cards, "
                                              f"or leave it out") for seen in cut_off]
        guess = find_starter(cards) if starter else None
        problems += _count_problems(cards, expected, guess, starter, guesses)
        return Reading(tuple(cards), guess, tuple(dict.fromkeys(problems)), width, height,
                       tuple(tuple(map(float, b)) for b in marks), tuple(guesses))


def _cards_read(cards: list[SeenCard], conf: float) -> int:
    """How many cards were read from a box at the line ``conf``: not guessed to make up the
    count, nor read only from two corners too weak alone (``corners._read_corner_pairs``), which
    another look may read better (two of the real index crops were read so as a QH, where the
    farther look read their 6D surely)."""
    return sum(not card.guessed and card.confidence >= conf for card in cards)


def _by_face(image: np.ndarray, cards: list[SeenCard], expected: int | None, classifier,
             outline: np.ndarray | None = None) -> SeenCard | None:
    """The card of a photo of one card read by its face (``pips.read_face``, the suit by
    ``classifier``'s answer on its pips, within ``outline`` where the card's was found already),
    where no corner was read, the one card read is unsure and the face says another card, or it
    is read sure under ``FACE_CHECKS_BELOW`` and the face counts another rank; None otherwise.
    It never stands for a corner read surer than that, and is itself unsure (its confidence 0):
    the player is asked. Only a photo of one card is looked at so: in a hand the largest
    card-shaped region is one card of several, most of its face hidden."""
    if expected not in (None, 1) or len(cards) > 1:
        return None
    corner = cards[0] if cards else None
    if corner is not None and not corner.unsure and corner.confidence >= FACE_CHECKS_BELOW:
        return None
    face = read_face(image, classifier, outline)
    if face is None:
        return None
    card, box = face
    if corner is not None:  # an unsure corner gives way to another card, a sure one to another rank
        agrees = corner.card == card if corner.unsure else corner.card[0] == card[0]
        if agrees:
            return None
    return SeenCard(card, 0.0, (box,), unsure=True)


def _against_the_corners(cards: list[SeenCard]) -> str:
    """What a card read by its face stands against, for its problem's message: the card its
    corners read (unsurely, where so), or no corner read at all."""
    if not cards:
        return " alone, its corners could not be read"
    corner = cards[0]
    if not corner.unsure:
        return f", not the {corner.card} its corner reads"
    read = "its corner reads" if len(corner.boxes) == 1 else "its corners read"
    return f", not the {corner.card} {read} unsurely"


def _as_bgr(image: np.ndarray) -> np.ndarray:
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    if image.dtype != np.uint8:
        image = cv2.normalize(image, None, 0, 255, cv2.NORM_MINMAX).astype(np.uint8)
    return image


def _where(box, width: int, height: int) -> str:
    """Names the place of a box in the photo as a player would: "at the left edge"."""
    x, y = (box[0] + box[2]) / 2 / width, (box[1] + box[3]) / 2 / height
    edges = {"left edge": x, "right edge": 1 - x, "top edge": y, "bottom edge": 1 - y}
    edge, distance = min(edges.items(), key=lambda kv: kv[1])
    if distance < 0.12:
        return f"at the {edge}"
    row = "top" if y < 1 / 3 else "bottom" if y > 2 / 3 else ""
    column = "left" if x < 1 / 3 else "right" if x > 2 / 3 else ""
    return f"at the {row} {column}".replace("  ", " ").strip() if row or column else "in the middle"


def _cut_off(cards: list[SeenCard], width: int, height: int) -> tuple[list[SeenCard], list[SeenCard]]:
    """The cards, those seen only where the photo's edge cuts them marked unsure when the photo
    holds ``EDGE_ALONE`` cards or fewer; and those cards."""
    if len(cards) > EDGE_ALONE:
        return cards, []
    margin = EDGE_MARGIN * max(width, height)

    def at_edge(box) -> bool:
        return min(box[0], box[1], width - box[2], height - box[3]) <= margin

    cut_off = [replace(seen, unsure=True) for seen in cards if all(at_edge(box) for box in seen.boxes)]
    return [next((cut for cut in cut_off if cut.boxes == seen.boxes), seen) for seen in cards], cut_off


def _marks(weak: Detections, cards: list[SeenCard]) -> np.ndarray:
    """The boxes of ``weak`` that show a card that could not be read: in no index read (or
    guessed), at least ``MARK_APART`` index sizes from every one, and not on the face of a
    card read from two corners (``corners.card_faces``), where its pips and court art lie."""
    read = np.array([b for card in cards for b in card.boxes], np.float32).reshape(-1, 4)
    if not len(read) or not len(weak):
        return weak.xyxy
    centres = (read[:, :2] + read[:, 2:]) / 2
    apart = np.linalg.norm(weak.centers[:, None, :] - centres[None, :, :], axis=2).min(axis=1) / weak.sizes
    faces = card_faces(card.boxes for card in cards)
    inside = np.array([holds(read, centre).any() or holds(faces, centre).any() for centre in weak.centers])
    return weak.xyxy[(apart >= MARK_APART) & ~inside]


def _unreadable(box, width: int, height: int) -> Problem:
    """The problem of a mark that could not be read, said by where it lies."""
    where = _where(box, width, height)
    advice = "; move it into view" if "edge" in where else "; turn it face up or into the light"
    return Problem(CARD_UNREADABLE, f"the card {where} could not be read{advice}")


def _count_problems(cards: list[SeenCard], expected: int | None, starter: str | None,
                    with_starter: bool = True, guesses: list[SeenCard] = ()) -> list[Problem]:
    if not cards and not guesses:
        return [Problem(NO_CARDS, "no cards found: lay the cards face up with their corners in view")]
    problems = []
    if expected is not None and len(cards) < expected and with_starter:
        missing = expected - len(cards)
        problems.append(Problem(CARDS_MISSING, f"{counted(len(cards), 'card')} read but {expected} expected: "
                                               f"{missing} {'is' if missing == 1 else 'are'} missing or hidden; "
                                               f"make sure a corner of every card shows"))
    if guesses:
        named = " and the ".join(seen.card for seen in guesses)
        problems.append(Problem(GUESSED, f"a card could only be guessed: the {named}? "
                                         f"Name {'it' if len(guesses) == 1 else 'them'} "
                                         f"to count {'it' if len(guesses) == 1 else 'them'}"))
    if with_starter and starter is None and len(cards) >= 3:
        problems.append(Problem(STARTER_UNKNOWN, "could not tell which card is the starter: "
                                                 "set it a little apart, or name it"))
    return problems
