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
    """The bundled models' folder (models/, committed): every test that reads cards reads
    them with these, so no test trains a model to have one."""
    from cribcam.vision.models import MODELS_DIR, ModelMissingError, model_files

    try:
        model_files(MODELS_DIR)
    except ModelMissingError as exc:
        pytest.fail(f"the shipped models are missing from this checkout: {exc}")
    return MODELS_DIR
