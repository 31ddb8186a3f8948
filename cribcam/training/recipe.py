"""The whole training recipe of the two-stage reader, on two CPU cores, resumable.

Everything that decides the shipped models is a field of ``Recipe`` with its default here, so
`cribcam train` with the same options reproduces them. The stages, each skipped when its
output is already in ``work`` (so a cut run goes on from where it stopped when started again,
and a run started again with options that would build something else is refused):

1. data: synthetic scenes of the training designs (`cribcam data build`) and the real
   photos split by capture (`cribcam data real`);
2. the finder's crops, cut around the indices of both;
3. the classifier (a second process, beside the finder: it needs one core, the finder two);
4. the finder;
5. both exported to ONNX in ``models`` (beside the work unless said), with ``training.json``
   saying how they were made and the hours of every start of the run.

Checkpoints are chosen on synthetic validation only; the real validation photos are never
trained on nor used to choose. Needs the ``train`` extra (torch, ultralytics, onnx).
"""

from __future__ import annotations

import json
import logging
import multiprocessing
import os
import shutil
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, fields
from pathlib import Path

from cribcam.settings import default_real_photos
from cribcam.vision.models import CLASSIFIER_FILE, FINDER_FILE

# No network here: keep ultralytics from trying (auto-installs, fonts for plots, analytics).
os.environ.setdefault("YOLO_OFFLINE", "1")
os.environ.setdefault("YOLO_AUTOINSTALL", "false")

JOKER_FACES = 100  # jokers drawn for the classifier's ``joker_crops``
# Options that say where a run's output goes, or how fast it is made, not what is made: a run
# started again may change them. Every other option is recorded in the work folder.
NOT_BUILT = ("work", "models", "workers")
INTERRUPT_GRACE = 10.0  # seconds the classifier is given to save its checkpoint after a Ctrl-C


@dataclass(frozen=True)
class Recipe:
    """How the finder and the classifier are trained.

    Attributes:
        work: folder for the data, checkpoints and log of the run (never committed).
        models: where the ONNX models, their checkpoints and ``training.json`` are written:
            beside the work (``work``/models) unless given; the bundled models are replaced
            only when this names their folder (``--models models``, as a run that ships does).
        real: the shared real photos (``labels.json`` and ``images/``), or None for none
            (``--no-real`` on the command line).
        scenes: synthetic scenes of the training designs (a tenth go to validation).
        seed: random seed of the data and of both trainings.
        workers: data-loader processes of the finder (0: in its own process).
        finder_model: ultralytics model yaml to train from scratch.
        finder_from: a finder checkpoint (.pt) to continue from instead, at ``finder_lr / 3``;
            what it boxes in the training scenes and photos that is no index becomes the
            classifier's hard negatives.
        finder_crop: side of the training crops, pixels.
        finder_imgsz: the exported finder's input (it reads whole frames at this size).
        finder_hours: the finder's training time, wall-clock; 0 with ``finder_from`` keeps
            that finder as it is and trains the classifier alone.
        finder_batch: crops per step.
        finder_lr: AdamW's learning rate.
        real_repeat: times each real training photo is cut into finder crops.
        art_crops: crops of the training designs' card art in the classifier's bank.
        font_decks: plain decks drawn with the machine's fonts (``datagen.font_decks``).
        font_crops: crops of their indices in the classifier's bank.
        joker_crops: crops of the corners of jokers drawn with those fonts, as no index
            (``datagen.font_decks.joker_faces``).
        mined_scenes: scenes the continued finder is run on for hard negatives.
        classifier_minutes: the classifier's training time, wall-clock.
        classifier_from: classifier weights to continue from, at ``classifier_lr / 3``, or None.
        classifier_batch: crops per step.
        classifier_lr: AdamW's peak learning rate.
    """

    work: Path = Path("runs/recipe")
    models: Path | None = None
    real: Path | None = default_real_photos()
    scenes: int = 4000
    seed: int = 1
    workers: int = 2
    finder_model: str = "yolo11n.yaml"
    finder_from: Path | None = None
    finder_crop: int = 192
    finder_imgsz: int = 640
    finder_hours: float = 1.35
    finder_batch: int = 32
    finder_lr: float = 0.002
    real_repeat: int = 3
    art_crops: int = 30000
    font_decks: int = 60
    font_crops: int = 15000
    joker_crops: int = 3000
    mined_scenes: int = 1500
    classifier_minutes: float = 40.0
    classifier_from: Path | None = None
    classifier_batch: int = 128
    classifier_lr: float = 3e-3

    @property
    def models_dir(self) -> Path:
        return self.models if self.models is not None else self.work / "models"

    @property
    def log_file(self) -> Path:
        return self.work / "train.log"

    @property
    def synth(self) -> Path:
        return self.work / "synth"

    @property
    def real_set(self) -> Path:
        return self.work / "real"

    @property
    def classifier_checkpoint(self) -> Path:
        return self.work / "classifier.pt"

    @property
    def finder_run(self) -> Path:
        return self.work / "finder"

    def as_dict(self) -> dict:
        return {f.name: (str(v) if isinstance(v := getattr(self, f.name), Path) else v) for f in fields(self)}

    def built_with(self) -> dict:
        """The options that decide what ``work`` holds, paths absolute (the same file, however named)."""
        return {name: str(value.resolve()) if isinstance(value, Path) else value
                for name, value in self.as_dict().items() if name not in NOT_BUILT}


