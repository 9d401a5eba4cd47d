"""Feed-forward network, normalizations and full encoder/decoder layers (NumPy reference)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np
from numpy.typing import ArrayLike

from engine._common import as_float_array
from engine.attention import multi_head_attention
from engine.linear import affine

# A PyTorch layer's state_dict converted to NumPy: parameter name → array in PyTorch layout.
Params = Mapping[str, np.ndarray]


def feed_forward(
    x: ArrayLike, W1: ArrayLike, b1: ArrayLike | None, W2: ArrayLike, b2: ArrayLike | None
) -> np.ndarray:
    """FFN(x) = max(0, x W1 + b1) W2 + b2, applied to every position independently."""
    hidden = np.maximum(affine(as_float_array(x), np.asarray(W1), _opt(b1)), 0.0)  # [..., d_ff]
    return affine(hidden, np.asarray(W2), _opt(b2))  # [..., d_model]


def _opt(a: ArrayLike | None) -> np.ndarray | None:
    """An optional parameter as an array (None stays None: the parameter is absent)."""
    return None if a is None else np.asarray(a)


def standardize(x: np.ndarray, axis: int | tuple[int, ...], eps: float, *, ddof: int = 0,
                 eps_in_root: bool = True) -> np.ndarray:
    """(x - μ) / √(σ² + ε) with mean and biased variance (divisor n - ddof) over `axis`.

    ddof=1 and eps_in_root=False are not the course's formula: they are the slips of
    engine.mutations.norms (unbiased variance; (x - μ)/(σ + ε)), kept here so it reuses this one.
    """
    total = x.sum(axis=axis, keepdims=True)
    n = x.size // total.size  # observations pooled into each statistic
    centered = x - total / n  # x - μ; sum / n beats ndarray.mean, whose Python wrapper dominates at toy sizes
    var = (centered * centered).sum(axis=axis, keepdims=True) / (n - ddof)
    spread = np.sqrt(var + eps) if eps_in_root else np.sqrt(var) + eps
    standardized: np.ndarray = centered / spread
    return standardized


def scale_shift(y: np.ndarray, gamma: ArrayLike | None, beta: ArrayLike | None) -> np.ndarray:
    """γ ⊙ y + β, skipping whichever affine parameter is absent."""
    if gamma is not None:
        y = y * np.asarray(gamma)
    return y if beta is None else y + np.asarray(beta)


def layer_norm(x: ArrayLike, gamma: ArrayLike | None = None, beta: ArrayLike | None = None,
               eps: float = 1e-5) -> np.ndarray:
    """LN(x) = γ ⊙ (x - μ)/√(σ² + ε) + β, μ and biased σ² over the features of each position."""
    return scale_shift(standardize(as_float_array(x), -1, eps), gamma, beta)


def batch_norm(x: ArrayLike, gamma: ArrayLike | None = None, beta: ArrayLike | None = None,
               eps: float = 1e-5) -> np.ndarray:
    """BN(x) = γ ⊙ (x - μ_c)/√(σ_c² + ε) + β, training statistics per channel (last axis) pooled over all other axes.

    With a single observation per channel x - μ = 0, so the output would be β whatever the
    input (the notes' "Ebook correction", PDF p. 28); PyTorch rejects that case and so do we.
    """
    x = as_float_array(x)
    if x.size <= x.shape[-1]:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {list(x.shape)}")
    pooled = tuple(range(x.ndim - 1))  # batch (and time) axes: one statistic per channel
    return scale_shift(standardize(x, pooled, eps), gamma, beta)


def _residual(
    x: np.ndarray, sublayer: Callable[[np.ndarray], np.ndarray], params: Params, norm: str, norm_first: bool
) -> np.ndarray:
    """Post-LN LN(x + F(x)) as in the original Transformer, or pre-LN x + F(LN(x))."""
    gamma, beta = params.get(f"{norm}.weight"), params.get(f"{norm}.bias")
    if norm_first:
        out: np.ndarray = x + sublayer(layer_norm(x, gamma, beta))
        return out
    return layer_norm(x + sublayer(x), gamma, beta)


def _attention_block(
    x_q: np.ndarray, x_kv: np.ndarray, params: Params, name: str, num_heads: int, mask: ArrayLike | None
) -> np.ndarray:
    """The output of the MHA module stored under `name` (self_attn or multihead_attn)."""
    return multi_head_attention(
        x_q,
        x_kv,
        params[f"{name}.in_proj_weight"],
        params.get(f"{name}.in_proj_bias"),
        params[f"{name}.out_proj.weight"],
        params.get(f"{name}.out_proj.bias"),
        num_heads,
        mask,
    )[0]


def _ffn_block(x: np.ndarray, params: Params) -> np.ndarray:
    """FFN with PyTorch's linear1/linear2 weights [out, in], transposed to the paper's W1, W2."""
    return feed_forward(
        x, params["linear1.weight"].T, params.get("linear1.bias"), params["linear2.weight"].T,
        params.get("linear2.bias"),
    )


def encoder_layer(
    x: ArrayLike, params: Params, mask: ArrayLike | None = None, norm_first: bool = False, *, num_heads: int = 1
) -> np.ndarray:
    """Post-LN x = LN(x + MHA(x)); x = LN(x + FFN(x)). norm_first: x = x + MHA(LN(x)); x = x + FFN(LN(x)).

    params has the keys of nn.TransformerEncoderLayer(...).state_dict(); the head count is not
    stored there, so pass num_heads (default 1). mask as in multi_head_attention. ReLU, no
    dropout, LayerNorm eps 1e-5.
    """
    x = as_float_array(x)
    x = _residual(x, lambda h: _attention_block(h, h, params, "self_attn", num_heads, mask), params, "norm1",
                  norm_first)
    return _residual(x, lambda h: _ffn_block(h, params), params, "norm2", norm_first)


def decoder_layer(
    y: ArrayLike,
    memory: ArrayLike,
    params: Params,
    tgt_mask: ArrayLike | None = None,
    memory_mask: ArrayLike | None = None,
    norm_first: bool = False,
    *,
    num_heads: int = 1,
) -> np.ndarray:
    """Masked self-attention, cross-attention over memory, FFN; each wrapped as in encoder_layer.

    params has the keys of nn.TransformerDecoderLayer(...).state_dict(); pass num_heads as for
    encoder_layer. Memory is never normalized here, also under norm_first (as in PyTorch).
    """
    y, memory = as_float_array(y), as_float_array(memory)
    y = _residual(y, lambda h: _attention_block(h, h, params, "self_attn", num_heads, tgt_mask), params, "norm1",
                  norm_first)
    y = _residual(
        y, lambda h: _attention_block(h, memory, params, "multihead_attn", num_heads, memory_mask), params, "norm2",
        norm_first,
    )
    return _residual(y, lambda h: _ffn_block(h, params), params, "norm3", norm_first)
