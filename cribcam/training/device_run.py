"""The training run on a lent GPU machine: scenes, the finder and the classifier, in one deadline.

Run there, in the checkout's root, as `bin/train-on-device` prints it:

    python3 -m cribcam.training.device_run --pack .devpack --out "$OUT" --minutes 8

The device allows 10 minutes a command and 15 a session, the machine's start included, so
every stage is sized to fit ``--minutes``, and what is trained is written to ``--out`` as it
comes, so a run cut short still brings its checkpoints back:

1. unpacks the pack (``training.device_pack``): deck art, fonts, real training photos;
2. builds synthetic scenes on every core: of the training designs, and of font decks (plain
   cards in the training typefaces), far more than the 2-core recipe ever saw;
3. trains the classifier in a second process, from the shipped weights: its crop bank cut on
   all cores, crops augmented by worker processes, steps on the GPU;
4. trains the finder here, from the shipped checkpoint, on whole scenes at the size it reads
   at run time (on two CPU cores only crops around the indices were affordable), in mixed
   precision;
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
import multiprocessing
import os
import threading
import time
import traceback
from dataclasses import asdict, dataclass, field
from pathlib import Path

from cribcam.training.recipe import progress_log
from cribcam.vision.models import CLASSIFIER_FILE, FINDER_FILE, MODELS_DIR

os.environ.setdefault("YOLO_OFFLINE", "1")  # nothing is reachable from the device machine
os.environ.setdefault("YOLO_AUTOINSTALL", "false")

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
        work: scratch folder for the data and the finder's run.
        device: "cuda" or "cpu".
        seed: seed of the data and both trainings.
        finder_from: the finder checkpoint to continue (the shipped one, or one of an earlier
            device run carried in the pack folder).
        classifier_from: the classifier weights to continue, or None to leave the classifier
            out and give the finder every core.
        design_scenes: scenes of the training designs (a tenth are the finder's validation).
        font_scenes: scenes of font decks.
        font_decks: font decks drawn for those scenes.
        real_repeat: times the real training photos are listed in the finder's training set.
        finder_imgsz: the finder's training size (run time reads 640-pixel frames).
        finder_batch, finder_lr, finder_workers: the finder's batch, AdamW rate and data loaders.
        classifier_batch, classifier_lr, classifier_workers: the classifier's batch, peak rate and
            crop-augmenting processes.
        art_crops: crops of the training designs' card art in the classifier's bank.
        font_bank_decks, font_crops: font decks drawn for the bank, and crops of them.
        joker_crops: crops of jokers' corners, as no index.
        bank_scenes: scenes whose indices and negatives go into the bank.
        mined_scenes: scenes the shipped finder is run on for hard negatives.
        mined_photos: real training photos it is run on (None: all).
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
    # The real photos' share of the finder's training images: run 12 listed them 3 times, 4 % of
    # its images (the CPU recipe's crops held about 27 %), and its finder boxed fewer of the real
    # training photos' indices than run 4's (0.970 -> 0.956) while boxing more synthetic ones.
    real_repeat: int = 20
    finder_imgsz: int = 640
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
    places = _unpack(settings, log)
    record["data"] = make_scenes(settings, places, log)
    classifier = None
    if settings.classifier_from is not None:  # spawned: a forked child could not use the GPU
        classifier = multiprocessing.get_context("spawn").Process(
            target=_classifier_stage, args=(settings, places, os.getpid()))
        classifier.start()
    try:
        try:
            record["finder"] = train_finder(settings, places, log)
        except Exception as error:  # noqa: BLE001 (the classifier beside it trains on regardless)
            log(f"finder: failed: {traceback.format_exc()}")
            record["finder"] = {"error": repr(error)}
        if classifier is not None:
            classifier.join(max(0.0, settings.left() + 30))
    finally:
        if classifier is not None and classifier.is_alive():
            log("classifier: still running at the deadline, stopped")
            classifier.terminate()
    record["classifier"] = _read_json(settings.work / "classifier.json")
    record["exports"] = export(settings, log)
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
    from cribcam.datagen.build import BuildSpec, build
    from cribcam.datagen.card_art import load_decks

    designs = load_decks(split="train", progress=False)
    built = build(BuildSpec(settings.work / "designs", settings.design_scenes, settings.seed), designs,
                  progress=False, force=True)
    log(f"data: {built['images']} scenes of {len(designs)} training designs in {built['seconds']:.0f} s")
    fonts = _font_decks_in_parallel(settings.font_decks, settings.seed, places["fonts"])
    if not fonts:
        raise RuntimeError(f"no usable fonts in {places['fonts']}")
    drawn = build(BuildSpec(settings.work / "fonts", settings.font_scenes, settings.seed + 1, val_fraction=0.0),
                  fonts, progress=False, force=True)
    log(f"data: {drawn['images']} scenes of {len(fonts)} font decks in {drawn['seconds']:.0f} s")
    return {"designs": [d.name for d in designs], "design_scenes": built["images"], "font_decks": len(fonts),
            "font_scenes": drawn["images"], "real_photos": len(list((places["real"] / "images" / "train").glob("*.jpg")))}


def _font_decks_in_parallel(count: int, seed: int, fonts: Path) -> list:
    """``count`` font decks drawn by every core (a few tenths of a second a deck), the fonts
    found once for all of them."""
    from cribcam.datagen.font_decks import find_fonts, font_decks

    shards = max(1, min(os.cpu_count() or 1, count))
    found = find_fonts(fonts)
    jobs = [(count // shards + (k < count % shards), seed * 1000 + k, fonts, None, found) for k in range(shards)]
    with multiprocessing.get_context("fork").Pool(shards) as pool:
        return [deck for part in pool.starmap(font_decks, jobs) for deck in part]


def finder_data(settings: DeviceRun, places: dict[str, Path]) -> Path:
    """The finder's data.yaml: whole scenes of both kinds and the real photos ``real_repeat``
    times for training, the designs' validation scenes to choose the best epoch."""
    from cribcam.datagen import yolo
    from cribcam.training.finder import CLASS_NAMES

    images = [*sorted((settings.work / "designs" / "images" / "train").glob("*.jpg")),
              *sorted((settings.work / "fonts" / "images" / "train").glob("*.jpg")),
              *sorted((places["real"] / "images" / "train").glob("*.jpg")) * settings.real_repeat]
    listing = settings.work / "finder-train.txt"
    listing.write_text("".join(f"{path.resolve()}\n" for path in images))
    data = settings.work / "finder"
    data.mkdir(parents=True, exist_ok=True)
    yolo.write_data_yaml(data, {"train": str(listing.resolve()),
                                "val": str((settings.work / "designs" / "images" / "val").resolve())},
                         f"cribcam finder, device run: {len(images)} training images", names=CLASS_NAMES)
    return data / "data.yaml"


