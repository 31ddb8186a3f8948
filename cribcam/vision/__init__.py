"""Vision: the detector runtime, corner-to-card decisions, starter finding and the reader.

Calls down into ``cribcam.scoring`` only; knows nothing of the command line or the web.
"""

from cribcam.vision.detections import Detections
from cribcam.vision.detector import Detector, ModelMissingError
from cribcam.vision.reader import CardReader
from cribcam.vision.reading import Reading, SeenCard

__all__ = ["CardReader", "Detections", "Detector", "ModelMissingError", "Reading", "SeenCard"]
