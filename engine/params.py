"""Parameter and activation accounting as closed-form integer formulas (NumPy backend).

Conventions: d = d_model, f = d_ff. Attention has full-width Q, K, V and output projections
(h·d_k = h·d_v = d), so the head count never changes a count. `bias=False` means what
PyTorch's bias=False means: no biases anywhere, LayerNorm biases included. `norm_affine=False`
makes every LayerNorm parameter-free.
"""

from __future__ import annotations


def mha_params(d_model: int, bias: bool = True) -> int:
    """4d² weights (W^Q, W^K, W^V, W^O) + 4d biases."""
    return 4 * d_model * d_model + (4 * d_model if bias else 0)


def ffn_params(d_model: int, d_ff: int, bias: bool = True) -> int:
    """2df weights (W1, W2) + f + d biases."""
    return 2 * d_model * d_ff + (d_ff + d_model if bias else 0)


def layer_norm_params(d_model: int, bias: bool = True, affine: bool = True) -> int:
    """γ and β (2d); γ only (d) without bias; 0 without an affine transform."""
    if not affine:
        return 0
    return 2 * d_model if bias else d_model


def encoder_layer_params(d_model: int, d_ff: int, bias: bool = True, norm_affine: bool = True) -> int:
    """1 MHA + FFN + 2 LayerNorms = 4d² + 2df + f + 9d at the defaults (3,152,384 at 512/2048)."""
    norms = 2 * layer_norm_params(d_model, bias, norm_affine)
    return mha_params(d_model, bias) + ffn_params(d_model, d_ff, bias) + norms


def decoder_layer_params(d_model: int, d_ff: int, bias: bool = True, norm_affine: bool = True) -> int:
    """2 MHA (self + cross) + FFN + 3 LayerNorms = 8d² + 2df + f + 15d at the defaults (4,204,032 at 512/2048)."""
    norms = 3 * layer_norm_params(d_model, bias, norm_affine)
    return 2 * mha_params(d_model, bias) + ffn_params(d_model, d_ff, bias) + norms


def stack_params(layer_params: int, n_layers: int) -> int:
    """n × layer_params: every layer of the stack has its own, unshared parameters."""
    return n_layers * layer_params


def output_projection_params(d_model: int, vocab: int, bias: bool = False, tied: bool = False) -> int:
    """d·V weights W_D [d, V] (+ V bias). tied: W_D is the embedding matrix, and shared parameters
    count once, so only the bias is new (18,944,000 untied at 512/37,000)."""
    return (0 if tied else d_model * vocab) + (vocab if bias else 0)


def head_projection_params(d_model: int, d_k: int, bias: bool = False) -> int:
    """One head's W^Q (or W^K): d_model·d_k weights (+ d_k bias); 32,768 at 512/64."""
    return d_model * d_k + (d_k if bias else 0)


def score_entries(B: int, h: int, T_q: int, T_k: int) -> int:
    """Entries of the dense score tensor [B, h, T_q, T_k]."""
    return B * h * T_q * T_k
