"""Fitting a taught deck's heads in numpy: softmax regression on the bundled classifier's features.

Teaching a deck learns no convolution: the bundled classifier's trunk already sees index
glyphs of many designs, and a linear correction of its heads on its pooled features learns a
deck's glyphs from a few crops of each in seconds on the CPU, with no torch
(``cribcam.teach.lesson``).
"""

from __future__ import annotations

import numpy as np

from cribcam.vision.classifier import softmax


def standardise(features: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The mean and scale that bring each feature to mean 0 and standard deviation 1."""
    mean = features.mean(axis=0)
    return mean, features.std(axis=0) + 1e-6


def fit_softmax(x: np.ndarray, y: np.ndarray, weight: np.ndarray, offset: np.ndarray, decay: float = 1e-3,
                steps: int = 300, lr: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """A multinomial logistic regression on top of given logits, fitted by full-batch Adam.

    The logits are ``offset + x @ weights + bias``: starting from zero, the fit learns only
    what the offset (the bundled head's log-probabilities) gets wrong, and the decay keeps
    it from changing what it got right.

    Args:
        x: (n, F) standardised features.
        y: (n,) classes, 0 to ``classes - 1``.
        weight: (n,) each sample's weight in the loss (the loss is their weighted mean).
        offset: (n, classes) logits the fit adds to.
        decay: the L2 penalty on the weights and the bias: the correction stays small where
            the offset is right, and a lesson's mix of classes moves no class's prior.
        steps: Adam steps.
        lr: Adam's step size.

    Returns:
        The (F, classes) weights and (classes,) bias.
    """
    n, width = x.shape
    classes = offset.shape[1]
    share = (weight / weight.sum()).astype(np.float32)[:, None]
    target = np.zeros((n, classes), np.float32)
    target[np.arange(n), y] = 1.0
    params = [np.zeros((width, classes), np.float32), np.zeros(classes, np.float32)]
    moments = [[np.zeros_like(p), np.zeros_like(p)] for p in params]
    for step in range(1, steps + 1):
        error = (softmax(offset + x @ params[0] + params[1]) - target) * share  # d(weighted mean loss)/d(logits)
        grads = [x.T @ error + decay * params[0], error.sum(axis=0) + decay * params[1]]
        for p, g, m in zip(params, grads, moments):
            m[0] = 0.9 * m[0] + 0.1 * g
            m[1] = 0.999 * m[1] + 0.001 * g * g
            p -= lr * (m[0] / (1 - 0.9 ** step)) / (np.sqrt(m[1] / (1 - 0.999 ** step)) + 1e-8)
    return params[0], params[1]
