"""Slips in softmax, masks, scaled dot-product and multi-head attention (beside engine/attention.py).

Every function has the signature of the engine function it replaces; the multi-head versions
rerun the reference layer with the slipped attention step inside it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from engine._common import as_mask
from engine.attention import attention_with, heads_then_output, scaled_dot_product_attention, softmax
from engine.mutations.base import Mutation

Attention = Callable[..., tuple[np.ndarray, np.ndarray]]


# --- softmax over the keys, done wrong ----------------------------------------------------------

def softmax_over_queries(x: ArrayLike, axis: int = -1, mask: ArrayLike | None = None) -> np.ndarray:
    """softmax down each column (axis -2, over the queries) where the rows (over the keys) were meant."""
    return softmax(x, axis=-2 if axis in (-1, np.ndim(x) - 1) else -1, mask=mask)


def softmax_then_mask(x: ArrayLike, axis: int = -1, mask: ArrayLike | None = None) -> np.ndarray:
    """softmax(x) ⊙ (1 - M): the mask zeroes weights after the softmax, so rows no longer sum to 1."""
    weights = softmax(x, axis=axis)
    return weights if mask is None else np.where(as_mask(mask), 0.0, weights)


def softmax_zero_filled(x: ArrayLike, axis: int = -1, mask: ArrayLike | None = None) -> np.ndarray:
    """softmax(x with blocked scores set to 0): 0 is a score like any other, e^0 = 1 still counts."""
    scores = np.asarray(x, dtype=float)
    return softmax(scores if mask is None else np.where(as_mask(mask), 0.0, scores), axis=axis)


# --- scaled dot-product attention, done wrong ---------------------------------------------------

def attention_unscaled(q: ArrayLike, k: ArrayLike, v: ArrayLike, mask: ArrayLike | None = None,
                       scale: bool | float = True) -> tuple[np.ndarray, np.ndarray]:
    """Z = softmax(Q Kᵀ + M) V: the 1/√d_k left out."""
    return scaled_dot_product_attention(q, k, v, mask, scale=False)


def attention_scaled_by_d_k(q: ArrayLike, k: ArrayLike, v: ArrayLike, mask: ArrayLike | None = None,
                            scale: bool | float = True) -> tuple[np.ndarray, np.ndarray]:
    """Z = softmax(Q Kᵀ / d_k + M) V: divided by d_k instead of √d_k."""
    return scaled_dot_product_attention(q, k, v, mask, scale=1.0 / np.shape(q)[-1])


def q_k(q: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Q K, K used as stored: [T_q, d_k] @ [T_k, d_k] exists only when d_k = T_k."""
    scores: np.ndarray = q @ k  # [..., T_q, d_k = T_k]
    return scores


def k_qt(q: np.ndarray, k: np.ndarray) -> np.ndarray:
    """K Qᵀ: entry (j, i) is k_j · q_i, the transpose of the scores ([T_k, T_q])."""
    scores: np.ndarray = k @ np.swapaxes(q, -1, -2)  # [..., T_k, T_q]
    return scores


def _with(**steps: Any) -> Attention:
    """scaled_dot_product_attention with one step replaced (see engine.attention.attention_with)."""
    def attend(q: ArrayLike, k: ArrayLike, v: ArrayLike, mask: ArrayLike | None = None,
               scale: bool | float = True) -> tuple[np.ndarray, np.ndarray]:
        return attention_with(q, k, v, mask, scale, **steps)
    return attend


def _normalized_by(slipped_softmax: Callable[..., np.ndarray]) -> Attention:
    return _with(normalize=lambda scores, mask: slipped_softmax(scores, mask=mask))


def _heads(attend: Attention) -> Callable[..., tuple[np.ndarray, np.ndarray]]:
    """multi_head_attention whose every head attends with `attend`."""
    return functools.partial(heads_then_output, attend=attend)


def _attention_slip(id: str, slip: str, attend: Attention, **more: Callable[..., Any]) -> Mutation:
    """A slip inside attention reaches single-head and multi-head attention alike."""
    return Mutation(id, slip, {**more, "scaled_dot_product_attention": attend, "multi_head_attention": _heads(attend)})


def mask_omitted(T: int) -> np.ndarray:
    """No causal mask: every query sees every key (an all-False mask [T, T])."""
    return np.zeros((T, T), dtype=bool)


MUTATIONS = (
    _attention_slip("no_sqrt_dk_scaling", "scores not divided by √d_k", attention_unscaled),
    _attention_slip("scaled_by_d_k", "scores divided by d_k instead of √d_k", attention_scaled_by_d_k),
    _attention_slip("softmax_over_wrong_axis", "softmax over the queries (columns) instead of the keys (rows)",
                    _normalized_by(softmax_over_queries), softmax=softmax_over_queries),
    _attention_slip("k_instead_of_k_transpose", "scores Q K instead of Q Kᵀ (where d_k = T_k)", _with(product=q_k)),
    _attention_slip("k_times_q_transpose", "scores K Qᵀ instead of Q Kᵀ", _with(product=k_qt)),
    Mutation("causal_mask_omitted", "the causal mask left out", {"causal_mask": mask_omitted}),
    _attention_slip("mask_applied_after_softmax", "the mask applied to the weights after the softmax",
                    _normalized_by(softmax_then_mask), softmax=softmax_then_mask),
    _attention_slip("mask_filled_with_zero", "blocked scores set to 0 instead of -∞",
                    _normalized_by(softmax_zero_filled), softmax=softmax_zero_filled),
)
