"""Training the index finder: a one-class YOLO detector, trained on crops around the indices.

On two CPU cores a detector trained on whole 640-pixel scenes pays for every pixel of table
and card face in each step and learns next to nothing in an hour. The finder is trained on
small crops cut around the labelled indices of the scenes at their native scale instead: every
pixel a step pays for is near an index, and an index keeps the size it has in a 640 frame.
YOLO is fully convolutional, so the trained model reads whole frames (and tiles) at run time.
A GPU machine affords the whole scenes (``write_finder_data`` with no crop size; the run on a
lent GPU, ``training.device_run``). Which card an index shows is the classifier's job
(``training.classifier``): one class here.
"""

from __future__ import annotations

import math
import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from cribcam.datagen import yolo

CLASS_NAMES = ("index",)
KEEP_SHARE = 0.6  # a box cut by a crop's edge is labelled when this share of it is inside


@dataclass(frozen=True)
class FinderSource:
    """A part of a built data set the finder learns from or is validated on.

    Attributes:
        data_dir: the data set's folder (``images/<part>``, ``labels/<part>``).
        part: its part ("train" or "val").
        times: each image cut into crops (or listed, whole) this many times, each time at other
            places.
        turned_share: the share of its crops (or of its whole images' listings) turned a
            quarter, half or three quarters round, their boxes with them. Real photos hold their
            cards upright or half round; turned a quarter, the finder boxes fewer of their indices
            (models/HISTORY.md, "Real photos turned"), while the drawn scenes hold cards every way
            already.
    """

    data_dir: Path
    part: str
    times: int = 1
    turned_share: float = 0.0

    def __post_init__(self):
        if self.times < 0:
            raise ValueError(f"an image is cut a number of times, 0 or more, not {self.times}")
        if not 0 <= self.turned_share <= 1:  # NaN too
            raise ValueError(f"the share of crops turned is from 0 to 1, not {self.turned_share}")


def image_boxes(image_path: Path, data_dir: Path, part: str) -> tuple[np.ndarray, np.ndarray]:
    """An image of a built data set and its index boxes (n, 4) in pixels, classes dropped."""
    image = cv2.imread(str(image_path))
    height, width = image.shape[:2]
    label = data_dir / "labels" / part / f"{image_path.stem}.txt"
    boxes = [box for _, box in yolo.read_labels(label, width, height)] if label.is_file() else []
    return image, np.array(boxes, np.float32).reshape(-1, 4)


def crop_windows(rng: np.random.Generator, boxes: np.ndarray, width: int, height: int, size: int,
                 around: int, random_share: float) -> list[tuple[int, int]]:
    """Top-left corners of the crops to cut from one image.

    ``around`` crops each hold a randomly chosen index somewhere inside (not always in the
    middle, so the finder never learns that indices sit at the centre); with probability
    ``random_share`` one more crop is taken anywhere, often with no index in it at all.
    """
    windows = []
    for _ in range(around if len(boxes) else 0):
        x1, y1, x2, y2 = boxes[int(rng.integers(len(boxes)))]
        low_x, high_x = x2 - size, x1  # the crop's left edge that keeps the box inside
        low_y, high_y = y2 - size, y1
        windows.append((int(rng.uniform(min(low_x, high_x), max(low_x, high_x))),
                        int(rng.uniform(min(low_y, high_y), max(low_y, high_y)))))
    if rng.random() < random_share:
        windows.append((int(rng.integers(0, max(width - size, 0) + 1)),
                        int(rng.integers(0, max(height - size, 0) + 1))))
    return [(int(np.clip(x, 0, max(width - size, 0))), int(np.clip(y, 0, max(height - size, 0))))
            for x, y in windows]


