"""Slips in the feed-forward network, LayerNorm / BatchNorm and the residual blocks (beside
engine/layers.py). The normalizations reuse the reference's ``standardize`` with the slipped
divisor or ε placement."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike

from engine._common import as_float_array
from engine.layers import (
    Params,
    batch_norm,
    decoder_layer,
    encoder_layer,
    layer_norm,
    scale_shift,
    standardize,
)
from engine.linear import affine
from engine.mutations.base import Mutation

Norm = Callable[..., np.ndarray]


def feed_forward_without_relu(x: ArrayLike, W1: ArrayLike, b1: ArrayLike | None, W2: ArrayLike,
                              b2: ArrayLike | None) -> np.ndarray:
    """FFN(x) = (x W1 + b1) W2 + b2: the max(0, ·) left out, so the two layers collapse into one linear map."""
    hidden = affine(as_float_array(x), np.asarray(W1), None if b1 is None else np.asarray(b1))  # [..., d_ff]
    return affine(hidden, np.asarray(W2), None if b2 is None else np.asarray(b2))  # [..., d_model]


def _norms(ddof: int = 0, eps_in_root: bool = True, eps_used: bool = True) -> dict[str, Norm]:
    """layer_norm and batch_norm with the same slip in their statistics."""
    def ln(x: ArrayLike, gamma: ArrayLike | None = None, beta: ArrayLike | None = None,
           eps: float = 1e-5) -> np.ndarray:
        """LN with the slipped standardization over the features (last axis)."""
        return scale_shift(standardize(as_float_array(x), -1, eps if eps_used else 0.0, ddof=ddof,
                                       eps_in_root=eps_in_root), gamma, beta)

    def bn(x: ArrayLike, gamma: ArrayLike | None = None, beta: ArrayLike | None = None,
           eps: float = 1e-5) -> np.ndarray:
        """BN with the slipped standardization over every axis but the channels."""
        x = as_float_array(x)
        pooled = tuple(range(x.ndim - 1))
        return scale_shift(standardize(x, pooled, eps if eps_used else 0.0, ddof=ddof, eps_in_root=eps_in_root),
                           gamma, beta)

    return {"layer_norm": ln, "batch_norm": bn}


def layer_norm_over_batch(x: ArrayLike, gamma: ArrayLike | None = None, beta: ArrayLike | None = None,
                          eps: float = 1e-5) -> np.ndarray:
    """LN computed with BatchNorm's statistics: per feature, over the batch (and time) axes."""
    return batch_norm(x, gamma, beta, eps)


def batch_norm_over_features(x: ArrayLike, gamma: ArrayLike | None = None, beta: ArrayLike | None = None,
                             eps: float = 1e-5) -> np.ndarray:
    """BN computed with LayerNorm's statistics: per position, over its features."""
    return layer_norm(x, gamma, beta, eps)


def encoder_layer_other_norm(x: ArrayLike, params: Params, mask: ArrayLike | None = None, norm_first: bool = False,
                             *, num_heads: int = 1) -> np.ndarray:
    """The encoder layer with pre-LN and post-LN exchanged."""
    return encoder_layer(x, params, mask, not norm_first, num_heads=num_heads)


def decoder_layer_other_norm(y: ArrayLike, memory: ArrayLike, params: Params, tgt_mask: ArrayLike | None = None,
                             memory_mask: ArrayLike | None = None, norm_first: bool = False, *,
                             num_heads: int = 1) -> np.ndarray:
    """The decoder layer with pre-LN and post-LN exchanged."""
    return decoder_layer(y, memory, params, tgt_mask, memory_mask, not norm_first, num_heads=num_heads)


MUTATIONS = (
    Mutation("forgot_relu", "the ReLU between the two feed-forward layers left out",
             {"feed_forward": feed_forward_without_relu}),
    Mutation("unbiased_variance", "the unbiased variance (divide by n - 1) instead of the population one",
             _norms(ddof=1)),
    Mutation("layernorm_eps_omitted", "ε left out: (x - μ)/σ", _norms(eps_used=False)),
    Mutation("layernorm_eps_outside_root", "ε added outside the root: (x - μ)/(σ + ε)", _norms(eps_in_root=False)),
    Mutation("layernorm_over_batch", "LayerNorm statistics over the batch instead of the features",
             {"layer_norm": layer_norm_over_batch}),
    Mutation("batchnorm_over_features", "BatchNorm statistics over the features instead of the batch",
             {"batch_norm": batch_norm_over_features}),
    Mutation("pre_post_ln_swapped", "pre-LN and post-LN exchanged",
             {"encoder_layer": encoder_layer_other_norm, "decoder_layer": decoder_layer_other_norm}),
)
