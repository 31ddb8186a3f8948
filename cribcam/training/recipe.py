"""The whole training recipe of the two-stage reader, on two CPU cores, resumable.

Everything that decides the shipped models is a field of ``Recipe`` with its default here, so
`cribcam train` with the same options reproduces them. The stages are ``training.stages``, which
the run on a lent GPU shares; each is skipped when its output is already in ``work`` (so a cut
run goes on from where it stopped when started again, and a run started again with options that
would build something else is refused):

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
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, fields
from pathlib import Path

from cribcam.settings import default_real_photos
from cribcam.training.crop_draw import CropDraw
from cribcam.training.stages import (
    INTERRUPTED,
    RUN_TIME_IMGSZ,
    BankPlan,
    ClassifierJob,
    build_font_scenes,
    build_scenes,
    classifier_beside,
    export_models,
    progress_log,
    weights_only,
)
from cribcam.vision.models import CLASSIFIER_FILE, FINDER_FILE

# Options that say where a run's output goes, or how fast it is made, not what is made: a run
# started again may change them. Every other option is recorded in the work folder.
NOT_BUILT = ("work", "models", "workers")


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
        real_repeat: times each real training photo is cut into finder crops, each time at other
            places (other crops, not copies of one).
        finder_turn_real_share: the share of the real photos' finder crops turned a quarter, half
            or three quarters round, their boxes with them (``training.finder.FinderSource``).
        art_crops: crops of the training designs' card art in the classifier's bank.
        font_decks: plain decks drawn with the machine's fonts (``datagen.font_decks``).
        font_crops: crops of their indices in the classifier's bank.
        font_scenes: scenes of ``font_decks`` more font decks, whose indices and negatives
            join the classifier's bank (``stages.BankPlan.font_scenes``); 0: none.
        joker_crops: crops of the corners of jokers drawn with those fonts, as no index
            (``datagen.font_decks.joker_faces``).
        neighbour_share: the share of the art's and the font decks' crops with another card's
            print beside the index (``training.classifier.bank_from_decks``).
        reshape_share: the share of the classifier's crops whose print is reshaped, strokes
            thinner or thicker and shapes bent (``teach.crop_bank.reshape_print``): numerals
            drawn unlike the training designs'.
        turn_real_share: the share of the real photos' crops turned to any angle
            (``training.crop_draw.CropDraw``).
        mined_scenes: scenes the continued finder is run on for hard negatives.
        classifier_minutes: the classifier's training time, wall-clock.
        classifier_from: classifier weights to continue from, at ``classifier_lr / 3``, or None.
        classifier_batch: crops per step.
        classifier_lr: AdamW's peak learning rate.
        classifier_width: the classifier's layers as wide as run 9's times this (1.5: about
            0.7 M parameters, against 0.3 M), a narrower ``classifier_from`` widened to it; 0:
            as wide as ``classifier_from`` (run 9's widths without one).
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
    finder_imgsz: int = RUN_TIME_IMGSZ
    finder_hours: float = 1.35
    finder_batch: int = 32
    finder_lr: float = 0.002
    real_repeat: int = 3
    finder_turn_real_share: float = 0.0
    art_crops: int = 30000
    font_decks: int = 60
    font_crops: int = 15000
    font_scenes: int = 0
    joker_crops: int = 3000
    neighbour_share: float = 0.0
    reshape_share: float = 0.0
    turn_real_share: float = 0.0
    mined_scenes: int = 1500
    classifier_minutes: float = 40.0
    classifier_from: Path | None = None
    classifier_batch: int = 128
    classifier_lr: float = 3e-3
    classifier_width: float = 0.0

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
    def font_synth(self) -> Path:
        return self.work / "font-scenes"

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
        # An option the record lacks came in after the run began, which was made as its default.
        before = {**Recipe().built_with(), **json.loads(record.read_text())}
        now = recipe.built_with()
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


def run(recipe: Recipe) -> dict:
    """Runs (or resumes) the whole recipe and returns what ``training.json`` records.

    Raises:
        OtherOptions: as ``check_work`` says, before anything is done.
    """
    from cribcam.datagen.card_art import load_decks
    from cribcam.datagen.font_decks import FONT_ROOT
    from cribcam.training.finder import FinderSource, train_finder, write_finder_data

    check_work(recipe)
    log = progress_log(recipe.log_file)
    log(f"recipe: {json.dumps(recipe.as_dict())}")
    hours = RunHours(recipe.work / "hours.json")
    try:
        build_scenes(recipe.synth, lambda: load_decks(split="train", progress=False), recipe.scenes, recipe.seed,
                     "training designs", log)
        if recipe.font_scenes:
            build_font_scenes(recipe.font_synth, recipe.font_scenes, recipe.font_decks, recipe.seed, FONT_ROOT, log)
        split_real_photos(recipe, log)
        finder_data = None
        if not _keeps_finder(recipe):
            real = [] if recipe.real is None else [
                FinderSource(recipe.real_set, "train", recipe.real_repeat, recipe.finder_turn_real_share)]
            finder_data = write_finder_data(recipe.work / "finder-crops", train=[FinderSource(recipe.synth, "train"), *real],
                                            val=[FinderSource(recipe.synth, "val")], size=recipe.finder_crop,
                                            seed=recipe.seed)
            log(f"data: finder crops in {finder_data.parent}")
        with classifier_beside(classifier_job(recipe)) as classifier:
            if finder_data is None:
                log(f"finder: kept as it is ({recipe.finder_from})")
                finder_checkpoint = recipe.finder_from
            else:
                finder_checkpoint = train_finder(finder_data, recipe.finder_run, _finder_start(recipe),
                                                 recipe.finder_crop, recipe.finder_hours, recipe.finder_batch,
                                                 _continued_rate(recipe.finder_lr, recipe.finder_from), recipe.workers,
                                                 recipe.seed, log)
            classifier.join()
        if classifier.exitcode == INTERRUPTED:
            # A classifier stopped by Ctrl-C is a run interrupted, whether or not this process's
            # own Ctrl-C came up to here (in one CI run it did not, and the run said its
            # classifier had failed).
            raise KeyboardInterrupt
        if classifier.exitcode != 0:
            raise RuntimeError(f"the classifier's training failed (exit {classifier.exitcode}); see {recipe.log_file}")
        record = export(recipe, finder_checkpoint, hours(), log)
    finally:
        hours.end()
    log(f"done: {recipe.models_dir / FINDER_FILE}, {recipe.models_dir / CLASSIFIER_FILE}")
    return record


def split_real_photos(recipe: Recipe, log) -> None:
    """The real photos split by capture (kept when already split)."""
    import shutil

    from cribcam.datagen.real_photos import convert

    if recipe.real is not None and not (recipe.real_set / "data.yaml").is_file():
        if recipe.real_set.exists():
            shutil.rmtree(recipe.real_set)
        convert(recipe.real, recipe.real_set)
        log(f"data: real photos split by capture into {recipe.real_set}")


def classifier_job(recipe: Recipe) -> ClassifierJob:
    """The classifier's stage on two cores: its bank cut by one process, which then trains on
    one thread beside the finder, or on both cores when the finder is kept; the finder it
    continues from mined for hard negatives."""
    bank = BankPlan(recipe.synth, recipe.real_set if recipe.real is not None else None, recipe.seed,
                    recipe.art_crops, recipe.font_decks, recipe.font_crops, recipe.joker_crops,
                    neighbour_share=recipe.neighbour_share, miner=recipe.finder_from,
                    miner_imgsz=recipe.finder_imgsz, mining=recipe.work / "mining",
                    mined_scenes=recipe.mined_scenes,
                    font_scenes=recipe.font_synth if recipe.font_scenes else None)
    return ClassifierJob(bank, recipe.classifier_checkpoint, recipe.log_file, recipe.classifier_minutes,
                         recipe.classifier_batch, _continued_rate(recipe.classifier_lr, recipe.classifier_from),
                         recipe.seed, start_from=recipe.classifier_from, width=recipe.classifier_width,
                         threads=2 if _keeps_finder(recipe) else 1,
                         draw=CropDraw(recipe.reshape_share, recipe.turn_real_share))


def _keeps_finder(recipe: Recipe) -> bool:
    return recipe.finder_from is not None and recipe.finder_hours == 0


def _finder_start(recipe: Recipe) -> str:
    return str(recipe.finder_from) if recipe.finder_from else recipe.finder_model


def _continued_rate(lr: float, start_from: Path | None) -> float:
    # A continued model is past the fast early learning: a third of the rate, no more.
    return lr / 3 if start_from else lr


def export(recipe: Recipe, finder_checkpoint: Path, hours: float, log) -> dict:
    """Stage 5: both models to ONNX in ``recipe.models_dir``, the checkpoints to continue from
    in its ``checkpoints``, and ``training.json``; ``hours``: the run's, every start counted."""
    from cribcam.training.finder import strip_checkpoint

    models = recipe.models_dir
    export_models(models, finder_checkpoint, recipe.classifier_checkpoint, recipe.finder_imgsz, log)
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