def boxes_in_window(boxes: np.ndarray, x: int, y: int, size: int) -> np.ndarray:
    """The boxes that are mostly inside a crop, clipped to it, in the crop's pixels."""
    shifted = boxes - [x, y, x, y]
    clipped = np.clip(shifted, 0, size)
    area = (shifted[:, 2:] - shifted[:, :2]).prod(axis=1)
    inside = (clipped[:, 2:] - clipped[:, :2]).clip(0).prod(axis=1)
    keep = inside >= KEEP_SHARE * np.maximum(area, 1e-6)
    return clipped[keep]


def turned_quarters(image: np.ndarray, boxes: np.ndarray, quarters: int) -> tuple[np.ndarray, np.ndarray]:
    """An image turned ``quarters`` quarter turns counter-clockwise (``np.rot90``), and its
    (n, 4) boxes in pixels turned with it, exactly."""
    for _ in range(quarters % 4):
        width = image.shape[1]
        image = np.rot90(image)
        # a pixel at (x, y) goes to (y, width - x): x1..x2 becomes the rows width - x2..width - x1
        boxes = np.stack([boxes[:, 1], width - boxes[:, 2], boxes[:, 3], width - boxes[:, 0]], axis=1)
    return np.ascontiguousarray(image), boxes


def cut_finder_crops(sources: list[FinderSource], out: Path, out_part: str, size: int,
                     seed: int, around: int = 2, random_share: float = 1 / 3) -> int:
    """Cuts the finder's training or validation crops and writes them as a one-class YOLO set.

    Args:
        sources: the parts to cut, each image ``times`` times.
        out: the crop data set's folder.
        out_part: its part to write ("train" or "val").
        size: crop side in pixels.
        seed: random seed (the same seed cuts the same crops).
        around, random_share: as for ``crop_windows``.

    Returns:
        The number of crops written.
    """
    rng = np.random.default_rng(seed)
    yolo.make_dirs(out, [out_part])
    written = 0
    for source in sources:
        data_dir, part = source.data_dir, source.part
        for image_path in sorted((data_dir / "images" / part).glob("*.jpg")):
            image, boxes = image_boxes(image_path, data_dir, part)
            height, width = image.shape[:2]
            padded = _pad_to(image, size)
            for copy in range(source.times):
                for k, (x, y) in enumerate(crop_windows(rng, boxes, width, height, size, around, random_share)):
                    name = f"{data_dir.name}-{image_path.stem}-{copy}{k}"
                    crop, inside = padded[y:y + size, x:x + size], boxes_in_window(boxes, x, y, size)
                    # drawn only for a share above 0, so a set without turns is cut as before
                    if source.turned_share and rng.random() < source.turned_share:
                        crop, inside = turned_quarters(crop, inside, int(rng.integers(1, 4)))
                    cv2.imwrite(str(out / "images" / out_part / f"{name}.jpg"), crop, [cv2.IMWRITE_JPEG_QUALITY, 92])
                    (out / "labels" / out_part / f"{name}.txt").write_text(_index_lines(inside, size, size))
                    written += 1
    return written


def _pad_to(image: np.ndarray, size: int) -> np.ndarray:
    """Pads an image smaller than a crop with the letterbox grey, right and bottom."""
    height, width = image.shape[:2]
    if height >= size and width >= size:
        return image
    return cv2.copyMakeBorder(image, 0, max(0, size - height), 0, max(0, size - width),
                              cv2.BORDER_CONSTANT, value=(114, 114, 114))


def write_finder_data(out: Path, train: list[FinderSource], val: list[FinderSource],
                      size: int | None, seed: int) -> Path:
    """The finder's data set in ``out`` (once: a finished set is kept), and its data.yaml.

    Args:
        train, val: the parts to learn from and to validate on.
        size: the side of the crops cut around the indices (the 2-core recipe), or None for
            the whole images, each listed ``times`` times (a GPU machine affords them), a
            turned copy written (``turned_images``) and listed instead where it is drawn turned.
        seed: seed of the crops and of the turns.
    """
    done = out / "data.yaml"
    if done.is_file():
        return done
    if out.exists():
        shutil.rmtree(out)  # a half-written set from a cut run
    if size is None:
        out.mkdir(parents=True)
        rng = np.random.default_rng(seed)
        counts = {part: _list_images(sources, out, part, rng) for part, sources in (("train", train), ("val", val))}
        parts, what = {part: str((out / f"{part}.txt").resolve()) for part in counts}, "whole images"
    else:
        counts = {part: cut_finder_crops(sources, out, part, size, seed + i)
                  for i, (part, sources) in enumerate((("train", train), ("val", val)))}
        parts, what = {"train": "images/train", "val": "images/val"}, f"crops of {size} px"
    yolo.write_data_yaml(out, parts, f"cribcam finder {what}: {counts['train']} train, {counts['val']} val",
                         names=CLASS_NAMES)
    return done


