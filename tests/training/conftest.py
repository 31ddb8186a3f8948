"""The tiny models of the training smoke tests."""

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def tiny_models(tmp_path_factory, real_photos) -> Path:
    """Models made by the real training recipe cut down to a toy size (one finder epoch).

    They read next to nothing, but they are real ONNX models from the real recipe, so the
    recipe never rots. Training them takes about half a minute on two cores, and the tests that
    use them train more: only tests marked slow use them.
    """
    pytest.importorskip("ultralytics", reason="training needs the train extra: pip install -e '.[train]'")
    from training_tools import train_tiny_models

    return train_tiny_models(real_photos, tmp_path_factory.mktemp("tiny-models"))
