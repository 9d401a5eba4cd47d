"""Slips in sinusoidal positional encodings (beside engine/positions.py).

The reference formulas take the frequencies (and positions) as arguments, so each slip here is
the reference formula given the slipped input.
"""

from __future__ import annotations

import numpy as np

from engine._common import check_even
from engine.mutations.base import Mutation
from engine.positions import (
    dot_at_offset,
    encoding_at,
    frequencies,
    rotation_by,
    sinusoidal_encoding,
    sq_distance_at_offset,
)

# --- sin and cos swapped -----------------------------------------------------------------------


def encoding_cos_sin(n_positions: int, d: int) -> np.ndarray:
    """PE(p, 2i) = cos(p ω_i), PE(p, 2i+1) = sin(p ω_i): each pair swapped."""
    pe = sinusoidal_encoding(n_positions, d)  # [n_positions, d]
    return pe[:, np.arange(d) ^ 1]  # column 2i ↔ 2i+1


def rotation_for_cos_sin(k: float, d: int) -> np.ndarray:
    """R(k) for pairs (cos, sin): blocks [[cos kω_i, sin kω_i], [-sin kω_i, cos kω_i]], i.e. R(-k)."""
    return rotation_by(-k * frequencies(d))  # [d, d]


# --- ω_i = 10000^(-i/d) instead of 10000^(-2i/d) ---------------------------------------------


def frequencies_by_i(d: int) -> np.ndarray:
    """ω_i = 10000^(-i/d), i = 0 .. d/2 - 1: the pair index used where the channel index 2i belongs."""
    check_even(d)
    return 10000.0 ** (-np.arange(d // 2) / d)  # [d/2]


def encoding_freq_by_i(n_positions: int, d: int) -> np.ndarray:
    return encoding_at(np.arange(n_positions), frequencies_by_i(d))  # [n_positions, d]


def rotation_freq_by_i(k: float, d: int) -> np.ndarray:
    return rotation_by(k * frequencies_by_i(d))  # [d, d]


def dot_freq_by_i(k: float, d: int) -> float:
    return dot_at_offset(k, frequencies_by_i(d))


def sq_distance_freq_by_i(k: float, d: int) -> float:
    return sq_distance_at_offset(k, frequencies_by_i(d))


# --- positions counted from 1 ----------------------------------------------------------------


def encoding_from_one(n_positions: int, d: int) -> np.ndarray:
    """PE for positions p = 1 .. n_positions: the first token given position 1, not 0."""
    return encoding_at(np.arange(1, n_positions + 1), frequencies(d))  # [n_positions, d]


MUTATIONS = (
    Mutation("pe_sin_cos_swapped", "cos in the even channels and sin in the odd ones",
             {"sinusoidal_encoding": encoding_cos_sin, "offset_rotation": rotation_for_cos_sin}),
    Mutation("pe_wrong_frequency_index", "frequency 10000^(-i/d) instead of 10000^(-2i/d)",
             {"sinusoidal_encoding": encoding_freq_by_i, "offset_rotation": rotation_freq_by_i,
              "encoding_dot": dot_freq_by_i, "encoding_sq_distance": sq_distance_freq_by_i}),
    Mutation("pe_positions_from_one", "positions counted from 1 instead of 0",
             {"sinusoidal_encoding": encoding_from_one}),
)
