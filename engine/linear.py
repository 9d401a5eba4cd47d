"""The row-oriented linear map shared by attention and the feed-forward network."""

from __future__ import annotations

import numpy as np


def affine(x: np.ndarray, W: np.ndarray, b: np.ndarray | None) -> np.ndarray:
    """x W + b for rows x [..., in] and a paper-layout W [in, out]; b may be absent."""
    y: np.ndarray = x @ W  # [..., out]
    return y if b is None else y + b
