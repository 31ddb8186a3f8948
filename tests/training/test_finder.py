"""The finder's training crops (every index somewhere inside, boxes kept only when mostly in),
the real photos' share of its batches, and its export."""

import shutil
from pathlib import Path

import cv2
import numpy as np
import onnx
import pytest

from cribcam.training.finder import (
    FinderSource,
    ShareSampler,
    boxes_in_window,
    crop_windows,
    cut_finder_crops,
    decode_boxes_on_last_axis,
    finder_train_args,
    image_boxes,
    turned_images,
    turned_quarters,
    write_finder_data,
)
from cribcam.vision.finder import letterbox

PHOTOS = Path(__file__).parents[1] / "data" / "photos"


def test_crops_around_an_index_hold_it_whole():
    rng = np.random.default_rng(0)
    boxes = np.array([[300, 200, 320, 230]], np.float32)
    for x, y in crop_windows(rng, boxes, 640, 640, 96, around=20, random_share=0)[:20]:
        assert x <= 300 and 320 <= x + 96 and y <= 200 and 230 <= y + 96


def test_crop_windows_stay_inside_the_image():
    rng = np.random.default_rng(1)
    boxes = np.array([[0, 0, 12, 20], [620, 610, 640, 640]], np.float32)
    for x, y in crop_windows(rng, boxes, 640, 640, 192, around=50, random_share=1.0):
        assert 0 <= x <= 640 - 192 and 0 <= y <= 640 - 192


def test_an_image_without_indices_gives_only_random_crops():
    rng = np.random.default_rng(2)
    windows = crop_windows(rng, np.zeros((0, 4), np.float32), 640, 640, 192, around=2, random_share=1.0)
    assert len(windows) == 1


def test_a_box_cut_by_the_crop_edge_is_kept_only_when_mostly_inside():
    boxes = np.array([[10, 10, 30, 30],    # inside
                      [90, 10, 110, 30],   # half out of a 100 crop: dropped
                      [85, 50, 105, 70]],  # three quarters in: kept, clipped
                     np.float32)
    kept = boxes_in_window(boxes, 0, 0, 100)
    assert kept.tolist() == [[10, 10, 30, 30], [85, 50, 100, 70]]


@pytest.mark.parametrize("quarters", [1, 2, 3, 4])
def test_an_image_turned_by_quarters_keeps_its_box_on_the_print(quarters):
    image = np.zeros((60, 90, 3), np.uint8)  # not square: a whole photo turns as a crop does
    image[5:15, 70:82] = 255  # the "index": x 70..82, y 5..15
    turned, boxes = turned_quarters(image, np.array([[70, 5, 82, 15]], np.float32), quarters)
    ys, xs = np.nonzero(turned[..., 0])
    assert boxes.tolist() == [[xs.min(), ys.min(), xs.max() + 1, ys.max() + 1]]
    assert turned.shape[:2] == ((90, 60) if quarters % 2 else (60, 90)) and turned.flags["C_CONTIGUOUS"]


def test_whole_images_are_listed_turned_in_about_the_share_asked_their_labels_turned_with_them(tmp_path):
    photos = FinderSource(crop_set(tmp_path / "photos", "train", 40), "train", turned_share=0.5)
    scenes = FinderSource(crop_set(tmp_path / "scenes", "train", 10), "train")
    write_finder_data(tmp_path / "finder", train=[scenes, photos], val=[], size=None, seed=0)
    listed = [Path(line) for line in (tmp_path / "finder" / "train.txt").read_text().splitlines()]
    folder = turned_images(tmp_path / "finder", photos).resolve()
    turned = [path for path in listed if path.parent == folder]
    assert len(listed) == 50 and 10 <= len(turned) <= 30
    assert all(path.parent == (tmp_path / "scenes" / "images" / "train").resolve() for path in listed[:10])
    assert len({path.stem.split("-")[0] for path in listed[10:]}) == 40  # each photo once, as taken or turned
    for path in turned:
        image, boxes = image_boxes(path, folder.parents[1], "train")
        ys, xs = np.nonzero(image[..., 0] > 170)
        assert np.abs(boxes - [[xs.min(), ys.min(), xs.max() + 1, ys.max() + 1]]).max() <= 1
        as_taken = image.shape[:2] == (120, 160) and np.abs(boxes - [[70, 40, 82, 60]]).max() <= 1
        assert not as_taken


