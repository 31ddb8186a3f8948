"""The training run on a lent GPU machine: scenes, the finder and the classifier, in one deadline.

Run there, in the checkout's root, as `bin/train-on-device` prints it:

    python3 -m cribcam.training.device_run --pack .devpack --out "$OUT" --minutes 8

The stages are the CPU recipe's (``training.stages``), at the GPU's sizes. The device allows
10 minutes a command and 15 a session, the machine's start included, so every stage is sized
to fit ``--minutes``, and what is trained is written to ``--out`` as it comes, so a run cut
short still brings its checkpoints back. Each run works in a new folder of ``--work`` (a warm
machine keeps ``/tmp``, and the stages would go on from an earlier run's files):

1. unpacks the pack (``training.device_pack``): deck art, fonts, real training photos;
2. builds synthetic scenes on every core: of the training designs, and of font decks (plain
   cards in the training typefaces), far more than the 2-core recipe ever saw;
3. trains the classifier in a second process, from the shipped weights: its crop bank cut on
   all cores (hard negatives from the finder the run continues), crops augmented by worker
   processes, steps on the GPU;
4. trains the finder here, from the checkpoint the pack names (the last device run's when one
   is committed, else the shipped one), on whole scenes at the size it reads at run time (on
   two CPU cores only crops around the indices were affordable), the real training photos a
   fixed share of every batch (half of them turned a quarter, half or three quarters round), in
   mixed precision;
5. exports both to ONNX and writes the log and ``device-run.json`` (the finder's validation
   mAP50 by epoch, the classifier's steps, the data's sizes).

At most 8 files, 16 MiB each, come back from the device: ``finder.pt`` (no optimizer, half
precision), ``classifier.pt``, ``finder.onnx``, ``classifier.onnx``, ``device-run.log`` and
``device-run.json``. Whether they ship is decided here, on the choosing sets (models/README.md).
The same code runs on the CPU at a toy size in the tests.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import threading
import time
import traceback
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from cribcam.training.crop_draw import CropDraw
from cribcam.training.stages import (
    RUN_TIME_IMGSZ,
    BankPlan,
    ClassifierJob,
    build_font_scenes,
    build_scenes,
    classifier_beside,
    export_models,
    progress_log,
)
from cribcam.vision.models import MODELS_DIR

LOG_FILE = "device-run.log"
RECORD_FILE = "device-run.json"
FINAL_EVAL_SHARE = 0.04  # of the run: ultralytics validates the best finder once more at the end
EXPORT_SHARE = 0.1  # of the run, kept after training for the exports and the record


@dataclass
class DeviceRun:
    """What the run trains, and how much of each (the defaults fit 8 minutes on an H100).

    Attributes:
        pack: the pack folder (``training.device_pack``).
        out: where the models, the log and the record go (``$OUT`` there).
        minutes: the whole run, wall-clock, from start to the last file written.
        work: scratch folder for the data and both trainings, a new folder of it each run.
        device: "cuda" or "cpu".
        seed: seed of the data and both trainings.
        finder_from: the finder checkpoint to continue, as the pack's device call names it: the
            last device run's (``models/checkpoints/device-finder.pt``) when committed, else
            the shipped one.
        classifier_from: the classifier weights to continue, or None to leave the classifier
            out and give the finder every core.
        design_scenes: scenes of the training designs (a tenth are the finder's validation).
        font_scenes: scenes of font decks.
        font_decks: font decks drawn for those scenes.
        real_share: the share of every batch of the finder's that is real training photos.
        finder_turn_real_share: the share of those the finder sees turned a quarter, half or
            three quarters round (``training.finder.FinderSource``).
        finder_imgsz: the finder's training size (it is exported at ``RUN_TIME_IMGSZ``).
        finder_batch, finder_lr, finder_workers: the finder's batch, AdamW rate and data loaders.
        classifier_batch, classifier_lr, classifier_workers: the classifier's batch, peak rate and
            crop-augmenting processes.
        art_crops: crops of the training designs' card art in the classifier's bank.
        font_bank_decks, font_crops: font decks drawn for the bank, and crops of them.
        joker_crops: crops of jokers' corners, as no index.
        bank_scenes: scenes whose indices and negatives go into the bank.
        mined_scenes: scenes the finder the run continues is run on for hard negatives.
        mined_photos: real training photos it is run on (None: all).
        turn_real_share: the share of the real photos' crops the classifier sees turned to any
            angle (``training.crop_draw.CropDraw``), as the classifier it continues was trained.
    """

    pack: Path
    out: Path
    minutes: float = 8.0
    work: Path = Path("/tmp/cribcam-device-run")
    device: str = "cuda"
    seed: int = 21
    finder_from: Path = MODELS_DIR / "checkpoints" / "finder.pt"
    classifier_from: Path | None = MODELS_DIR / "checkpoints" / "classifier.pt"
    design_scenes: int = 14000
    font_scenes: int = 4000
    font_decks: int = 96
    # Between run 12's 4 % of real photos (fewer real indices boxed than run 4's finder) and run
    # 13's 22 % (more real, fewer synthetic): models/HISTORY.md, "Real photos as a share".
    real_share: float = 0.15
    # As the 2-core runs 24 and 25 took the real photos' crops: their finders boxed 0.03 more of
    # the real validation photos' indices as taken, and more turned (models/HISTORY.md, "Run 25").
    finder_turn_real_share: float = 0.5
    finder_imgsz: int = RUN_TIME_IMGSZ
    finder_batch: int = 64
    finder_lr: float = 0.001
    finder_workers: int = 9
    classifier_batch: int = 256
    classifier_lr: float = 0.0015
    classifier_workers: int = 5
    art_crops: int = 60000
    font_bank_decks: int = 240
    font_crops: int = 60000
    joker_crops: int = 3000
    bank_scenes: int = 3000
    mined_scenes: int = 1500
    mined_photos: int | None = None
    turn_real_share: float = 0.5  # run 23's (models/HISTORY.md, "Run 23")
    started: float = field(default_factory=time.time)

    @property
    def train_until(self) -> float:
        """Wall-clock time (``time.time()``) when both trainings stop."""
        return self.started + self.minutes * 60 * (1 - EXPORT_SHARE)

    def left(self) -> float:
        """Seconds of training time left."""
        return self.train_until - time.time()


def run(settings: DeviceRun) -> dict:
    """The whole run; returns what ``device-run.json`` records."""
    settings.out.mkdir(parents=True, exist_ok=True)
    log = progress_log(settings.out / LOG_FILE)
    record: dict = {"settings": {k: str(v) for k, v in asdict(settings).items()}}
    log(f"device run: {json.dumps(record['settings'])}")
    _watchdog(settings, log)
    settings.work.mkdir(parents=True, exist_ok=True)
    settings = replace(settings, work=Path(tempfile.mkdtemp(prefix="run-", dir=settings.work)))
    places = _unpack(settings, log)
    record["data"] = make_scenes(settings, places, log)
    with classifier_beside(classifier_job(settings, places)) as classifier:
        try:
            record["finder"] = train_finder(settings, places, log)
        except Exception as error:  # noqa: BLE001 (the classifier beside it trains on regardless)
            log(f"finder: failed: {traceback.format_exc()}")
            record["finder"] = {"error": repr(error)}
        if classifier is not None:
            classifier.join(max(0.0, settings.left() + 30))
            if classifier.is_alive():
                log("classifier: still running at the deadline, stopped")
    record["classifier"] = _read_json(settings.work / "classifier.json")
    record["exports"] = export_models(settings.out, settings.out / "finder.pt", settings.out / "classifier.pt",
                                      RUN_TIME_IMGSZ, log, keep_going=True)
    log(f"export: {', '.join(record['exports']) or 'nothing'}")
    record["minutes"] = round((time.time() - settings.started) / 60, 2)
    (settings.out / RECORD_FILE).write_text(json.dumps(record, indent=1) + "\n")
    log(f"device run: done in {record['minutes']} min")
    return record


def _watchdog(settings: DeviceRun, log) -> None:
    """Ends the process a little after the run's time: whatever is in ``out`` comes back."""
    def stop() -> None:
        time.sleep(max(0.0, settings.started + settings.minutes * 60 + 20 - time.time()))
        log("device run: past its time, stopped; the checkpoints in out are the last written")
        os._exit(3)
    threading.Thread(target=stop, daemon=True).start()


def _unpack(settings: DeviceRun, log) -> dict[str, Path]:
    from cribcam.training.device_pack import unpack

    places = unpack(settings.pack, settings.work / "pack")
    os.environ["CRIBCAM_CACHE"] = str(settings.work / "pack")  # the deck cache, read by load_decks
    log(f"unpacked {settings.pack} into {settings.work / 'pack'}")
    return places


def make_scenes(settings: DeviceRun, places: dict[str, Path], log) -> dict:
    """Scenes of the training designs and of font decks, on every core."""
    from cribcam.datagen.card_art import load_decks

    designs = build_scenes(settings.work / "designs", lambda: load_decks(split="train", progress=False),
                           settings.design_scenes, settings.seed, "training designs", log)
    drawn = build_font_scenes(settings.work / "fonts", settings.font_scenes, settings.font_decks, settings.seed,
                              places["fonts"], log)
    return {"designs": designs["decks"], "design_scenes": designs["scenes"], "font_decks": len(drawn["decks"]),
            "font_scenes": drawn["scenes"], "real_photos": len(list((places["real"] / "images" / "train").glob("*.jpg")))}


def train_finder(settings: DeviceRun, places: dict[str, Path], log) -> dict:
    """The finder, from ``finder_from``, on whole scenes of both kinds and the real photos,
    these ``real_share`` of every batch, until the deadline; each better one is copied to
    ``out/finder.pt`` (half precision, no optimizer) as soon as ultralytics saves it."""
    from cribcam.training import finder
    from cribcam.training.finder import real_share_trainer, strip_checkpoint

    _offline_ultralytics()
    designs, work = settings.work / "designs", settings.work
    real = finder.FinderSource(places["real"], "train", turned_share=settings.finder_turn_real_share)
    data = finder.write_finder_data(work / "finder", train=[finder.FinderSource(designs, "train"),
                                                            finder.FinderSource(work / "fonts", "train"), real],
                                    val=[finder.FinderSource(designs, "val")], size=None, seed=settings.seed)
    epochs: list[dict] = []
    final_eval = settings.minutes * 60 * FINAL_EVAL_SHARE

    def on_train_start(trainer) -> None:  # the data's loading took what it took: train until the deadline
        trainer.args.time = max(settings.left() - final_eval, 1.0) / 3600 + (time.time() - trainer.train_time_start) / 3600
        sampler = trainer.real_share_sampler
        log(f"finder: {len(trainer.train_loader.dataset)} training images, {len(sampler.real)} of them real photos, "
            f"read {len(sampler)} an epoch with {settings.real_share:.0%} real in every batch; "
            f"{trainer.args.time * 60:.1f} min to train")

    def on_model_save(trainer) -> None:
        strip_checkpoint(Path(trainer.best), settings.out / "finder.pt")

    def on_fit_epoch_end(trainer) -> None:
        epochs.append({"epoch": trainer.epoch + 1, "map50": round(float(trainer.metrics.get("metrics/mAP50(B)", 0)), 4),
                       "minute": round((time.time() - settings.started) / 60, 2)})

    best = finder.train_finder(data, work / "finder-run", str(settings.finder_from), settings.finder_imgsz,
                               max(settings.left(), 60) / 3600, settings.finder_batch, settings.finder_lr,
                               settings.finder_workers, settings.seed, log,
                               device="0" if settings.device == "cuda" else "cpu",
                               # A run of a few epochs: run 13 spent 0.8 of its 4.1 minutes between its
                               # data and its first step, caching its 21,360 images among the rest (16
                               # loaders decode them as they go instead).
                               cache=False,
                               callbacks={"on_train_start": on_train_start, "on_model_save": on_model_save,
                                          "on_fit_epoch_end": on_fit_epoch_end},
                               trainer=real_share_trainer([places["real"] / "images" / "train",
                                                           finder.turned_images(work / "finder", real)],
                                                          settings.real_share, settings.seed))
    strip_checkpoint(best, settings.out / "finder.pt")
    return {"epochs": epochs, "best_map50": max((e["map50"] for e in epochs), default=None)}


def _offline_ultralytics() -> None:
    """Two things ultralytics does at training time that need what the device lacks: its AMP
    check downloads a model to compare with (the H100 runs mixed precision well: taken as
    passed), and it reads its results CSV with polars, a 40 MB wheel (read with csv here)."""
    import csv

    from ultralytics.engine import trainer

    trainer.check_amp = lambda model: True
    try:
        import polars  # noqa: F401 (only whether it is installed)
    except ImportError:
        def read_results_csv(self) -> dict:
            try:
                with open(self.csv, newline="") as f:
                    rows = list(csv.DictReader(f))
            except OSError:
                return {}
            return {key.strip(): [float(row[key]) for row in rows] for key in (rows[0] if rows else {})}
        trainer.BaseTrainer.read_results_csv = read_results_csv


def classifier_job(settings: DeviceRun, places: dict[str, Path]) -> ClassifierJob | None:
    """The classifier's stage on the GPU machine (None with no ``classifier_from``): its bank
    cut by every core, its training on the GPU until the deadline, its weights copied to
    ``out/classifier.pt`` at every save."""
    if settings.classifier_from is None:
        return None
    bank = BankPlan(settings.work / "designs", places["real"], settings.seed, settings.art_crops,
                    settings.font_bank_decks, settings.font_crops, settings.joker_crops, fonts=places["fonts"],
                    bank_scenes=settings.bank_scenes, miner=settings.finder_from, mining=settings.work / "mining",
                    mined_scenes=settings.mined_scenes, mined_photos=settings.mined_photos,
                    shards=max(2, os.cpu_count() or 2))
    return ClassifierJob(bank, settings.work / "classifier-state.pt", settings.out / LOG_FILE, None,
                         settings.classifier_batch, settings.classifier_lr, settings.seed,
                         start_from=settings.classifier_from, until=settings.train_until, threads=2,
                         device=settings.device, workers=settings.classifier_workers, save_every=30.0,
                         weights=settings.out / "classifier.pt", summary=settings.work / "classifier.json",
                         draw=CropDraw(turn_real=settings.turn_real_share))


def _read_json(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cribcam.training.device_run", description=__doc__.split("\n")[0])
    parser.add_argument("--pack", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--minutes", type=float, default=DeviceRun.minutes)
    parser.add_argument("--work", type=Path, default=DeviceRun.work)
    parser.add_argument("--finder-from", type=Path, default=DeviceRun.finder_from,
                        help="the finder checkpoint to continue (default: the shipped one; the pack's call "
                             "names the last device run's when the checkout holds it)")
    parser.add_argument("--no-classifier", action="store_true", help="train the finder alone, on every core")
    parser.add_argument("--real-share", type=float, default=DeviceRun.real_share,
                        help="the share of every batch of the finder's that is real training photos, at least 0 "
                             "and below 1 (default %(default)s)")
    parser.add_argument("--tiny", action="store_true", help="a toy size on the CPU, for the tests")
    args = parser.parse_args(argv)
    from cribcam.training.finder import check_share

    try:
        check_share(args.real_share)
    except ValueError as error:
        parser.error(f"--real-share: {error}")
    if not args.finder_from.is_file():
        parser.error(f"--finder-from {args.finder_from}: no such checkpoint")
    settings = DeviceRun(args.pack, args.out, args.minutes, args.work, finder_from=args.finder_from,
                         real_share=args.real_share,
                         classifier_from=None if args.no_classifier else DeviceRun.classifier_from)
    if args.no_classifier:  # its cores go to the finder's data loaders
        settings.finder_workers = max(settings.finder_workers, (os.cpu_count() or 2) - 2)
    if args.tiny:
        settings = tiny(settings)
    else:
        import torch

        settings.device = "cuda" if torch.cuda.is_available() else "cpu"
    run(settings)
    return 0


def tiny(settings: DeviceRun) -> DeviceRun:
    """Every size cut to a toy, on the CPU: the same code in a minute or two."""
    for name, value in dict(device="cpu", design_scenes=40, finder_imgsz=96, font_scenes=8, font_decks=2,
                            finder_batch=8, finder_workers=0, classifier_batch=32, classifier_workers=2,
                            art_crops=200, font_bank_decks=2, font_crops=100, joker_crops=20, bank_scenes=10,
                            mined_scenes=2, mined_photos=2).items():
        setattr(settings, name, value)
    return settings


if __name__ == "__main__":
    raise SystemExit(main())
