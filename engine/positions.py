"""Sinusoidal positional encodings and their exact offset algebra (NumPy reference).

Each public function is the formula applied to the frequencies ω_i = 10000^(-2i/d); the
formula itself (``encoding_at``, ``rotation_by``, ...) takes the frequencies as an argument, so
engine.mutations reruns it with a slip in the frequencies instead of copying it.
"""

from __future__ import annotations

import numpy as np

from engine._common import check_even


def frequencies(d: int) -> np.ndarray:
    """ω_i = 10000^(-2i/d) for channel pairs i = 0 .. d/2 - 1."""
    check_even(d)
    return 10000.0 ** (-np.arange(0, d, 2) / d)  # [d/2]


def encoding_at(positions: np.ndarray, omega: np.ndarray) -> np.ndarray:
    """PE(p, 2i) = sin(p ω_i), PE(p, 2i+1) = cos(p ω_i) for each p in `positions`."""
    phase = positions[:, None] * omega  # [n_positions, d/2]
    pe = np.empty((len(positions), 2 * len(omega)))
    pe[:, 0::2] = np.sin(phase)
    pe[:, 1::2] = np.cos(phase)
    return pe  # [n_positions, d]


def sinusoidal_encoding(n_positions: int, d: int) -> np.ndarray:
    """PE(p, 2i) = sin(p ω_i), PE(p, 2i+1) = cos(p ω_i) for positions p = 0 .. n_positions - 1."""
    return encoding_at(np.arange(n_positions), frequencies(d))  # [n_positions, d]


def rotation_by(theta: np.ndarray) -> np.ndarray:
    """Block-diagonal [d, d] with pair i's block [[cos θ_i, -sin θ_i], [sin θ_i, cos θ_i]]."""
    d = 2 * len(theta)
    even = np.arange(0, d, 2)
    R = np.zeros((d, d))
    R[even, even] = R[even + 1, even + 1] = np.cos(theta)
    R[even, even + 1] = -np.sin(theta)
    R[even + 1, even] = np.sin(theta)
    return R  # [d, d]


def offset_rotation(k: float, d: int) -> np.ndarray:
    """Block-diagonal R(k) [d, d] with PE(p + k) = PE(p) @ R(k) for every p (row convention).

    Pair i's block is [[cos kω_i, -sin kω_i], [sin kω_i, cos kω_i]]: the transpose of the
    notes' column-form matrix, because here the row vector multiplies from the left.
    """
    return rotation_by(k * frequencies(d))  # [d, d]


def dot_at_offset(k: float, omega: np.ndarray) -> float:
    """Σ_i cos(k ω_i)."""
    return float(np.cos(k * omega).sum())


def encoding_dot(k: float, d: int) -> float:
    """PE(p) · PE(p + k) = Σ_i cos(k ω_i), the same for every p."""
    return dot_at_offset(k, frequencies(d))


def sq_distance_at_offset(k: float, omega: np.ndarray) -> float:
    """2 Σ_i (1 - cos(k ω_i))."""
    return float(2.0 * (1.0 - np.cos(k * omega)).sum())


def encoding_sq_distance(k: float, d: int) -> float:
    """‖PE(p + k) - PE(p)‖² = 2 Σ_i (1 - cos(k ω_i)); oscillates, so not monotonic in k."""
    return sq_distance_at_offset(k, frequencies(d))
