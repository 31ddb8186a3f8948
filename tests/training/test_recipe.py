"""The recipe never rots: the whole of it, at a toy size, makes two models that the reader runs."""

import json
import subprocess
import sys
import time
from pathlib import Path

import cv2
import pytest

from cribcam.cli.main import main
from cribcam.vision import CardReader
from cribcam.vision.models import CLASSIFIER_FILE, FINDER_FILE


def test_tiny_recipe_exports_models_the_reader_runs(tiny_models, real_photos):
    assert (tiny_models / FINDER_FILE).stat().st_size > 100_000
    assert (tiny_models / CLASSIFIER_FILE).stat().st_size > 10_000
    record = json.loads((tiny_models / "training.json").read_text())
    assert record["recipe"]["finder_imgsz"] == 128 and record["this_run_hours"] > 0
    assert (tiny_models / "checkpoints" / "finder.pt").is_file()
    reader = CardReader(tiny_models)
    assert reader.finder.imgsz == 128 and reader.classifier.size == 48
    photo = cv2.imread(str(sorted((real_photos / "images").glob("*.jpg"))[0]))
    reading = reader.read(photo, expected=5)
    # Barely trained, it may read nothing; what matters is a well-formed reading.
    assert (reading.width, reading.height) == (640, 640)
    assert all(len(seen.card) == 2 for seen in reading.cards)
    assert isinstance(reading.problems, tuple)


def test_a_finished_recipe_started_again_trains_nothing_more(tiny_models, real_photos, tmp_path):
    from training_tools import tiny_recipe
    from cribcam.training.recipe import run

    recipe = tiny_recipe(real_photos, tiny_models.parent)
    before = (recipe.work / "classifier.pt").stat().st_mtime
    run(recipe)
    assert (recipe.work / "classifier.pt").stat().st_mtime == before
    assert "finder: " in (recipe.work / "train.log").read_text()


def test_a_recipe_with_no_finder_hours_keeps_the_finder_and_trains_the_classifier(tiny_models, real_photos,
                                                                                 tmp_path):
    from dataclasses import replace

    from training_tools import tiny_recipe

    from cribcam.training.recipe import run

    checkpoints = tiny_models / "checkpoints"
    recipe = replace(tiny_recipe(real_photos, tmp_path), finder_hours=0, finder_from=checkpoints / "finder.pt",
                     classifier_from=checkpoints / "classifier.pt", mined_scenes=4)
    record = run(recipe)
    log = (recipe.work / "train.log").read_text()
    assert "finder: kept as it is" in log
    assert "classifier: mining hard negatives in 4 scenes" in log  # the slow stages say they are under way
    assert not recipe.finder_run.exists() and record["finder_checkpoint"] == str(checkpoints / "finder.pt")
    assert CardReader(recipe.models).finder.imgsz == recipe.finder_imgsz
    continued = json.loads((tiny_models / "training.json").read_text())["cpu_run_hours_in_all"]
    assert record["cpu_run_hours_in_all"] == pytest.approx(continued + record["this_run_hours"], abs=0.002)


def test_the_hours_of_models_whose_finder_and_classifier_came_from_two_runs(tmp_path):
    from cribcam.training.recipe import _hours_in_all

    record = tmp_path / "training.json"
    record.write_text(json.dumps({"shipped": "finder from run 4, classifier from run 8",
                                  "finder": {"cpu_run_hours_in_all": 5.3},
                                  "classifier": {"cpu_run_hours_in_all": 9.556}}))
    assert _hours_in_all(record) == 9.556
    record.write_text(json.dumps({"cpu_run_hours_in_all": 1.5}))
    assert _hours_in_all(record) == 1.5
    assert _hours_in_all(tmp_path / "missing.json") == 0.0


@pytest.mark.parametrize("extra, message", [
    (["--finder-from", "missing.pt"], "no such checkpoint"),
    (["--real", "/nowhere"], "no real photos at"),
    (["--finder-model", "yolo11n.pt"], "model yaml"),
    (["--scenes", "1"], "at least 10"),
    (["--finder-hours", "0"], "or 0 with --finder-from"),
    (["--finder-hours", "-1"], "must be positive"),
])
def test_train_options_are_checked_before_training(capsys, extra, message):
    pytest.importorskip("ultralytics")
    assert main(["train", *extra]) == 2
    assert message in capsys.readouterr().err


def test_train_help_describes_every_option(capsys):
    with pytest.raises(SystemExit):
        main(["train", "--help"])
    text = capsys.readouterr().out
    assert "--classifier-minutes" in text and "training time, wall-clock" in text


def test_the_classifiers_process_ends_when_the_recipes_is_killed():
    """``kill`` runs no ``finally``: the classifier's process must notice by itself."""
    # The recipe passes its own pid, as the recipe does: a child asking for its parent's only
    # once started could already be an orphan.
    recipe = subprocess.Popen([sys.executable, "-c", """if True:
        import os, subprocess, sys, time
        code = f"from cribcam.training.recipe import end_with_parent; end_with_parent({os.getpid()}, every=0.1)"
        child = subprocess.Popen([sys.executable, "-c", code])
        print(child.pid, flush=True)
        time.sleep(60)"""], stdout=subprocess.PIPE, text=True)
    child_pid = int(recipe.stdout.readline())
    recipe.kill()
    recipe.wait()

    def alive() -> bool:  # a zombie is gone too: it only waits to be reaped
        try:
            return "State:\tZ" not in Path(f"/proc/{child_pid}/status").read_text()
        except FileNotFoundError:
            return False

    deadline = time.monotonic() + 30
    while alive() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not alive()
