"""A second opinion on an index's rank, from a pretrained text recognizer.

The index classifier learnt its glyphs from a few dozen deck designs and reads an unfamiliar
typeface unsurely. A text recognizer trained on millions of printed lines has seen far more
typefaces: PP-OCRv6 small (PaddleOCR's weights as the PyPI package rapidocr 3.10.0 ships
them, Apache-2.0; ``models/README.md``) reads the shared real index crops' ranks zero-shot at
0.895 (``../shared/notes/pretrained-weights.md``). It reads suits poorly, so it is asked about
ranks only, and only where the classifier is unsure. The bundled file is that model fine-tuned
here on index boxes (``cribcam.training.rank_reader``), its graph and characters unchanged.

The recognizer is a CTC model: for each column of a 48-pixel-high line it answers a
distribution over a blank, the 18,708 characters its metadata lists, and a space. A rank is a
known string ("A", "10", "Q"), so instead of decoding, each of the 13 rank strings is scored
with the CTC forward algorithm and the likeliest taken: greedy decoding read rendered glyphs
worse (0.976 against 1.000).
A deck that letters its ranks differently ("B", "V", "H" for the jack, queen and king) is read
with its own 13 strings (``RankReader(texts=...)``), which teaching finds by reading the
deck's indices (``cribcam.teach.alphabet``).
"""

from __future__ import annotations

import copy
from pathlib import Path

import cv2
import numpy as np

from cribcam.scoring.cards import RANK_TEXTS, RANKS
from cribcam.vision.models import onnx_session

HEIGHT = 48  # the recognizer's line height
MAX_WIDTH = 144  # a line cut from one index is never wider than three times its height
TOP_SHARE = 0.55  # the rank is printed in about the top half of an upright index box
MARGIN = 0.08  # of the box's longer side, around the cut
# Asked only where the classifier's likeliest rank has less than this probability: asking on
# every box read no better and cost four times as much (../shared/notes/pretrained-weights.md).
# A taught deck lettered differently needs no more: asking every box read its court cards and
# aces on the suits not shown no better (1.00) and cost 55-70 % more (bench_teach.py decks).
ASK_BELOW = 0.8
ASK_NONE_BELOW = 0.5  # ... and not where the classifier is this sure the box holds no index
# The recognizer's rank log-probabilities are added to the classifier's with this weight,
# chosen on the real training photos' index crops (0.5 read their ranks 0.986, as the
# classifier alone; 0.75 and more read them worse); the validation photos chose nothing.
WEIGHT = 0.5
# A box whose likeliest rank string has a lower log-likelihood shows no rank as text: at -2.0
# the recognizer kept 96.5 % of the real photos' indices and 5.8 % of synthetic non-index
# patches (pips, strokes, edges; ../shared/notes/pretrained-weights.md).
SEEN_TEXT = -2.0
# Cyrillic capitals the recognizer (which knows no Cyrillic) reads as the Latin ones they look
# like: a deck printing Т, В, К is read by T, B, K.
LOOKALIKES = str.maketrans("АВЕКМНОРСТХ", "ABEKMHOPCTX")


