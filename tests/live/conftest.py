"""Fixtures of the live tests: a clip of three hands of the held-out deck designs."""

from __future__ import annotations

import pytest

from cribcam.datagen.clips import ClipSpec, write_clip

# Three hands of 3 s at 10 fps with 4 blurred frames between: 98 frames, 640x480.
CLIP = ClipSpec(hands=3, hold_seconds=3.0, transition_frames=4, fps=10, seed=0)


@pytest.fixture(scope="session")
def clip(heldout_decks, tmp_path_factory):
    """The clip's path and its record."""
    path = tmp_path_factory.mktemp("clip") / "hands.y4m"
    return path, write_clip(path, CLIP, heldout_decks)
