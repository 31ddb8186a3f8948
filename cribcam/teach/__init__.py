"""Teaching cribcam a player's own deck, at run time: numpy and the shipped ONNX models alone.

    cribcam.teach.lesson         a deck taught from its layout photos, checked and kept
    cribcam.teach.layout_photos  the cards of layout photos found and named
    cribcam.teach.alphabet       the strings a deck prints for its ranks
    cribcam.teach.heads          the taught heads, fitted in numpy
    cribcam.teach.rehearsal      the shipped rehearsal set, loaded and split
    cribcam.teach.crop_bank      patches around index boxes and the crops augmented from them

The web app and the ``cribcam teach`` command teach through it; the training recipe
(``cribcam.training``) shares its crop bank. Nothing here needs the ``train`` extra.
"""
