"""Writes a synthetic data set with every core, the same bytes for the same seed.

Image ``i`` is drawn from its own random stream, seeded by (seed, i), and the shared assets
(surfaces, noise) from the seed alone, so neither the number of workers nor the order in which
they finish changes a byte. The decks and assets are loaded once in the parent process; the
workers are forked and share them.

A "train" build draws only on training designs and puts the first ``val_fraction`` of its
images in ``val``; a "heldout" build draws only on the held-out designs and puts everything in
``test``: those designs measure how well the reader reads decks it has never seen.
"""

from __future__ import annotations

import multiprocessing
import os
import shutil
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from tqdm import tqdm

from cribcam.datagen import yolo
from cribcam.datagen.assets import Assets, make_assets
from cribcam.datagen.scenes import render_scene

SPLITS = ("train", "heldout")
# What a build writes; --force removes exactly these before writing.
OUTPUTS = ("images", "labels", "meta", "data.yaml", "build.json", "ATTRIBUTION.txt",
           "labels-train.json", "labels-val.json", "labels-test.json")


@dataclass(frozen=True)
class BuildSpec:
    """What to build.

    Attributes:
        out: Output folder.
        images: Number of images.
        seed: Seed; the same seed gives the same bytes.
        split: "train" (training designs, parts train and val) or "heldout" (part test).
        val_fraction: Share of a train build's images put in val.
        imgsz: Image width and height in pixels.
        surfaces: Number of table surfaces drawn for the build (variety against start-up time).
    """

    out: Path
    images: int
    seed: int
    split: str = "train"
    val_fraction: float = 0.1
    imgsz: int = 640
    surfaces: int = 40

    def part(self, index: int) -> str:
        """The part image ``index`` belongs to."""
        if self.split == "heldout":
            return "test"
        return "val" if index < round(self.images * self.val_fraction) else "train"

    def parts(self) -> list[str]:
        return ["test"] if self.split == "heldout" else ["train", "val"]


# Set in the parent before the workers are forked; read-only afterwards.
_ASSETS: Assets | None = None
_SPEC: BuildSpec | None = None


