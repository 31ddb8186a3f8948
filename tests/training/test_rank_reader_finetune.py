"""Fine-tuning the text recognizer: conversion to torch, a few steps, and the exported ONNX."""

import cv2
import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("onnx2torch")

import onnx  # noqa: E402 (after the importorskip above: without it the module is skipped, not failed)
import torch  # noqa: E402 (after the importorskip above: without it the module is skipped, not failed)
from onnx import numpy_helper  # noqa: E402 (after the importorskip above: without it the module is skipped, not failed)

from cribcam.scoring.cards import RANKS  # noqa: E402 (after the importorskip above: without it the module is skipped, not failed)
from cribcam.training import rank_reader as finetune  # noqa: E402 (after the importorskip above: without it the module is skipped, not failed)
from cribcam.training.onnx_weights import full_precision  # noqa: E402 (after the importorskip above: without it the module is skipped, not failed)
from cribcam.vision.models import onnx_session, rank_reader_file  # noqa: E402 (after the importorskip above: without it the module is skipped, not failed)
from cribcam.vision.rank_reader import RANK_TEXTS, RankReader, index_lines  # noqa: E402 (after the importorskip above: without it the module is skipped, not failed)


@pytest.fixture(scope="module")
def bundled():
    path = rank_reader_file()
    if path is None:
        pytest.skip("models/rank_reader.onnx is missing")
    torch.set_num_threads(2)
    return path


def corner(text: str) -> finetune.Example:
    """A card corner: the rank above a suit-like blob, on a table colour, and its index box."""
    picture = np.full((120, 100, 3), (60, 110, 40), np.uint8)
    picture[10:110, 10:90] = 245
    (width, height), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, 1.0, 2)
    cv2.putText(picture, text, (20, 20 + height), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (20, 20, 20), 2, cv2.LINE_AA)
    cv2.circle(picture, (20 + width // 2, 38 + height + 6), 7, (20, 20, 20), -1)
    box = np.array([15, 15, 25 + max(width, 16), 50 + height], np.float32)
    return finetune.Example(picture, box, RANK_TEXTS.index(text))


def test_the_converted_model_reads_a_line_as_onnxruntime_does(bundled):
    model, _ = finetune.torch_recognizer(bundled)
    example = corner("Q")
    line = index_lines(example.image, example.box)[0]
    x = (line.transpose(2, 0, 1)[None] / 127.5 - 1.0).astype(np.float32)
    session = onnx_session(bundled, 2)
    expected = session.run(None, {session.get_inputs()[0].name: x})[0]
    with torch.no_grad():
        got = torch.softmax(model(torch.from_numpy(x)), -1).numpy()
    assert got.shape == expected.shape
    assert np.abs(got - expected).max() < 1e-4


def test_a_few_steps_export_a_model_the_rank_reader_loads(bundled, tmp_path):
    model, names = finetune.torch_recognizer(bundled)
    chosen = finetune.trainable(model)
    assert chosen and all(p.requires_grad for p in chosen.values())
    before = {k: v.detach().clone() for k, v in chosen.items()}
    scorer = finetune.RankScorer(RankReader(bundled, threads=2))
    optimizer = torch.optim.AdamW(list(chosen.values()), lr=1e-4)
    examples = [corner(t) for t in ("Q", "7", "10", "A")]
    rng = np.random.default_rng(0)
    truth = torch.tensor([e.rank for e in examples])
    for _ in range(2):
        loss, rank_loss, kl, scores = finetune.batch_loss(model, None, scorer, [finetune.augment(rng, e) for e in examples],
                                                          truth, 0.0)
        assert scores.shape == (len(examples), len(RANKS)) and torch.isfinite(loss)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    assert any(not torch.equal(before[k], v) for k, v in chosen.items())

    path = finetune.export_onnx(chosen, names, tmp_path / "rank_reader.onnx", bundled)
    # The trained weights are the exported ones, stored in half precision as the bundled ones.
    exported = {w.name: numpy_helper.to_array(w) for w in full_precision(onnx.load(str(path))).graph.initializer}
    for torch_name, weight in chosen.items():
        np.testing.assert_array_equal(exported[names[torch_name]],
                                      weight.detach().numpy().astype(np.float16).astype(np.float32))
    assert finetune.check_export(model, path) < 1e-2
    reader = RankReader(path, threads=2)
    assert reader.characters == RankReader(bundled, threads=2).characters
    example = examples[0]
    likelihoods = reader(example.image, example.box[None])
    assert likelihoods.shape == (1, len(RANKS)) and np.isfinite(likelihoods).all()
