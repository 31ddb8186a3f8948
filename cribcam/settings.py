"""Settings shared by the command line and the web server.

Light enough for every command to import: the command line builds its parser from every
``cribcam.cli`` module, and importing anything under ``cribcam.web`` loads Flask. A default
both sides use is defined here once, and each side imports it; so are the places cribcam
keeps its files in a checkout.
"""

from __future__ import annotations

import os
from pathlib import Path

# --- the user's settings: environment variables ---------------------------------------------

DATA_ENV = "CRIBCAM_DATA"  # the data folder (tests, several players on one account)
DB_ENV = "CRIBCAM_DB"  # the games' database URL (`--db` overrides it)
RUNTIME_ENV = "CRIBCAM_RUNTIME"  # "onnxruntime" keeps the finder there, not in OpenVINO


def data_dir() -> Path:
    """The user's cribcam data folder: taught decks, the games, the server's key and
    certificate. ``$CRIBCAM_DATA``, else the XDG data folder."""
    if os.environ.get(DATA_ENV):
        return Path(os.environ[DATA_ENV])
    return Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / "cribcam"


def database_url() -> str:
    """The games' database: ``$CRIBCAM_DB``, else the SQLite file in the data folder."""
    return os.environ.get(DB_ENV) or f"sqlite:///{data_dir() / 'games.sqlite3'}"


def openvino_allowed() -> bool:
    """Whether the finder may run in OpenVINO where the ``fast`` extra installs it."""
    return os.environ.get(RUNTIME_ENV, "").lower() != "onnxruntime"


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
