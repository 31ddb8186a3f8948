"""Fixtures of the reader's tests: the reader on the shipped models."""

import pytest

from cribcam.settings import RUNTIME_ENV
from cribcam.vision import CardReader


@pytest.fixture(scope="module")
def reader(shipped_models):
    """A reader of the shipped models, one per test module: a module may wrap its methods."""
    return CardReader(shipped_models)


@pytest.fixture(scope="module")
def onnxruntime_only():
    """Every reading of a module that asks for it, `cribcam read`'s too, in onnxruntime, which
    reads alike on every CPU: OpenVINO runs the finder in bfloat16 where the CPU computes in it,
    and there reads a card on the edge of a threshold otherwise."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(RUNTIME_ENV, "onnxruntime")
        yield
