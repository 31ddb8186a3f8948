"""The whole training recipe at a toy size, for tests (about a minute on the CPU)."""

from __future__ import annotations

from pathlib import Path

from cribcam.training.recipe import Recipe, run

TINY_IMGSZ = 128


def tiny_recipe(real_photos: Path, out: Path) -> Recipe:
    """The real recipe with every size cut down: a few scenes, one finder epoch, seconds of
    classifier training."""
    return Recipe(work=out / "work", models=out / "models", real=real_photos, scenes=24, seed=0, workers=0,
                  finder_crop=64, finder_imgsz=TINY_IMGSZ, finder_hours=0.001, finder_batch=8,
                  real_repeat=0, art_crops=200, font_decks=2, font_crops=100, font_scenes=6, joker_crops=50,
                  classifier_minutes=0.1, classifier_batch=32)


def train_tiny_models(real_photos: Path, out: Path) -> Path:
    """Runs the tiny recipe and returns the folder holding its two ONNX models."""
    recipe = tiny_recipe(real_photos, out)
    run(recipe)
    return recipe.models