def train_finder(settings: DeviceRun, places: dict[str, Path], log) -> dict:
    """The finder, from the shipped checkpoint, until the deadline; each better one is copied
    to ``out/finder.pt`` as soon as ultralytics saves it."""
    from ultralytics import YOLO

    from cribcam.training.finder import finder_train_args, strip_checkpoint

    _offline_ultralytics()
    run_dir = settings.work / "finder-run"
    epochs: list[dict] = []
    final_eval = settings.minutes * 60 * FINAL_EVAL_SHARE

    def on_train_start(trainer) -> None:  # the data's loading took what it took: train until the deadline
        trainer.args.time = max(settings.left() - final_eval, 1.0) / 3600 + (time.time() - trainer.train_time_start) / 3600
        log(f"finder: {len(trainer.train_loader.dataset)} training images, {trainer.args.time * 60:.1f} min to train")

    def on_model_save(trainer) -> None:
        strip_checkpoint(Path(trainer.best), settings.out / "finder.pt")

    def on_fit_epoch_end(trainer) -> None:
        epochs.append({"epoch": trainer.epoch + 1, "map50": round(float(trainer.metrics.get("metrics/mAP50(B)", 0)), 4),
                       "minute": round((time.time() - settings.started) / 60, 2)})
        log(f"finder: epoch {trainer.epoch + 1}, val mAP50 {epochs[-1]['map50']:.3f}, {settings.left() / 60:.1f} min left")

    model = YOLO(str(settings.finder_from))
    for event, callback in (("on_train_start", on_train_start), ("on_model_save", on_model_save),
                            ("on_fit_epoch_end", on_fit_epoch_end)):
        model.add_callback(event, callback)
    args = finder_train_args(finder_data(settings, places), run_dir, settings.finder_imgsz, max(settings.left(), 60) / 3600,
                             settings.finder_batch, settings.finder_lr, settings.finder_workers, settings.seed,
                             continued=True, device="0" if settings.device == "cuda" else "cpu",
                             # A run of a few epochs: run 13 spent 0.8 of its 4.1 minutes between its
                             # data and its first step, caching its 21,360 images among the rest (16
                             # loaders decode them as they go instead).
                             cache=False)
    model.train(**args)
    best = run_dir / "weights" / "best.pt"
    strip_checkpoint(best if best.is_file() else run_dir / "weights" / "last.pt", settings.out / "finder.pt")
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