def with_rank_opinion(probabilities: np.ndarray, read_ranks, weight: float = WEIGHT) -> np.ndarray:
    """The classifier's card probabilities with the recognizer's opinion of unsure ranks.

    Args:
        probabilities: (n, 53) the classifier's answer: 52 cards (``CARD_CODES`` order, rank
            fastest), then "no index".
        read_ranks: called with the indices of the boxes to ask about, answers their (k, 13)
            rank log-likelihoods (``RankReader`` on those boxes).
        weight: of the recognizer's rank log-probabilities.

    Returns:
        (n, 53) probabilities: the cards of an asked box reweighted by its rank's probability
        to the power ``weight``, their sum kept, so "no index" keeps its share.
    """
    cards = probabilities[:, :52].reshape(-1, 4, 13)
    total = cards.sum(axis=(1, 2))
    top_rank = cards.sum(axis=1).max(axis=1) / np.maximum(total, 1e-9)
    asked = np.flatnonzero((top_rank < ASK_BELOW) & (probabilities[:, 52] < ASK_NONE_BELOW))
    if len(asked) == 0:
        return probabilities
    likelihoods = read_ranks(asked)
    # A box too small to cut a line from, or one in which no rank reads as text at all (a pip,
    # court art), keeps the classifier's answer.
    readable = np.isfinite(likelihoods).all(axis=1) & (likelihoods.max(axis=1, initial=-np.inf) >= SEEN_TEXT)
    asked, likelihoods = asked[readable], likelihoods[readable]
    rank_log_probs = likelihoods - np.logaddexp.reduce(likelihoods, axis=1, keepdims=True)
    reweighted = cards[asked] * np.exp(weight * rank_log_probs)[:, None, :]
    reweighted *= (total[asked] / np.maximum(reweighted.sum(axis=(1, 2)), 1e-12))[:, None, None]
    result = probabilities.copy()
    result[asked, :52] = reweighted.reshape(len(asked), 52)
    return result


