"""Every printed output and worked number of the Week 2 notes, reproduced by the engine.

Seeds and draw order copy the notes' code blocks exactly; values are compared at the
printed precision (formatted the way the notes print them).
"""

from __future__ import annotations

import math
from types import ModuleType

import numpy as np
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import engine

CAUSAL_SCORES = [[1.2, 0.5, 2.1, -0.3], [0.2, 1.0, 0.8, 1.1], [0.4, -0.2, 1.4, 0.7], [0.6, 0.3, -0.1, 1.3]]
PRINTED_CAUSAL_WEIGHTS = """\
[[1.0000, 0.0000, 0.0000, 0.0000],
 [0.3100, 0.6900, 0.0000, 0.0000],
 [0.2344, 0.1286, 0.6370, 0.0000],
 [0.2352, 0.1743, 0.1168, 0.4737]]"""


def table(a: np.ndarray, decimals: int) -> str:
    """Rows of a 2-D array in torch's printed layout."""
    rows = (", ".join(f"{v:.{decimals}f}" for v in row) for row in a)
    return "[[" + "],\n [".join(rows) + "]]"


# ------------------------------------------------------------ 01 causal mask


def test_causal_mask_as_printed(backend: ModuleType) -> None:
    mask = backend.causal_mask(4)
    assert mask.astype(int).tolist() == [[0, 1, 1, 1], [0, 0, 1, 1], [0, 0, 0, 1], [0, 0, 0, 0]]
    assert mask.tolist() == torch.triu(torch.ones(4, 4, dtype=torch.bool), diagonal=1).tolist()


def test_causal_weights_table_as_printed(backend: ModuleType) -> None:
    scores = np.array(CAUSAL_SCORES, dtype=np.float32)  # torch.tensor's default dtype
    mask = backend.causal_mask(4)
    weights = backend.softmax(scores, mask=mask)
    assert table(weights, 4) == PRINTED_CAUSAL_WEIGHTS
    assert f"future weight sum={weights[mask].sum():.1f}" == "future weight sum=0.0"
    assert np.all(weights[mask] == 0.0)  # exactly zero, not merely small


def test_masked_row_weights(backend: ModuleType) -> None:
    weights = backend.softmax([2.0, 1.0, 5.0, 3.0], mask=[False, False, True, True])
    assert [f"{w:.4f}" for w in weights] == ["0.7311", "0.2689", "0.0000", "0.0000"]
    e = math.e
    np.testing.assert_allclose(weights, [e**2 / (e**2 + e), e / (e**2 + e), 0.0, 0.0], rtol=1e-15, atol=0)
    np.testing.assert_array_equal(weights, backend.softmax([2.0, 1.0, -np.inf, -np.inf]))


# ------------------------------------------------------------ 02 cross-attention shapes


def test_cross_attention_shapes_as_printed(backend: ModuleType) -> None:
    torch.manual_seed(42)
    B, T_dec, T_enc, D, H = 2, 3, 5, 16, 4
    q, kv = torch.randn(B, T_dec, D), torch.randn(B, T_enc, D)
    layer = nn.MultiheadAttention(D, H, batch_first=True, dropout=0.0)
    y, a = layer(q, kv, kv, need_weights=True, average_attn_weights=False)
    sd = {name: p.detach().numpy() for name, p in layer.state_dict().items()}
    out, weights = backend.multi_head_attention(
        q.numpy(), kv.numpy(), sd["in_proj_weight"], sd["in_proj_bias"], sd["out_proj.weight"], sd["out_proj.bias"], H
    )
    assert f"weights [B,h,T_dec,T_enc]={list(weights.shape)}; output={list(out.shape)}" == (
        "weights [B,h,T_dec,T_enc]=[2, 4, 3, 5]; output=[2, 3, 16]"
    )
    np.testing.assert_allclose(out, y.detach().numpy(), atol=1e-6)
    np.testing.assert_allclose(weights, a.detach().numpy(), atol=1e-6)
    assert backend.attention_shapes(B, T_dec, D, H, T_k=T_enc)["A"] == (2, 4, 3, 5)


