"""The index classifier at run time: which card each found index shows, or none.

A small CNN (trained by ``cribcam.training.classifier``) reads the square crop around each
box (``crops.index_crop``, the same crop as in training) and answers 53 probabilities: the 52
cards in ``CARD_CODES`` order and "no index" (pips, court art, backs, clutter the finder took
for an index). Beside them it answers the pooled features its two heads (rank and suit) read:
a deck the player taught (``cribcam teach``) is a correction of those heads fitted on the
features (``TaughtHeads``), and ``DeckClassifier`` reads it.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from cribcam.vision.crops import index_crop, tilted, to_blob
from cribcam.vision.decks import DeckError
from cribcam.vision.models import onnx_session
from cribcam.vision.rank_reader import RANK_TEXTS

BATCH = 64  # crops per run: bounds memory on a photo with very many boxes
FEATURES_OUTPUT = "features"  # the ONNX output of the pooled features (``export_classifier``)
RANK_CLASSES = 14  # 13 ranks and "no index", as the bundled rank head
SUIT_CLASSES = 4
# A taught deck keeps the bundled answer where the bundled model's "no index" is above this:
# its correction, fitted on the deck's indices, also sharpens some real photos' pips and court
# art into cards. Chosen on the real training photos with the count given, the Dutch and German
# decks of bench/bench_teach.py taught (precision 0.935 untaught; taught, no bar: 0.922 and
# 0.909; 0.5: 0.923, 0.915; 0.3: 0.930, 0.932; 0.15: 0.938, 0.940; 0.05: 0.944, 0.944), never
# on the validation photos.
KEEP_NONE = 0.05
# A crop whose best card is under this is read again tilted both ways and turned a quarter, and
# the four readings averaged: a card lying at 25 to 45 degrees puts its index in the crop at a
# slant training saw less of. Chosen on the choosing sets with the count given (mean exact hand
# 0.796 -> 0.803; models/HISTORY.md, "Tilted looks, a farther look, and run 10"), never on the
# validation photos. A taught deck reads so too: one that keeps none of its lesson's heads then
# reads as the bundled model does, never worse (models/HISTORY.md, "Teaching for hands").
TILTED_BELOW = 0.4
TILTS = (30, -30, 90)  # degrees anticlockwise
# ... unless the model is this sure the crop holds no index: the pips and court art the finder
# boxes too. Skipping them re-reads a quarter fewer boxes and left every choosing-set figure as
# it was (models/HISTORY.md, "Run 11").
TILTED_UNLESS_NONE = 0.8


def read_tilted_too(read_crops, crops: np.ndarray) -> np.ndarray:
    """``read_crops(crops)``, with the crops it is unsure of (``TILTED_BELOW``, not sure to hold
    no index: ``TILTED_UNLESS_NONE``) read again at each of ``TILTS`` and the readings averaged."""
    probabilities = read_crops(crops)
    unsure = np.flatnonzero((probabilities[:, :52].max(axis=1) < TILTED_BELOW)
                            & (probabilities[:, 52] < TILTED_UNLESS_NONE))
    if len(unsure):
        looks = read_crops(np.concatenate([tilted(crops[unsure], angle) for angle in TILTS]))
        probabilities[unsure] += looks.reshape(len(TILTS), len(unsure), -1).sum(axis=0)
        probabilities[unsure] /= 1 + len(TILTS)
    return probabilities


class IndexClassifier:
    """Reads index crops into card probabilities.

    Args:
        path: the classifier's ONNX file.
        threads: onnxruntime intra-op threads (0: onnxruntime decides).
    """

    texts = RANK_TEXTS  # what the decks it reads print for their ranks (a taught deck: its own)

    def __init__(self, path: Path, threads: int = 0):
        self.session = onnx_session(path, threads)
        model_input = self.session.get_inputs()[0]
        self.input_name = model_input.name
        self.size = int(model_input.shape[2])
        self.path = Path(path)

    def __call__(self, image: np.ndarray, boxes: np.ndarray) -> np.ndarray:
        """(n, 53) probabilities for the (n, 4) ``boxes`` of a BGR image: 52 cards, then none."""
        return read_tilted_too(self.read_crops, self.crops(image, boxes))

    def crops(self, image: np.ndarray, boxes: np.ndarray) -> np.ndarray:
        """The (n, size, size, 3) BGR crops this classifier reads for ``boxes``."""
        crops = [index_crop(image, box, self.size) for box in boxes]
        return np.array(crops, np.uint8).reshape(len(crops), self.size, self.size, 3)

    @property
    def has_features(self) -> bool:
        """Whether this model answers its features too (exported since teaching needs them)."""
        return FEATURES_OUTPUT in [output.name for output in self.session.get_outputs()]

    def read_crops(self, crops: np.ndarray) -> np.ndarray:
        """(n, 53) probabilities for the crops that ``crops`` cut.

        Each crop is read twice, as it is and turned half round, and the two answers averaged:
        a card prints its index both ways up, so both are as like an index, and a misreading
        of one rarely survives the other (exact hands 0.63 -> 0.67 on the synthetic validation
        scenes and real training photos, where the reader's thresholds are chosen).
        """
        answers = self._run_both(crops, ["cards"])[0]
        return (answers[:len(crops)] + answers[len(crops):]) / 2

    def read_with_features(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The (2, n, 53) probabilities and (2, n, F) features of each crop as it is and turned
        half round.

        Raises:
            ValueError: the model answers no features (exported before teaching needed them).
        """
        if not self.has_features:
            raise ValueError(f"{self.path} answers no features for a taught deck to read: export it again with "
                             f"cribcam.training.classifier.export_classifier")
        answers, features = self._run_both(crops, ["cards", FEATURES_OUTPUT])
        n = len(crops)
        return answers.reshape(2, n, answers.shape[1]), features.reshape(2, n, features.shape[1])

    def fingerprint(self) -> str:
        """The SHA-256 of the model file: features are this model's, and heads fitted on them
        read no other model's."""
        return hashlib.sha256(self.path.read_bytes()).hexdigest()

    def _run_both(self, crops: np.ndarray, outputs: list[str]) -> list[np.ndarray]:
        """The outputs for the crops, then for the crops turned half round, run in batches."""
        if len(crops) == 0:  # the width of each output as the model declares it
            widths = {output.name: output.shape[1] for output in self.session.get_outputs()}
            return [np.zeros((0, widths[name]), np.float32) for name in outputs]
        both = np.concatenate([crops, crops[:, ::-1, ::-1]])
        runs = [self.session.run(outputs, {self.input_name: to_blob(both[i:i + BATCH])})
                for i in range(0, len(both), BATCH)]
        return [np.concatenate([run[k] for run in runs]) for k in range(len(outputs))]


def softmax(logits: np.ndarray) -> np.ndarray:
    """Row-wise softmax, safe for large logits."""
    shifted = np.exp(logits - logits.max(axis=-1, keepdims=True))
    return shifted / shifted.sum(axis=-1, keepdims=True)


def cards_from_heads(rank: np.ndarray, suit: np.ndarray) -> np.ndarray:
    """(..., 53) card probabilities (``CARD_CODES`` order, then "no index") from (..., 14) rank
    and (..., 4) suit probabilities, as the bundled model forms them."""
    cards = suit[..., :, None] * rank[..., None, :RANK_CLASSES - 1]  # (..., suit, rank): suit-major
    cards = cards.reshape(*rank.shape[:-1], SUIT_CLASSES * (RANK_CLASSES - 1))
    return np.concatenate([cards, rank[..., RANK_CLASSES - 1:]], axis=-1)


def heads_from_cards(cards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The (..., 14) rank and (..., 4) suit log-probabilities that (..., 53) card probabilities
    were formed from (``cards_from_heads`` undone; floored, so no logit is infinite)."""
    grid = cards[..., :52].reshape(*cards.shape[:-1], SUIT_CLASSES, RANK_CLASSES - 1)
    rank = np.concatenate([grid.sum(axis=-2), cards[..., 52:]], axis=-1)
    suit = grid.sum(axis=-1)
    suit = suit / np.maximum(suit.sum(axis=-1, keepdims=True), 1e-12)
    return np.log(np.maximum(rank, 1e-9)), np.log(np.maximum(suit, 1e-9))


class TaughtHeads:
    """A taught deck's rank and suit heads: the bundled heads corrected on the features.

    Each head's logits are the bundled head's log-probabilities plus a linear map of the
    bundled classifier's standardised features, fitted on the deck (``cribcam.teach.lesson``):
    where the deck looks like what the bundled model knew the correction is near nothing.
    Rank and suit are read apart, as the bundled heads read them, so a rank the deck prints
    in its own letters ("H" for the king, "1" for the ace) that was shown on some suits reads
    on the others too. Kept as a ``.npz``: ``mean``/``scale`` standardise the features,
    ``rank_weights``/``rank_bias`` and ``suit_weights``/``suit_bias`` are the corrections,
    ``classifier`` the fingerprint of the model whose features they read, ``texts`` the 13
    strings the deck prints for its ranks as the text recognizer reads them (the standard
    ones for a file taught before decks learnt them).

    Args:
        path: the heads file.

    Raises:
        ValueError: the file is no heads file.
    """

    def __init__(self, path: Path):
        self.path = Path(path)
        try:
            with np.load(self.path) as saved:
                self.mean, self.scale = saved["mean"], saved["scale"]
                self.rank_weights, self.rank_bias = saved["rank_weights"], saved["rank_bias"]
                self.suit_weights, self.suit_bias = saved["suit_weights"], saved["suit_bias"]
                self.classifier = str(saved["classifier"])
                self.texts = tuple(map(str, saved["texts"])) if "texts" in saved else RANK_TEXTS
        except (OSError, ValueError, KeyError) as exc:
            raise ValueError(f"{self.path} is not a taught deck's heads file ({exc}): teach the deck again") from None
        if self.rank_weights.shape[1] != RANK_CLASSES or self.suit_weights.shape[1] != SUIT_CLASSES:
            raise ValueError(f"{self.path} is not a taught deck's heads file: teach the deck again")

    def __call__(self, cards: np.ndarray, features: np.ndarray) -> np.ndarray:
        """(..., 53) card probabilities from the bundled model's (..., 53) and its (..., F) features."""
        rank, suit = heads_from_cards(cards)
        z = (features - self.mean) / self.scale
        return cards_from_heads(softmax(rank + z @ self.rank_weights + self.rank_bias),
                                softmax(suit + z @ self.suit_weights + self.suit_bias))


class DeckClassifier:
    """A taught deck read through the bundled classifier: its answers corrected by the deck's heads.

    One run of the bundled model answers its probabilities and its features, for each crop
    as it is and turned half round; the taught heads correct both, and the two are averaged
    as ``IndexClassifier.read_crops`` averages them.

    Args:
        heads: the deck's heads file (``TaughtHeads``).
        bundled: the classifier the deck was taught on.

    Raises:
        DeckError: the heads were fitted on another model's features, or the bundled model
            answers none: the deck is to be taught again, the model is fine.
    """

    def __init__(self, heads: Path, bundled: IndexClassifier):
        self.heads = TaughtHeads(heads)
        if not bundled.has_features or self.heads.classifier != bundled.fingerprint():
            raise DeckError(f"the deck at {self.heads.path.parent} was taught on another card classifier than "
                             f"{bundled.path}: teach it again from its photos (cribcam teach "
                             f"{self.heads.path.parent}/photos/*.jpg --labels {self.heads.path.parent}/labels.json "
                             f"--name NEW-NAME)")
        self.bundled = bundled
        self.size, self.path, self.texts = bundled.size, self.heads.path, self.heads.texts

    def __call__(self, image: np.ndarray, boxes: np.ndarray) -> np.ndarray:
        """(n, 53) probabilities for the (n, 4) ``boxes`` of a BGR image: 52 cards, then none."""
        return read_tilted_too(self.read_crops, self.bundled.crops(image, boxes))

    def read_crops(self, crops: np.ndarray) -> np.ndarray:
        """(n, 53) probabilities for the crops, read with the deck's heads; the bundled
        answer kept where the bundled model is sure the crop holds no index (``KEEP_NONE``)."""
        cards, features = self.bundled.read_with_features(crops)
        bundled, taught = cards.mean(axis=0), self.heads(cards, features).mean(axis=0)
        return np.where(bundled[:, 52:] > KEEP_NONE, bundled, taught)
