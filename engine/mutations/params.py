"""Slips in counting parameters and shapes of multi-head attention (beside engine/params.py and
engine/shapes.py), and the multi-head computations the same slips change.

Conventions as in engine.params: d = d_model, f = d_ff, every count a python int.
"""

from __future__ import annotations

import functools

import numpy as np
from numpy.typing import ArrayLike

from engine.attention import heads_then_output
from engine.layers import feed_forward
from engine.mutations.base import Mutation
from engine.params import (
    decoder_layer_params,
    encoder_layer_params,
    ffn_params,
    head_projection_params,
    layer_norm_params,
    mha_params,
    output_projection_params,
)
from engine.shapes import Dim, attention_shapes

# --- W^O left out -----------------------------------------------------------------------------


def output_block(d_model: int, bias: bool) -> int:
    """What W^O [d, d] and b^O [d] hold: d² (+ d)."""
    return d_model * d_model + (d_model if bias else 0)


def mha_params_without_wo(d_model: int, bias: bool = True) -> int:
    """3d² (+ 3d): W^Q, W^K, W^V only."""
    return mha_params(d_model, bias) - output_block(d_model, bias)


def encoder_layer_params_without_wo(d_model: int, d_ff: int, bias: bool = True, norm_affine: bool = True) -> int:
    """The encoder layer less its one W^O (and b^O)."""
    return encoder_layer_params(d_model, d_ff, bias, norm_affine) - output_block(d_model, bias)


def decoder_layer_params_without_wo(d_model: int, d_ff: int, bias: bool = True, norm_affine: bool = True) -> int:
    """The decoder layer less the W^O (and b^O) of both attentions."""
    return decoder_layer_params(d_model, d_ff, bias, norm_affine) - 2 * output_block(d_model, bias)


def concat_as_output(concat: np.ndarray, W_O: np.ndarray, b_O: np.ndarray | None) -> np.ndarray:
    """Concat(head_1..head_h) taken as the output: W^O and b^O never applied."""
    return concat  # [B, T_q, h·d_v]


# --- biases forgotten, or counted where there are none -------------------------------------------

def _biases(present: bool) -> dict[str, object]:
    """Every count with its bias flag forced to `present`."""
    return {
        "mha_params": lambda d_model, bias=True: mha_params(d_model, present),
        "ffn_params": lambda d_model, d_ff, bias=True: ffn_params(d_model, d_ff, present),
        "layer_norm_params": lambda d_model, bias=True, affine=True: layer_norm_params(d_model, present, affine),
        "encoder_layer_params": lambda d_model, d_ff, bias=True, norm_affine=True: encoder_layer_params(
            d_model, d_ff, present, norm_affine),
        "decoder_layer_params": lambda d_model, d_ff, bias=True, norm_affine=True: decoder_layer_params(
            d_model, d_ff, present, norm_affine),
        "output_projection_params": lambda d_model, vocab, bias=False, tied=False: output_projection_params(
            d_model, vocab, present, tied),
        "head_projection_params": lambda d_model, d_k, bias=False: head_projection_params(d_model, d_k, present),
    }


def feed_forward_without_biases(x: ArrayLike, W1: ArrayLike, b1: ArrayLike | None, W2: ArrayLike,
                                b2: ArrayLike | None) -> np.ndarray:
    """max(0, x W1) W2: b1 and b2 left out."""
    return feed_forward(x, W1, None, W2, None)


def mha_without_biases(x_q: ArrayLike, x_kv: ArrayLike, in_proj_weight: np.ndarray, in_proj_bias: np.ndarray | None,
                       out_proj_weight: np.ndarray, out_proj_bias: np.ndarray | None, num_heads: int,
                       mask: ArrayLike | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Multi-head attention with the biases of all four projections left out."""
    return heads_then_output(x_q, x_kv, in_proj_weight, None, out_proj_weight, None, num_heads, mask)


# --- head widths ---------------------------------------------------------------------------------

def shapes_with_full_width_heads(B: Dim, T_q: Dim, d_model: Dim, h: Dim, T_k: Dim | None = None,
                                 d_k: Dim | None = None, d_v: Dim | None = None) -> dict[str, tuple[Dim, ...]]:
    """attention_shapes with d_k = d_v = d_model instead of d_model / h."""
    return attention_shapes(B, T_q, d_model, h, T_k, d_model if d_k is None else d_k,
                            d_model if d_v is None else d_v)


def head_projection_full_width(d_model: int, d_k: int, bias: bool = False) -> int:
    """One head's W^Q counted as [d_model, d_model]: d² (+ d)."""
    return head_projection_params(d_model, d_model, bias)


def shapes_of_one_head(B: Dim, T_q: Dim, d_model: Dim, h: Dim, T_k: Dim | None = None, d_k: Dim | None = None,
                       d_v: Dim | None = None) -> dict[str, tuple[Dim, ...]]:
    """attention_shapes with one head's tensors given for all heads: no head axis, concat only d_v wide."""
    shapes = attention_shapes(B, T_q, d_model, h, T_k, d_k, d_v)
    per_head = {"Q_heads": "Q", "K_heads": "K", "V_heads": "V", "A": "A_head", "concat": "Z_head"}
    one_head = {name: shapes[single] for name, single in per_head.items()}
    return shapes | one_head | {"W_O": (shapes["W_V"][1], shapes["W_O"][1])}


def stack_params_of_one_layer(layer_params: int, n_layers: int) -> int:
    """layer_params: one layer's count given for the whole stack (the × N forgotten)."""
    return layer_params


def score_entries_of_one_head(B: int, h: int, T_q: int, T_k: int) -> int:
    """B·T_q·T_k: one head's score matrix counted for all h heads."""
    return B * T_q * T_k


MUTATIONS = (
    Mutation("one_head_counted_for_all", "one head's weights and tensors counted for all heads",
             {"attention_shapes": shapes_of_one_head, "score_entries": score_entries_of_one_head}),
    Mutation("forgot_output_projection", "the output projection W^O (and b^O) left out",
             {"mha_params": mha_params_without_wo, "encoder_layer_params": encoder_layer_params_without_wo,
              "decoder_layer_params": decoder_layer_params_without_wo,
              "multi_head_attention": functools.partial(heads_then_output, project=concat_as_output)}),
    Mutation("forgot_biases", "the biases left out",
             {**_biases(False), "feed_forward": feed_forward_without_biases,  # type: ignore[dict-item]
              "multi_head_attention": mha_without_biases}),
    Mutation("counted_nonexistent_biases", "biases counted where the layer has none",
             _biases(True)),  # type: ignore[arg-type]
    Mutation("stack_counted_as_one_layer", "one layer's parameters given for the whole stack of N",
             {"stack_params": stack_params_of_one_layer}),
    Mutation("d_k_is_d_model", "each head given d_k = d_model instead of d_model / h",
             {"attention_shapes": shapes_with_full_width_heads, "head_projection_params": head_projection_full_width}),
)