# ------------------------------------------------------------ 03 sinusoidal encoding


def notes_torch_pe(n: int, d: int) -> np.ndarray:
    """The notes' float32 PyTorch formula implementation, verbatim."""
    pt = torch.zeros(n, d)
    p = torch.arange(n, dtype=torch.float32)[:, None]
    i = torch.arange(0, d, 2, dtype=torch.float32)
    phase = p * torch.exp(-np.log(10000) * i / d)
    pt[:, 0::2] = phase.sin()
    pt[:, 1::2] = phase.cos()
    return pt.numpy()


def test_sinusoidal_encoding_as_printed(backend: ModuleType) -> None:
    torch.manual_seed(42)
    pe = backend.sinusoidal_encoding(10, 16)
    assert pe.shape == (10, 16)
    # Printed: max |from scratch - formula implementation|=0.00000011 (float32 formula).
    assert np.max(np.abs(pe - notes_torch_pe(10, 16))) <= 5e-7
    assert f"entry range=[{pe.min():.6f},{pe.max():.6f}]" == "entry range=[-0.989992,1.000000]"


def test_encoding_norm_is_half_d_and_position_zero_alternates(backend: ModuleType) -> None:
    pe = backend.sinusoidal_encoding(50, 16)
    np.testing.assert_allclose((pe**2).sum(axis=1), 8.0, rtol=1e-12)
    assert pe[0, 0::2].tolist() == [0.0] * 8 and pe[0, 1::2].tolist() == [1.0] * 8
    assert np.all(np.abs(pe) <= 1.0)


