"""The card-reading model, opened the same way by every command that reads photos."""

from __future__ import annotations

from pathlib import Path

from cribcam.cli.main import UsageError


def open_reader(model: Path | None):
    """A ``CardReader`` on the ``--model`` given, or on the bundled model when it is None.

    Raises:
        UsageError: no model where one was named or bundled, or one that cannot be loaded.
    """
    from cribcam.vision import CardReader, ModelMissingError

    try:
        return CardReader(model)
    except ModelMissingError as exc:
        if model is None:
            raise UsageError(f"no card-reading model is installed ({exc})") from None
        raise UsageError(str(exc)) from None
    except Exception as exc:  # a damaged or incompatible .onnx file
        raise UsageError(f"the model {model or 'bundled with cribcam'} could not be loaded: "
                         f"{type(exc).__name__}: {exc}") from None
