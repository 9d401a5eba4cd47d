"""Softmax, masks and the three attention mechanisms of the notes (NumPy reference)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike

from engine._common import (
    as_float_array,
    as_mask,
    check_lengths,
    check_mha_args,
    per_head_mask,
    reject_fully_masked,
    score_scale,
)
from engine.linear import affine


def softmax(x: ArrayLike, axis: int = -1, mask: ArrayLike | None = None) -> np.ndarray:
    """softmax(x)_i = exp(x_i - m) / Σ_j exp(x_j - m) over unmasked j, m = their max; masked entries are 0."""
    scores = as_float_array(x)
    if mask is not None:
        # -inf drops a key from the denominator and makes its exp() exactly 0.
        scores = np.where(as_mask(mask), -np.inf, scores)
    peak = scores.max(axis=axis, keepdims=True)
    if peak.min() == -np.inf:  # a row with no visible key; one scalar test keeps the common path fast
        reject_fully_masked(np.isneginf(peak).squeeze(axis))
    e: np.ndarray = np.exp(scores - peak)
    e /= e.sum(axis=axis, keepdims=True)
    return e


def causal_mask(T: int) -> np.ndarray:
    """M[i, j] = True (blocked) for j > i: query i sees keys 0..i only."""
    return np.triu(np.ones((T, T), dtype=bool), k=1)  # [T, T]


def padding_mask(lengths: ArrayLike, T: int) -> np.ndarray:
    """Key mask [B, 1, T], True at positions >= length; broadcasts against [B, T_q, T_k] scores."""
    n = np.asarray(lengths)
    check_lengths(n, T)
    return (np.arange(T) >= n[:, None])[:, None, :]  # [B, 1, T]


def scaled_dot_product_attention(
    q: ArrayLike, k: ArrayLike, v: ArrayLike, mask: ArrayLike | None = None, scale: bool | float = True
) -> tuple[np.ndarray, np.ndarray]:
    """Z = softmax(s Q Kᵀ + M) V, s = 1/√d_k (scale=True), 1 (False) or the given float; returns (Z, A)."""
    return attention_with(q, k, v, mask, scale)


def q_kt(q: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Q Kᵀ: entry (i, j) is q_i · k_j."""
    scores: np.ndarray = q @ np.swapaxes(k, -1, -2)  # [..., T_q, T_k]
    return scores


def masked_softmax(scores: np.ndarray, mask: ArrayLike | None) -> np.ndarray:
    """softmax over the keys (last axis) with blocked entries at -∞."""
    return softmax(scores, mask=mask)


# scaled_dot_product_attention's two steps, replaceable so that engine.mutations reruns it with
# one slip (scores K Qᵀ, a mask filled with 0) without a second copy of the rest.
Scores = Callable[[np.ndarray, np.ndarray], np.ndarray]
Normalize = Callable[[np.ndarray, "ArrayLike | None"], np.ndarray]


def attention_with(
    q: ArrayLike, k: ArrayLike, v: ArrayLike, mask: ArrayLike | None = None, scale: bool | float = True, *,
    product: Scores = q_kt, normalize: Normalize = masked_softmax,
) -> tuple[np.ndarray, np.ndarray]:
    """Z = normalize(s · product(Q, K), M) V; the reference is product = Q Kᵀ, normalize = masked softmax."""
    q, k, v = as_float_array(q), as_float_array(k), as_float_array(v)
    scores = product(q, k) * score_scale(scale, q.shape[-1])  # [..., T_q, T_k]
    weights = normalize(scores, mask)  # [..., T_q, T_k]
    return weights @ v, weights  # [..., T_q, d_v]


