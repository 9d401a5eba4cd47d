"""Label smoothing, the warm-up schedule, teacher forcing and the dot-product variance
experiment (NumPy reference)."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from engine._common import as_float_array, check_sequence, check_smoothing, check_warmup_step


def label_smoothing_targets(n_classes: int, target: ArrayLike, eps: float, convention: str = "uniform") -> np.ndarray:
    """uniform: q_i = (1 - ε)·1[i = y] + ε/V; non_gold: q_y = 1 - ε and q_i = ε/(V - 1) otherwise.

    An int target gives [V]; an int array [N] gives [N, V].
    """
    y = np.asarray(target)
    check_smoothing(n_classes, y, eps, convention)
    if convention == "uniform":
        gold, other = 1.0 - eps + eps / n_classes, eps / n_classes
    else:
        gold, other = 1.0 - eps, eps / (n_classes - 1)
    return np.where(np.arange(n_classes) == y[..., None], gold, other)  # [..., V]


def smoothed_cross_entropy(logits: ArrayLike, target: ArrayLike, eps: float, convention: str = "uniform") -> float:
    """L = mean over rows of -Σ_i q_i log softmax(logits)_i, q from label_smoothing_targets."""
    z = as_float_array(logits)
    q = label_smoothing_targets(z.shape[-1], target, eps, convention)  # [..., V]
    shifted = z - z.max(axis=-1, keepdims=True)  # stable: the largest logit becomes 0
    log_p = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))  # [..., V]
    return float(-(q * log_p).sum(axis=-1).mean())


def warmup_lr(step: float, d_model: int, warmup: int = 4000) -> float:
    """η(s) = d^-0.5 · min(s^-0.5, s · w^-1.5): linear rise to s = w, then s^-0.5 decay."""
    check_warmup_step(step)
    return float(d_model**-0.5 * min(step**-0.5, step * warmup**-1.5))


def teacher_forcing_inputs(targets: ArrayLike, bos: int) -> np.ndarray:
    """Decoder inputs [bos, y_1, ..., y_(T-1)] along the last axis: the labels shifted right.

    Given predictions instead of gold labels, it builds the free-running inputs.
    """
    y = np.asarray(targets)
    check_sequence(y)
    start = np.full(y.shape[:-1] + (1,), bos, dtype=y.dtype)  # [..., 1]
    return np.concatenate([start, y[..., :-1]], axis=-1)  # [..., T]


def dot_product_variance(rng: np.random.Generator, d_k: int, n_samples: int = 20000) -> tuple[float, float]:
    """(Var(q·k), Var(q·k / √d_k)) for q, k ~ N(0, I_d_k), drawn q first then k: ≈ (d_k, 1)."""
    q = rng.normal(size=(n_samples, d_k))
    k = rng.normal(size=(n_samples, d_k))
    dot = np.sum(q * k, axis=1)  # [n_samples]
    return float(np.var(dot)), float(np.var(dot / math.sqrt(d_k)))
