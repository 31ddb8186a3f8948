"""The finder's forward pass in OpenVINO, where the ``fast`` extra installs it.

The finder's one pass is most of a photo's read (``bench/profile_reader.py``): on a 2-core
Intel Xeon onnxruntime takes 35 ms for a 640x640 frame, OpenVINO 16 ms in the bfloat16 it picks
on CPUs that compute in it, 30 ms in float32 (models/HISTORY.md, "Speed"). onnxruntime stays the
runtime every platform has: where OpenVINO is not installed, cannot load the model or is
turned off (``CRIBCAM_RUNTIME=onnxruntime``), the finder runs as before.
"""

from __future__ import annotations

import logging
import queue
from pathlib import Path

import numpy as np

from cribcam.settings import openvino_allowed

log = logging.getLogger(__name__)
_FAILED: set[Path] = set()  # models OpenVINO failed on, said once



class OpenVinoForward:
    """A compiled model called like ``forward(blob) -> first output``, safe across threads.

    Each pass takes an inference request of its own, from those made before and idle, or a
    new one: as many are made as passes ever ran at once (a server's reads at once), not one
    for each of its request threads, each holding its buffers for good.
    """

    def __init__(self, compiled):
        self.compiled = compiled
        self.idle: queue.SimpleQueue = queue.SimpleQueue()
        self.precision = compiled.get_property("INFERENCE_PRECISION_HINT").to_string()  # "bf16", "f32"

    def __call__(self, blob: np.ndarray) -> np.ndarray:
        try:
            request = self.idle.get_nowait()
        except queue.Empty:
            request = self.compiled.create_infer_request()
        try:
            return request.infer({0: blob})[0]  # a copy: the request's own buffers are used again
        finally:
            self.idle.put(request)


def openvino_forward(path: Path, threads: int = 0) -> OpenVinoForward | None:
    """The model at ``path`` compiled by OpenVINO for the CPU, for the lowest latency, or None
    where OpenVINO is not to be used (see the module)."""
    if not openvino_allowed():
        return None
    try:
        import openvino
    except ImportError:
        return None
    config = {"PERFORMANCE_HINT": "LATENCY"}
    if threads:
        config["INFERENCE_NUM_THREADS"] = threads
    try:
        core = openvino.Core()
        return OpenVinoForward(core.compile_model(core.read_model(str(path)), "CPU", config))
    except Exception as exc:  # noqa: BLE001 (an OpenVINO that cannot run this model leaves onnxruntime to it)
        if path not in _FAILED:  # said once a model, not at every reader made on it
            _FAILED.add(path)
            log.warning("OpenVINO cannot run %s (%s: %s): its passes run in onnxruntime",
                        path, type(exc).__name__, exc)
        return None