def crop_set(root: Path, part: str, images: int) -> Path:
    """Images whose one index is a white block on grey, labelled."""
    (root / "images" / part).mkdir(parents=True)
    (root / "labels" / part).mkdir(parents=True)
    for k in range(images):
        image = np.full((120, 160, 3), 90, np.uint8)
        image[40:60, 70:82] = 255  # an index 12 wide, 20 high
        cv2.imwrite(str(root / "images" / part / f"{k}.jpg"), image)
        (root / "labels" / part / f"{k}.txt").write_text(f"0 {76 / 160} {50 / 120} {12 / 160} {20 / 120}\n")
    return root


def written_boxes(out: Path) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Each crop written, by name, and its boxes in pixels."""
    written = {}
    for image_path in sorted((out / "images" / "train").glob("*.jpg")):
        image = cv2.imread(str(image_path))
        size = image.shape[0]
        rows = [line.split()[1:] for line in (out / "labels" / "train" / f"{image_path.stem}.txt").read_text().splitlines()]
        boxes = np.array([[float(x) - float(w) / 2, float(y) - float(h) / 2, float(x) + float(w) / 2,
                           float(y) + float(h) / 2] for x, y, w, h in rows]).reshape(-1, 4) * size
        written[image_path.stem] = image, boxes
    return written


def test_a_share_of_a_sources_crops_is_turned_with_its_boxes_and_none_of_the_others(tmp_path):
    photos, scenes = crop_set(tmp_path / "photos", "train", 40), crop_set(tmp_path / "scenes", "train", 40)
    cut_finder_crops([FinderSource(photos, "train", turned_share=0.5), FinderSource(scenes, "train")],
                     tmp_path / "out", "train", 64, seed=3, random_share=0)
    lying = {"photos": 0, "scenes": 0}
    for name, (image, boxes) in written_boxes(tmp_path / "out").items():
        (index,) = boxes
        x1, y1, x2, y2 = np.round(index).astype(int)
        assert image[y1 + 2:y2 - 2, x1 + 2:x2 - 2].min() > 200  # the box still on the white block
        lying[name.split("-")[0]] += x2 - x1 > y2 - y1
    assert lying["scenes"] == 0  # never turned
    assert 20 <= lying["photos"] <= 40  # of 80 crops, half turned, two thirds of those a quarter or three: ~27


def test_a_source_without_turns_is_cut_where_the_windows_fall_as_before(tmp_path):
    photos = crop_set(tmp_path / "photos", "train", 5)
    cut_finder_crops([FinderSource(photos, "train", 2)], tmp_path / "out", "train", 64, seed=4)
    rng, index = np.random.default_rng(4), np.array([[70, 40, 82, 60]], np.float32)
    expected = {f"photos-{k}-{copy}{n}": boxes_in_window(index, x, y, 64)
                for k in range(5) for copy in range(2)
                for n, (x, y) in enumerate(crop_windows(rng, index, 160, 120, 64, 2, 1 / 3))}
    written = written_boxes(tmp_path / "out")
    assert written.keys() == expected.keys()
    assert all(np.allclose(written[name][1], boxes, atol=0.01) for name, boxes in expected.items())


@pytest.mark.parametrize("times, share", [(-1, 0.0), (1, 1.5), (1, float("nan"))])
def test_a_source_cut_a_negative_number_of_times_or_turned_beyond_all_is_refused(tmp_path, times, share):
    with pytest.raises(ValueError):
        FinderSource(tmp_path, "train", times, share)


def test_only_a_fresh_finder_warms_up():
    def args(continued):
        return finder_train_args(Path("data.yaml"), Path("runs/finder"), 192, 0.1, 8, 0.001, 0, 1,
                                 continued=continued)

    assert args(continued=False)["warmup_epochs"] > 0
    assert args(continued=True)["warmup_epochs"] == 0
    assert args(continued=True)["optimizer"] == "AdamW"


def batches_of(sampler):
    order = list(sampler)
    assert len(order) == len(sampler)
    return [order[k:k + sampler.batch] for k in range(0, len(order), sampler.batch)]


@pytest.mark.parametrize("real, other, batch, share", [(5, 40, 8, 0.25), (17, 44, 8, 0.15), (238, 16600, 64, 0.15),
                                                       (3, 30, 4, 0.1)])
def test_every_batch_holds_the_real_photos_share_and_every_other_image_each_epoch(real, other, batch, share):
    sampler = ShareSampler(list(range(real)), list(range(real, real + other)), batch, share, seed=3)
    for _ in range(2):  # a second epoch of the same sampler as well
        batches = batches_of(sampler)
        assert all(len(b) == batch for b in batches)
        in_each = [sum(i < real for i in b) for b in batches]
        assert all(abs(n - batch * share) < 1 for n in in_each)  # the share, to within one image
        assert abs(sum(in_each) - share * len(sampler)) < 1  # and over the epoch
        assert set(range(real, real + other)) <= {i for b in batches for i in b}
    fresh = ShareSampler(list(range(real)), list(range(real, real + other)), batch, share, seed=4)
    counts = np.bincount([i for i in fresh if i < real], minlength=real)
    assert counts.max() - counts.min() <= 1  # read round after round, not as luck has it


def test_a_share_of_none_reads_no_real_photo_and_an_impossible_share_is_refused():
    sampler = ShareSampler([0, 1], list(range(2, 12)), 4, 0.0, seed=0)
    assert len(sampler) == 12 and not {0, 1} & set(sampler)
    with pytest.raises(ValueError, match="below 1"):
        ShareSampler([0], [1, 2], 4, 1.0, seed=0)
    with pytest.raises(ValueError, match="no real photos among the training images"):
        ShareSampler([], [1, 2], 4, 0.2, seed=0)


@pytest.mark.slow
def test_an_exported_finder_decodes_boxes_on_the_last_axis_with_the_same_outputs(tmp_path, shipped_models):
    import onnxruntime as ort
    from ultralytics import YOLO

    checkpoint = tmp_path / "finder.pt"
    shutil.copyfile(shipped_models / "checkpoints" / "finder.pt", checkpoint)
    as_exported = Path(YOLO(str(checkpoint)).export(format="onnx", imgsz=640, dynamic=True, opset=17))
    rewritten = tmp_path / "rewritten.onnx"
    shutil.copyfile(as_exported, rewritten)

    assert decode_boxes_on_last_axis(rewritten)
    assert not decode_boxes_on_last_axis(rewritten), "a second rewrite finds nothing left to do"
    softmax_axes = [attribute.i for node in onnx.load(str(rewritten)).graph.node if node.op_type == "Softmax"
                    for attribute in node.attribute if attribute.name == "axis"]
    assert 1 not in softmax_axes

    blob, _, _ = letterbox(cv2.imread(str(PHOTOS / "webcam-5-cards.jpg")), 640, 32)
    before, after = (ort.InferenceSession(str(path)).run(None, {"images": blob})[0] for path in (as_exported, rewritten))
    assert before.shape == after.shape
    np.testing.assert_allclose(after, before, atol=1e-3)


def test_the_shipped_finder_is_rewritten(tmp_path, shipped_models):
    copy = tmp_path / "finder.onnx"
    shutil.copyfile(shipped_models / "finder.onnx", copy)
    assert not decode_boxes_on_last_axis(copy), "ship finders as export_finder writes them"
