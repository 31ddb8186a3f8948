"""Fixtures of the reader's tests: the reader on the shipped models."""

import pytest

from cribcam.vision import CardReader


@pytest.fixture(scope="module")
def reader(shipped_models):
    """A reader of the shipped models, one per test module: a module may wrap its methods."""
    return CardReader(shipped_models)

