"""A model's float32 weights kept in half precision on disk, computed in float32.

The rank reader's 5.3 M weights are 20 MiB of float32, most of them its output layer over 18,708
characters: the largest file of a checkout that travels whole to a lent GPU machine (64 MiB in
all, the training pack beside it) and of every wheel. Stored as float16, each cast back to
float32 where the graph begins, they take half. onnxruntime folds those casts when it loads the
model, so a pass computes in float32 as before, on weights rounded to float16 (a relative error
under 5e-4 each).

Training reads such a file back in float32 (``full_precision``), changes it and stores it half
again (``store_half``); both need the ``onnx`` package of the ``train`` extra. Reading a model so
stored needs nothing but the runtime.
"""

from __future__ import annotations

import numpy as np

HALF_SUFFIX = "_half"  # the stored initializer's name: the cast's output keeps the original name
SMALLEST = 16  # values: smaller float initializers (scalars, a few constants) stay float32


def store_half(model) -> bool:
    """Stores the float32 weights of ``model`` (an ``onnx.ModelProto``, changed in place) as
    float16, each cast back to float32 by a node at the graph's start. Returns whether it changed
    (False when no float32 weight of ``SMALLEST`` values or more is left)."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    graph = model.graph
    casts = []
    for weight in list(graph.initializer):
        if weight.data_type != TensorProto.FLOAT or int(np.prod(weight.dims)) < SMALLEST:
            continue
        half = numpy_helper.to_array(weight).astype(np.float16)
        if not np.isfinite(half).all():  # beyond float16's range: kept as it is
            continue
        graph.initializer.remove(weight)
        graph.initializer.append(numpy_helper.from_array(half, weight.name + HALF_SUFFIX))
        casts.append(helper.make_node("Cast", [weight.name + HALF_SUFFIX], [weight.name],
                                      name=weight.name + HALF_SUFFIX + "_to_float", to=TensorProto.FLOAT))
    if not casts:
        return False
    nodes = casts + list(graph.node)
    del graph.node[:]
    graph.node.extend(nodes)
    onnx.checker.check_model(model)
    return True


def full_precision(model):
    """``model`` (an ``onnx.ModelProto``, changed in place and returned) with each weight that
    ``store_half`` stored as float16 a float32 initializer of its own name again, its cast gone:
    the graph as it was exported, for a converter or a training run to read."""
    from onnx import TensorProto, numpy_helper

    graph = model.graph
    halves = {weight.name: weight for weight in graph.initializer if weight.name.endswith(HALF_SUFFIX)}
    for cast in [node for node in graph.node if node.op_type == "Cast" and node.input[0] in halves]:
        half = halves[cast.input[0]]
        assert half.data_type == TensorProto.FLOAT16, half.name
        graph.initializer.remove(half)
        graph.initializer.append(numpy_helper.from_array(numpy_helper.to_array(half).astype(np.float32),
                                                         cast.output[0]))
        graph.node.remove(cast)
    return model
