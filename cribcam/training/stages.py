"""The stages of a training run, one set for both machines: the 2-core CPU recipe (`cribcam
train`, ``training.recipe``) and the run on a lent GPU (``training.device_run``) call them, each
with its own sizes, device, workers and, on the GPU, a deadline:

1. scenes (``build_scenes``): synthetic scenes of some decks, kept when already built so;
2. the finder's data (``training.finder.write_finder_data``): crops around the indices on the
   CPU, whole scenes on a GPU;
3. the classifier, in its own process beside the finder (``classifier_beside``): its crop bank
   (``cut_bank``, by one process or many), then its training (``training.classifier``);
4. the finder (``training.finder.train_finder``);
5. both exported to ONNX (``export_models``).

What only the GPU run does stays in ``training.device_run``: the pack, the watchdog and the
stages' fitting to the deadline, font decks drawn on every core, mixed precision (the finder's
``device``). Needs only the standard library to import: the recipe describes its options
without the ``train`` extra; each stage imports what it runs.
"""

from __future__ import annotations

import json
import logging
import multiprocessing
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from cribcam.training.crop_draw import AS_TAUGHT, CropDraw
from cribcam.vision.models import FINDER_FILE

# No network here nor on the device: keep ultralytics from trying (auto-installs, fonts for
# plots, analytics).
os.environ.setdefault("YOLO_OFFLINE", "1")
os.environ.setdefault("YOLO_AUTOINSTALL", "false")

RUN_TIME_IMGSZ = 640  # the finder's exported input: the reader reads whole frames at this size
JOKER_FACES = 100  # jokers drawn for the bank's ``joker_crops``
INTERRUPT_GRACE = 10.0  # seconds the classifier is given to save its checkpoint after a Ctrl-C
BACKGROUNDS = 300  # scenes whose pictures the art's crops are laid on
SHARD_SEEDS = 1000  # a bank piece's seed: the run's, plus this times its shard


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


def build_scenes(out: Path, decks: Callable[[], list], count: int, seed: int, what: str, log,
                 val_fraction: float = 0.1) -> dict:
    """Stage 1: ``count`` synthetic scenes of ``decks`` (called only when they are drawn) in
    ``out``, on every core; a set already built there with the same count, seed and share of
    validation scenes is kept (a resumed run's). Returns the scenes' count and decks' names."""
    from cribcam.datagen.build import BuildSpec, build

    try:
        built = json.loads((out / "build.json").read_text())
    except (OSError, ValueError):
        built = {}
    if [built.get(key) for key in ("images", "seed", "val_fraction")] != [count, seed, val_fraction]:
        drawn = decks()
        log(f"data: rendering {count} scenes of {len(drawn)} {what}")
        summary = build(BuildSpec(out, count, seed, val_fraction=val_fraction), drawn, progress=False, force=True)
        log(f"data: {summary['images']} scenes of {len(drawn)} {what} in {summary['seconds']:.0f} s")
        built = json.loads((out / "build.json").read_text())
    return {"scenes": built["images"], "decks": [deck["name"] for deck in built["decks"]]}


def build_font_scenes(out: Path, count: int, decks: int, seed: int, fonts: Path, log) -> dict:
    """``build_scenes`` of ``decks`` font decks drawn in the typefaces under ``fonts``, every
    scene a training one.

    Raises:
        RuntimeError: no typeface there prints every rank.
    """
    def drawn() -> list:
        font_decks = draw_font_decks(decks, seed, fonts)
        if not font_decks:
            raise RuntimeError(f"no usable fonts in {fonts}")
        return font_decks

    return build_scenes(out, drawn, count, seed + 1, "font decks", log, val_fraction=0.0)


