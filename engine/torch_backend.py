"""The PyTorch backend: every engine function with the NumPy signature, computed by PyTorch.

PyTorch's own modules do the work wherever PyTorch has the computation (SDPA, multi-head
attention, Transformer layers, norms, cross-entropy, parameter counts of real modules built on
the meta device); the rest is written independently with tensor ops, so every answer can be
computed twice by independent code. Inputs and outputs are NumPy arrays, python ints and floats
exactly as in the NumPy backend. Importing this module imports torch.

It is one module over 400 lines on purpose: it mirrors ``numpy_backend`` function for function,
in the same order, so the two are read side by side.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, cast

import numpy as np
import torch
import torch.nn.functional as F
from numpy.typing import ArrayLike
from torch import Tensor, nn

from engine import shapes as _symbolic
from engine._common import (
    as_float_array,
    as_mask,
    check_even,
    check_lengths,
    check_mha_args,
    check_sequence,
    check_smoothing,
    check_warmup_step,
    head_width,
    per_head_mask,
    reject_fully_masked,
    score_scale,
)
from engine.shapes import Dim

Params = Mapping[str, np.ndarray]


def _dtype(*arrays: ArrayLike | None) -> np.dtype[Any]:
    """The float dtype NumPy computes in for these inputs together (absent ones skipped):
    torch refuses mixed dtypes where NumPy promotes, so every input is cast to it."""
    return np.result_type(*(as_float_array(a) for a in arrays if a is not None))


def _tensor(x: ArrayLike, dtype: np.dtype[Any] | None = None) -> Tensor:
    """A float tensor copy of x, in `dtype` or else by the NumPy backend's dtype rule."""
    a = as_float_array(x)
    return torch.tensor(a if dtype is None else a.astype(dtype))


def _optional(a: ArrayLike | None, dtype: np.dtype[Any] | None = None) -> Tensor | None:
    """An optional parameter as a tensor (None stays None: the parameter is absent)."""
    return None if a is None else _tensor(a, dtype)


def _array(t: Tensor) -> np.ndarray:
    """Back to NumPy, detached from any autograd graph."""
    return t.detach().numpy()


def _count(module: nn.Module) -> int:
    """sum(p.numel()) over the module's parameters; parameters() yields a shared tensor once."""
    return sum(p.numel() for p in module.parameters())


# ---------------------------------------------------------------- attention


def _masked_softmax(scores: Tensor, dim: int, blocked: Tensor | None) -> Tensor:
    """torch.softmax with blocked entries set to -inf first, refusing rows with nothing left."""
    if blocked is not None:
        scores = torch.where(blocked, -math.inf, scores)
    reject_fully_masked(_array(torch.isneginf(scores.amax(dim=dim, keepdim=True)).squeeze(dim)))
    return torch.softmax(scores, dim=dim)


def softmax(x: ArrayLike, axis: int = -1, mask: ArrayLike | None = None) -> np.ndarray:
    """softmax(x)_i = exp(x_i) / Σ_j exp(x_j) over unmasked j via torch.softmax; masked entries are 0."""
    blocked = None if mask is None else torch.from_numpy(as_mask(mask))
    return _array(_masked_softmax(_tensor(x), axis, blocked))


def causal_mask(T: int) -> np.ndarray:
    """torch.triu of ones above the diagonal: True (blocked) for keys after the query."""
    return _array(torch.ones(T, T, dtype=torch.bool).triu(diagonal=1))  # [T, T]


def padding_mask(lengths: ArrayLike, T: int) -> np.ndarray:
    """Key mask [B, 1, T], True at positions >= length, built by comparing a position row."""
    n = np.asarray(lengths)
    check_lengths(n, T)
    positions = torch.arange(T).expand(len(n), 1, T)  # [B, 1, T]
    return _array(positions >= torch.from_numpy(n).view(-1, 1, 1))


def scaled_dot_product_attention(
    q: ArrayLike, k: ArrayLike, v: ArrayLike, mask: ArrayLike | None = None, scale: bool | float = True
) -> tuple[np.ndarray, np.ndarray]:
    """Z from F.scaled_dot_product_attention; A from torch.softmax of the masked, scaled scores."""
    dtype = _dtype(q, k, v)
    q_t, k_t, v_t = _tensor(q, dtype), _tensor(k, dtype), _tensor(v, dtype)
    s = score_scale(scale, q_t.shape[-1])
    blocked = None if mask is None else torch.from_numpy(as_mask(mask))
    weights = _masked_softmax((q_t @ k_t.transpose(-2, -1)) * s, -1, blocked)  # [..., T_q, T_k]
    # SDPA's boolean mask means True = may attend: the opposite of ours.
    allowed = None if blocked is None else ~blocked
    out = F.scaled_dot_product_attention(q_t, k_t, v_t, attn_mask=allowed, scale=s)  # [..., T_q, d_v]
    return _array(out), _array(weights)


