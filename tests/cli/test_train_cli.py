"""`cribcam train` (and `cribcam data real`, which takes the same real photos): the help."""

from __future__ import annotations

import pytest

from cribcam.cli.main import main
from cribcam.settings import default_real_photos
from cribcam.vision.models import MODELS_DIR


@pytest.mark.parametrize("command", [["train"], ["data", "real"]])
def test_the_help_says_how_the_real_photos_are_found(capsys, command):
    """Not the path this checkout gives them, which another checkout need not have."""
    with pytest.raises(SystemExit):
        main([*command, "--help"])
    said = " ".join(capsys.readouterr().out.split())
    assert ("(default $CRIBCAM_SHARED/real-photos, else real-photos in shared/ beside the "
            "checkout)") in said
    assert str(default_real_photos()) not in said and str(MODELS_DIR) not in said
