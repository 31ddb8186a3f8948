"""Settings shared by the command line and the web server.

Light enough for every command to import: the command line builds its parser from every
``cribcam.cli`` module, and importing anything under ``cribcam.web`` loads Flask. A default
both sides use is defined here once, and each side imports it; so are the places cribcam
keeps its files in a checkout.
"""

from __future__ import annotations

import os
from pathlib import Path

# Request threads of `cribcam serve` (waitress). More than the photos read at once
# (``CONCURRENT_READS`` in cribcam.web's defaults), so typed counts never wait behind photos.
DEFAULT_THREADS = 8


# --- where things are ------------------------------------------------------------------------

# The checkout cribcam runs from: a data build keeps its deck cache in it, `bin/train-on-device`
# its pack, and the project's shared files are beside it. Installed from a wheel there is no
# checkout: the variables below, or the commands' options, say where these are.
CHECKOUT = Path(__file__).resolve().parents[1]

# What `bin/train-on-device` packs for a lent GPU machine, unless told elsewhere (--out).
DEVICE_PACK_DIR = CHECKOUT / ".devpack"


def shared_dir() -> Path:
    """The project's shared files: ``$CRIBCAM_SHARED``, else ``shared/`` beside the checkout."""
    return Path(os.environ.get("CRIBCAM_SHARED", CHECKOUT.parent / "shared"))


def default_real_photos() -> Path:
    """The shared real photos: ``$CRIBCAM_SHARED/real-photos``, else ``shared/`` beside the checkout."""
    return shared_dir() / "real-photos"


def deck_cache_dir() -> Path:
    """The rendered decks' cache: ``$CRIBCAM_CACHE/decks`` if that variable is set, else
    ``datasets/cache/decks`` in the checkout."""
    root = os.environ.get("CRIBCAM_CACHE")
    return Path(root) / "decks" if root else CHECKOUT / "datasets" / "cache" / "decks"
