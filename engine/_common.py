"""Argument handling shared by the NumPy and PyTorch backends, so both accept and reject the
same inputs with the same messages. Only shapes and plain numbers are inspected here."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

SMOOTHING_CONVENTIONS = ("uniform", "non_gold")


def as_float_array(x: ArrayLike) -> np.ndarray:
    """Float arrays pass through unchanged (dtype preserved); anything else becomes float64."""
    a = np.asarray(x)
    return a if a.dtype.kind == "f" else a.astype(np.float64)


def as_mask(mask: ArrayLike) -> np.ndarray:
    """A boolean mask (True = blocked); other dtypes are refused because 0/1 or 0/-inf float
    masks have the opposite polarity in some libraries and would be silently misread."""
    m = np.asarray(mask)
    if m.dtype != np.bool_:
        raise TypeError(f"mask must be boolean with True = blocked, got dtype {m.dtype}")
    return m


def per_head_mask(mask: ArrayLike) -> np.ndarray:
    """A mask given per batch [B, T_q, T_k] gains a head axis [B, 1, T_q, T_k] (one mask for
    every head); [T_q, T_k] and [B, h, T_q, T_k] masks already broadcast against the weights."""
    m = as_mask(mask)
    return m[:, None] if m.ndim == 3 else m


def score_scale(scale: bool | float, d_k: int) -> float:
    """Multiplier of Q Kᵀ: 1/√d_k for True, 1 for False (the "forgot to scale" variant), else the float."""
    if isinstance(scale, bool):
        return 1.0 / math.sqrt(d_k) if scale else 1.0
    return float(scale)


def reject_fully_masked(row_blocked: ArrayLike) -> None:
    """Raise if any row has every key blocked: its softmax would be 0/0 = NaN."""
    blocked = np.asarray(row_blocked)
    if blocked.any():
        row = tuple(int(i) for i in np.argwhere(blocked)[0])
        raise ValueError(f"softmax: every key is masked in row {row}")


def head_width(d_model: int, num_heads: int) -> int:
    """d_k = d_model / h, which must divide exactly."""
    if num_heads < 1 or d_model % num_heads:
        raise ValueError(f"d_model={d_model} is not divisible by num_heads={num_heads}")
    return d_model // num_heads


def check_mha_args(
    d_model: int,
    num_heads: int,
    in_proj_weight: np.ndarray,
    in_proj_bias: np.ndarray | None,
    out_proj_weight: np.ndarray,
    out_proj_bias: np.ndarray | None,
) -> None:
    """h divides d_model; PyTorch-layout weights in_proj [3d, d] (+ [3d]), out_proj [d, d] (+ [d])."""
    head_width(d_model, num_heads)
    expected = (
        ("in_proj_weight", in_proj_weight, (3 * d_model, d_model)),
        ("in_proj_bias", in_proj_bias, (3 * d_model,)),
        ("out_proj_weight", out_proj_weight, (d_model, d_model)),
        ("out_proj_bias", out_proj_bias, (d_model,)),
    )
    for name, array, shape in expected:
        if array is not None and tuple(np.shape(array)) != shape:
            raise ValueError(f"{name}: expected shape {shape} for d_model={d_model}, got {tuple(np.shape(array))}")


def check_lengths(lengths: np.ndarray, T: int) -> None:
    """Every sequence keeps at least one key and fits in T positions."""
    if lengths.ndim != 1 or not ((lengths >= 1) & (lengths <= T)).all():
        raise ValueError(f"lengths must be a 1-D sequence of values in [1, {T}] (0 would mask every key), "
                         f"got {lengths.tolist()}")


def check_even(d: int) -> None:
    """Sinusoidal encodings pair channels (2i, 2i+1), so d must be even."""
    if d % 2:
        raise ValueError(f"sinusoidal encodings need an even width d, got d={d}")


def check_smoothing(n_classes: int, target: np.ndarray, eps: float, convention: str) -> None:
    """Known convention, 0 <= eps <= 1, integer targets in [0, V)."""
    if convention not in SMOOTHING_CONVENTIONS:
        raise ValueError(f"unknown label smoothing convention {convention!r}; choose one of {SMOOTHING_CONVENTIONS}")
    if not 0.0 <= eps <= 1.0:
        raise ValueError(f"label smoothing eps must lie in [0, 1], got {eps}")
    if convention == "non_gold" and n_classes < 2:
        raise ValueError("the non_gold convention needs at least 2 classes")
    if target.dtype.kind not in "iu" or not ((target >= 0) & (target < n_classes)).all():
        raise ValueError(f"targets must be integers in [0, {n_classes}), got {target.tolist()}")


def check_warmup_step(step: float) -> None:
    """The schedule uses step^-0.5, defined from step 1."""
    if step < 1:
        raise ValueError(f"warm-up schedule steps start at 1, got step={step}")



def check_sequence(targets: np.ndarray) -> None:
    """Teacher forcing shifts along the last axis, which therefore needs at least one token."""
    if targets.ndim == 0 or targets.shape[-1] == 0:
        raise ValueError("teacher forcing needs at least one target token along the last axis")
