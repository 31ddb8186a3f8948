"""The files cribcam reads at run time, found through the package wherever it is installed.

In a checkout they are the top-level folders ``models/`` (the reader's models, their card and
licences, the rehearsal set of teaching), ``web/`` (the pages' templates and static files) and
``datasets/`` (``decks.json``, the card art the data build renders). ``pyproject.toml`` maps
each to a data package of this one (``cribcam.bundled.models``, ``.web``, ``.datasets``: each
folder holds an empty ``__init__.py`` for it), so a wheel carries them inside ``cribcam/`` and
an editable install finds them where they lie; ``importlib.resources`` answers for both.
"""

from __future__ import annotations

import os
from importlib.resources import files
from pathlib import Path


def _folder(name: str) -> Path:
    # Installed from a wheel or in editable mode, a package is a folder on disk: onnxruntime,
    # OpenCV and Flask take its files by path.
    return Path(os.fspath(files(f"{__name__}.{name}")))


MODELS_DIR = _folder("models")
WEB_DIR = _folder("web")
DATASETS_DIR = _folder("datasets")