def write_image(index: int) -> int:
    """Renders image ``index`` and writes its image, labels and record; returns its label count."""
    spec, assets = _SPEC, _ASSETS
    scene = render_scene(np.random.default_rng([spec.seed, index]), assets, spec.imgsz)
    part, name = spec.part(index), f"{index:07d}"
    ok, jpg = cv2.imencode(".jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, scene.jpeg_quality])
    if not ok:
        raise RuntimeError(f"JPEG encoding failed for image {index}")
    (spec.out / "images" / part / f"{name}.jpg").write_bytes(jpg.tobytes())
    (spec.out / "labels" / part / f"{name}.txt").write_text(
        yolo.label_lines([(lab.code, lab.box) for lab in scene.labels], spec.imgsz, spec.imgsz))
    yolo.write_json(spec.out / "meta" / part / f"{name}.json", {"image": f"{name}.jpg", "index": index, **scene.record})
    return len(scene.labels)


def default_workers() -> int:
    """The cores this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _leave_interrupts_to_parent() -> None:
    """A worker ignores Ctrl-C: the terminal sends it to every process, and the build stops its
    workers itself (each interrupted worker had printed "Process ForkPoolWorker-1:" and the
    like)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _prepare_out(spec: BuildSpec, force: bool) -> None:
    spec.out.mkdir(parents=True, exist_ok=True)
    existing = [name for name in OUTPUTS if (spec.out / name).exists()]
    if existing and not force:
        # A build writes data.yaml once its images are written: without it, one was cut short.
        held = ("a data set" if "data.yaml" in existing
                else "an unfinished data set (no data.yaml: a build cut short?)")
        raise yolo.DataSetError(f"{spec.out} already holds {held} ({', '.join(existing)}); "
                                "choose another folder or pass --force to replace it")
    for name in existing:
        path = spec.out / name
        shutil.rmtree(path) if path.is_dir() else path.unlink()
    yolo.make_dirs(spec.out, spec.parts())


def build(spec: BuildSpec, decks: list, workers: int | None = None, progress: bool = True,
          force: bool = False) -> dict:
    """Writes the data set described by ``spec`` from ``decks``.

    Args:
        spec: What to build.
        decks: Decks (``cribcam.datagen.card_art.Deck``) of ``spec.split`` only.
        workers: Processes to use; all cores when None.
        progress: Show a progress bar.
        force: Replace a data set already in ``spec.out``.

    Returns:
        A summary: images, labels, seconds, images per second.

    Raises:
        DataSetError: No decks, a deck of the other split, or an occupied output folder.
    """
    global _ASSETS, _SPEC
    if spec.split not in SPLITS:
        raise yolo.DataSetError(f"split must be one of {', '.join(SPLITS)}, not {spec.split!r}")
    if not decks:
        raise yolo.DataSetError(f"no decks of split {spec.split!r} to draw from")
    strays = sorted(d.name for d in decks if d.split != spec.split)
    if strays:
        raise yolo.DataSetError(f"decks of another split than {spec.split!r}: {', '.join(strays)}")
    if spec.images < 1:
        raise yolo.DataSetError("the number of images must be at least 1")
    decks = sorted(decks, key=lambda d: d.name)  # a scene picks its deck by index
    _prepare_out(spec, force)
    if progress:  # silent for a minute or more otherwise, before the first scene's progress
        tqdm.write(f"preparing the card art of {len(decks)} deck designs and the table surfaces "
                   f"for the scenes (once a build, before its first image)", file=sys.stderr)
    _ASSETS = make_assets(decks, spec.seed, spec.surfaces, noise_size=max(1024, spec.imgsz * 3 // 2))
    _SPEC = spec
    workers = workers or default_workers()
    # One process per core already; OpenCV's own threads would only contend. This must be set
    # before forking: a forked child can neither use nor stop its parent's thread pool (it hangs).
    threads = cv2.getNumThreads()
    cv2.setNumThreads(1)
    start = time.perf_counter()
    bar = tqdm(total=spec.images, unit="img", disable=not progress, desc=f"{spec.split} scenes")
    labels = 0
    try:
        if workers == 1:
            for i in range(spec.images):
                labels += write_image(i)
                bar.update()
        else:
            with multiprocessing.get_context("fork").Pool(workers, initializer=_leave_interrupts_to_parent) as pool:
                for n in pool.imap_unordered(write_image, range(spec.images), chunksize=8):
                    labels += n
                    bar.update()
    finally:
        bar.close()
        cv2.setNumThreads(threads)
        _ASSETS = _SPEC = None
    seconds = time.perf_counter() - start
    _write_manifest(spec, decks)
    for part in spec.parts():
        yolo.write_eval_labels(spec.out, part)
    return {"images": spec.images, "labels": labels, "seconds": seconds, "images_per_second": spec.images / seconds}


def _write_manifest(spec: BuildSpec, decks: list) -> None:
    """data.yaml for ultralytics, build.json saying how the set was made (no timings, so that
    the same seed gives the same bytes), and the card designs' licences in ATTRIBUTION.txt."""
    what = f"cribcam synthetic card indices: {spec.images} images, seed {spec.seed}, {spec.split} designs"
    if spec.split == "heldout":
        # ultralytics insists on train and val keys; a held-out set is for evaluation only.
        yolo.write_data_yaml(spec.out, {"train": "images/test", "val": "images/test", "test": "images/test"}, what)
    else:
        yolo.write_data_yaml(spec.out, {"train": "images/train", "val": "images/val"}, what)
    yolo.write_json(spec.out / "build.json", {
        "images": spec.images, "seed": spec.seed, "split": spec.split, "val_fraction": spec.val_fraction,
        "imgsz": spec.imgsz, "surfaces": spec.surfaces,
        "decks": [{"name": d.name, "split": d.split, "licence": d.licence} for d in decks],
    })
    (spec.out / "ATTRIBUTION.txt").write_text(
        "The images in this folder show card designs under these licences:\n"
        + "".join(f"- {d.name}: {d.licence}\n" for d in decks))