class RankReader:
    """Reads the rank printed in index boxes as text.

    Args:
        path: the recognizer's ONNX file (its character list is the metadata key ``character``).
        threads: onnxruntime intra-op threads (0: onnxruntime decides).
        texts: the 13 strings the deck prints for its ranks, in ``RANKS`` order.

    Raises:
        ValueError: ``texts`` are not 13 distinct non-empty strings.
    """

    def __init__(self, path: Path, threads: int = 0, texts: tuple[str, ...] = RANK_TEXTS):
        self.session = onnx_session(path, threads)
        # After the blank and the listed characters the output has one column more: the space
        # PaddleOCR appends (a line of two words is spelt with it).
        self.characters = [*self.session.get_modelmeta().custom_metadata_map["character"].split("\n"), " "]
        self.column = {c: i + 1 for i, c in enumerate(self.characters)}  # column 0 is CTC's blank
        self.input_name = self.session.get_inputs()[0].name
        # The size of the output's last axis, as the graph fixes it (18,710): a photo with no line
        # to read answers as many, so that its answer stacks with another photo's.
        self.output_size = self.session.get_outputs()[0].shape[-1]
        self._read_as(texts)

    def with_texts(self, texts: tuple[str, ...]) -> RankReader:
        """This reader for a deck that prints ``texts``, on the same model (loaded once).

        Raises:
            ValueError: as the constructor.
        """
        reader = copy.copy(self)
        reader._read_as(texts)
        return reader

    def _read_as(self, texts: tuple[str, ...]) -> None:
        if len(texts) != len(RANKS) or len(set(texts)) != len(RANKS) or not all(texts):
            raise ValueError(f"a deck's rank texts are 13 different strings, ace to king; not {list(texts)}")
        self.texts = tuple(texts)
        # Each rank is read as the deck's string (Cyrillic capitals as their Latin lookalikes),
        # and as the standard one unless the deck prints that for a rank: a taught deck's reader
        # still reads the decks lettered as most are. A string the recognizer cannot spell even
        # so (a Russian queen's Д) is not read as text; the deck's taught corners read that rank.
        read_as = [text.translate(LOOKALIKES) for text in self.texts]
        strings = [*((r, t) for r, t in enumerate(read_as) if self.can_spell(t)),
                   *((r, t) for r, t in enumerate(RANK_TEXTS) if t not in read_as)]
        labels = self.encode([text for _, text in strings])
        self.rank_of = np.array([rank for rank, _ in strings])
        # Scoring needs only the blank's and the rank strings' columns of the 18,710: taking
        # them before the log spares the log of the rest (2.4 of the 72 ms the rank reader
        # took a bench photo, 2026-11-26).
        self.spelt = np.unique([0, *(c for label in labels for c in label)])
        self.spelt_labels = [[int(np.searchsorted(self.spelt, c)) for c in label] for label in labels]

    def can_spell(self, text: str) -> bool:
        """Whether the recognizer knows every character of ``text`` (a non-empty string)."""
        return bool(text) and all(c in self.column for c in text)

    def encode(self, texts) -> list[list[int]]:
        """Each text's character columns in the recognizer's output.

        Raises:
            ValueError: a text is empty or has a character the recognizer does not know.
        """
        for text in texts:
            unknown = [c for c in text if c not in self.column]
            if not text or unknown:
                raise ValueError(f"the text recognizer cannot read the rank text {text!r}"
                                 + (f": it knows no {' '.join(map(repr, unknown))}" if unknown else ""))
        return [[self.column[c] for c in text] for text in texts]

    def __call__(self, image: np.ndarray, boxes: np.ndarray) -> np.ndarray:
        """(n, 13) log-likelihoods of each rank (``RANKS`` order) for the (n, 4) ``boxes``: the
        best of its strings'."""
        log_probs, owners = self.read_lines(image, boxes, self.spelt)
        strings = self.likelihoods(log_probs, owners, len(boxes), self.spelt_labels)
        ranks = np.stack([strings[:, self.rank_of == rank].max(axis=1, initial=-np.inf)
                          for rank in range(len(RANKS))], axis=1)
        # A rank with no string read (its own unspellable, its standard one another rank's) gets
        # no opinion: as likely as the likeliest other.
        unread = ~np.isin(np.arange(len(RANKS)), self.rank_of)
        if unread.any():
            ranks[:, unread] = ranks[:, ~unread].max(axis=1, keepdims=True)
        return ranks

    def read_lines(self, image: np.ndarray, boxes: np.ndarray,
                   characters: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The recognizer's (lines, columns, characters) log-probabilities for the lines the
        boxes are read as (only the output columns ``characters`` when given, 0 the blank), and
        the box of each line.

        Each box is read at the turns its shape allows (an upright or upside-down index is
        taller than wide, a sideways one wider), as a line of text: the top part of the index,
        where the rank is printed (``index_lines``).
        """
        lines, owners = _cut_lines(image, boxes)
        width = self.output_size if characters is None else len(characters)
        if not lines:
            return np.zeros((0, 1, width), np.float32), owners
        probabilities = self._run(lines)
        if characters is not None:
            probabilities = probabilities[..., characters]
        return np.log(np.maximum(probabilities, 1e-12)), owners

    @staticmethod
    def likelihoods(log_probs: np.ndarray, owners: np.ndarray, boxes: int, labels: list[list[int]]) -> np.ndarray:
        """(boxes, labels) log-likelihoods: each label's best over the lines of each box
        (``read_lines``); -inf for a box with no line."""
        scores = np.full((boxes, len(labels)), -np.inf, np.float32)
        if len(owners):
            np.maximum.at(scores, owners, _ctc_log_likelihoods(log_probs, labels))
        return scores

    def spell(self, log_probs: np.ndarray) -> list[str]:
        """Each line's greedy reading: the likeliest character of each column, repeats and
        blanks dropped."""
        best = log_probs.argmax(axis=-1)
        kept = (best != 0) & np.concatenate([np.ones((len(best), 1), bool), best[:, 1:] != best[:, :-1]], axis=1)
        return ["".join(self.characters[c - 1] for c in row[keep]) for row, keep in zip(best, kept)]

    def _run(self, lines: list[np.ndarray]) -> np.ndarray:
        """The recognizer's (lines, columns, characters) probabilities for BGR line images."""
        width = max(line.shape[1] for line in lines)
        batch = np.zeros((len(lines), 3, HEIGHT, width), np.float32)  # 0 is mid-grey once scaled
        for i, line in enumerate(lines):
            batch[i, :, :, :line.shape[1]] = line.transpose(2, 0, 1) / 127.5 - 1.0
        return self.session.run(None, {self.input_name: batch})[0]


def _cut_lines(image: np.ndarray, boxes: np.ndarray) -> tuple[list[np.ndarray], np.ndarray]:
    """Every box's lines (``index_lines``), and the box of each line."""
    lines, owners = [], []
    for i, box in enumerate(boxes):
        cut = index_lines(image, box)
        lines += cut
        owners += [i] * len(cut)
    return lines, np.array(owners, int)


def index_lines(image: np.ndarray, box) -> list[np.ndarray]:
    """The BGR line images one index box is read as (``RankReader.read_lines``); the rank
    reader's fine-tune trains on the same cuts (``cribcam.training.rank_reader``)."""
    x1, y1, x2, y2 = (float(v) for v in box)
    pad = MARGIN * max(x2 - x1, y2 - y1)
    height, width = image.shape[:2]
    left, top = int(max(0, x1 - pad)), int(max(0, y1 - pad))
    right, bottom = int(min(width, x2 + pad)), int(min(height, y2 + pad))
    patch = image[top:bottom, left:right]
    if patch.shape[0] < 4 or patch.shape[1] < 4:
        return []
    tall, wide = patch.shape[0] > 1.15 * patch.shape[1], patch.shape[1] > 1.15 * patch.shape[0]
    turns = (None, cv2.ROTATE_180) if tall else \
        (cv2.ROTATE_90_CLOCKWISE, cv2.ROTATE_90_COUNTERCLOCKWISE) if wide else \
        (None, cv2.ROTATE_90_CLOCKWISE, cv2.ROTATE_180, cv2.ROTATE_90_COUNTERCLOCKWISE)
    # The whole index was read as a line too, until the choosing sets read as well or better
    # without it (models/HISTORY.md, "The rank reader's lines halved"): half the recognizer's work.
    lines = []
    for turn in turns:
        upright = patch if turn is None else cv2.rotate(patch, turn)
        lines.append(_as_line(upright[:max(2, round(upright.shape[0] * TOP_SHARE))]))
    return lines


def _as_line(patch: np.ndarray) -> np.ndarray:
    """A patch scaled to the recognizer's line height, its width in proportion (capped)."""
    width = int(np.clip(round(patch.shape[1] * HEIGHT / patch.shape[0]), 8, MAX_WIDTH))
    shrinking = patch.shape[0] > HEIGHT
    return cv2.resize(patch, (width, HEIGHT), interpolation=cv2.INTER_AREA if shrinking else cv2.INTER_LINEAR)


def _ctc_log_likelihoods(log_probs: np.ndarray, labels: list[list[int]]) -> np.ndarray:
    """log p(label | line) under CTC for every line and label: the forward algorithm.

    Args:
        log_probs: (lines, columns, characters) log-probabilities; character 0 is the blank.
        labels: each label's character columns (one or two characters here).

    Returns:
        (lines, labels) log-likelihoods.
    """
    states = 2 * max(map(len, labels)) + 1
    extended = np.zeros((len(labels), states), np.int64)  # blank, c1, blank, c2, blank, ...
    ends = np.array([2 * len(label) for label in labels])  # the last blank's state
    for i, label in enumerate(labels):
        extended[i, 1:2 * len(label):2] = label
    # A path may skip the blank between two different characters.
    can_skip = np.zeros_like(extended, bool)
    can_skip[:, 2:] = (extended[:, 2:] != 0) & (extended[:, 2:] != extended[:, :-2])
    beyond = np.arange(states)[None, :] > ends[:, None]  # states past a short label's end
    lines = log_probs.shape[0]
    emit = log_probs[:, :, extended]  # (lines, columns, labels, states)
    alpha = np.full((lines, len(labels), states), -np.inf)
    alpha[:, :, :2] = emit[:, 0, :, :2]
    for t in range(1, log_probs.shape[1]):
        stay = alpha
        step = np.concatenate([np.full_like(alpha[..., :1], -np.inf), alpha[..., :-1]], axis=-1)
        skip = np.concatenate([np.full_like(alpha[..., :2], -np.inf), alpha[..., :-2]], axis=-1)
        skip = np.where(can_skip, skip, -np.inf)
        alpha = np.logaddexp(np.logaddexp(stay, step), skip) + emit[:, t]
        alpha[:, beyond] = -np.inf
    rows = np.arange(len(labels))
    return np.logaddexp(alpha[:, rows, ends], alpha[:, rows, ends - 1])
