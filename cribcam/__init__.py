"""cribcam: a camera-based cribbage hand-counting assistant.

Layers, each only calling down:
    cribcam.scoring   pure counting core (cards, the show, pegging, muggins); no I/O
    cribcam.vision    index finder, index classifier and the card reader
    cribcam.teach     teaching the reader a player's own deck (numpy and the shipped models)
    cribcam.cli, cribcam.web, cribcam.live   interfaces
Beside the runtime, not inside it:
    cribcam.datagen   synthetic training data
    cribcam.training  the training recipe of both models
"""

__version__ = "0.1.0"
