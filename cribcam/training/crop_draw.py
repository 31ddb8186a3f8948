"""What a training run adds to the augmentation every classifier crop gets.

Standard library only, as ``stages`` and ``recipe`` are: a recipe describes its options without
the ``train`` extra.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CropDraw:
    """What a run adds to the augmentation every crop gets (``crop_bank.augment``).

    Attributes:
        reshape: the share of crops whose print is reshaped (``crop_bank.reshape_print``).
        turn_real: the share of the real photos' crops turned to any angle first
            (``crop_bank.turned_any_way``). Real photos hold their cards upright or half round,
            and a real photo turned a quarter read far worse than as taken (models/HISTORY.md,
            "Real photos turned"); the drawn scenes' crops are turned every way already.
    """

    reshape: float = 0.0
    turn_real: float = 0.0


AS_TAUGHT = CropDraw()  # the augmentation alone, as teaching draws its crops
