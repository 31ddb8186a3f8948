"""Shared fixtures: the shared files beside the checkout, and real card-reading models."""

import os
import signal
from pathlib import Path

import pytest

# Run in the background (nohup ... &), pytest ignores Ctrl-C, and so would the servers the
# tests start and stop with Ctrl-C (webtools.serving): give them a terminal's Ctrl-C.
signal.signal(signal.SIGINT, signal.default_int_handler)

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("CRIBCAM_SHARED", ROOT.parent / "shared"))


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    if not SHARED.is_dir():
        pytest.fail(f"the shared files are missing: expected them at {SHARED} "
                    f"(set CRIBCAM_SHARED to their folder)")
    return SHARED


@pytest.fixture(scope="session")
def real_photos(shared_dir) -> Path:
    return shared_dir / "real-photos"


@pytest.fixture(scope="session")
def shipped_models() -> Path:
    """The bundled models' folder, for tests that need cards read right."""
    from cribcam.vision.models import MODELS_DIR, ModelMissingError, model_files

    try:
        model_files(MODELS_DIR)
    except ModelMissingError as exc:
        pytest.skip(str(exc))
    return MODELS_DIR


@pytest.fixture(scope="session")
def tiny_models(tmp_path_factory, real_photos) -> Path:
    """Models made by the real training recipe cut down to a toy size (one finder epoch).

    They read next to nothing, but they are real ONNX models from the real recipe: tests of
    the plumbing (loading, bad input) run the real runtime on them, and the recipe never rots.
    """
    pytest.importorskip("ultralytics", reason="training needs the train extra: pip install -e '.[train]'")
    from training_tools import train_tiny_models

    return train_tiny_models(real_photos, tmp_path_factory.mktemp("tiny-models"))


@pytest.fixture(scope="session")
def reader_models(tiny_models) -> Path:
    """A folder of real ONNX models: the shipped ones when there are, else the tiny ones."""
    from cribcam.vision.models import MODELS_DIR, ModelMissingError, model_files

    try:
        model_files(MODELS_DIR)
        return MODELS_DIR
    except ModelMissingError:
        return tiny_models
