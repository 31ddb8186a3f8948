"""The index classifier at run time: which card each found index shows, or none.

A small CNN (trained by ``cribcam.training.classifier``) reads the square crop around each
box (``crops.index_crop``, the same crop as in training) and answers 53 probabilities: the 52
cards in ``CARD_CODES`` order and "no index" (pips, court art, backs, clutter the finder took
for an index). A deck the player taught (``cribcam teach``) is read by ``DeckClassifier``: its
own classifier beside the bundled one.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from cribcam.vision.crops import index_crop, to_blob
from cribcam.vision.models import onnx_session

BATCH = 64  # crops per run: bounds memory on a photo with very many boxes


class IndexClassifier:
    """Reads index crops into card probabilities.

    Args:
        path: the classifier's ONNX file.
        threads: onnxruntime intra-op threads (0: onnxruntime decides).
    """

    def __init__(self, path: Path, threads: int = 0):
        self.session = onnx_session(path, threads)
        model_input = self.session.get_inputs()[0]
        self.input_name = model_input.name
        self.size = int(model_input.shape[2])
        self.path = Path(path)

    def __call__(self, image: np.ndarray, boxes: np.ndarray) -> np.ndarray:
        """(n, 53) probabilities for the (n, 4) ``boxes`` of a BGR image: 52 cards, then none."""
        return self.read_crops(self.crops(image, boxes))

    def crops(self, image: np.ndarray, boxes: np.ndarray) -> np.ndarray:
        """The (n, size, size, 3) BGR crops this classifier reads for ``boxes``."""
        crops = [index_crop(image, box, self.size) for box in boxes]
        return np.array(crops, np.uint8).reshape(len(crops), self.size, self.size, 3)

    def read_crops(self, crops: np.ndarray) -> np.ndarray:
        """(n, 53) probabilities for the crops that ``crops`` cut.

        Each crop is read twice, as it is and turned half round, and the two answers averaged:
        a card prints its index both ways up, so both are as like an index, and a misreading
        of one rarely survives the other (exact hands 0.63 -> 0.67 on the synthetic validation
        scenes and real training photos, where the reader's thresholds are chosen).
        """
        if len(crops) == 0:
            return np.zeros((0, 53), np.float32)
        both = np.concatenate([crops, crops[:, ::-1, ::-1]])
        answers = np.concatenate([self.session.run(None, {self.input_name: to_blob(both[i:i + BATCH])})[0]
                                  for i in range(0, len(both), BATCH)])
        return (answers[:len(crops)] + answers[len(crops):]) / 2


class DeckClassifier:
    """A taught deck's classifier read beside the bundled one: each box takes the surer answer.

    The taught model is sure of the deck it was taught and the bundled one of the designs it
    was trained on; fine-tuning leaves the taught model less sure of those (fewer of their cards
    pass the reader's threshold). Taking, box by box, the answer with the higher card
    probability, three taught decks read the real validation photos as well as the bundled
    model or better (recall 0.817 -> 0.817, 0.827, 0.820; the taught models alone 0.790 to
    0.800) and two held-out designs better than the taught models alone (recall 0.464 ->
    0.485, 0.724 -> 0.732): ``bench/bench_teach.py``, 2026-11-24, run 4's models.

    Args:
        taught: the deck's classifier.
        bundled: the classifier it was taught from.
    """

    def __init__(self, taught: IndexClassifier, bundled: IndexClassifier):
        if taught.size != bundled.size:
            raise ValueError(f"the taught classifier reads {taught.size}-pixel crops and the bundled one "
                             f"{bundled.size}: teach the deck again from these models")
        self.taught, self.bundled = taught, bundled
        self.size, self.path = taught.size, taught.path

    def __call__(self, image: np.ndarray, boxes: np.ndarray) -> np.ndarray:
        """(n, 53) probabilities for the (n, 4) ``boxes`` of a BGR image: 52 cards, then none."""
        return self.read_crops(self.taught.crops(image, boxes))

    def read_crops(self, crops: np.ndarray) -> np.ndarray:
        """(n, 53) probabilities: per crop, the answer of the classifier surer of a card."""
        taught, bundled = self.taught.read_crops(crops), self.bundled.read_crops(crops)
        surer = taught[:, :52].max(axis=1) > bundled[:, :52].max(axis=1)
        return np.where(surer[:, None], taught, bundled)
