"""The rehearsal set: crops of what the bundled classifier learnt, mixed into every lesson.

Teaching a deck corrects the bundled classifier's heads on the player's indices; without a
rehearsal of the training designs and photos the correction would change how they read too.
The set ships beside the models (``models/rehearsal.npz``, about 2 MB): its crops, not their
features, so it serves any classifier re-exported or retrained since (teaching reads their
features with the classifier it teaches). It is made once per trained classifier, from the
training data (``cribcam.training.rehearsal``); here it is loaded and split.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from cribcam.teach.crop_bank import CONTEXT, NO_INDEX, PATCH, CropBank
from cribcam.vision.crops import CROP_SIZE, MARGIN, crop_square
from cribcam.vision.models import MODELS_DIR

REHEARSAL = MODELS_DIR / "rehearsal.npz"
MOSAIC_COLUMNS = 64  # the patches are stored as one JPEG mosaic this many patches wide


def load_rehearsal(path: Path = REHEARSAL):
    """The rehearsal set as a ``CropBank`` of full-size patches.

    Raises:
        FileNotFoundError: there is no rehearsal set at ``path``.
    """
    if not Path(path).is_file():
        raise FileNotFoundError(f"no rehearsal set at {path}: make it with "
                                f"python -m cribcam.training.rehearsal --synth DIR")
    with np.load(path) as saved:
        side, rank, suit, art = int(saved["side"]), saved["rank"], saved["suit"], saved["art"]
        real = saved["real"] if "real" in saved else np.zeros(len(rank), bool)
        mosaic = cv2.imdecode(saved["mosaic"], cv2.IMREAD_COLOR)
    tiles = [mosaic[r * side:(r + 1) * side, c * side:(c + 1) * side]
             for r, c in (divmod(i, MOSAIC_COLUMNS) for i in range(len(rank)))]
    patches = np.array([cv2.resize(t, (PATCH, PATCH), interpolation=cv2.INTER_LINEAR) for t in tiles], np.uint8)
    return CropBank(patches, rank.astype(np.int64), suit.astype(np.int64), real.astype(bool), art.astype(bool))


def split_rehearsal(bank, seed: int, share: float = 0.2):
    """The rehearsal bank to train on, and a fifth of its indices held back to check on."""
    rng = np.random.default_rng([seed, 7])
    held = rng.random(len(bank)) < share
    held &= bank.rank != NO_INDEX

    def part(mask):
        return CropBank(bank.patches[mask], bank.rank[mask], bank.suit[mask], bank.real[mask], bank.art[mask])

    return part(~held), part(held)


def rehearsal_crops(patches: np.ndarray) -> np.ndarray:
    """The classifier's crop of the index at the centre of each bank patch, as at run time."""
    side = PATCH * (1 + 2 * MARGIN) / CONTEXT
    return np.array([crop_square(p, (PATCH / 2, PATCH / 2), side, CROP_SIZE) for p in patches], np.uint8)
