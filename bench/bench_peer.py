"""The reader against its peer: a bare YOLO11n forward pass at 640 beside `CardReader.read`.

The simplest YOLO card reader (the design card's) is one 52-class YOLO11n read once at 640 by
onnxruntime. This exports such a network (its weights do not change its cost: untrained) and
times one forward pass on each of the bench's photos, letterboxed to 640x640, alternately with
`CardReader.read` of the same photo as `bench_reader.py` reads it, in one process, with the same
onnxruntime settings (``vision.models.onnx_session``), and in OpenVINO too where the ``fast``
extra is installed; it prints the medians and the ratios.
Needs the ``train`` extra (ultralytics exports the peer).

Run: python bench/bench_peer.py [--repeats 40] [--model DIR]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import tempfile
import time
from pathlib import Path

from bench_reader import COUNT_HELP, PHOTOS, PHOTOS_HELP, bench_photos  # a sibling in bench/

from cribcam.vision import CardReader
from cribcam.vision.fast_runtime import openvino_forward
from cribcam.vision.finder import letterbox
from cribcam.vision.models import onnx_session

PEER_CLASSES = 52


def export_peer(folder: Path) -> Path:
    """A 52-class YOLO11n exported to ONNX at a fixed 640x640 input."""
    os.environ.setdefault("YOLO_OFFLINE", "1")
    import yaml
    from ultralytics import YOLO
    from ultralytics.nn.tasks import yaml_model_load

    spec = yaml_model_load("yolo11n.yaml")
    spec["nc"] = PEER_CLASSES
    path = folder / "yolo11n.yaml"  # the name tells ultralytics the scale, n
    path.write_text(yaml.safe_dump({k: v for k, v in spec.items() if k != "yaml_file"}))
    here = os.getcwd()
    os.chdir(folder)  # ultralytics exports into the working folder
    try:
        exported = YOLO(str(path)).export(format="onnx", imgsz=640, simplify=False, dynamic=False, opset=17)
    finally:
        os.chdir(here)
    return folder / exported


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=None, help="a model folder (default: the bundled models)")
    parser.add_argument("--photos", type=Path, default=PHOTOS, help=PHOTOS_HELP)
    parser.add_argument("--repeats", type=int, default=40, metavar="N", help=COUNT_HELP)
    args = parser.parse_args()
    reader = CardReader(args.model)
    photos = bench_photos(args.photos, args.repeats)
    with tempfile.TemporaryDirectory(prefix="peer-") as scratch:
        peer_path = export_peer(Path(scratch))
        session = onnx_session(peer_path)
        name = session.get_inputs()[0].name
        classes = session.get_outputs()[0].shape[1] - 4
        # The peer in each runtime the reader's finder may use: onnxruntime, and OpenVINO where
        # the fast extra is installed (vision.fast_runtime).
        peers = {"onnxruntime": lambda blob: session.run(None, {name: blob})}
        fast = openvino_forward(peer_path)
        if fast is not None:
            peers[f"openvino ({fast.precision})"] = fast
        for forward in peers.values():  # warm-up, each
            forward(letterbox(photos[0][0], 640)[0])
        reader.read(photos[0][0])
        times: dict[str, list[float]] = {key: [] for key in [*peers, "reader"]}
        for image, expected in photos:
            for key, forward in peers.items():
                start = time.perf_counter()
                forward(letterbox(image, 640)[0])
                times[key].append((time.perf_counter() - start) * 1000)
            start = time.perf_counter()
            reader.read(image, expected=expected)
            times["reader"].append((time.perf_counter() - start) * 1000)
    medians = {key: statistics.median(values) for key, values in times.items()}
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}; "
          f"{len(photos)} photos")
    for key in peers:
        print(f"YOLO11n, {classes} classes, one forward pass at 640x640 in {key} (letterbox included): "
              f"median {medians[key]:.1f} ms")
    print(f"CardReader.read, as bench_reader.py reads (finder in {reader.finder.runtime}): "
          f"median {medians['reader']:.1f} ms")
    for key in peers:
        print(f"ratio: the reader takes {medians['reader'] / medians[key]:.2f} times the peer's pass in {key}")


if __name__ == "__main__":
    main()