def option(name: str) -> str:
    """The command-line option of a ``Recipe`` field."""
    return f"--{name.replace('_', '-')}"


class OtherOptions(ValueError):
    """The work folder holds a run made with other options (or with none recorded)."""


def check_work(recipe: Recipe) -> None:
    """Records the options a new ``work`` folder is built with. Refuses one built with other
    options (the run would go on from what they made, and record the new ones as its own), or
    one that holds files but no record of its options."""
    record = recipe.work / "options.json"
    if record.is_file():
        before, now = json.loads(record.read_text()), recipe.built_with()
        differ = [f"{option(name)} {_said(before.get(name))} there, {_said(now[name])} now"
                  for name in now if before.get(name) != now[name]]
        if differ:
            raise OtherOptions(f"{recipe.work} was built with other options ({'; '.join(differ)}): run the "
                               f"same options to go on from it, or pass a new --work")
    elif recipe.work.is_dir() and any(recipe.work.iterdir()):
        raise OtherOptions(f"{recipe.work} holds files but no record of the options they were made with "
                           f"(options.json): pass a new --work")
    else:
        recipe.work.mkdir(parents=True, exist_ok=True)
        record.write_text(json.dumps(recipe.built_with(), indent=1) + "\n")


def _said(value) -> str:
    return "none" if value is None else str(value)


class RunHours:
    """The hours of a run over every start of it, kept in ``work/hours.json`` every ``every``
    seconds and at the end: a run cut (Ctrl-C, ``kill``, a session's end) and started again
    counts what its earlier starts spent too (a killed one, up to its last save)."""

    def __init__(self, path: Path, every: float = 60.0, clock: Callable[[], float] = time.monotonic):
        self.path = path
        try:
            self.earlier = float(json.loads(path.read_text())["hours"])
        except (OSError, ValueError, KeyError):
            self.earlier = 0.0
        self.clock = clock  # seconds, monotonic (tests pass a fake one)
        self.started = clock()
        self.ended = threading.Event()
        self.keeper = threading.Thread(target=self._keep, args=(every,), daemon=True)
        self.keeper.start()

    def __call__(self) -> float:
        return self.earlier + (self.clock() - self.started) / 3600

    def end(self) -> None:
        self.ended.set()
        self.keeper.join()
        self._save()

    def _keep(self, every: float) -> None:
        while not self.ended.wait(every):
            self._save()

    def _save(self) -> None:
        partial = self.path.with_suffix(".partial")
        partial.write_text(json.dumps({"hours": self()}) + "\n")
        partial.replace(self.path)  # a cut mid-write never loses the hours saved before


