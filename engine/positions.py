"""Sinusoidal positional encodings and their exact offset algebra (NumPy reference)."""

from __future__ import annotations

import numpy as np

from engine._common import check_even


def _frequencies(d: int) -> np.ndarray:
    """ω_i = 10000^(-2i/d) for channel pairs i = 0 .. d/2 - 1."""
    check_even(d)
    return 10000.0 ** (-np.arange(0, d, 2) / d)  # [d/2]


def sinusoidal_encoding(n_positions: int, d: int) -> np.ndarray:
    """PE(p, 2i) = sin(p ω_i), PE(p, 2i+1) = cos(p ω_i) for positions p = 0 .. n_positions - 1."""
    phase = np.arange(n_positions)[:, None] * _frequencies(d)  # [n_positions, d/2]
    pe = np.empty((n_positions, d))
    pe[:, 0::2] = np.sin(phase)
    pe[:, 1::2] = np.cos(phase)
    return pe  # [n_positions, d]


def offset_rotation(k: float, d: int) -> np.ndarray:
    """Block-diagonal R(k) [d, d] with PE(p + k) = PE(p) @ R(k) for every p (row convention).

    Pair i's block is [[cos kω_i, -sin kω_i], [sin kω_i, cos kω_i]]: the transpose of the
    notes' column-form matrix, because here the row vector multiplies from the left.
    """
    theta = k * _frequencies(d)  # [d/2]
    even = np.arange(0, d, 2)
    R = np.zeros((d, d))
    R[even, even] = R[even + 1, even + 1] = np.cos(theta)
    R[even, even + 1] = -np.sin(theta)
    R[even + 1, even] = np.sin(theta)
    return R  # [d, d]


def encoding_dot(k: float, d: int) -> float:
    """PE(p) · PE(p + k) = Σ_i cos(k ω_i), the same for every p."""
    return float(np.cos(k * _frequencies(d)).sum())


def encoding_sq_distance(k: float, d: int) -> float:
    """‖PE(p + k) - PE(p)‖² = 2 Σ_i (1 - cos(k ω_i)); oscillates, so not monotonic in k."""
    return float(2.0 * (1.0 - np.cos(k * _frequencies(d))).sum())
