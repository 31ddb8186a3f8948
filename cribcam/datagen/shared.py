"""Where the project's shared files are (``shared/`` beside the checkout), in one place.

Light on purpose: the command line reads it to show defaults, before any heavy import.
"""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


def default_real_photos() -> Path:
    """The shared real photos: ``$CRIBCAM_SHARED/real-photos``, else ``shared/`` beside the checkout."""
    return Path(os.environ.get("CRIBCAM_SHARED", REPO_ROOT.parent / "shared")) / "real-photos"
