"""Where the reader's two models live, and how an ONNX model is opened.

A reader needs two files in one folder: ``finder.onnx`` (where the indices are) and
``classifier.onnx`` (which card each index shows). The bundled ones are in ``models/``
(``cribcam.bundled.MODELS_DIR``, wherever cribcam is installed).
"""

from __future__ import annotations

from pathlib import Path

from cribcam.bundled import MODELS_DIR

FINDER_FILE = "finder.onnx"
CLASSIFIER_FILE = "classifier.onnx"
RANK_READER_FILE = "rank_reader.onnx"  # the pretrained text recognizer (vision.rank_reader)


class ModelMissingError(RuntimeError):
    """A model file is not where it was expected."""


def model_files(folder: str | Path | None = None) -> tuple[Path, Path]:
    """The finder's and the classifier's files in ``folder`` (the bundled models by default).

    Raises:
        ModelMissingError: either file is missing.
    """
    folder = Path(folder) if folder else MODELS_DIR
    finder, classifier = folder / FINDER_FILE, folder / CLASSIFIER_FILE
    missing = [p.name for p in (finder, classifier) if not p.is_file()]
    if missing:
        raise ModelMissingError(f"no card-reading model in {folder} ({' and '.join(missing)} missing): "
                                f"train one with `cribcam train --models {folder}`, or pass a folder "
                                f"that holds {FINDER_FILE} and {CLASSIFIER_FILE}")
    return finder, classifier


def rank_reader_file(folder: str | Path | None = None) -> Path | None:
    """The text recognizer that reads ranks: ``folder``'s own when it holds one (a fine-tuned
    candidate, ``cribcam.training.rank_reader``), else the bundled one, or None where neither
    is installed.

    The recognizer reads the boxes of any finder and classifier, so a folder of models trained
    elsewhere without one is read with the bundled one.
    """
    for path in ([Path(folder) / RANK_READER_FILE] if folder else []) + [MODELS_DIR / RANK_READER_FILE]:
        if path.is_file():
            return path
    return None


def onnx_session(path: Path, threads: int = 0):
    """An onnxruntime CPU session for ``path``."""
    import onnxruntime as ort  # imported here so the scoring core never needs it

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.log_severity_level = 3
    # Idle threads sleep instead of spinning: a read runs three sessions in turn (and a server
    # one reader a request), and each one's spinning threads took the cores from the next
    # (models/HISTORY.md, "Speed").
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
