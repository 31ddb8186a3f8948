"""Shared fixtures: the shared files beside the checkout, and real detector models."""

import os
from pathlib import Path

import pytest

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
def shipped_model() -> Path:
    """The bundled detector, for tests that need cards read right; skipped until one ships."""
    from cribcam.vision.detector import DEFAULT_MODEL

    if not DEFAULT_MODEL.is_file():
        pytest.skip(f"no trained detector is shipped yet ({DEFAULT_MODEL.name}): see models/README.md")
    return DEFAULT_MODEL


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory, real_photos) -> Path:
    """A detector trained by `cribcam train` for one epoch on a few small real photos.

    It reads next to nothing, but it is a real ONNX model from the real recipe: tests of the
    plumbing (loading, bad input, the web API) run the real runtime on it.
    """
    pytest.importorskip("ultralytics", reason="training needs the train extra: pip install -e '.[train]'")
    from training_tools import train_tiny_model

    return train_tiny_model(real_photos, tmp_path_factory.mktemp("tiny-model"))


@pytest.fixture(scope="session")
def detector_model(tiny_model) -> Path:
    """A real ONNX detector: the shipped one when there is one, else the tiny trained one."""
    from cribcam.vision.detector import DEFAULT_MODEL

    return DEFAULT_MODEL if DEFAULT_MODEL.is_file() else tiny_model