def additive_attention(
    enc: ArrayLike, dec: ArrayLike, W: ArrayLike, U: ArrayLike, v: ArrayLike
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Bahdanau: e = tanh(H W + s U) v, α = softmax(e), c = αᵀ H, with torch ops."""
    dtype = _dtype(enc, dec, W, U, v)
    H, s = _tensor(enc, dtype), _tensor(dec, dtype)
    scores = torch.tanh(H @ _tensor(W, dtype) + s @ _tensor(U, dtype)) @ _tensor(v, dtype)  # [T_s]
    alpha = torch.softmax(scores, dim=-1)  # [T_s]
    return _array(scores), _array(alpha), _array(alpha @ H)  # context [d_h]


def _heads_mask(mask: ArrayLike | None, B: int, h: int, T_q: int, T_k: int) -> Tensor | None:
    """Our mask as PyTorch's attn_mask [B·h, T_q, T_k] (same polarity), full rows refused."""
    if mask is None:
        return None
    full = np.broadcast_to(per_head_mask(mask), (B, h, T_q, T_k))
    reject_fully_masked(full.all(axis=-1))
    return torch.from_numpy(full.reshape(B * h, T_q, T_k).copy())


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
    """F.multi_head_attention_forward (sequence-first inside); returns (out, A [B, h, T_q, T_k])."""
    dtype = _dtype(x_q, x_kv, in_proj_weight, in_proj_bias, out_proj_weight, out_proj_bias)
    query, key = _tensor(x_q, dtype), _tensor(x_kv, dtype)
    unbatched = query.dim() == 2
    if unbatched:
        query, key = query[None], key[None]  # [1, T, d_model]
    B, T_q, d_model = query.shape
    check_mha_args(d_model, num_heads, in_proj_weight, in_proj_bias, out_proj_weight, out_proj_bias)
    out, weights = F.multi_head_attention_forward(
        query.transpose(0, 1), key.transpose(0, 1), key.transpose(0, 1),  # [T, B, d_model]
        d_model, num_heads, _tensor(in_proj_weight, dtype), _optional(in_proj_bias, dtype), None, None, False, 0.0,
        _tensor(out_proj_weight, dtype), _optional(out_proj_bias, dtype), training=False, need_weights=True,
        attn_mask=_heads_mask(mask, B, num_heads, T_q, key.shape[1]), average_attn_weights=False,
    )  # fmt: skip
    assert weights is not None  # need_weights=True always returns them
    out = out.transpose(0, 1)  # [B, T_q, d_model]
    return (_array(out[0]), _array(weights[0])) if unbatched else (_array(out), _array(weights))


# ---------------------------------------------------------------- layers


def feed_forward(
    x: ArrayLike, W1: ArrayLike, b1: ArrayLike | None, W2: ArrayLike, b2: ArrayLike | None
) -> np.ndarray:
    """F.linear twice around F.relu; F.linear wants [out, in] weights, so the paper's W is transposed."""
    dtype = _dtype(x, W1, b1, W2, b2)
    hidden = F.relu(F.linear(_tensor(x, dtype), _tensor(W1, dtype).T, _optional(b1, dtype)))  # [..., d_ff]
    return _array(F.linear(hidden, _tensor(W2, dtype).T, _optional(b2, dtype)))  # [..., d_model]


def layer_norm(x: ArrayLike, gamma: ArrayLike | None = None, beta: ArrayLike | None = None,
               eps: float = 1e-5) -> np.ndarray:
    """F.layer_norm over the last axis."""
    dtype = _dtype(x, gamma, beta)
    x_t = _tensor(x, dtype)
    return _array(F.layer_norm(x_t, x_t.shape[-1:], _optional(gamma, dtype), _optional(beta, dtype), eps))


def batch_norm(x: ArrayLike, gamma: ArrayLike | None = None, beta: ArrayLike | None = None,
               eps: float = 1e-5) -> np.ndarray:
    """F.batch_norm(training=True) on [N, C], N pooling every axis but the channel (last) one.

    PyTorch itself raises ValueError for a single observation per channel, whose normalized
    value would be 0 and affine output β whatever the input (the notes' PDF p. 28 correction).
    """
    dtype = _dtype(x, gamma, beta)
    x_t = _tensor(x, dtype)
    rows = x_t.reshape(-1, x_t.shape[-1])  # [N, C]
    normed = F.batch_norm(rows, None, None, _optional(gamma, dtype), _optional(beta, dtype), training=True, eps=eps)
    return _array(normed.reshape(x_t.shape))


def _loaded(module: nn.Module, params: Params, dtype: np.dtype[Any]) -> nn.Module:
    """A meta-device module given the real parameters of a state_dict, in eval mode."""
    module.load_state_dict({name: _tensor(value, dtype) for name, value in params.items()}, assign=True)
    return module.eval()


def _layer_mask(mask: ArrayLike | None, x_q: Tensor, x_kv: Tensor, h: int) -> Tensor | None:
    """_heads_mask for a batch-first or unbatched layer input."""
    B = x_q.shape[0] if x_q.dim() == 3 else 1
    return _heads_mask(mask, B, h, x_q.shape[-2], x_kv.shape[-2])


def encoder_layer(
    x: ArrayLike, params: Params, mask: ArrayLike | None = None, norm_first: bool = False, *, num_heads: int = 1
) -> np.ndarray:
    """nn.TransformerEncoderLayer (ReLU, dropout 0, batch_first) loaded with `params`."""
    dtype = _dtype(x, *params.values())
    x_t = _tensor(x, dtype)
    d_model, d_ff = x_t.shape[-1], params["linear1.weight"].shape[0]
    layer = nn.TransformerEncoderLayer(
        d_model, num_heads, d_ff, dropout=0.0, batch_first=True, norm_first=norm_first,
        bias="linear1.bias" in params, device="meta",
    )  # fmt: skip
    with torch.no_grad():
        out = _loaded(layer, params, dtype)(x_t, src_mask=_layer_mask(mask, x_t, x_t, num_heads))
    return _array(out)


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
    """nn.TransformerDecoderLayer (ReLU, dropout 0, batch_first) loaded with `params`."""
    dtype = _dtype(y, memory, *params.values())
    y_t, m_t = _tensor(y, dtype), _tensor(memory, dtype)
    d_model, d_ff = y_t.shape[-1], params["linear1.weight"].shape[0]
    layer = nn.TransformerDecoderLayer(
        d_model, num_heads, d_ff, dropout=0.0, batch_first=True, norm_first=norm_first,
        bias="linear1.bias" in params, device="meta",
    )  # fmt: skip
    masks = _layer_mask(tgt_mask, y_t, y_t, num_heads), _layer_mask(memory_mask, y_t, m_t, num_heads)
    with torch.no_grad():
        out = _loaded(layer, params, dtype)(y_t, m_t, tgt_mask=masks[0], memory_mask=masks[1])
    return _array(out)


# ---------------------------------------------------------------- positions


def _encodings(positions: Tensor, d: int) -> Tensor:
    """PE rows for arbitrary (float64) positions, in the notes' exp(-log(10000)·2i/d) form."""
    check_even(d)
    two_i = torch.arange(0, d, 2, dtype=torch.float64)  # [d/2]
    phase = positions[:, None] * torch.exp(-math.log(10000.0) * two_i / d)  # [n, d/2]
    return torch.stack([phase.sin(), phase.cos()], dim=-1).flatten(-2)  # [n, d]: sin, cos interleaved


def sinusoidal_encoding(n_positions: int, d: int) -> np.ndarray:
    """PE(p, 2i) = sin(p ω_i), PE(p, 2i+1) = cos(p ω_i), by interleaving stacked sin/cos tensors."""
    return _array(_encodings(torch.arange(n_positions, dtype=torch.float64), d))


def offset_rotation(k: float, d: int) -> np.ndarray:
    """torch.block_diag of the 2×2 row-convention rotations [[cos kω, -sin kω], [sin kω, cos kω]]."""
    check_even(d)
    omega = torch.exp(-math.log(10000.0) * torch.arange(0, d, 2, dtype=torch.float64) / d)  # [d/2]
    c, s = torch.cos(k * omega), torch.sin(k * omega)
    blocks = torch.stack([torch.stack([c, -s], -1), torch.stack([s, c], -1)], -2)  # [d/2, 2, 2]
    return _array(torch.block_diag(*blocks))  # type: ignore[no-untyped-call]  # [d, d]; block_diag is unannotated


def encoding_dot(k: float, d: int) -> float:
    """PE(0) · PE(k), computed from the encodings themselves."""
    pe = _encodings(torch.tensor([0.0, k], dtype=torch.float64), d)  # [2, d]
    return float(pe[0] @ pe[1])


def encoding_sq_distance(k: float, d: int) -> float:
    """‖PE(k) - PE(0)‖², computed from the encodings themselves."""
    pe = _encodings(torch.tensor([0.0, k], dtype=torch.float64), d)  # [2, d]
    return float(((pe[1] - pe[0]) ** 2).sum())


# ---------------------------------------------------------------- parameter counts


def mha_params(d_model: int, bias: bool = True) -> int:
    """Parameters of nn.MultiheadAttention(d_model, 1, bias=bias)."""
    return _count(nn.MultiheadAttention(d_model, 1, bias=bias, device="meta"))


def ffn_params(d_model: int, d_ff: int, bias: bool = True) -> int:
    """Parameters of Linear(d_model, d_ff) → ReLU → Linear(d_ff, d_model)."""
    ffn = nn.Sequential(nn.Linear(d_model, d_ff, bias, device="meta"), nn.ReLU(),
                        nn.Linear(d_ff, d_model, bias, device="meta"))
    return _count(ffn)


def layer_norm_params(d_model: int, bias: bool = True, affine: bool = True) -> int:
    """Parameters of nn.LayerNorm(d_model, elementwise_affine=affine, bias=bias)."""
    return _count(nn.LayerNorm(d_model, elementwise_affine=affine, bias=bias, device="meta"))


def _with_norm_affine(layer: nn.Module, norm_affine: bool) -> nn.Module:
    """The layer, its LayerNorms swapped for parameter-free ones unless norm_affine."""
    if not norm_affine:
        for name, child in list(layer.named_children()):
            if isinstance(child, nn.LayerNorm):
                setattr(layer, name, nn.LayerNorm(child.normalized_shape, elementwise_affine=False))
    return layer


def encoder_layer_params(d_model: int, d_ff: int, bias: bool = True, norm_affine: bool = True) -> int:
    """Parameters of nn.TransformerEncoderLayer(d_model, 1, d_ff, bias=bias)."""
    layer = nn.TransformerEncoderLayer(d_model, 1, d_ff, bias=bias, device="meta")
    return _count(_with_norm_affine(layer, norm_affine))


def decoder_layer_params(d_model: int, d_ff: int, bias: bool = True, norm_affine: bool = True) -> int:
    """Parameters of nn.TransformerDecoderLayer(d_model, 1, d_ff, bias=bias)."""
    layer = nn.TransformerDecoderLayer(d_model, 1, d_ff, bias=bias, device="meta")
    return _count(_with_norm_affine(layer, norm_affine))


def stack_params(layer_params: int, n_layers: int) -> int:
    """numel of the stacked, unshared parameters of n_layers layers: a meta tensor [n_layers, layer_params]."""
    return torch.empty(n_layers, layer_params, device="meta").numel()


def output_projection_params(d_model: int, vocab: int, bias: bool = False, tied: bool = False) -> int:
    """nn.Linear(d_model, vocab) next to an nn.Embedding(vocab, d_model); tied shares one weight,
    which parameters() then yields once; the embedding's own count is subtracted."""
    embedding = nn.Embedding(vocab, d_model, device="meta")
    projection = nn.Linear(d_model, vocab, bias, device="meta")
    if tied:
        projection.weight = embedding.weight
    return _count(nn.ModuleDict({"embedding": embedding, "projection": projection})) - _count(embedding)


def head_projection_params(d_model: int, d_k: int, bias: bool = False) -> int:
    """Parameters of one head's projection nn.Linear(d_model, d_k, bias)."""
    return _count(nn.Linear(d_model, d_k, bias, device="meta"))


def score_entries(B: int, h: int, T_q: int, T_k: int) -> int:
    """numel of a meta tensor [B, h, T_q, T_k]."""
    return torch.empty(B, h, T_q, T_k, device="meta").numel()


# ---------------------------------------------------------------- training


def label_smoothing_targets(n_classes: int, target: ArrayLike, eps: float, convention: str = "uniform") -> np.ndarray:
    """F.one_hot mixed with the uniform distribution (uniform) or with the other classes (non_gold)."""
    y = np.asarray(target)
    check_smoothing(n_classes, y, eps, convention)
    gold = F.one_hot(torch.from_numpy(y).long(), n_classes).double()  # [..., V]
    if convention == "uniform":
        return _array((1.0 - eps) * gold + eps / n_classes)
    return _array((1.0 - eps) * gold + eps / (n_classes - 1) * (1.0 - gold))


def smoothed_cross_entropy(logits: ArrayLike, target: ArrayLike, eps: float, convention: str = "uniform") -> float:
    """F.cross_entropy(label_smoothing=eps) (uniform) or against the soft non_gold targets."""
    z = _tensor(logits)
    if convention == "uniform":
        y = np.asarray(target)
        check_smoothing(z.shape[-1], y, eps, convention)
        return float(F.cross_entropy(z, torch.from_numpy(y).long(), label_smoothing=eps))
    soft = torch.from_numpy(label_smoothing_targets(z.shape[-1], target, eps, convention)).to(z.dtype)
    return float(F.cross_entropy(z, soft))


def warmup_lr(step: float, d_model: int, warmup: int = 4000) -> float:
    """d^-0.5 · min(rsqrt(s), s · w^-1.5) in float64 tensors."""
    check_warmup_step(step)
    s = torch.tensor(float(step), dtype=torch.float64)
    return float(torch.minimum(s.rsqrt(), s * warmup**-1.5) / math.sqrt(d_model))


def teacher_forcing_inputs(targets: ArrayLike, bos: int) -> np.ndarray:
    """torch.roll the labels one step right and overwrite the wrapped-around first entry with bos."""
    y = np.asarray(targets)
    check_sequence(y)
    shifted = torch.roll(torch.from_numpy(y.copy()), 1, dims=-1)  # [..., T]
    shifted[..., 0] = bos
    return _array(shifted)


def dot_product_variance(rng: np.random.Generator, d_k: int, n_samples: int = 20000) -> tuple[float, float]:
    """The same draws as the NumPy backend (q then k from rng), statistics by torch.var."""
    q = torch.from_numpy(rng.normal(size=(n_samples, d_k)))
    k = torch.from_numpy(rng.normal(size=(n_samples, d_k)))
    dot = (q * k).sum(dim=1)  # [n_samples]
    return float(dot.var(correction=0)), float((dot / math.sqrt(d_k)).var(correction=0))


# ---------------------------------------------------------------- shapes


def _meta(*shape: int) -> Tensor:
    """A data-free tensor: shapes propagate through real ops without any arithmetic."""
    return torch.empty(*shape, device="meta")


def _meta_heads(x: Tensor, h: int, width: int) -> Tensor:
    """Project x [B, T, d_model] with all h heads' weights and split: [B, h, T, width]."""
    B, T, d_model = x.shape
    return (x @ _meta(d_model, h * width)).reshape(B, T, h, width).transpose(1, 2)  # [B, h, T, width]


def _meta_attention_shapes(
    B: int, T_q: int, d_model: int, h: int, T_k: int | None, d_k: int | None, d_v: int | None
) -> dict[str, tuple[Dim, ...]]:
    """attention_shapes for numbers, read off real torch ops on meta tensors."""
    T_k = T_q if T_k is None else T_k
    d_k = head_width(d_model, h) if d_k is None else d_k
    d_v = head_width(d_model, h) if d_v is None else d_v
    X_q, X_kv, W_O = _meta(B, T_q, d_model), _meta(B, T_k, d_model), _meta(h * d_v, d_model)
    W_Q, W_K, W_V = _meta(d_model, d_k), _meta(d_model, d_k), _meta(d_model, d_v)  # one head each
    Q_heads, K_heads, V_heads = _meta_heads(X_q, h, d_k), _meta_heads(X_kv, h, d_k), _meta_heads(X_kv, h, d_v)
    A = torch.softmax(Q_heads @ K_heads.transpose(-2, -1), dim=-1)  # [B, h, T_q, T_k]
    Z = A @ V_heads  # [B, h, T_q, d_v]
    concat = Z.transpose(1, 2).flatten(2)  # [B, T_q, h·d_v]
    tensors = {
        "X_q": X_q, "X_kv": X_kv, "W_Q": W_Q, "W_K": W_K, "W_V": W_V,
        "Q": X_q @ W_Q, "K": X_kv @ W_K, "V": X_kv @ W_V,
        "Q_heads": Q_heads, "K_heads": K_heads, "V_heads": V_heads,
        "A": A, "A_head": A[:, 0], "Z_head": Z[:, 0], "concat": concat, "W_O": W_O, "out": concat @ W_O,
    }  # fmt: skip
    return {name: tuple(t.shape) for name, t in tensors.items()}


def attention_shapes(
    B: Dim, T_q: Dim, d_model: Dim, h: Dim, T_k: Dim | None = None, d_k: Dim | None = None, d_v: Dim | None = None
) -> dict[str, tuple[Dim, ...]]:
    """Shapes from real torch ops on meta tensors; symbolic names fall back to the NumPy logic."""
    dims = (B, T_q, d_model, h, T_k, d_k, d_v)
    if any(isinstance(n, str) for n in dims):
        return _symbolic.attention_shapes(*dims)
    return _meta_attention_shapes(*cast(tuple[int, int, int, int, int | None, int | None, int | None], dims))