def progress_log(path: Path) -> Callable[[str], None]:
    """A run's progress lines, with the minutes since this call, to stdout and appended to the
    log file ``path`` (a resumed run's lines follow the earlier ones'): a logger's ``info``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    logger = logging.getLogger(f"cribcam.training.run.{path}")
    logger.setLevel(logging.INFO)
    logger.propagate = False  # its own lines, not the root logger's format as well
    for handler in logger.handlers[:]:  # the same file logged again in this process: once
        logger.removeHandler(handler)
        handler.close()

    def minutes(record: logging.LogRecord) -> bool:
        record.minutes = (time.monotonic() - start) / 60
        return True

    for handler in (logging.StreamHandler(sys.stdout), logging.FileHandler(path)):
        handler.setFormatter(logging.Formatter("[%(minutes)6.1f min] %(message)s"))
        handler.addFilter(minutes)
        logger.addHandler(handler)
    return logger.info


def run(recipe: Recipe) -> dict:
    """Runs (or resumes) the whole recipe and returns what ``training.json`` records.

    Raises:
        OtherOptions: as ``check_work`` says, before anything is done.
    """
    check_work(recipe)
    log = progress_log(recipe.log_file)
    log(f"recipe: {json.dumps(recipe.as_dict())}")
    hours = RunHours(recipe.work / "hours.json")
    try:
        make_data(recipe, log)
        finder_data = None if _keeps_finder(recipe) else make_finder_data(recipe, log)
        classifier = multiprocessing.get_context("spawn").Process(target=_classifier_stage,
                                                                  args=(recipe, os.getpid()))
        classifier.start()
        try:
            if finder_data is None:
                log(f"finder: kept as it is ({recipe.finder_from})")
                finder_checkpoint = recipe.finder_from
            else:
                from cribcam.training.finder import train_finder

                finder_checkpoint = train_finder(finder_data, recipe.finder_run, _finder_start(recipe),
                                                 recipe.finder_crop, recipe.finder_hours, recipe.finder_batch,
                                                 _finder_lr(recipe), recipe.workers, recipe.seed, log)
            classifier.join()
        except KeyboardInterrupt:
            classifier.join(INTERRUPT_GRACE)  # a terminal's Ctrl-C reached the classifier too: it saves, then ends
            raise
        finally:
            if classifier.is_alive():
                classifier.terminate()
        if classifier.exitcode != 0:
            raise RuntimeError(f"the classifier's training failed (exit {classifier.exitcode}); see {log.path}")
        record = export(recipe, finder_checkpoint, hours(), log)
    finally:
        hours.end()
    log(f"done: {recipe.models_dir / FINDER_FILE}, {recipe.models_dir / CLASSIFIER_FILE}")
    return record


def make_data(recipe: Recipe, log) -> None:
    """Stage 1: the synthetic scenes and the real photos (kept when already built)."""
    from cribcam.datagen.build import BuildSpec, build
    from cribcam.datagen.card_art import load_decks
    from cribcam.datagen.real_photos import convert

    if not (recipe.synth / "build.json").is_file():
        log(f"data: rendering {recipe.scenes} synthetic scenes")
        decks = [d for d in load_decks() if d.split == "train"]
        summary = build(BuildSpec(recipe.synth, recipe.scenes, recipe.seed), decks, progress=False, force=True)
        log(f"data: {summary['images']} scenes in {summary['seconds']:.0f} s")
    if recipe.real is not None and not (recipe.real_set / "data.yaml").is_file():
        if recipe.real_set.exists():
            shutil.rmtree(recipe.real_set)
        convert(recipe.real, recipe.real_set)
        log(f"data: real photos split by capture into {recipe.real_set}")


def _real_parts(recipe: Recipe, times: int) -> list[tuple[Path, str, int]]:
    return [(recipe.real_set, "train", times)] if recipe.real is not None else []


def make_finder_data(recipe: Recipe, log) -> Path:
    """Stage 2: the finder's crops."""
    from cribcam.training.finder import write_finder_data

    data = write_finder_data(recipe.work / "finder-crops",
                             train=[(recipe.synth, "train", 1), *_real_parts(recipe, recipe.real_repeat)],
                             val=[(recipe.synth, "val", 1)], size=recipe.finder_crop, seed=recipe.seed)
    log(f"data: finder crops in {data.parent}")
    return data


