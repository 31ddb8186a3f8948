"""Mixed training sets: every real photo listed `repeat` times, checkpoints chosen on synthetic val."""

from pathlib import Path

import pytest
import yaml

from cribcam.cli.main import main
from cribcam.datagen import yolo
from cribcam.training.mix import mixed_data


def _data_set(root: Path, counts: dict[str, int]) -> Path:
    yolo.make_dirs(root, counts)
    for part, n in counts.items():
        for i in range(n):
            (root / "images" / part / f"{part}{i}.jpg").write_bytes(b"jpeg")
    yolo.write_data_yaml(root, {part: f"images/{part}" for part in counts}, "test set")
    return root / "data.yaml"


def test_real_photos_are_repeated_and_validation_stays_synthetic(tmp_path):
    synthetic = _data_set(tmp_path / "synth", {"train": 3, "val": 2})
    real = _data_set(tmp_path / "real", {"train": 2, "val": 4})
    data = yaml.safe_load(mixed_data(synthetic, real, 3, tmp_path / "mix").read_text())
    train = Path(data["train"]).read_text().split()
    val = Path(data["val"]).read_text().split()
    assert len(train) == 3 + 2 * 3
    assert sum("/real/" in p for p in train) == 6 and len(set(train)) == 5
    assert len(val) == 2 and all("/synth/images/val/" in p for p in val)
    assert data["nc"] == 52 and data["names"][0] == "AC" and data["names"][51] == "KS"


def test_a_set_without_a_validation_part_is_refused(tmp_path):
    synthetic = _data_set(tmp_path / "synth", {"train": 1, "val": 1})
    real = tmp_path / "real.yaml"
    real.write_text("path: /nowhere\ntrain: images/train\n")
    with pytest.raises(ValueError, match="no 'val' part"):
        mixed_data(synthetic, real, 1, tmp_path / "mix")


@pytest.mark.parametrize("extra, message", [
    (["--set", "lr0"], "expected KEY=VALUE"),
    (["--real", "missing.yaml"], "no real photo set"),
    (["--real-repeat", "0"], "at least 1"),
])
def test_train_options_are_checked_before_training(tmp_path, capsys, extra, message):
    pytest.importorskip("ultralytics")
    data = _data_set(tmp_path / "synth", {"train": 1, "val": 1})
    real = _data_set(tmp_path / "real", {"train": 1, "val": 1})
    args = ["train", "--data", str(data), *extra]
    if "--real" not in extra:
        args += ["--real", str(real)]
    assert main(args) == 2
    assert message in capsys.readouterr().err
