"""The prepared GPU run (`bin/train-on-device`, ``training.device_pack``, ``training.device_run``),
here on the CPU: the pack from a share of the shared photos, a few fonts and wheels made here
(no network), then the run there at a toy size, as the device runs it, so that a lent session
spends its minutes training."""

import json
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from importlib import metadata

import pytest

pytest.importorskip("ultralytics", reason="training needs the train extra: pip install -e '.[train]'")

from cribcam.bundled import MODELS_DIR  # noqa: E402
from cribcam.training import device_pack  # noqa: E402 (after the importorskip above: without it the module is skipped, not failed)

pytestmark = pytest.mark.slow

EVERY = 14  # one shared photo in this many goes into the test's pack: all three kinds of photo


def local_wheels(folder):
    """Wheels of ``device_pack.WHEELS`` at the versions installed here, holding their metadata
    alone: the pack takes them from ``folder`` as `bin/train-on-device` downloads the real ones
    (the run here has those installed already)."""
    folder.mkdir()
    for name in device_pack.WHEELS:
        version, dist = metadata.version(name), name.replace("-", "_")
        info = f"{dist}-{version}.dist-info"
        files = {f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
                 f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: cribcam-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
        files[f"{info}/RECORD"] = "".join(f"{path},,\n" for path in [*files, f"{info}/RECORD"])
        with zipfile.ZipFile(folder / f"{dist}-{version}-py3-none-any.whl", "w") as wheel:
            for path, text in files.items():
                wheel.writestr(path, text)
    return folder


@pytest.fixture(scope="module")
def packed(tmp_path_factory, real_photos, deck_designs):
    # deck_designs: the pack takes the training designs from the deck cache, rendered there.
    from cribcam.datagen.font_decks import find_fonts

    root = tmp_path_factory.mktemp("device")
    photos = root / "real-photos"
    (photos / "images").mkdir(parents=True)
    labels = json.loads((real_photos / "labels.json").read_text())
    some = dict(sorted(labels.items())[::EVERY])
    for name in some:
        shutil.copy(real_photos / "images" / name, photos / "images" / name)
    (photos / "labels.json").write_text(json.dumps(some))
    ranks, suits = find_fonts()
    fonts = root / "fonts"
    fonts.mkdir()
    for path in {*ranks[:3], suits[0]}:
        shutil.copy(path, fonts / path.name)
    # A checkout of its own, the pack in a folder of it that git ignores, as .devpack is here.
    checkout = root / "checkout"
    subprocess.run(["git", "init", "-q", str(checkout)], check=True)
    (checkout / ".gitignore").write_text("packs/\n")
    shipped = checkout / device_pack.FINDERS["shipped"]  # the finder the run continues travels in the checkout
    shipped.parent.mkdir(parents=True)
    shutil.copy(MODELS_DIR / "checkpoints" / "finder.pt", shipped)
    record = device_pack.pack(checkout / "packs" / "first", photos, fonts, minutes=1.0,
                              wheels_from=local_wheels(root / "wheels"), checkout=checkout)
    return checkout / "packs" / "first", record, photos


def test_the_pack_holds_what_the_device_lacks_and_nothing_held_out(packed):
    from cribcam.datagen.card_art import load_manifest

    pack, record, photos = packed
    assert json.loads((pack / "pack.json").read_text()) == record
    assert [name.split("-")[0] for name in record["wheels"]] == ["ultralytics", "ultralytics_thop"]
    assert [name.split("-")[1] for name in record["wheels"]] == [metadata.version(name) for name in device_pack.WHEELS]
    with tarfile.open(pack / "decks.tar") as tar:
        designs = {name.split("/")[1] for name in tar.getnames()}
    manifest = load_manifest()["decks"]
    assert designs == {d["name"] for d in manifest if d["split"] == "train"}
    with tarfile.open(pack / "real.tar") as tar:
        packed_photos = {name.rsplit("/", 1)[-1].rsplit(".", 1)[0] for name in tar.getnames() if "/images/" in name}
    assert 0 < record["real"]["train_photos"] == len(packed_photos) < len(json.loads((photos / "labels.json").read_text()))
    # The call names the pack where it is, from the checkout's root: what the device carries.
    assert record["carry"] == ["packs/first"]
    assert record["finder"] == "models/checkpoints/finder.pt" and record["command"].endswith(f"--finder-from {record['finder']}")
    assert "--pack packs/first --out" in record["command"] and " packs/first/wheels/*.whl " in record["command"]
    assert device_pack.pack_place(pack, pack.parents[1]) == "packs/first"  # an earlier pack is replaced


def test_the_validation_photos_never_travel(packed, tmp_path):
    from cribcam.datagen.real_photos import convert

    pack, _, photos = packed
    split = convert(photos, tmp_path / "real")
    assert split["val"] > 0
    validation = {path.stem for path in (tmp_path / "real" / "images" / "val").glob("*.jpg")}
    with tarfile.open(pack / "real.tar") as tar:
        travelling = {name.rsplit("/", 1)[-1].rsplit(".", 1)[0] for name in tar.getnames()}
    assert not validation & travelling


def test_a_pack_too_large_to_travel_is_refused_with_the_sizes(packed, monkeypatch):
    pack, _, _ = packed
    monkeypatch.setattr(device_pack, "TRAVEL_LIMIT", device_pack.TRAVEL_MARGIN + 2**20)
    with pytest.raises(device_pack.PackError, match=r"the checkout \(.* MiB\) and the pack \(.* MiB\) would not travel"):
        device_pack.check_travel_size(pack)


def test_the_command_says_what_is_wrong_without_a_traceback(tmp_path, capsys):
    assert device_pack.main(["--real", str(tmp_path / "nowhere")]) == 2
    assert "no real photos at" in capsys.readouterr().err
    assert device_pack.main(["--minutes", "12"]) == 2
    assert "--minutes must be between 1 and 9" in capsys.readouterr().err


def test_the_run_there_trains_both_models_and_brings_back_what_the_reader_reads(packed, tmp_path):
    import numpy as np

    from cribcam.vision.classifier import IndexClassifier
    from cribcam.vision.finder import IndexFinder

    pack, packed_record, photos = packed
    out = tmp_path / "out"
    # As the device runs it: a module of the checkout, the pack beside it, the finder it names, a deadline.
    result = subprocess.run([sys.executable, "-m", "cribcam.training.device_run", "--pack", str(pack), "--out", str(out),
                             "--minutes", "1", "--work", str(tmp_path / "work"), "--tiny",
                             "--finder-from", str(pack.parents[1] / packed_record["finder"])],
                            capture_output=True, text=True, timeout=240)
    assert result.returncode == 0, result.stderr[-3000:]
    files = sorted(path.name for path in out.iterdir())
    assert files == ["classifier.onnx", "classifier.pt", "device-run.json", "device-run.log", "finder.onnx", "finder.pt"]
    assert all((out / name).stat().st_size < 16 * 2**20 for name in files)  # what the device sends back
    record = json.loads((out / "device-run.json").read_text())
    assert record["finder"]["epochs"] and record["classifier"]["steps"] > 0
    assert record["data"]["font_decks"] > 0 and record["data"]["real_photos"] > 0
    assert record["minutes"] < 1.5
    # Every real photo in their share of every batch once, half of them as turned copies.
    real_listed = re.search(r" (\d+) of them real photos, read ", (out / "device-run.log").read_text())
    assert real_listed and int(real_listed[1]) == record["data"]["real_photos"]
    assert list((tmp_path / "work").glob("run-*/finder/turned/real/images/train/*.jpg"))
    photo = __import__("cv2").imread(str(next((photos / "images").iterdir())))
    boxes = IndexFinder(out / "finder.onnx", conf=0.01)(photo).xyxy
    cards = IndexClassifier(out / "classifier.onnx")(photo, np.array([[10, 10, 60, 80]], np.float32))
    assert boxes.ndim == 2 and boxes.shape[1] == 4 and cards.shape == (1, 53)


def test_the_run_there_turns_the_real_crops_as_the_classifier_it_continues_was_trained(tmp_path):
    from cribcam.training.device_run import DeviceRun, classifier_job

    places = {"real": tmp_path / "real", "fonts": tmp_path / "fonts"}
    job = classifier_job(DeviceRun(pack=tmp_path, out=tmp_path / "out"), places)
    shipped = json.loads((MODELS_DIR / "training.json").read_text())["classifier"]["recipe"]
    assert job.draw.turn_real == shipped["turn_real_share"] > 0
