"""The stages the CPU recipe and the GPU run share (``training.stages``), each the same at
either machine's sizes; the whole of both runs, at a toy size, is in test_recipe.py and
test_device_run.py (slow)."""

import json
import subprocess
import sys
import time
from pathlib import Path

import cv2
import numpy as np
import pytest

from cribcam.training import stages
from cribcam.training.finder import FinderSource, write_finder_data
from waiting import wait_until


def plan(**sizes) -> stages.BankPlan:
    values = dict(scenes=Path("scenes"), real=Path("real"), seed=3, art_crops=1000, font_decks=7, font_crops=500,
                  joker_crops=40, miner=Path("finder.pt"), mining=Path("mining"), mined_scenes=20)
    return stages.BankPlan(**{**values, **sizes})


@pytest.mark.parametrize("shards", [1, 3, 16])
def test_a_bank_cut_by_many_processes_cuts_what_one_cuts(shards):
    pieces = stages._bank_pieces(plan(shards=shards, font_scenes=Path("font-scenes")))
    shares = {kind: [(k, n) for kind_, k, n in pieces if kind_ == kind] for kind, _, _ in pieces}
    assert set(shares) == {"art", "fonts", "scenes", "font scenes", "jokers", "real", "mistakes", "real mistakes"}
    assert shares["font scenes"] == shares["scenes"] == [(k, shards) for k in range(shards)]
    assert sum(stages._share(1000, k, n) for k, n in shares["art"]) == 1000
    # No process draws a font deck of its own that was not asked for: 7 decks, 7 processes at most.
    assert len(shares["fonts"]) == min(shards, 7)
    decks = [stages._share(7, k, n) for k, n in shares["fonts"]]
    assert sum(decks) == 7 and min(decks) >= 1 and max(decks) - min(decks) <= 1
    assert sum(stages._share(500, k, n) for k, n in shares["fonts"]) == 500
    assert len(shares["jokers"]) == len(shares["real"]) == 1  # cut once, whatever the processes


def test_a_bank_without_fonts_jokers_real_photos_or_a_finder_to_mine_cuts_none_of_them():
    pieces = stages._bank_pieces(plan(shards=4, font_decks=0, joker_crops=0, real=None, miner=None))
    assert {kind for kind, _, _ in pieces} == {"art", "scenes"}


def test_scenes_built_so_already_are_kept_and_others_built_again(tmp_path, monkeypatch):
    import cribcam.datagen.build

    built = []

    def build(spec, decks, progress, force):
        built.append((spec.images, spec.seed, force))
        spec.out.mkdir(parents=True, exist_ok=True)
        (spec.out / "build.json").write_text(json.dumps({"images": spec.images, "seed": spec.seed,
                                                         "val_fraction": spec.val_fraction,
                                                         "decks": [{"name": d} for d in decks]}))
        return {"images": spec.images, "seconds": 1.0}

    monkeypatch.setattr(cribcam.datagen.build, "build", build)
    drawn = []
    lines = []

    def decks():
        drawn.append(1)
        return ["red", "blue"]

    out = tmp_path / "scenes"
    assert stages.build_scenes(out, decks, 30, 1, "training designs", lines.append) == \
        {"scenes": 30, "decks": ["red", "blue"]}
    assert lines == ["data: rendering 30 scenes of 2 training designs", "data: 30 scenes of 2 training designs in 1 s"]
    assert stages.build_scenes(out, decks, 30, 1, "training designs", lines.append)["scenes"] == 30
    assert built == [(30, 1, True)] and len(drawn) == 1  # kept: not even its decks drawn
    stages.build_scenes(out, decks, 30, 2, "training designs", lines.append)
    stages.build_scenes(out, decks, 30, 2, "font decks", lines.append, val_fraction=0.0)
    assert built == [(30, 1, True), (30, 2, True), (30, 2, True)]


def small_set(root: Path, counts: dict[str, int]) -> Path:
    """A one-class data set of ``counts`` tiny images a part, each with one index box."""
    for part, count in counts.items():
        (root / "images" / part).mkdir(parents=True)
        (root / "labels" / part).mkdir(parents=True)
        for k in range(count):
            cv2.imwrite(str(root / "images" / part / f"{k}.jpg"), np.full((64, 80, 3), 90, np.uint8))
            (root / "labels" / part / f"{k}.txt").write_text("0 0.5 0.5 0.2 0.3\n")
    return root


def test_font_scenes_without_a_usable_font_say_where_none_was_found(tmp_path):
    (tmp_path / "fonts").mkdir()
    with pytest.raises(RuntimeError, match=f"no usable fonts in {tmp_path / 'fonts'}"):
        stages.build_font_scenes(tmp_path / "scenes", 10, 2, 1, tmp_path / "fonts", lambda line: None)
    assert not (tmp_path / "scenes").exists()


