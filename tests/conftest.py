"""Shared fixtures: paths to the shared files beside the checkout."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(__import__("os").environ.get("CRIBCAM_SHARED", ROOT.parent / "shared"))


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    if not SHARED.is_dir():
        pytest.fail(f"the shared files are missing: expected them at {SHARED} "
                    f"(set CRIBCAM_SHARED to their folder)")
    return SHARED
