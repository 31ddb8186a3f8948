"""Vision: the index finder and classifier, corner-to-card decisions, the starter, the reader.

Calls down into ``cribcam.scoring`` only; knows nothing of the command line or the web.

The names below are imported when first used: ``cribcam.vision.models`` and
``cribcam.vision.decks`` are read by every ``cribcam`` command as its options are built, and
importing the reader (OpenCV) there would slow down every command, ``cribcam count`` too.
"""

from importlib import import_module

_HOMES = {"CardReader": "reader", "Detections": "detections", "ModelMissingError": "models",
          "Reading": "reading", "SeenCard": "reading"}

__all__ = sorted(_HOMES)


def __getattr__(name: str):
    if name in _HOMES:
        return getattr(import_module(f"cribcam.vision.{_HOMES[name]}"), name)
    raise AttributeError(f"module 'cribcam.vision' has no attribute {name!r}")