@pytest.mark.parametrize("k", [1, 3, 7, 20])
def test_offset_is_a_linear_map_and_dot_and_distance_depend_only_on_k(backend: ModuleType, k: int) -> None:
    d = 16
    pe = backend.sinusoidal_encoding(40, d)
    R = backend.offset_rotation(k, d)
    np.testing.assert_allclose(pe[:-k] @ R, pe[k:], atol=1e-12)
    dots = (pe[:-k] * pe[k:]).sum(axis=1)  # PE(p)·PE(p+k) for every p
    np.testing.assert_allclose(dots, backend.encoding_dot(k, d), atol=1e-12)
    np.testing.assert_allclose(((pe[k:] - pe[:-k]) ** 2).sum(axis=1), backend.encoding_sq_distance(k, d), atol=1e-12)
    omega = 10000.0 ** (-2 * np.arange(d // 2) / d)
    assert backend.encoding_dot(k, d) == pytest.approx(np.cos(k * omega).sum(), abs=1e-12)
    assert backend.encoding_sq_distance(k, d) == pytest.approx(2 * (1 - np.cos(k * omega)).sum(), abs=1e-12)


def test_offset_rotation_is_the_transpose_of_the_notes_column_form(backend: ModuleType) -> None:
    k, d = 7, 4
    R = backend.offset_rotation(k, d)
    for i in range(d // 2):
        c, s = math.cos(k * 10000 ** (-2 * i / d)), math.sin(k * 10000 ** (-2 * i / d))
        column_form = np.array([[c, s], [-s, c]])  # the notes' matrix acting on column vectors
        np.testing.assert_allclose(R[2 * i : 2 * i + 2, 2 * i : 2 * i + 2], column_form.T, atol=1e-15)


def test_odd_width_is_rejected(backend: ModuleType) -> None:
    with pytest.raises(ValueError, match="even"):
        backend.sinusoidal_encoding(4, 5)


# ------------------------------------------------------------ 04 normalization axes

NORM_X = np.array([[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [[7.0, 8.0, 9.0], [10.0, 11.0, 12.0]]], dtype=np.float32)


def test_layer_norm_per_token_means_vanish(backend: ModuleType) -> None:
    ln = backend.layer_norm(NORM_X)
    assert [[f"{m:.0f}." for m in row] for row in ln.mean(-1)] == [["0.", "0."], ["0.", "0."]]
    np.testing.assert_allclose(ln.mean(-1), 0.0, atol=1e-6)
    reference = torch.nn.LayerNorm(3, elementwise_affine=False)(torch.tensor(NORM_X)).detach().numpy()
    np.testing.assert_allclose(ln, reference, atol=1e-6)


def test_batch_norm_feature_zero_as_printed(backend: ModuleType) -> None:
    bn = backend.batch_norm(NORM_X)
    assert table(bn[:, :, 0], 4) == "[[-1.3416, -0.4472],\n [0.4472, 1.3416]]"
    module = nn.BatchNorm1d(3, affine=False, track_running_stats=False)
    np.testing.assert_allclose(bn, module(torch.tensor(NORM_X).transpose(1, 2)).transpose(1, 2).numpy(), atol=1e-6)


def test_single_token_layer_norm_as_printed(backend: ModuleType) -> None:
    out = backend.layer_norm(NORM_X[:1, :1, :]).flatten()
    assert [f"{v:.4f}" for v in out] == ["-1.2247", "0.0000", "1.2247"]


def test_layer_norm_of_1_2_3_is_minus_root_one_and_a_half_0_root_one_and_a_half(backend: ModuleType) -> None:
    np.testing.assert_allclose(backend.layer_norm([1.0, 2.0, 3.0], eps=0.0), [-math.sqrt(1.5), 0.0, math.sqrt(1.5)],
                               rtol=1e-15)


def test_batch_norm_rejects_one_value_per_channel_as_printed(backend: ModuleType) -> None:
    # The notes' BatchNorm1d input [1, 3, 1] is [B, C, T]; ours is channels-last [B, T, C] = [1, 1, 3].
    with pytest.raises(ValueError, match="^Expected more than 1 value per channel when training, got input size"):
        backend.batch_norm(np.ones((1, 1, 3), dtype=np.float32))


# ------------------------------------------------------------ 05 label smoothing


def test_uniform_label_smoothing_five_classes(backend: ModuleType) -> None:
    q = backend.label_smoothing_targets(5, 2, 0.1)
    np.testing.assert_allclose(q, [0.02, 0.02, 0.92, 0.02, 0.02], rtol=1e-12)


def test_uniform_label_smoothing_four_classes_as_printed(backend: ModuleType) -> None:
    printed = [0.02500000037252903, 0.02500000037252903, 0.9249999523162842, 0.02500000037252903]
    # The notes' code block itself, verbatim: float32 arithmetic gives exactly the printed list.
    logits = torch.tensor([[0.2, -0.3, 1.4, 0.1]])
    y = torch.full_like(logits, 0.1 / 4)
    y[0, 2] += 1 - 0.1
    assert y.flatten().tolist() == printed
    # The engine's float64 targets equal those float32 values to float32 resolution.
    q = backend.label_smoothing_targets(4, 2, 0.1)
    np.testing.assert_allclose(q, printed, rtol=float(np.finfo(np.float32).eps))
    np.testing.assert_allclose(q, [0.025, 0.025, 0.925, 0.025], rtol=1e-12)


def test_non_gold_label_smoothing_gives_gold_point_nine(backend: ModuleType) -> None:
    targets = backend.label_smoothing_targets(5, 2, 0.1, "non_gold")
    np.testing.assert_allclose(targets, [0.025, 0.025, 0.9, 0.025, 0.025], rtol=1e-12)


def test_smoothed_loss_as_printed() -> None:
    logits = np.array([[0.2, -0.3, 1.4, 0.1]], dtype=np.float32)  # torch.tensor's default dtype
    torch_loss = engine.get_backend("torch").smoothed_cross_entropy(logits, [2], 0.1)
    assert f"torch loss={torch_loss:.8f}" == "torch loss=0.66827178"
    assert torch_loss == F.cross_entropy(torch.tensor(logits), torch.tensor([2]), label_smoothing=0.1).item()
    # The printed digits are float32 rounding: NumPy's float32 path lands within 2 float32 ulps,
    # and in float64 both backends agree on the exact value 0.6682716850.
    assert engine.get_backend("numpy").smoothed_cross_entropy(logits, [2], 0.1) == pytest.approx(0.66827178, abs=2e-7)
    exact = [engine.get_backend(name).smoothed_cross_entropy(logits.astype(np.float64), [2], 0.1)
             for name in engine.BACKENDS]
    assert exact[0] == pytest.approx(exact[1], abs=1e-12)
    log_p = logits[0].astype(np.float64) - np.log(np.exp(logits[0].astype(np.float64)).sum())
    assert exact[0] == pytest.approx(-(np.array([0.025, 0.025, 0.925, 0.025]) * log_p).sum(), abs=1e-12)


# ------------------------------------------------------------ 06 warm-up schedule

PRINTED_RATES = {
    512: ["0.0000001747", "0.0001746928", "0.0006987712", "0.0004941059"],
    256: ["0.0000002471", "0.0002470529", "0.0009882118", "0.0006987712"],
}
STEPS = (1, 1000, 4000, 8000)


@pytest.mark.parametrize("d", [512, 256])
def test_warmup_rates_as_printed(backend: ModuleType, d: int) -> None:
    assert [f"{backend.warmup_lr(step, d):.10f}" for step in STEPS] == PRINTED_RATES[d]


def test_warmup_peak_and_width_ratio(backend: ModuleType) -> None:
    assert f"{backend.warmup_lr(4000, 512):.10f}" == "0.0006987712"
    assert backend.warmup_lr(4000, 512) == pytest.approx(512**-0.5 * 4000**-0.5, rel=1e-12)
    assert max(range(1, 20000, 37), key=lambda s: backend.warmup_lr(s, 512)) in range(3950, 4050)
    for step in (*STEPS, 123, 4001, 50000):
        assert backend.warmup_lr(step, 512) / backend.warmup_lr(step, 256) == pytest.approx(1 / math.sqrt(2), rel=1e-12)


def test_warmup_rejects_step_zero(backend: ModuleType) -> None:
    with pytest.raises(ValueError, match="step"):
        backend.warmup_lr(0, 512)


# ------------------------------------------------------------ 07 decoder parameters


def test_decoder_parameter_counts_as_printed(backend: ModuleType) -> None:
    d, ff = 512, 2048
    attention, feedforward = 2 * backend.mha_params(d), backend.ffn_params(d, ff)
    norms = 3 * backend.layer_norm_params(d)
    assert f"self+cross attention={attention:,}; FFN={feedforward:,}; 3 LayerNorms={norms:,}" == (
        "self+cross attention=2,101,248; FFN=2,099,712; 3 LayerNorms=3,072"
    )
    layer_count = backend.decoder_layer_params(d, ff)
    assert f"{layer_count:,}" == "4,204,032" and f"{backend.stack_params(layer_count, 6):,}" == "25,224,192"
    layer = nn.TransformerDecoderLayer(d, 8, ff, dropout=0.0, batch_first=True, bias=True, device="meta")
    assert layer_count == sum(p.numel() for p in layer.parameters())


def test_output_projection_counts(backend: ModuleType) -> None:
    assert f"{backend.output_projection_params(512, 37_000):,}" == "18,944,000"
    assert backend.output_projection_params(512, 37_000, bias=True) == 18_944_000 + 37_000
    assert backend.output_projection_params(512, 37_000, bias=True, tied=True) == 37_000  # shared weights count once


# ------------------------------------------------------------ 08 teacher forcing


def test_teacher_forcing_and_free_running_inputs(backend: ModuleType) -> None:
    assert backend.teacher_forcing_inputs([1, 2, 3, 4], 0).tolist() == [0, 1, 2, 3]
    assert backend.teacher_forcing_inputs(np.array([1, 7, 6, 4]), 0).tolist() == [0, 1, 7, 6]
    assert backend.teacher_forcing_inputs(np.array([[1, 2, 3], [4, 5, 6]]), 9).tolist() == [[9, 1, 2], [9, 4, 5]]