def _classifier_stage(settings: DeviceRun, places: dict[str, Path], parent: int) -> None:
    """In its own process: the crop bank on all cores, then the classifier on the GPU."""
    import torch

    from cribcam.training.classifier import train_classifier
    from cribcam.training.recipe import end_with_parent, weights_only

    threading.Thread(target=end_with_parent, args=(parent,), daemon=True).start()
    log = progress_log(settings.out / LOG_FILE)
    bank = classifier_bank(settings, places, log)
    minutes = settings.left() / 60
    summary = {"crops": len(bank), "groups": {k: len(v) for k, v in bank.groups().items()}}
    if minutes > 0.05:
        checkpoint = settings.work / "classifier-state.pt"
        torch.set_num_threads(2)
        train_classifier(bank, checkpoint, minutes, settings.classifier_batch, settings.classifier_lr,
                         settings.seed, start_from=settings.classifier_from, log=log,
                         save_every=30.0, device=settings.device, workers=settings.classifier_workers,
                         on_save=lambda: weights_only(checkpoint, settings.out / "classifier.pt"))
        summary["steps"] = torch.load(checkpoint, map_location="cpu", weights_only=False)["state"]["steps"]
    else:
        log("classifier: no time left to train after its bank")
    (settings.work / "classifier.json").write_text(json.dumps(summary))


# The crop bank is cut by forked processes that share these, set before the fork.
_BANK_INPUTS: dict = {}


def classifier_bank(settings: DeviceRun, places: dict[str, Path], log):
    """The recipe's crop bank (``recipe._classifier_bank``), cut in parallel pieces: art of
    the training designs and of font decks, jokers, scenes, real photos and the shipped
    finder's mistakes in scenes and photos."""
    import cv2

    from cribcam.datagen.card_art import load_decks
    from cribcam.datagen.font_decks import find_fonts
    from cribcam.teach.crop_bank import CropBank
    from cribcam.vision.evaluate import load_labels

    scenes = sorted((settings.work / "designs" / "images" / "train").glob("*.jpg"))
    cv2.setNumThreads(1)  # before the fork: a forked child can neither use nor stop its parent's pool
    _BANK_INPUTS.update(settings=settings, places=places, decks=load_decks(split="train", progress=False),
                        backgrounds=[cv2.imread(str(path)) for path in scenes[:300]],
                        real_labels=load_labels(places["real"] / "labels-train.json"),
                        fonts=find_fonts(places["fonts"]))
    shards = max(2, os.cpu_count() or 2)
    jobs = [("art", k, shards) for k in range(shards)] + [("fonts", k, shards) for k in range(shards)] \
        + [("scenes", k, shards) for k in range(shards)] + [("mistakes", k, shards) for k in range(shards)] \
        + [("real mistakes", k, shards) for k in range(shards)] + [("jokers", 0, 1), ("real", 0, 1)]
    log(f"classifier: cutting its crop bank in {len(jobs)} pieces")
    started = time.monotonic()
    with multiprocessing.get_context("fork").Pool(shards) as pool:
        bank = CropBank.merge(pool.map(_bank_piece, jobs, chunksize=1))
    log(f"classifier: {len(bank)} crops ({', '.join(f'{k} {len(v)}' for k, v in bank.groups().items())}) "
        f"in {time.monotonic() - started:.0f} s")
    return bank