def _classifier_stage(recipe: Recipe, parent: int) -> None:
    """Stage 3, in its own process: the crop bank, then the classifier's training."""
    import torch

    from cribcam.training.classifier import train_classifier

    threading.Thread(target=end_with_parent, args=(parent,), daemon=True).start()
    torch.set_num_threads(1)  # the finder has the other core, and its data loaders (or, kept, the work beside)
    log = progress_log(recipe.log_file)
    if recipe.classifier_checkpoint.with_suffix(".done").is_file():
        log("classifier: finished already")
        return
    try:
        bank = _classifier_bank(recipe, log)
        lr = recipe.classifier_lr / 3 if recipe.classifier_from else recipe.classifier_lr
        train_classifier(bank, recipe.classifier_checkpoint, recipe.classifier_minutes, recipe.classifier_batch,
                         lr, recipe.seed, start_from=recipe.classifier_from, log=log)
    except KeyboardInterrupt:  # a terminal's Ctrl-C reaches this process too: the recipe's says so, once
        raise SystemExit(130) from None
    recipe.classifier_checkpoint.with_suffix(".done").touch()


def end_with_parent(parent: int, every: float = 2.0) -> None:
    """Ends this process once the recipe's is gone: a recipe killed (``kill``, a session's cut)
    runs no ``finally``, and its classifier trained on alone, on the cores and into the
    checkpoint of the run started next."""
    while os.getppid() == parent:
        time.sleep(every)
    os._exit(1)


def _classifier_bank(recipe: Recipe, log):
    """The classifier's crops: card art of the training designs and of font decks, the scenes,
    the real training photos, and (when continuing a finder) that finder's mistakes."""
    import cv2

    from cribcam.datagen.card_art import load_decks
    from cribcam.datagen.font_decks import font_decks, joker_faces
    from cribcam.teach.crop_bank import CropBank, bank_from_labelled_photos
    from cribcam.training.classifier import bank_from_decks, bank_from_jokers, bank_from_scenes
    from cribcam.vision.evaluate import load_labels

    scenes = sorted((recipe.synth / "images" / "train").glob("*.jpg"))
    backgrounds = [cv2.imread(str(path)) for path in scenes[:300]]
    decks = [d for d in load_decks(progress=False) if d.split == "train"]
    # Each piece takes minutes (the mined negatives the longest): the log says which is under way.
    log(f"classifier: cutting crops of {len(decks)} training designs and the scenes")
    banks = [bank_from_decks(decks, recipe.art_crops, recipe.seed, backgrounds),
             bank_from_scenes(recipe.synth, "train", recipe.seed)]
    log(f"classifier: drawing {recipe.font_decks} font decks and {recipe.joker_crops} jokers' corners")
    fonts = font_decks(recipe.font_decks, recipe.seed)
    if fonts:  # a machine without fonts trains on the real designs alone
        banks.append(bank_from_decks(fonts, recipe.font_crops, recipe.seed, backgrounds))
    jokers = joker_faces(JOKER_FACES, recipe.seed) if recipe.joker_crops else []
    if jokers:
        banks.append(bank_from_jokers(jokers, recipe.joker_crops, recipe.seed, backgrounds))
    real_labels = load_labels(recipe.real_set / "labels-train.json") if recipe.real is not None else None
    if real_labels is not None:
        banks.append(bank_from_labelled_photos(recipe.real_set / "images" / "train", real_labels, recipe.seed))
    if recipe.finder_from is not None:
        banks.append(_finder_mistakes(recipe, real_labels, log))
    bank = CropBank.merge(banks)
    log(f"classifier: {len(bank)} crops ({', '.join(f'{k} {len(v)}' for k, v in bank.groups().items())})")
    return bank


