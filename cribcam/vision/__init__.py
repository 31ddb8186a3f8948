"""Vision: the index finder and classifier, corner-to-card decisions, the starter, the reader.

Calls down into ``cribcam.scoring`` only; knows nothing of the command line or the web.
"""

from cribcam.vision.detections import Detections
from cribcam.vision.models import ModelMissingError
from cribcam.vision.reader import CardReader
from cribcam.vision.reading import Reading, SeenCard

__all__ = ["CardReader", "Detections", "ModelMissingError", "Reading", "SeenCard"]
