"""The index classifier at run time: which card each found index shows, or none.

A small CNN (trained by ``cribcam.training.classifier``) reads the square crop around each
box (``crops.index_crop``, the same crop as in training) and answers 53 probabilities: the 52
cards in ``CARD_CODES`` order and "no index" (pips, court art, backs, clutter the finder took
for an index).
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
        """(n, 53) probabilities for the (n, 4) ``boxes`` of a BGR image: 52 cards, then none.

        Each crop is read twice, as it is and turned half round, and the two answers averaged:
        a card prints its index both ways up, so both are as like an index, and a misreading
        of one rarely survives the other (exact hands 0.63 -> 0.67 on the synthetic validation
        scenes and real training photos, where the reader's thresholds are chosen).
        """
        if len(boxes) == 0:
            return np.zeros((0, 53), np.float32)
        crops = np.array([index_crop(image, box, self.size) for box in boxes])
        both = np.concatenate([crops, crops[:, ::-1, ::-1]])
        answers = np.concatenate([self.session.run(None, {self.input_name: to_blob(both[i:i + BATCH])})[0]
                                  for i in range(0, len(both), BATCH)])
        return (answers[:len(crops)] + answers[len(crops):]) / 2
