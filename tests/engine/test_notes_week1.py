"""Every printed output and worked number of the Week 1 notes, reproduced by the engine.

Seeds and draw order copy the notes' code blocks exactly; values are compared at the
printed precision (formatted the way the notes print them).
"""

from __future__ import annotations

from types import ModuleType

import numpy as np
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import engine


def squash(text: str) -> str:
    """The notes' extracted text collapses runs of spaces, so compare with single spaces."""
    return " ".join(text.split())


def attention_inputs() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """q, k, v of code block 5.1, same seed and draw order."""
    rng = np.random.default_rng(42)
    torch.manual_seed(42)
    q = rng.normal(size=(1, 2, 3, 4)).astype(np.float32)
    k = rng.normal(size=(1, 2, 5, 4)).astype(np.float32)
    v = rng.normal(size=(1, 2, 5, 4)).astype(np.float32)
    return q, k, v


# ------------------------------------------------------------ 5.1 attention from scratch


def test_attention_rows_sum_to_one_as_printed(backend: ModuleType) -> None:
    y, a = backend.scaled_dot_product_attention(*attention_inputs())
    assert y.shape == (1, 2, 3, 4)
    assert f"row-sum range={a.sum(-1).min():.6f}..{a.sum(-1).max():.6f}" == "row-sum range=1.000000..1.000000"


def test_attention_matches_torch_sdpa_as_printed() -> None:
    q, k, v = attention_inputs()
    torch_out = F.scaled_dot_product_attention(torch.tensor(q), torch.tensor(k), torch.tensor(v)).numpy()
    notes_scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    z = notes_scores - notes_scores.max(axis=-1, keepdims=True)
    notes_y = (np.exp(z) / np.exp(z).sum(axis=-1, keepdims=True)) @ v
    # Printed: max |NumPy - torch SDPA|=0.00000011, a float32 rounding difference.
    assert np.max(np.abs(notes_y - torch_out)) <= 5e-7
    for name in engine.BACKENDS:
        y, _ = engine.get_backend(name).scaled_dot_product_attention(q, k, v)
        assert np.max(np.abs(y - torch_out)) <= 5e-7
        assert np.max(np.abs(y - notes_y)) <= 5e-7


# ------------------------------------------------------------ 5.2 dot product variance

PRINTED_VARIANCES = [(4, "4.04", "1.011"), (16, "15.87", "0.992"), (64, "63.83", "0.997"), (256, "253.99", "0.992")]


def test_variance_table_as_printed(backend: ModuleType) -> None:
    rng = np.random.default_rng(42)
    for d, var_text, scaled_text in PRINTED_VARIANCES:  # one generator, in sequence, as in the notes
        var, scaled = backend.dot_product_variance(rng, d)
        assert f"{var:8.2f}".strip() == var_text
        assert f"{scaled:.3f}" == scaled_text


def test_variance_is_dk_and_scaled_variance_is_one() -> None:
    rng = np.random.default_rng(42)
    for d, _, _ in PRINTED_VARIANCES:
        var, scaled = engine.dot_product_variance(rng, d)
        assert var == pytest.approx(d, rel=0.05)
        assert scaled == pytest.approx(var / d, rel=1e-12)


# ------------------------------------------------------------ 5.3 multihead shape check


def shape_check_layer() -> tuple[torch.Tensor, nn.MultiheadAttention]:
    """x and the MHA module of code block 5.3, same seed and construction order."""
    torch.manual_seed(42)
    x = torch.randn(2, 5, 16)
    return x, nn.MultiheadAttention(16, 4, dropout=0.0, batch_first=True)


def test_multihead_shapes_as_printed() -> None:
    shapes = engine.attention_shapes(2, 5, 16, 4)
    assert f"heads [B,h,T,d_k]=[{','.join(map(str, shapes['Q_heads']))}]" == "heads [B,h,T,d_k]=[2,4,5,4]"
    assert list(shapes["concat"]) == [2, 5, 16]
    assert shapes["X_q"] == (2, 5, 16)


def test_multihead_matches_torch_module(backend: ModuleType) -> None:
    x, layer = shape_check_layer()
    expected, _ = layer(x, x, x, need_weights=False)
    sd = {name: p.detach().numpy() for name, p in layer.state_dict().items()}
    out, weights = backend.multi_head_attention(
        x.numpy(), x.numpy(), sd["in_proj_weight"], sd["in_proj_bias"], sd["out_proj.weight"], sd["out_proj.bias"], 4
    )
    # Printed: max |manual - torch.nn.MultiheadAttention|=0.00000009
    assert np.max(np.abs(out - expected.detach().numpy())) <= 1e-6
    assert weights.shape == (2, 4, 5, 5) and out.shape == (2, 5, 16)


# ------------------------------------------------------------ 5.4 encoder parameter count


