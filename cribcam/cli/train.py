"""`cribcam train`: train the index finder and the index classifier, export both for the reader.

Every option is a field of ``cribcam.training.recipe.Recipe`` with its default there. The
recipe module needs only the standard library to describe itself; torch and ultralytics are
imported when training runs, so the command list works without the ``train`` extra.
"""

from __future__ import annotations

import dataclasses
import sys
import typing
from pathlib import Path

from cribcam.cli.data import REAL_PHOTOS_SAID
from cribcam.cli.main import UsageError

# Defaults said as they are found, not as the absolute paths they are in this checkout.
_DEFAULTS_SAID = {"real": REAL_PHOTOS_SAID, "models": "WORK/models"}


def add_parser(subparsers) -> None:
    from cribcam.training.recipe import Recipe, option

    parser = subparsers.add_parser(
        "train", help="train the card reader's two models (needs the `train` extra)",
        description="Train the index finder (one-class YOLO on crops) and the index classifier "
                    "(a small CNN) on two CPU cores, and export both to ONNX, beside the run's "
                    "--work unless --models says where (--models models replaces the bundled "
                    "models). Started again after a cut with the same options, it goes on from "
                    "its last checkpoints. Install the tools first: pip install -e '.[train]'.",
        epilog="example: nohup cribcam train > train.log 2>&1 &")
    hints = typing.get_type_hints(Recipe)
    described = _attribute_docs(Recipe.__doc__)
    for field in dataclasses.fields(Recipe):
        kind = hints[field.name]
        convert = Path if Path in typing.get_args(kind) or kind is Path else kind
        parser.add_argument(option(field.name), type=convert, default=field.default,
                            metavar=field.name.split("_")[-1].upper(),
                            help=f"{described.get(field.name, '')} (default "
                                 f"{_DEFAULTS_SAID.get(field.name, field.default)})")
    parser.add_argument("--no-real", action="store_true", help="train on synthetic scenes only")
    parser.set_defaults(handler=run)


def _attribute_docs(docstring: str) -> dict[str, str]:
    """``name: text`` entries of a Google-style "Attributes:" section, continuation lines joined."""
    entries: dict[str, str] = {}
    name = None
    for line in docstring.split("Attributes:", 1)[-1].splitlines():
        head, sep, text = line.strip().partition(": ")
        if sep and head.isidentifier() and line.startswith(" " * 8) and not line.startswith(" " * 12):
            name, entries[head] = head, text
        elif name and line.strip():
            entries[name] += " " + line.strip()
    return entries


def run(args) -> int:
    try:
        import torch  # noqa: F401  (checked here for a clear message)
        import ultralytics  # noqa: F401 (only whether the train extra is installed)
    except ImportError:
        raise UsageError("training needs torch and ultralytics: pip install -e '.[train]'") from None
    from cribcam.training.recipe import OtherOptions, Recipe
    from cribcam.training.recipe import run as run_recipe

    values = {f.name: getattr(args, f.name) for f in dataclasses.fields(Recipe)}
    if args.no_real:
        values["real"] = None
    recipe = Recipe(**values)
    _check(recipe)
    try:
        record = run_recipe(recipe)
    except OtherOptions as exc:
        raise UsageError(str(exc)) from None
    except KeyboardInterrupt:
        said = "cribcam train: interrupted; run the same command to go on from the last checkpoints"
        print(said, file=sys.stderr)
        if recipe.log_file.is_file():  # not when cut before the run began
            with recipe.log_file.open("a") as log:
                log.write(said + "\n")
        return 130
    print(f"models in {recipe.models_dir} ({record['this_run_hours']:.2f} h this run, "
          f"{record['cpu_run_hours_in_all']:.2f} h in all)")
    return 0


def _check(recipe) -> None:
    """Mistakes that would otherwise surface minutes into the run."""
    from cribcam.training.recipe import option

    if recipe.real is not None and not (recipe.real / "labels.json").is_file():
        raise UsageError(f"no real photos at {recipe.real} (labels.json and images/): pass --real DIR or --no-real")
    for name in ("finder_from", "classifier_from"):
        path = getattr(recipe, name)
        if path is not None and not path.is_file():
            raise UsageError(f"{option(name)} {path}: no such checkpoint")
    if not recipe.finder_model.endswith((".yaml", ".yml")):
        raise UsageError(f"--finder-model {recipe.finder_model}: give an ultralytics model yaml (yolo11n.yaml)")
    small = {"scenes": 10, "finder_crop": 32, "finder_imgsz": 32, "finder_batch": 1, "classifier_batch": 2,
             "real_repeat": 0, "workers": 0, "art_crops": 0, "font_decks": 0, "font_crops": 0, "joker_crops": 0,
             "mined_scenes": 0, "font_scenes": 0}
    for name, least in small.items():
        if getattr(recipe, name) < least:
            raise UsageError(f"{option(name)} must be at least {least}")
    if recipe.font_scenes and not recipe.font_decks:
        raise UsageError(f"{option('font_scenes')} draws its scenes with {option('font_decks')} decks: give at least 1")
    for name in ("neighbour_share", "reshape_share", "turn_real_share", "finder_turn_real_share"):
        if not 0 <= getattr(recipe, name) <= 1:  # NaN too
            raise UsageError(f"{option(name)} is a share: give a number from 0 to 1")
    for name in ("classifier_minutes", "finder_lr", "classifier_lr"):
        if not getattr(recipe, name) > 0:  # NaN too
            raise UsageError(f"{option(name)} must be positive")
    if not (recipe.classifier_width == 0 or recipe.classifier_width >= 1):
        raise UsageError("--classifier-width must be at least 1 (run 9's layers), or 0 to keep the width of "
                         "--classifier-from")
    _check_width(recipe)
    if recipe.finder_hours < 0 or (recipe.finder_hours == 0 and recipe.finder_from is None):
        raise UsageError("--finder-hours must be positive, or 0 with --finder-from to keep that finder")


def _check_width(recipe) -> None:
    """A classifier continued is widened, never narrowed."""
    from cribcam.training.classifier import widened, widths_for, widths_of

    wanted = widths_for(recipe.classifier_width)
    if wanted is None or recipe.classifier_from is None:
        return
    import torch

    start = torch.load(recipe.classifier_from, map_location="cpu", weights_only=False)["model"]
    try:
        widened(start, wanted)  # the rule is widened's: a layer never narrows
    except ValueError:
        raise UsageError(f"--classifier-width {recipe.classifier_width:g} would narrow {recipe.classifier_from}'s "
                         f"layers {widths_of(start)} to {wanted}: give 0 to keep them, or a larger width") from None