def draw_font_decks(count: int, seed: int, fonts: Path) -> list:
    """``count`` font decks drawn by every core (a few tenths of a second a deck), the fonts
    found once for all of them."""
    from cribcam.datagen.font_decks import find_fonts, font_decks

    shards = max(1, min(os.cpu_count() or 1, count))
    found = find_fonts(fonts)
    jobs = [(count // shards + (k < count % shards), seed * 1000 + k, fonts, None, found) for k in range(shards)]
    with multiprocessing.get_context("fork").Pool(shards) as pool:
        return [deck for part in pool.starmap(font_decks, jobs) for deck in part]


@dataclass(frozen=True)
class BankPlan:
    """What the classifier's crop bank is cut from, and how much of each.

    Attributes:
        scenes: a built synthetic set (``build_scenes``): its training scenes' indices and
            negatives, and the first ``BACKGROUNDS`` of them as the art's backgrounds.
        font_scenes: a built set of font decks' scenes (``build_font_scenes``), whose indices
            and negatives are cut as ``scenes``' are, or None for none: the typefaces as a
            camera sees them, small, tilted and blurred, where the font decks' own crops are
            cut flat from their faces.
        real: the real training photos as `cribcam data real` splits them (``images/train``,
            ``labels-train.json``), or None for none.
        seed: seed of every piece (shifted by ``SHARD_SEEDS`` for each shard after the first).
        art_crops: crops of the training designs' card art.
        font_decks, font_crops: decks drawn in the training typefaces, and crops of them.
        joker_crops: crops of jokers' corners, as no index.
        neighbour_share: the share of the art's and font decks' crops with another card's print
            beside the index.
        fonts: where the typefaces are, or None for the machine's (``datagen.font_decks``).
        bank_scenes: the first this many scenes are cut (None: all).
        miner: the finder checkpoint whose mistakes in the scenes and photos become hard
            negatives (the finder the run continues from), or None for none.
        miner_imgsz, mining: its export's input size, and the folder it is exported to
            (needed with a miner).
        mined_scenes, mined_photos: scenes and real photos the miner reads (None: all photos).
        shards: processes that cut the bank between them (1: this one, piece by piece).
    """

    scenes: Path
    real: Path | None
    seed: int
    art_crops: int
    font_decks: int
    font_crops: int
    joker_crops: int
    neighbour_share: float = 0.0
    fonts: Path | None = None
    bank_scenes: int | None = None
    miner: Path | None = None
    miner_imgsz: int = RUN_TIME_IMGSZ
    mining: Path | None = None
    mined_scenes: int = 0
    mined_photos: int | None = None
    shards: int = 1
    font_scenes: Path | None = None


# What every piece of a bank reads, set in the process that cuts it before any fork.
_BANK_INPUTS: dict = {}


def cut_bank(plan: BankPlan, log):
    """The classifier's crops: card art of the training designs and of font decks, jokers'
    corners, the scenes, the real training photos, and the miner's mistakes in scenes and
    photos, cut in pieces by ``plan.shards`` processes."""
    import cv2

    from cribcam.datagen.card_art import load_decks
    from cribcam.datagen.font_decks import FONT_ROOT, find_fonts
    from cribcam.teach.crop_bank import CropBank
    from cribcam.vision.evaluate import load_labels

    scenes = sorted((plan.scenes / "images" / "train").glob("*.jpg"))
    fonts = plan.fonts or FONT_ROOT
    _BANK_INPUTS.update(plan=plan, fonts=fonts, found=find_fonts(fonts) if plan.font_decks else None,
                        miner=_export_miner(plan),
                        decks=load_decks(split="train", progress=False),
                        backgrounds=[cv2.imread(str(path)) for path in scenes[:BACKGROUNDS]],
                        real_labels=load_labels(plan.real / "labels-train.json") if plan.real else None)
    pieces = _bank_pieces(plan)
    started = time.monotonic()
    if plan.shards == 1:
        banks = []
        for piece in pieces:
            if piece[1] == 0:  # each kind takes minutes (the mistakes the longest): the log says which is under way
                log(f"classifier: {_said(piece[0], plan)}")
            banks.append(_bank_piece(piece))
    else:
        log(f"classifier: cutting its crop bank in {len(pieces)} pieces, {plan.shards} processes")
        cv2.setNumThreads(1)  # before the fork: a forked child can neither use nor stop its parent's pool
        with multiprocessing.get_context("fork").Pool(plan.shards) as pool:
            banks = pool.map(_bank_piece, pieces, chunksize=1)
    if plan.miner is not None:
        mistakes = sum(len(bank) for piece, bank in zip(pieces, banks) if "mistakes" in piece[0] and bank)
        log(f"classifier: {mistakes} hard negatives from {plan.miner}")
    banks = [bank for bank in banks if bank is not None]  # the only list of them: merging frees each
    bank = CropBank.merge(banks)
    log(f"classifier: {len(bank)} crops ({', '.join(f'{k} {len(v)}' for k, v in bank.groups().items())}) "
        f"in {time.monotonic() - started:.0f} s")
    return bank


def _export_miner(plan: BankPlan) -> Path | None:
    """The miner as the reader runs it, exported once for every piece that reads with it."""
    from cribcam.training.finder import export_finder

    if plan.miner is None:
        return None
    return export_finder(plan.miner, plan.mining / FINDER_FILE, plan.miner_imgsz)


def _bank_pieces(plan: BankPlan) -> list[tuple[str, int, int]]:
    """(kind, shard, shards) of every piece: the large kinds split ``plan.shards`` ways."""
    n = plan.shards
    kinds = [("art", n), ("fonts", min(n, plan.font_decks)), ("scenes", n),
             ("font scenes", n if plan.font_scenes else 0), ("jokers", 1 if plan.joker_crops else 0), ("real", 1 if plan.real else 0),
             ("mistakes", n if plan.miner else 0), ("real mistakes", n if plan.miner and plan.real else 0)]
    return [(kind, k, shards) for kind, shards in kinds for k in range(shards)]


def _said(kind: str, plan: BankPlan) -> str:
    return {"art": f"cutting crops of the art of {len(_BANK_INPUTS['decks'])} training designs",
            "fonts": f"drawing {plan.font_decks} font decks",
            "scenes": "cutting crops of the scenes",
            "font scenes": "cutting crops of the font decks' scenes",
            "jokers": f"drawing {JOKER_FACES} jokers for {plan.joker_crops} crops of their corners",
            "real": "cutting crops of the real training photos",
            "mistakes": f"mining hard negatives in {plan.mined_scenes} scenes",
            "real mistakes": "mining hard negatives in the real training photos"}[kind]


def _share(total: int, k: int, n: int) -> int:
    """Shard ``k``'s part of ``total`` split ``n`` ways."""
    return total // n + (k < total % n)


def _bank_piece(piece: tuple[str, int, int]):
    """One piece of the bank (None: nothing to cut, as font decks on a machine without fonts)."""
    from cribcam.datagen.font_decks import font_decks, joker_faces
    from cribcam.teach.crop_bank import bank_from_finder_mistakes, bank_from_labelled_photos
    from cribcam.training.classifier import bank_from_decks, bank_from_jokers, bank_from_scenes

    kind, k, n = piece
    plan, backgrounds = _BANK_INPUTS["plan"], _BANK_INPUTS["backgrounds"]
    seed = plan.seed + SHARD_SEEDS * k
    real_images, real_labels = (plan.real / "images" / "train" if plan.real else None), _BANK_INPUTS["real_labels"]
    if kind == "art":
        return bank_from_decks(_BANK_INPUTS["decks"], _share(plan.art_crops, k, n), seed, backgrounds,
                               plan.neighbour_share)
    if kind == "fonts":
        decks = font_decks(_share(plan.font_decks, k, n), seed, root=_BANK_INPUTS["fonts"], found=_BANK_INPUTS["found"])
        return (bank_from_decks(decks, _share(plan.font_crops, k, n), seed, backgrounds, plan.neighbour_share)
                if decks else None)
    if kind == "jokers":
        jokers = joker_faces(JOKER_FACES, seed, root=_BANK_INPUTS["fonts"])
        return bank_from_jokers(jokers, plan.joker_crops, seed, backgrounds) if jokers else None
    if kind == "scenes":
        return bank_from_scenes(plan.scenes, "train", seed, shard=(k, n), scenes=plan.bank_scenes)
    if kind == "font scenes":
        return bank_from_scenes(plan.font_scenes, "train", seed, shard=(k, n))
    if kind == "real":
        return bank_from_labelled_photos(real_images, real_labels, seed)
    finder = _miner()
    if kind == "mistakes":
        return bank_from_finder_mistakes(finder, plan.scenes, "train", scenes=plan.mined_scenes, shard=(k, n))
    photos = dict(sorted(real_labels.items())[:plan.mined_photos][k::n])
    return bank_from_finder_mistakes(finder, None, "", real_images, photos)


def _miner():
    """The miner as the reader runs it when cards are missing: a low threshold, and the closer
    look, whose enlarged frame boxes more small pips and art, which must be rejected too."""
    from cribcam.vision.finder import IndexFinder

    finder = IndexFinder(_BANK_INPUTS["miner"], conf=0.05, threads=1)
    return lambda image: finder(image, closer=True).xyxy


@dataclass(frozen=True)
class ClassifierJob:
    """The classifier's stage: its bank, then its training, in a process of its own.

    Attributes:
        bank: what its crop bank is cut from.
        checkpoint: its training state, saved as it trains; a run started again goes on from
            it, and a ``.done`` file beside it says the training finished.
        log_file: the run's log, which its lines join.
        minutes: its training time, wall-clock, over every start; None: until ``until``.
        until: the wall-clock time (``time.time()``) its training ends by, whatever the bank
            took (the GPU run's deadline), or None.
        batch, lr, seed, start_from, device, workers, save_every, draw: as ``train_classifier``
            takes them (``lr`` as trained: a continued run's, a third, already taken).
        threads: torch's threads (the CPU recipe's classifier leaves the finder the other core).
        width: its layers as wide as run 9's times this (``classifier.widths_for``); 0: as wide
            as ``start_from`` (run 9's without one).
        weights: where its weights alone are written at every save (what a GPU run brings
            back, cut short or not), or None.
        summary: where the bank's sizes and the steps trained are written as JSON, or None.
    """

    bank: BankPlan
    checkpoint: Path
    log_file: Path
    minutes: float | None
    batch: int
    lr: float
    seed: int
    start_from: Path | None = None
    until: float | None = None
    threads: int = 1
    width: float = 0.0
    device: str = "cpu"
    workers: int = 0
    save_every: float = 120.0
    draw: CropDraw = AS_TAUGHT
    weights: Path | None = None
    summary: Path | None = None

    def minutes_left(self) -> float:
        return self.minutes if self.until is None else (self.until - time.time()) / 60


# The classifier's exit status when a Ctrl-C stopped it (a shell's 128 + SIGINT).
INTERRUPTED = 130


@contextmanager
def classifier_beside(job: ClassifierJob | None) -> Iterator[multiprocessing.Process | None]:
    """Stage 3: ``job`` runs in its own process (spawned: a forked child could not use the GPU)
    while the ``with`` block runs (the finder's stage); yields that process (None for no job).
    Left by a Ctrl-C, which a terminal sends the classifier too, the block gives it
    ``INTERRUPT_GRACE`` seconds to save; left any way, a classifier still running is stopped."""
    if job is None:
        yield None
        return
    process = multiprocessing.get_context("spawn").Process(target=_classifier_stage, args=(job, os.getpid()))
    process.start()
    try:
        yield process
    except KeyboardInterrupt:
        process.join(INTERRUPT_GRACE)
        raise
    finally:
        if process.is_alive():
            process.terminate()


def _classifier_stage(job: ClassifierJob, parent: int) -> None:
    import torch

    from cribcam.training.classifier import train_classifier, widths_for

    threading.Thread(target=end_with_parent, args=(parent,), daemon=True).start()
    log = progress_log(job.log_file)
    done = job.checkpoint.with_suffix(".done")
    if done.is_file():
        log("classifier: finished already")
        return
    try:
        bank = cut_bank(job.bank, log)
        # Set after the bank: exporting its miner through ultralytics sets torch's threads to
        # ultralytics' own count, one on two cores, and the classifier trained on one.
        torch.set_num_threads(job.threads)
        summary = {"crops": len(bank), "groups": {k: len(v) for k, v in bank.groups().items()}}
        minutes = job.minutes_left()
        if job.until is None or minutes > 0.05:
            on_save = (lambda: weights_only(job.checkpoint, job.weights)) if job.weights else None
            train_classifier(bank, job.checkpoint, minutes, job.batch, job.lr, job.seed, start_from=job.start_from,
                             log=log, save_every=job.save_every, device=job.device, workers=job.workers,
                             on_save=on_save, widths=widths_for(job.width), draw=job.draw)
            summary["steps"] = torch.load(job.checkpoint, map_location="cpu", weights_only=False)["state"]["steps"]
            done.touch()
        else:
            log("classifier: no time left to train after its bank")
    except KeyboardInterrupt:  # a terminal's Ctrl-C reaches this process too: the run's says so, once
        raise SystemExit(INTERRUPTED) from None
    if job.summary is not None:
        job.summary.write_text(json.dumps(summary))


def end_with_parent(parent: int, every: float = 2.0) -> None:
    """Ends this process once the run's is gone: a run killed (``kill``, a session's cut) runs
    no ``finally``, and its classifier trained on alone, on the cores and into the checkpoint
    of the run started next."""
    while os.getppid() == parent:
        time.sleep(every)
    os._exit(1)


def weights_only(checkpoint: Path, out: Path) -> None:
    """The classifier's weights of a training state, without its optimizer, in half precision as
    the finder's checkpoint is: what is committed travels to a lent GPU in the checkout, whose size
    is bound (``device_pack.TRAVEL_LIMIT``). Loading them into a network casts them back."""
    import torch

    out.parent.mkdir(parents=True, exist_ok=True)
    state = torch.load(checkpoint, map_location="cpu", weights_only=False)
    weights = {name: tensor.half() if tensor.is_floating_point() else tensor
               for name, tensor in state["model"].items()}
    torch.save({"model": weights, "state": state["state"]}, out)


def export_models(out: Path, finder: Path | None, classifier: Path | None, imgsz: int, log,
                  keep_going: bool = False) -> list[str]:
    """Stage 5: the finder (read at ``imgsz``) and the classifier to ONNX in ``out``, each only
    when its checkpoint is given and there; returns the files written. ``keep_going``: a failed
    export is logged, not raised (a GPU run's checkpoints come back all the same)."""
    from cribcam.training.classifier import export_classifier
    from cribcam.training.finder import export_finder
    from cribcam.vision.models import CLASSIFIER_FILE

    written = []
    for checkpoint, onnx, exporter in ((finder, FINDER_FILE, lambda c, o: export_finder(c, o, imgsz)),
                                       (classifier, CLASSIFIER_FILE, export_classifier)):
        if checkpoint is None or not checkpoint.is_file():
            log(f"export: no {checkpoint.name if checkpoint else 'checkpoint'}, so no {onnx}")
            continue
        try:
            exporter(checkpoint, out / onnx)
        except Exception as error:  # noqa: BLE001 (raised again unless told to keep going)
            if not keep_going:
                raise
            log(f"export: {onnx} failed: {error!r}")
            continue
        written.append(onnx)
    return written
