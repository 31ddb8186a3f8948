"""The training recipe never rots: one epoch on a few tiny images gives a model that runs."""

import numpy as np

from cribcam.vision import CardReader


def test_tiny_training_run_exports_a_model_the_reader_runs(tiny_model, real_photos):
    assert tiny_model.suffix == ".onnx" and tiny_model.stat().st_size > 100_000
    reader = CardReader(tiny_model)
    assert reader.detector.imgsz == 64
    import cv2

    photo = cv2.imread(str(sorted((real_photos / "images").glob("*.jpg"))[0]))
    reading = reader.read(photo, expected=5)
    # Barely trained, it may read nothing; what matters is a well-formed reading.
    assert reading.width == 640 and reading.height == 640
    assert all(len(seen.card) == 2 for seen in reading.cards)
    assert isinstance(reading.problems, tuple)


def test_recipe_defaults_stay_offline_and_unflipped():
    from cribcam.training.recipe import Recipe

    args = Recipe(data="d.yaml").train_args()
    assert args["fliplr"] == 0.0 and args["flipud"] == 0.0  # mirrored indices are no cards
    assert args["plots"] is False  # plotting fetches a font
    assert "model" not in args and args["data"] == "d.yaml"


def test_run_folders_land_where_the_user_said(tmp_path, monkeypatch):
    from cribcam.training.recipe import Recipe

    monkeypatch.chdir(tmp_path)
    assert Recipe(data="d.yaml", project="runs").train_args()["project"] == str(tmp_path / "runs")