def turned_images(out: Path, source: FinderSource) -> Path:
    """The folder of the turned copies of a source's whole images in the finder's data ``out``
    (a training run that treats the source's images apart finds its turned ones here)."""
    return out / "turned" / source.data_dir.name / "images" / source.part


def _list_images(sources: list[FinderSource], out: Path, part: str, rng: np.random.Generator) -> int:
    """Writes the images of ``sources``, each ``times`` times, into ``out/<part>.txt``; each
    listing is drawn turned with the source's ``turned_share``, and then a turned copy is
    written and listed instead (ultralytics finds each image's labels beside its images
    folder). Returns how many lines."""
    listed = []
    for source in sources:
        for path in sorted((source.data_dir / "images" / source.part).glob("*.jpg")):
            for copy in range(source.times):
                # drawn only for a share above 0, so a set without turns is listed as before
                turned = source.turned_share and rng.random() < source.turned_share
                listed.append(_turned_copy(out, source, path, copy, int(rng.integers(1, 4))) if turned else path)
    (out / f"{part}.txt").write_text("".join(f"{path.resolve()}\n" for path in listed))
    return len(listed)


def _turned_copy(out: Path, source: FinderSource, image_path: Path, copy: int, quarters: int) -> Path:
    """A whole image of ``source`` turned ``quarters`` quarter turns, with its labels; its path."""
    image, boxes = image_boxes(image_path, source.data_dir, source.part)
    image, boxes = turned_quarters(image, boxes, quarters)
    height, width = image.shape[:2]
    images = turned_images(out, source)
    labels = images.parent.parent / "labels" / source.part
    images.mkdir(parents=True, exist_ok=True)
    labels.mkdir(parents=True, exist_ok=True)
    name = f"{image_path.stem}-{copy}"
    cv2.imwrite(str(images / f"{name}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, 95])
    (labels / f"{name}.txt").write_text(_index_lines(boxes, width, height))
    return images / f"{name}.jpg"


def _index_lines(boxes: np.ndarray, width: int, height: int) -> str:
    """One-class YOLO label text for (n, 4) pixel boxes in a width x height image."""
    return "".join(f"0 {(a + c) / 2 / width:.6f} {(b + d) / 2 / height:.6f} "
                   f"{(c - a) / width:.6f} {(d - b) / height:.6f}\n" for a, b, c, d in boxes)


def check_share(share: float) -> None:
    """Raises ``ValueError`` for a share of real photos a batch cannot hold (at least 0, below 1)."""
    if not 0 <= share < 1:
        raise ValueError(f"the real photos' share must be at least 0 and below 1, not {share}")


class ShareSampler:
    """The order in which an epoch reads the training images: ``share`` of every batch from
    ``real`` (the real photos), the rest from ``other``.

    The other images are each read once an epoch, in a new random order (the last batch topped
    up from another), so an epoch is ``batches`` full batches however few the real photos; these
    are drawn round after round, each round in a new random order and an epoch taking up where
    the last left off, so each is read as often as the others. Batch ``b`` holds
    ``floor((b + 1) * batch * share) - floor(b * batch * share)`` of them: the share to within
    one image in every batch, and to within one over the epoch. A torch sampler (``__iter__``
    and ``__len__``), iterated where the data loader runs.
    """

    def __init__(self, real: list[int], other: list[int], batch: int, share: float, seed: int):
        check_share(share)
        if share > 0 and not real:
            raise ValueError(f"a share of {share} of real photos, and no real photos among the training images")
        if not other or batch < 1:
            raise ValueError("a batch of at least one, and images other than the real photos, are needed")
        self.real, self.other, self.batch, self.share = list(real), list(other), batch, share
        self.batches = math.ceil(len(other) / (batch * (1 - share)))
        rng = np.random.default_rng(seed)
        self._rng, self._reals = rng, self._rounds(self.real, rng)

    def real_in_batch(self, b: int) -> int:
        """How many real photos batch ``b`` of an epoch holds."""
        per_batch = self.batch * self.share
        return math.floor((b + 1) * per_batch + 1e-9) - math.floor(b * per_batch + 1e-9)

    def __len__(self) -> int:
        return self.batches * self.batch

    def __iter__(self) -> Iterator[int]:
        others = self._rounds(self.other, self._rng)
        for b in range(self.batches):
            real = self.real_in_batch(b)
            chosen = [next(self._reals) for _ in range(real)] + [next(others) for _ in range(self.batch - real)]
            self._rng.shuffle(chosen)
            yield from (int(i) for i in chosen)

    @staticmethod
    def _rounds(indices: list[int], rng: np.random.Generator) -> Iterator[int]:
        while indices:
            yield from rng.permutation(indices)


def real_share_trainer(real_folders: list[Path], share: float, seed: int):
    """An ultralytics detection trainer whose every training batch holds ``share`` of real
    photos: the images listed from the folders ``real_folders`` (the photos, their turned
    copies), each listing drawn as often as the others (``ShareSampler``). ``YOLO.train``
    takes a trainer class, and a trainer builds its data loader in its public
    ``get_dataloader``, overridden here for the training images alone (the validation loader
    is ultralytics' own). Sound only without mosaic, which reads other images than the sampler
    picks (``finder_train_args`` turns it off), and on one device."""
    from ultralytics.data.build import InfiniteDataLoader, seed_worker
    from ultralytics.models.yolo.detect import DetectionTrainer

    roots = [folder.resolve() for folder in real_folders]

    class RealShareTrainer(DetectionTrainer):
        def get_dataloader(self, dataset_path: str, batch_size: int = 16, rank: int = 0, mode: str = "train"):
            if mode != "train":
                return super().get_dataloader(dataset_path, batch_size, rank, mode)
            import torch

            dataset = self.build_dataset(dataset_path, mode, batch_size)
            real = [i for i, image in enumerate(dataset.im_files)
                    if any(Path(image).resolve().is_relative_to(root) for root in roots)]
            other = sorted(set(range(len(dataset.im_files))) - set(real))
            self.real_share_sampler = ShareSampler(real, other, batch_size, share, seed)
            workers = min(self.args.workers, self.real_share_sampler.batches)
            generator = torch.Generator()
            generator.manual_seed(seed)
            return InfiniteDataLoader(dataset=dataset, batch_size=batch_size, sampler=self.real_share_sampler,
                                      num_workers=workers, prefetch_factor=4 if workers else None,
                                      pin_memory=self.device.type == "cuda",
                                      collate_fn=dataset.collate_fn, worker_init_fn=seed_worker, generator=generator)

    return RealShareTrainer


def train_finder(data_yaml: Path, run_dir: Path, model: str, imgsz: int, hours: float, batch: int,
                 lr: float, workers: int, seed: int, log=print, device: str = "cpu", cache: str | bool = "ram",
                 callbacks: dict[str, Callable] | None = None, trainer=None) -> Path:
    """Trains the finder for ``hours`` of wall-clock (or resumes the run in ``run_dir``).

    Args:
        model: an ultralytics model yaml to train from scratch, or a checkpoint to continue.
        device, cache: as ``finder_train_args`` takes them.
        callbacks: ultralytics event -> callback, added to the progress lines' (a GPU run
            fits its time to its deadline, and copies each better checkpoint out).
        trainer: an ultralytics trainer class (``real_share_trainer``), or None for its own.

    Returns:
        The best checkpoint (on the synthetic validation images).
    """
    from ultralytics import YOLO

    last = run_dir / "weights" / "last.pt"
    if last.is_file() and _finished(last):
        log(f"finder: {run_dir} has finished training")
        return _best(run_dir)
    started = time.monotonic()
    resumed = last.is_file()
    if resumed:
        log(f"finder: resuming {last}")
    yolo_model = YOLO(str(last) if resumed else model)
    for event, callback in [("on_fit_epoch_end", _progress(log, started)), *(callbacks or {}).items()]:
        yolo_model.add_callback(event, callback)
    if resumed:
        yolo_model.train(trainer=trainer, resume=True, time=hours, workers=workers)
    else:
        yolo_model.train(trainer=trainer, **finder_train_args(data_yaml, run_dir, imgsz, hours, batch, lr, workers,
                                                              seed, continued=model.endswith(".pt"), device=device,
                                                              cache=cache))
    return _best(run_dir)


def finder_train_args(data_yaml: Path, run_dir: Path, imgsz: int, hours: float, batch: int, lr: float,
                      workers: int, seed: int, continued: bool = False, device: str = "cpu",
                      cache: str | bool = "ram") -> dict:
    """The ultralytics arguments of a finder run (see the module docs for why these).

    Args:
        continued: the run continues a trained finder, so it skips the warm-up, whose high
            bias learning rate knocked a continued finder back (run 4's first epoch scored
            0.785 mAP50 after starting from 0.826).
        device: "cpu", or a GPU ("0"), where training uses mixed precision.
        cache: "ram" decodes every image once, before the first step (worth it over many
            epochs); False decodes them as they are loaded.
    """
    return dict(
        data=str(data_yaml), project=str(run_dir.parent.resolve()), name=run_dir.name, exist_ok=True,
        imgsz=imgsz, batch=batch, time=hours, epochs=1000, patience=1000, seed=seed, device=device,
        workers=workers, cache=cache, single_cls=True,
        # ultralytics' default optimizer picks MuSGD, whose orthogonalisation of every weight
        # matrix took 65 % of a CPU step; AdamW does the same job at a third of the time.
        optimizer="AdamW", lr0=lr, warmup_epochs=0.0 if continued else 0.5, cos_lr=True,
        # Crops are already cut at the scenes' scale: no mosaic; a mirrored index is no index.
        mosaic=0.0, close_mosaic=0, fliplr=0.0, flipud=0.0, degrees=0.0, scale=0.3, translate=0.1,
        hsv_h=0.02, hsv_s=0.6, hsv_v=0.5,
        plots=False, verbose=False, amp=device != "cpu", deterministic=False, val=True,
    )


def _progress(log, started: float):
    """Logs each epoch's end, and then the final validation of the best checkpoint, which
    ultralytics reports as one epoch more."""
    ended = False

    def report(trainer) -> None:
        nonlocal ended
        map50 = trainer.metrics.get("metrics/mAP50(B)", float("nan"))
        if ended:
            log(f"finder: best checkpoint, val mAP50 {map50:.3f}")
            return
        ended = trainer.stop
        elapsed = time.monotonic() - started
        epoch = trainer.epoch + 1
        # After each epoch ultralytics turns the time budget into epochs in all, counted from the
        # run's first start at this start's pace, and stops there: what is left is the epochs left.
        epochs = epoch if trainer.stop else max(trainer.epochs, epoch + 1)
        pace = (time.time() - trainer.train_time_start) / (epoch - trainer.start_epoch)
        log(f"finder: epoch {epoch}/{epochs}, val mAP50 {map50:.3f}, "
            f"{elapsed / 60:.1f} min this run, about {(epochs - epoch) * pace / 60:.0f} min left")
    return report


def _finished(last: Path) -> bool:
    import torch

    checkpoint = torch.load(last, map_location="cpu", weights_only=False)
    return checkpoint.get("epoch", 0) == -1  # ultralytics marks a finished run's last.pt so


def _best(run_dir: Path) -> Path:
    best = run_dir / "weights" / "best.pt"
    return best if best.is_file() else run_dir / "weights" / "last.pt"


def strip_checkpoint(checkpoint: Path, out: Path) -> Path:
    """A copy of a finder checkpoint without its optimizer, in half precision (a few MB),
    small enough to commit so that a later run can continue from it."""
    from ultralytics.utils.torch_utils import strip_optimizer

    out.parent.mkdir(parents=True, exist_ok=True)
    strip_optimizer(str(checkpoint), str(out))
    return out


def export_finder(checkpoint: Path, out: Path, imgsz: int) -> Path:
    """Exports the finder to ONNX at the run-time input size (it reads whole frames), with a
    free input shape so that a 4:3 frame is read at 640x480 rather than padded to a square.

    ultralytics writes the export beside the checkpoint it reads, so a copy is exported in a
    scratch folder: the committed checkpoints must not gain a stray 11 MB file.
    """
    import tempfile

    from ultralytics import YOLO

    with tempfile.TemporaryDirectory(prefix="finder-export-") as scratch:
        copy = Path(scratch) / "finder.pt"
        shutil.copyfile(checkpoint, copy)
        exported = Path(YOLO(str(copy)).export(format="onnx", imgsz=imgsz, simplify=False,
                                               dynamic=True, opset=17))
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(exported, out)
    decode_boxes_on_last_axis(out)
    return out


def decode_boxes_on_last_axis(path: Path) -> bool:
    """Rewrites an exported finder so that its box decoding takes its softmax over the last axis.

    The head spreads each box side over 16 bins and decodes it as the softmax's mean:
    ultralytics exports a transpose to (batch, 16, 4, anchors), a softmax over axis 1 and a
    1x1 convolution with the bins' values. onnxruntime takes a softmax over any axis but the
    last by transposing around it: 5.8 ms of a 45 ms pass on two cores. Transposed to (batch, 4,
    anchors, 16) instead, the softmax is over the last axis and the mean a matrix product: 0.6 ms,
    the same outputs. Returns whether the file changed (False when already rewritten).
    """
    import onnx
    from onnx import helper, numpy_helper

    model = onnx.load(str(path))
    graph = model.graph
    makers = {output: node for node in graph.node for output in node.output}
    users = {name: node for node in graph.node for name in node.input}
    weights = {tensor.name: tensor for tensor in graph.initializer}
    for softmax in [node for node in graph.node if node.op_type == "Softmax"]:
        transpose, conv = makers.get(softmax.input[0]), users.get(softmax.output[0])
        attribute = {a.name: helper.get_attribute_value(a) for a in softmax.attribute}
        if (transpose is None or transpose.op_type != "Transpose" or conv is None or conv.op_type != "Conv"
                or attribute.get("axis") != 1 or conv.input[1] not in weights
                or [helper.get_attribute_value(a) for a in transpose.attribute] != [[0, 2, 1, 3]]):
            continue
        bins = numpy_helper.to_array(weights[conv.input[1]])  # (1, 16, 1, 1): the bins' values
        del transpose.attribute[:]
        transpose.attribute.append(helper.make_attribute("perm", [0, 1, 3, 2]))
        del softmax.attribute[:]
        softmax.attribute.append(helper.make_attribute("axis", -1))
        graph.initializer.remove(weights[conv.input[1]])
        graph.initializer.append(numpy_helper.from_array(bins.reshape(-1, 1).astype(np.float32), conv.input[1]))
        index = list(graph.node).index(conv)
        graph.node.remove(conv)
        graph.node.insert(index, helper.make_node("MatMul", [softmax.output[0], conv.input[1]], list(conv.output),
                                                  name=f"{conv.name}_as_matmul"))
        onnx.checker.check_model(model)
        onnx.save(model, str(path))
        return True
    return False