def additive_attention(
    enc: ArrayLike, dec: ArrayLike, W: ArrayLike, U: ArrayLike, v: ArrayLike
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Bahdanau: e_i = vᵀ tanh(h_i W + s U), α = softmax(e), c = Σ_i α_i h_i; returns (e, α, c)."""
    enc, dec = as_float_array(enc), as_float_array(dec)
    scores = np.tanh(enc @ np.asarray(W) + dec @ np.asarray(U)) @ np.asarray(v)  # [T_s]
    alpha = softmax(scores)  # [T_s]
    return scores, alpha, alpha @ enc  # context [d_h]


def _split_heads(x: np.ndarray, h: int) -> np.ndarray:
    """[B, T, h·d_k] → [B, h, T, d_k]: head i owns feature columns i·d_k .. (i+1)·d_k - 1."""
    B, T, d = x.shape
    return x.reshape(B, T, h, d // h).transpose(0, 2, 1, 3)  # [B, h, T, d_k]


def multi_head_attention(
    x_q: ArrayLike,
    x_kv: ArrayLike,
    in_proj_weight: np.ndarray,
    in_proj_bias: np.ndarray | None,
    out_proj_weight: np.ndarray,
    out_proj_bias: np.ndarray | None,
    num_heads: int,
    mask: ArrayLike | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Concat(head_1..head_h) W^O + b^O with head_i = Attention(X_q W_i^Q, X_kv W_i^K, X_kv W_i^V).

    Returns (out [B, T_q, d_model], per-head weights A [B, h, T_q, T_k]); unbatched [T, d_model]
    inputs give unbatched results. mask: [T_q, T_k] or [B, T_q, T_k] (shared by every head,
    e.g. padding_mask's [B, 1, T_k]) or [B, h, T_q, T_k].
    """
    return heads_then_output(x_q, x_kv, in_proj_weight, in_proj_bias, out_proj_weight, out_proj_bias, num_heads,
                             mask)


# The attention step and the output projection of multi_head_attention, replaceable so that
# engine.mutations can rerun the whole layer with one slip inside (its W^O left out, or its
# scores unscaled) without a second copy of the head bookkeeping.
Attend = Callable[..., tuple[np.ndarray, np.ndarray]]
Project = Callable[[np.ndarray, np.ndarray, np.ndarray | None], np.ndarray]


def heads_then_output(
    x_q: ArrayLike,
    x_kv: ArrayLike,
    in_proj_weight: np.ndarray,
    in_proj_bias: np.ndarray | None,
    out_proj_weight: np.ndarray,
    out_proj_bias: np.ndarray | None,
    num_heads: int,
    mask: ArrayLike | None = None,
    *,
    attend: Attend = scaled_dot_product_attention,
    project: Project = affine,
) -> tuple[np.ndarray, np.ndarray]:
    """multi_head_attention with its per-head `attend` and its output `project`(concat, W^O, b^O) given."""
    x_q, x_kv = as_float_array(x_q), as_float_array(x_kv)
    if x_q.ndim == 2:  # unbatched [T, d_model], as PyTorch accepts: run as a batch of one
        out, weights = heads_then_output(
            x_q[None], x_kv[None], in_proj_weight, in_proj_bias, out_proj_weight, out_proj_bias, num_heads, mask,
            attend=attend, project=project,
        )
        return out[0], weights[0]
    B, T_q, d_model = x_q.shape
    check_mha_args(d_model, num_heads, in_proj_weight, in_proj_bias, out_proj_weight, out_proj_bias)
    # in_proj_weight stacks W^Q, W^K, W^V as row blocks in PyTorch's [out, in] layout, so
    # W^Q = in_proj_weight[:d_model].T; K and V come from one product with the other two blocks.
    b_q, b_kv = (None, None) if in_proj_bias is None else (in_proj_bias[:d_model], in_proj_bias[d_model:])
    q = _split_heads(affine(x_q, in_proj_weight[:d_model].T, b_q), num_heads)  # [B, h, T_q, d_k]
    kv = _split_heads(affine(x_kv, in_proj_weight[d_model:].T, b_kv), 2 * num_heads)  # [B, 2h, T_k, d_k]
    k, v = kv[:, :num_heads], kv[:, num_heads:]  # [B, h, T_k, d_k] each
    z, weights = attend(q, k, v, None if mask is None else per_head_mask(mask))
    concat = z.transpose(0, 2, 1, 3).reshape(B, T_q, -1)  # [B, T_q, h·d_v]
    return project(concat, out_proj_weight.T, out_proj_bias), weights  # [B, T_q, d_model], [B, h, T_q, T_k]