def test_encoder_parameter_counts_as_printed(backend: ModuleType) -> None:
    d, ff = 512, 2048
    mha, ffn = backend.mha_params(d), backend.ffn_params(d, ff)
    norms = 2 * backend.layer_norm_params(d)
    assert f"MHA formula={mha:,}; FFN formula={ffn:,}; two LayerNorms={norms:,}" == (
        "MHA formula=1,050,624; FFN formula=2,099,712; two LayerNorms=2,048"
    )
    assert f"{backend.encoder_layer_params(d, ff):,}" == "3,152,384"
    assert f"{backend.stack_params(backend.encoder_layer_params(d, ff), 6):,}" == "18,914,304"


def test_encoder_parameter_count_equals_torch_module() -> None:
    layer = nn.TransformerEncoderLayer(512, 8, 2048, dropout=0.0, batch_first=True, bias=True, device="meta")
    counted = sum(p.numel() for p in layer.parameters())
    assert engine.encoder_layer_params(512, 2048) == counted == 4 * 512**2 + 2 * 512 * 2048 + 2048 + 9 * 512


# ------------------------------------------------------------ 5.5 additive attention


def test_additive_attention_as_printed(backend: ModuleType) -> None:
    rng = np.random.default_rng(42)
    enc = rng.normal(size=(4, 3))
    dec = rng.normal(size=3)
    W, U, v = rng.normal(size=(3, 5)), rng.normal(size=(3, 5)), rng.normal(size=5)
    scores, alpha, context = backend.additive_attention(enc, dec, W, U, v)
    assert squash(np.array2string(scores, precision=3)) == "[ 0.699 0.539 -0.081 -0.522]"
    assert squash(np.array2string(alpha, precision=3)) == "[0.384 0.327 0.176 0.113]"
    assert f"{alpha.sum():.6f}" == "1.000000"
    assert squash(np.array2string(context, precision=3)) == "[ 0.351 -0.993 -0.053]"
    np.testing.assert_allclose(context, sum(a * h for a, h in zip(alpha, enc, strict=True)), rtol=1e-12)


# ------------------------------------------------------------ section 6 worked checks


def test_worked_example_sums_values_not_keys(backend: ModuleType) -> None:
    z, a = backend.scaled_dot_product_attention([[1.0]], [[0.0], [0.0]], [[1.0, 0.0], [0.0, 2.0]])
    np.testing.assert_allclose(a, [[0.5, 0.5]])
    np.testing.assert_allclose(z, [[0.5, 1.0]])


def test_query_projection_shape(backend: ModuleType) -> None:
    assert backend.attention_shapes("B", 10, 512, 8)["Q"] == ("B", 10, 64)
    assert backend.attention_shapes(3, 10, 512, 8)["Q"] == (3, 10, 64)
    assert (np.zeros((3, 10, 512)) @ np.zeros((512, 64))).shape == (3, 10, 64)


def test_score_entries_1152(backend: ModuleType) -> None:
    assert backend.score_entries(4, 2, 12, 12) == 4 * 2 * 12**2 == 1152


def test_head_projection_is_32768_not_the_ebooks_typo_32178(backend: ModuleType) -> None:
    assert backend.head_projection_params(512, 64) == 512 * 64 == 32_768
    assert backend.head_projection_params(512, 64) != 32_178


def test_output_projection_multiplies_concat_on_the_right_not_the_left_as_the_ebook_writes(backend: ModuleType) -> None:
    concat = np.array([1.0, 2.0, 3.0, 4.0])
    W_O = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.0, 1.0]])  # columns [1,0,1,0]ᵀ and [0,1,0,1]ᵀ
    np.testing.assert_array_equal(concat @ W_O, [4.0, 6.0])
    with pytest.raises(ValueError):
        W_O @ concat  # the ebook's left multiplication does not even type-check for row vectors
    # The engine's MHA applies W^O on the right too: zero W^V and b^V = [1, 2, 3, 4] make the two
    # heads output [1, 2] and [3, 4]; out_proj_weight is W^O transposed (PyTorch [out, in] layout).
    in_proj_bias = np.concatenate([np.zeros(8), concat])
    W_O_square = np.hstack([W_O, np.zeros((4, 2))])  # d_model = 4 needs a square W^O
    out, _ = backend.multi_head_attention(
        np.ones((1, 4)), np.ones((1, 4)), np.zeros((12, 4)), in_proj_bias, W_O_square.T, None, 2
    )
    np.testing.assert_allclose(out, [[4.0, 6.0, 0.0, 0.0]])


def test_ffn_is_x_W1_not_the_ebooks_W1_x(backend: ModuleType) -> None:
    rng = np.random.default_rng(0)
    d_model, d_ff, T = 4, 6, 3
    x, W1, W2 = rng.normal(size=(T, d_model)), rng.normal(size=(d_model, d_ff)), rng.normal(size=(d_ff, d_model))
    out = backend.feed_forward(x, W1, None, W2, None)
    np.testing.assert_allclose(out, np.maximum(x @ W1, 0) @ W2, rtol=1e-12)
    np.testing.assert_allclose(out[1], backend.feed_forward(x[1], W1, None, W2, None), rtol=1e-12)  # per row
    with pytest.raises(ValueError):
        W1 @ x[0]  # W1 [d_model, d_ff] times a d_model row: the ebook's orientation is a shape error