def test_the_finder_data_of_whole_images_lists_each_as_often_as_asked(tmp_path):
    scenes = small_set(tmp_path / "scenes", {"train": 3, "val": 2})
    photos = small_set(tmp_path / "photos", {"train": 2})
    data = write_finder_data(tmp_path / "finder", train=[FinderSource(scenes, "train"), FinderSource(photos, "train", 4)],
                             val=[FinderSource(scenes, "val")], size=None, seed=0)
    yaml = data.read_text()
    assert yaml.startswith("# cribcam finder whole images: 11 train, 2 val")
    train = (tmp_path / "finder" / "train.txt").read_text().splitlines()
    assert f"train: {(tmp_path / 'finder' / 'train.txt').resolve()}" in yaml
    assert len(train) == 11 and train.count(str((photos / "images" / "train" / "0.jpg").resolve())) == 4
    assert (tmp_path / "finder" / "val.txt").read_text().splitlines() == \
        [str((scenes / "images" / "val" / f"{k}.jpg").resolve()) for k in range(2)]
    assert not (tmp_path / "finder" / "images").exists()  # nothing cut


def test_the_finder_data_of_crops_cuts_them_at_the_size_asked(tmp_path):
    scenes = small_set(tmp_path / "scenes", {"train": 3, "val": 2})
    data = write_finder_data(tmp_path / "finder", train=[FinderSource(scenes, "train", 2)],
                             val=[FinderSource(scenes, "val")], size=48, seed=0)
    assert data.read_text().startswith("# cribcam finder crops of 48 px: ")
    crops = sorted((tmp_path / "finder" / "images" / "train").glob("*.jpg"))
    assert crops and all(cv2.imread(str(path)).shape[:2] == (48, 48) for path in crops)


def test_an_export_without_its_checkpoints_says_so_and_writes_nothing(tmp_path):
    lines = []
    written = stages.export_models(tmp_path, None, tmp_path / "classifier.pt", 640, lines.append, keep_going=True)
    assert written == [] and list(tmp_path.iterdir()) == []
    assert lines == ["export: no checkpoint, so no finder.onnx", "export: no classifier.pt, so no classifier.onnx"]


def test_a_failed_export_is_logged_when_the_run_keeps_going_and_raised_when_not(tmp_path):
    pytest.importorskip("torch")
    broken = tmp_path / "classifier.pt"
    broken.write_bytes(b"not a checkpoint")
    lines = []
    assert stages.export_models(tmp_path, None, broken, 640, lines.append, keep_going=True) == []
    assert lines[-1].startswith("export: classifier.onnx failed: ")
    with pytest.raises(Exception):  # noqa: B017 (whatever torch raises for a broken file)
        stages.export_models(tmp_path, None, broken, 640, lines.append)


def test_a_classifier_with_a_deadline_trains_for_what_is_left_of_it():
    bank = plan()
    job = stages.ClassifierJob(bank, Path("c.pt"), Path("log"), 40.0, 32, 1e-3, 0)
    assert job.minutes_left() == 40.0
    job = stages.ClassifierJob(bank, Path("c.pt"), Path("log"), None, 32, 1e-3, 0, until=time.time() + 120)
    assert 1.9 < job.minutes_left() <= 2.0


def test_the_classifier_trains_on_the_threads_asked_whatever_cutting_its_bank_did(tmp_path, monkeypatch):
    """Exporting the miner through ultralytics sets torch's threads to its own count, one on two
    cores: a run's classifier trained on one core where two were asked."""
    import os

    import torch

    from cribcam.teach.crop_bank import CropBank
    from cribcam.training import classifier

    def cut_bank(plan, log):
        torch.set_num_threads(1)  # as ultralytics' export does
        return CropBank(np.zeros((2, 8, 8, 3), np.uint8), np.array([0, 1]), np.array([0, 1]), np.zeros(2, bool))

    trained_on = []

    def train(bank, checkpoint, *args, **kwargs):
        trained_on.append(torch.get_num_threads())
        torch.save({"state": {"steps": 0}}, checkpoint)

    monkeypatch.setattr(stages, "cut_bank", cut_bank)
    monkeypatch.setattr(classifier, "train_classifier", train)
    job = stages.ClassifierJob(plan(), tmp_path / "c.pt", tmp_path / "log", 1.0, 32, 1e-3, 0, threads=2)
    before = torch.get_num_threads()
    try:
        stages._classifier_stage(job, os.getppid())
    finally:
        torch.set_num_threads(before)
    assert trained_on == [2]


def test_the_classifiers_process_ends_when_the_runs_is_killed():
    """``kill`` runs no ``finally``: the classifier's process must notice by itself."""
    # The run passes its own pid, as the run does: a child asking for its parent's only once
    # started could already be an orphan.
    run = subprocess.Popen([sys.executable, "-c", """if True:
        import os, subprocess, sys, time
        code = f"from cribcam.training.stages import end_with_parent; end_with_parent({os.getpid()}, every=0.1)"
        child = subprocess.Popen([sys.executable, "-c", code])
        print(child.pid, flush=True)
        time.sleep(60)"""], stdout=subprocess.PIPE, text=True)
    child_pid = int(run.stdout.readline())
    run.kill()
    run.wait()

    def alive() -> bool:  # a zombie is gone too: it only waits to be reaped
        try:
            return "State:\tZ" not in Path(f"/proc/{child_pid}/status").read_text()
        except FileNotFoundError:
            return False

    wait_until(lambda: not alive(), timeout=30, step=0.1,
               message=f"the classifier's process {child_pid} lives on after the run's was killed")