def _finder_mistakes(recipe: Recipe, real_labels: dict | None, log):
    """Hard negatives from the finder the run continues from, read at run-time size."""
    from cribcam.teach.crop_bank import bank_from_finder_mistakes
    from cribcam.training.finder import export_finder
    from cribcam.vision.finder import IndexFinder

    log(f"classifier: mining hard negatives in {recipe.mined_scenes} scenes and the real training photos")
    onnx = export_finder(recipe.finder_from, recipe.work / "mining" / FINDER_FILE, recipe.finder_imgsz)
    finder = IndexFinder(onnx, conf=0.05, threads=1)
    # Read as closely as the reader does when cards are missing: the enlarged look boxes more
    # small pips and art, which must be rejected too.
    bank = bank_from_finder_mistakes(lambda image: finder(image, closer=True).xyxy, recipe.synth, "train",
                                     recipe.real_set / "images" / "train", real_labels, recipe.mined_scenes)
    log(f"classifier: {len(bank)} hard negatives from {recipe.finder_from}")
    return bank


def _keeps_finder(recipe: Recipe) -> bool:
    return recipe.finder_from is not None and recipe.finder_hours == 0


def _finder_start(recipe: Recipe) -> str:
    return str(recipe.finder_from) if recipe.finder_from else recipe.finder_model


def _finder_lr(recipe: Recipe) -> float:
    # A continued finder is past the fast early learning: a third of the rate, no more.
    return recipe.finder_lr / 3 if recipe.finder_from else recipe.finder_lr


def export(recipe: Recipe, finder_checkpoint: Path, hours: float, log) -> dict:
    """Stage 5: both models to ONNX in ``recipe.models_dir``, the checkpoints to continue from
    in its ``checkpoints``, and ``training.json``; ``hours``: the run's, every start counted."""
    from cribcam.training.classifier import export_classifier
    from cribcam.training.finder import export_finder, strip_checkpoint

    models = recipe.models_dir
    export_finder(finder_checkpoint, models / FINDER_FILE, recipe.finder_imgsz)
    export_classifier(recipe.classifier_checkpoint, models / CLASSIFIER_FILE)
    checkpoints = models / "checkpoints"
    strip_checkpoint(finder_checkpoint, checkpoints / "finder.pt")
    weights_only(recipe.classifier_checkpoint, checkpoints / "classifier.pt")
    previous = _previous_hours(recipe)
    record = {"recipe": recipe.as_dict(), "this_run_hours": round(hours, 3),
              "cpu_run_hours_in_all": round(previous + hours, 3),
              "finder_checkpoint": str(finder_checkpoint), "finished": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    (models / "training.json").write_text(json.dumps(record, indent=1) + "\n")
    log(f"export: models and training.json in {models} ({hours:.2f} h this run)")
    return record


def _previous_hours(recipe: Recipe) -> float:
    """Run hours that went into the models this run continued from (0 for a fresh start).

    A checkpoint ``X/checkpoints/classifier.pt`` was shipped with ``X/training.json``, which
    holds its hours; a run written to another ``--models`` folder still counts them. (Not the
    record in the run's own ``--models``: a finished run exported again would count itself twice.)
    """
    starts = [Path(start) for start in (recipe.finder_from, recipe.classifier_from) if start is not None]
    records = {start.parent.parent / "training.json" for start in starts if start.parent.name == "checkpoints"}
    return max((_hours_in_all(path) for path in records), default=0.0)


def _hours_in_all(record_path: Path) -> float:
    """The CPU hours in all that a ``training.json`` records: its own, or, for models whose
    finder and classifier came from different runs, the larger of the two runs' records."""
    try:
        record = json.loads(record_path.read_text())
    except (OSError, ValueError):
        return 0.0
    if "cpu_run_hours_in_all" in record:
        return float(record["cpu_run_hours_in_all"])
    parts = [part for part in record.values() if isinstance(part, dict) and "cpu_run_hours_in_all" in part]
    return max((float(part["cpu_run_hours_in_all"]) for part in parts), default=0.0)


def weights_only(checkpoint: Path, out: Path) -> None:
    import torch

    out.parent.mkdir(parents=True, exist_ok=True)
    state = torch.load(checkpoint, map_location="cpu", weights_only=False)
    torch.save({"model": state["model"], "state": state["state"]}, out)
