"""Weights stored in half precision: the file halves, the outputs stay, training reads them back
in float32, and the shipped rank reader is stored so."""

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

from cribcam.training.onnx_weights import HALF_SUFFIX, SMALLEST, full_precision, store_half


def _convolution(path, rng):
    weight = rng.normal(0, 0.2, (16, 3, 3, 3)).astype(np.float32)
    scale = np.array([2.0], np.float32)  # a scalar: too small to store half
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w"], ["y"], pads=[1, 1, 1, 1]), helper.make_node("Mul", ["y", "s"], ["z"])],
        "convolution", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 32, 32])],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, [1, 16, 32, 32])],
        [numpy_helper.from_array(weight, "w"), numpy_helper.from_array(scale, "s")])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))


def test_weights_stored_half_read_as_before(tmp_path):
    rng = np.random.default_rng(0)
    path = tmp_path / "model.onnx"
    _convolution(path, rng)
    x = rng.random((1, 3, 32, 32), dtype=np.float32)
    before, size = ort.InferenceSession(str(path)).run(None, {"x": x})[0], path.stat().st_size

    model = onnx.load(str(path))
    assert store_half(model)
    onnx.save(model, str(path))
    after = ort.InferenceSession(str(path)).run(None, {"x": x})[0]
    np.testing.assert_allclose(after, before, rtol=0, atol=2e-3 * np.abs(before).max())
    assert not np.array_equal(after, before)  # rounded, not the same weights
    assert path.stat().st_size < 0.7 * size
    stored = {w.name: w.data_type for w in onnx.load(str(path)).graph.initializer}
    assert stored == {"w" + HALF_SUFFIX: TensorProto.FLOAT16, "s": TensorProto.FLOAT}
    assert not store_half(model), "nothing left to store half"


def test_training_reads_the_weights_back_in_float32(tmp_path):
    rng = np.random.default_rng(1)
    path = tmp_path / "model.onnx"
    _convolution(path, rng)
    model = onnx.load(str(path))
    exported = {w.name: numpy_helper.to_array(w) for w in model.graph.initializer}
    store_half(model)

    model = full_precision(model)
    assert [node.op_type for node in model.graph.node] == ["Conv", "Mul"]  # the casts gone
    weights = {w.name: numpy_helper.to_array(w) for w in model.graph.initializer}
    assert weights.keys() == exported.keys() and weights["w"].dtype == np.float32
    np.testing.assert_allclose(weights["w"], exported["w"], rtol=1e-3)
    assert not np.array_equal(weights["w"], exported["w"])
    onnx.checker.check_model(model)


def test_the_shipped_rank_reader_stores_its_weights_half(shipped_models):
    weights = onnx.load(str(shipped_models / "rank_reader.onnx")).graph.initializer
    large = [w for w in weights if int(np.prod(w.dims)) >= SMALLEST and w.data_type in (TensorProto.FLOAT,
                                                                                         TensorProto.FLOAT16)]
    assert large and all(w.data_type == TensorProto.FLOAT16 for w in large)
