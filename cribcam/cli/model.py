"""The card-reading model and the photos, opened the same way by every command that reads photos."""

from __future__ import annotations

from pathlib import Path

from cribcam.cli.main import UsageError

# What the command line reads: ``vision.images.FILE_FORMATS`` (the web's formats and TIFF),
# written here again as this module is imported by every command and loads no OpenCV
# (tests/cli/test_read_cli.py checks the two agree).
PHOTO_FORMATS = "JPEG, PNG, WebP, BMP or TIFF"


MODELS_HELP = "folder with finder.onnx and classifier.onnx (default: the bundled models)"


def add_model_option(parser, help: str = MODELS_HELP) -> None:
    """The ``--model DIR`` option of every command that reads photos or teaches on the models."""
    parser.add_argument("--model", type=Path, metavar="DIR", help=help)


def open_reader(model: Path | None, deck: str | None = None):
    """A ``CardReader`` on the ``--model`` given, or on the bundled model when it is None,
    reading with the classifier of the taught deck ``deck`` (``--deck``) when one is named.

    Raises:
        UsageError: no model where one was named or bundled, or one that cannot be loaded;
            no taught deck of that name.
    """
    from cribcam.vision import CardReader, ModelMissingError
    from cribcam.vision.decks import DeckError, deck_classifier

    try:
        return CardReader(model, classifier=deck_classifier(deck))
    except DeckError as exc:
        raise UsageError(str(exc)) from None
    except ModelMissingError as exc:
        if model is None:
            raise UsageError(f"no card-reading model is installed ({exc})") from None
        raise UsageError(str(exc)) from None
    except Exception as exc:  # a damaged or incompatible .onnx file, or a taught deck's
        if deck:  # the deck's own file, most likely: the models load alone (issue 46)
            raise UsageError(f"the taught deck {deck} could not be loaded ({type(exc).__name__}: "
                             f"{exc}): teach it again with cribcam teach, or read without "
                             f"--deck") from None
        raise UsageError(f"the model {model or 'bundled with cribcam'} could not be loaded: "
                         f"{type(exc).__name__}: {exc}") from None


def read_photo(path: Path):
    """The photo at ``path`` as a BGR image, refused first, from its header and before anything
    is decoded, when it is larger than the web API takes: the same limit
    (``cribcam.vision.images.DEFAULT_MAX_PIXELS``) and the same message, for every command.

    Raises:
        UsageError: no such file, a photo over the limit, or not a photo of those formats.
    """
    import cv2  # here, not at the top: every `cribcam` command imports this module

    from cribcam.vision.images import ImageError, ImageTooLarge, check_pixels, decode_image, sniff_file

    if path.is_dir():
        raise UsageError(f"{path} is a folder: give a photo in it ({PHOTO_FORMATS}), "
                         f"e.g. {path / 'hand.jpg'}")
    if not path.is_file():
        raise UsageError(f"no such file: {path}")
    try:
        info = sniff_file(path)
        check_pixels(info)
    except ImageTooLarge as exc:
        raise UsageError(str(exc)) from None
    except ImageError as exc:  # a format whose size cannot be known before decoding, too
        raise UsageError(f"{path}: {exc}") from None
    except OSError as exc:
        raise UsageError(f"{path} cannot be read: {exc.strerror or exc}") from None
    if info.format == "tiff":
        image = cv2.imread(str(path))
        if image is None:
            raise UsageError(f"{path}: the TIFF file could not be decoded: it is damaged or "
                             f"of a kind OpenCV does not read")
        return image
    # The web's formats are decoded as the web decodes them (a JPEG cut short is refused,
    # not read half grey), at their full size.
    try:
        return decode_image(path.read_bytes(), max_side=max(info.width, info.height))[0]
    except ImageError as exc:
        raise UsageError(f"{path}: {exc}") from None
