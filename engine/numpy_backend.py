"""The NumPy reference backend: the namespace that engine.get_backend("numpy") returns."""

from __future__ import annotations

from engine.attention import (
    additive_attention,
    causal_mask,
    multi_head_attention,
    padding_mask,
    scaled_dot_product_attention,
    softmax,
)
from engine.layers import batch_norm, decoder_layer, encoder_layer, feed_forward, layer_norm
from engine.params import (
    decoder_layer_params,
    encoder_layer_params,
    ffn_params,
    head_projection_params,
    layer_norm_params,
    mha_params,
    output_projection_params,
    score_entries,
    stack_params,
)
from engine.positions import encoding_dot, encoding_sq_distance, offset_rotation, sinusoidal_encoding
from engine.shapes import attention_shapes
from engine.training import (
    dot_product_variance,
    label_smoothing_targets,
    smoothed_cross_entropy,
    teacher_forcing_inputs,
    warmup_lr,
)

__all__ = [
    "softmax",
    "causal_mask",
    "padding_mask",
    "scaled_dot_product_attention",
    "additive_attention",
    "multi_head_attention",
    "feed_forward",
    "layer_norm",
    "batch_norm",
    "encoder_layer",
    "decoder_layer",
    "sinusoidal_encoding",
    "offset_rotation",
    "encoding_dot",
    "encoding_sq_distance",
    "mha_params",
    "ffn_params",
    "layer_norm_params",
    "encoder_layer_params",
    "decoder_layer_params",
    "stack_params",
    "output_projection_params",
    "head_projection_params",
    "score_entries",
    "label_smoothing_targets",
    "smoothed_cross_entropy",
    "warmup_lr",
    "teacher_forcing_inputs",
    "dot_product_variance",
    "attention_shapes",
]