def _bank_piece(job: tuple[str, int, int]):
    from cribcam.datagen.font_decks import font_decks, joker_faces
    from cribcam.teach.crop_bank import bank_from_finder_mistakes, bank_from_labelled_photos
    from cribcam.training.classifier import bank_from_decks, bank_from_jokers, bank_from_scenes

    kind, k, n = job
    s, places, backgrounds = _BANK_INPUTS["settings"], _BANK_INPUTS["places"], _BANK_INPUTS["backgrounds"]
    seed = s.seed * 1000 + k
    designs = s.work / "designs"
    real_images, real_labels = places["real"] / "images" / "train", _BANK_INPUTS["real_labels"]
    if kind == "art":
        return bank_from_decks(_BANK_INPUTS["decks"], s.art_crops // n, seed, backgrounds)
    if kind == "fonts":
        decks = font_decks(max(1, s.font_bank_decks // n), seed, root=places["fonts"], found=_BANK_INPUTS["fonts"])
        return bank_from_decks(decks, s.font_crops // n, seed, backgrounds)
    if kind == "jokers":
        return bank_from_jokers(joker_faces(100, seed, root=places["fonts"]), s.joker_crops, seed, backgrounds)
    if kind == "scenes":
        return bank_from_scenes(designs, "train", seed, shard=(k, n), scenes=s.bank_scenes)
    if kind == "real":
        return bank_from_labelled_photos(real_images, real_labels, seed)
    find = _shipped_finder()
    if kind == "mistakes":
        return bank_from_finder_mistakes(find, designs, "train", scenes=s.mined_scenes, shard=(k, n))
    photos = dict(sorted(real_labels.items())[:s.mined_photos][k::n])
    return bank_from_finder_mistakes(find, None, "", real_images, photos)


def _shipped_finder():
    """The shipped finder as the recipe mines with it: a low threshold, the closer look too."""
    from cribcam.vision.finder import IndexFinder

    finder = IndexFinder(MODELS_DIR / FINDER_FILE, conf=0.05, threads=1)
    return lambda image: finder(image, closer=True).xyxy


def export(settings: DeviceRun, log) -> list[str]:
    """Both models to ONNX in ``out``, each only if its checkpoint came; a failure is logged,
    not raised: the checkpoints are what matter, and export here as well."""
    from cribcam.training.classifier import export_classifier
    from cribcam.training.finder import export_finder

    written = []
    for checkpoint, onnx, exporter in ((settings.out / "finder.pt", FINDER_FILE, lambda c, o: export_finder(c, o, 640)),
                                       (settings.out / "classifier.pt", CLASSIFIER_FILE, export_classifier)):
        if not checkpoint.is_file():
            log(f"export: no {checkpoint.name}, so no {onnx}")
            continue
        try:
            exporter(checkpoint, settings.out / onnx)
            written.append(onnx)
        except Exception as error:  # noqa: BLE001 (the run's checkpoints still come back)
            log(f"export: {onnx} failed: {error!r}")
    log(f"export: {', '.join(written) or 'nothing'}")
    return written


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
                        help="the finder checkpoint to continue (default: the shipped one)")
    parser.add_argument("--no-classifier", action="store_true", help="train the finder alone, on every core")
    parser.add_argument("--real-repeat", type=int, default=DeviceRun.real_repeat,
                        help="times the real training photos are listed for the finder (default %(default)s)")
    parser.add_argument("--tiny", action="store_true", help="a toy size on the CPU, for the tests")
    args = parser.parse_args(argv)
    settings = DeviceRun(args.pack, args.out, args.minutes, args.work, finder_from=args.finder_from,
                         real_repeat=args.real_repeat,
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
    for name, value in dict(device="cpu", design_scenes=40, finder_imgsz=96, font_scenes=8, font_decks=2, real_repeat=1,
                            finder_batch=8, finder_workers=0, classifier_batch=32, classifier_workers=2,
                            art_crops=200, font_bank_decks=2, font_crops=100, joker_crops=20, bank_scenes=10,
                            mined_scenes=4, mined_photos=6).items():
        setattr(settings, name, value)
    return settings


if __name__ == "__main__":
    raise SystemExit(main())
