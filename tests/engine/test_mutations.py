"""Every engine mutation against an independent computation of the same slip.

The slipped value is computed here a second time by code that does not go through the engine:
PyTorch's own modules where the slip is "PyTorch with one piece removed or changed", else plain
loops or tensor ops written from the slip's formula. Each test also checks that the slip really
differs from the reference on its inputs, so a mutation that silently did nothing would fail.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from torch import nn

import engine
from engine.mutations import BY_ID, MUTATIONS, affecting
from engine.mutations.base import Mutation

RNG = np.random.default_rng(7)


def slip(mutation_id: str, function: str):  # type: ignore[no-untyped-def]
    """The slipped version of engine function `function` under mutation `mutation_id`."""
    return BY_ID[mutation_id].replaces[function]


def t(a: np.ndarray) -> torch.Tensor:
    return torch.tensor(a, dtype=torch.float64)


def state(module: nn.Module) -> dict[str, np.ndarray]:
    return {name: value.detach().numpy().copy() for name, value in module.state_dict().items()}


def n_params(module: nn.Module) -> int:
    return sum(p.numel() for p in module.parameters())


def test_registry_ids_are_unique_and_replace_public_engine_functions() -> None:
    assert len(BY_ID) == len(MUTATIONS)
    for mutation in MUTATIONS:
        assert isinstance(mutation, Mutation) and mutation.replaces
        assert set(mutation.replaces) <= set(engine.PUBLIC_API), mutation.id
    assert [m.id for m in affecting(["warmup_lr"])] == ["warmup_wrong_branch"]


# --- attention --------------------------------------------------------------------------------

Q, K, V = RNG.normal(size=(3, 4)), RNG.normal(size=(4, 4)), RNG.normal(size=(4, 2))  # T_q=3, T_k=d_k=4
CAUSAL = np.triu(np.ones((4, 4), dtype=bool), 1)


def _torch_attention(scores: torch.Tensor, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    weights = torch.softmax(scores, dim=-1)
    return (weights @ t(v)).numpy(), weights.numpy()


@pytest.mark.parametrize(("mutation_id", "scores"), [
    ("no_sqrt_dk_scaling", lambda q, k: t(q) @ t(k).T),
    ("scaled_by_d_k", lambda q, k: t(q) @ t(k).T / q.shape[-1]),
    ("k_instead_of_k_transpose", lambda q, k: t(q) @ t(k) / math.sqrt(q.shape[-1])),
])
def test_score_slips(mutation_id: str, scores) -> None:  # type: ignore[no-untyped-def]
    z, a = slip(mutation_id, "scaled_dot_product_attention")(Q, K, V)
    want_z, want_a = _torch_attention(scores(Q, K), V)
    np.testing.assert_allclose(a, want_a, atol=1e-12)
    np.testing.assert_allclose(z, want_z, atol=1e-12)
    assert not np.allclose(a, engine.scaled_dot_product_attention(Q, K, V)[1])


def test_q_k_without_transpose_needs_d_k_equal_to_t_k() -> None:
    with pytest.raises(ValueError):
        slip("k_instead_of_k_transpose", "scaled_dot_product_attention")(Q, K[:3], V[:3])


def test_k_q_transpose_gives_the_transposed_scores_softmaxed_over_queries() -> None:
    q, k, v = RNG.normal(size=(3, 2)), RNG.normal(size=(3, 2)), RNG.normal(size=(3, 2))
    z, a = slip("k_times_q_transpose", "scaled_dot_product_attention")(q, k, v)
    want_z, want_a = _torch_attention(t(k) @ t(q).T / math.sqrt(2), v)
    np.testing.assert_allclose(a, want_a, atol=1e-12)
    np.testing.assert_allclose(z, want_z, atol=1e-12)


def test_softmax_over_queries_normalizes_columns() -> None:
    s = RNG.normal(size=(3, 4))
    np.testing.assert_allclose(slip("softmax_over_wrong_axis", "softmax")(s), torch.softmax(t(s), 0).numpy())
    _, a = slip("softmax_over_wrong_axis", "scaled_dot_product_attention")(Q, K, V)
    np.testing.assert_allclose(a, torch.softmax(t(Q) @ t(K).T / 2, 0).numpy(), atol=1e-12)
    with pytest.raises(ValueError):  # a single row has no second axis
        slip("softmax_over_wrong_axis", "softmax")(s[0])


def test_mask_slips_against_masked_fill() -> None:
    q = RNG.normal(size=(4, 4))
    scores = t(q) @ t(K).T / 2
    after = torch.softmax(scores, -1).masked_fill(torch.tensor(CAUSAL), 0.0)
    zero = torch.softmax(scores.masked_fill(torch.tensor(CAUSAL), 0.0), -1)
    for mutation_id, want in (("mask_applied_after_softmax", after), ("mask_filled_with_zero", zero)):
        z, a = slip(mutation_id, "scaled_dot_product_attention")(q, K, V, CAUSAL)
        np.testing.assert_allclose(a, want.numpy(), atol=1e-12)
        np.testing.assert_allclose(z, (want @ t(V)).numpy(), atol=1e-12)
        np.testing.assert_allclose(slip(mutation_id, "softmax")(scores.numpy(), mask=CAUSAL), want.numpy())


def test_causal_mask_omitted_attends_to_every_key() -> None:
    mask = slip("causal_mask_omitted", "causal_mask")(4)
    assert mask.shape == (4, 4) and not mask.any()
    _, a = engine.scaled_dot_product_attention(K, K, V, mask)
    np.testing.assert_allclose(a, torch.softmax(t(K) @ t(K).T / 2, -1).numpy(), atol=1e-12)


def _torch_mha(mha: nn.MultiheadAttention, x: np.ndarray, scale: float, output: bool) -> np.ndarray:
    """Multi-head self-attention from the module's own weights, with the given score scale, with or without W^O."""
    d, h = mha.embed_dim, mha.num_heads
    qkv = t(x) @ mha.in_proj_weight.detach().double().T + mha.in_proj_bias.detach().double()
    heads = []
    for i in range(h):
        cols = slice(i * d // h, (i + 1) * d // h)
        q, k, v = qkv[:, :d][:, cols], qkv[:, d:2 * d][:, cols], qkv[:, 2 * d:][:, cols]
        heads.append(torch.softmax(q @ k.T * scale, -1) @ v)
    concat = torch.cat(heads, dim=-1)
    if not output:
        return concat.numpy()
    return (concat @ mha.out_proj.weight.detach().double().T + mha.out_proj.bias.detach().double()).numpy()


def test_multi_head_slips_against_the_module_weights() -> None:
    torch.manual_seed(0)
    mha = nn.MultiheadAttention(4, 2, batch_first=True).double()
    with torch.no_grad():
        mha.in_proj_bias.normal_()
        mha.out_proj.bias.normal_()
    sd = state(mha)
    x = RNG.normal(size=(3, 4))
    args = (x, x, sd["in_proj_weight"], sd["in_proj_bias"], sd["out_proj.weight"], sd["out_proj.bias"], 2)
    reference = mha(t(x)[None], t(x)[None], t(x)[None])[0][0].detach().numpy()
    np.testing.assert_allclose(_torch_mha(mha, x, 1 / math.sqrt(2), True), reference, atol=1e-12)  # the check checks
    np.testing.assert_allclose(slip("no_sqrt_dk_scaling", "multi_head_attention")(*args)[0],
                               _torch_mha(mha, x, 1.0, True), atol=1e-12)
    np.testing.assert_allclose(slip("scaled_by_d_k", "multi_head_attention")(*args)[0],
                               _torch_mha(mha, x, 0.5, True), atol=1e-12)
    np.testing.assert_allclose(slip("forgot_output_projection", "multi_head_attention")(*args)[0],
                               _torch_mha(mha, x, 1 / math.sqrt(2), False), atol=1e-12)
    no_bias = nn.MultiheadAttention(4, 2, batch_first=True, bias=False).double()
    no_bias.load_state_dict({k: v for k, v in mha.state_dict().items() if "bias" not in k})
    np.testing.assert_allclose(slip("forgot_biases", "multi_head_attention")(*args)[0],
                               no_bias(t(x)[None], t(x)[None], t(x)[None])[0][0].detach().numpy(), atol=1e-12)


# --- counts and shapes ------------------------------------------------------------------------

def test_count_slips_against_module_parameter_counts() -> None:
    d, f = 16, 64
    mha, mha_nb = nn.MultiheadAttention(d, 4), nn.MultiheadAttention(d, 4, bias=False)
    enc = nn.TransformerEncoderLayer(d, 4, f)
    dec = nn.TransformerDecoderLayer(d, 4, f)
    wo = n_params(mha.out_proj)
    assert slip("forgot_output_projection", "mha_params")(d) == n_params(mha) - wo
    assert slip("forgot_output_projection", "encoder_layer_params")(d, f) == n_params(enc) - wo
    assert slip("forgot_output_projection", "decoder_layer_params")(d, f) == n_params(dec) - 2 * wo
    assert slip("forgot_biases", "mha_params")(d, True) == n_params(mha_nb)
    assert slip("forgot_biases", "encoder_layer_params")(d, f, True) == n_params(
        nn.TransformerEncoderLayer(d, 4, f, bias=False))
    assert slip("forgot_biases", "ffn_params")(d, f, True) == n_params(nn.Linear(d, f, bias=False)) + n_params(
        nn.Linear(f, d, bias=False))
    assert slip("forgot_biases", "layer_norm_params")(d) == n_params(nn.LayerNorm(d, bias=False))
    assert slip("counted_nonexistent_biases", "mha_params")(d, False) == n_params(mha)
    assert slip("counted_nonexistent_biases", "output_projection_params")(d, 100) == n_params(nn.Linear(d, 100))
    assert slip("d_k_is_d_model", "head_projection_params")(512, 64) == n_params(nn.Linear(512, 512, bias=False))
    assert slip("one_head_counted_for_all", "score_entries")(2, 8, 5, 7) == torch.zeros(2, 5, 7).numel()


def test_shape_slips() -> None:
    full = slip("d_k_is_d_model", "attention_shapes")(2, 5, 512, 8)
    assert full["W_Q"] == (512, 512) and full["Q_heads"] == (2, 8, 5, 512) and full["W_O"] == (8 * 512, 512)
    one = slip("one_head_counted_for_all", "attention_shapes")("B", "T", 512, 8)
    assert one["A"] == ("B", "T", "T") and one["Q_heads"] == ("B", "T", 64)
    assert one["concat"] == ("B", "T", 64) and one["W_O"] == (64, 512)
    assert one["W_Q"] == engine.attention_shapes("B", "T", 512, 8)["W_Q"]  # per-head shapes unchanged


# --- positions --------------------------------------------------------------------------------

def _pe_loops(n: int, d: int, first: int = 0, by_i: bool = False, swapped: bool = False) -> np.ndarray:
    pe = np.zeros((n, d))
    for row, p in enumerate(range(first, first + n)):
        for i in range(d // 2):
            w = 10000 ** (-(i if by_i else 2 * i) / d)
            even, odd = (math.cos(p * w), math.sin(p * w)) if swapped else (math.sin(p * w), math.cos(p * w))
            pe[row, 2 * i], pe[row, 2 * i + 1] = even, odd
    return pe


def test_positional_slips_against_loops() -> None:
    np.testing.assert_allclose(slip("pe_sin_cos_swapped", "sinusoidal_encoding")(5, 6), _pe_loops(5, 6, swapped=True))
    np.testing.assert_allclose(slip("pe_wrong_frequency_index", "sinusoidal_encoding")(5, 6),
                               _pe_loops(5, 6, by_i=True))
    np.testing.assert_allclose(slip("pe_positions_from_one", "sinusoidal_encoding")(5, 6), _pe_loops(5, 6, first=1))
    by_i = _pe_loops(12, 6, by_i=True)
    assert slip("pe_wrong_frequency_index", "encoding_dot")(3, 6) == pytest.approx(by_i[2] @ by_i[5])
    assert slip("pe_wrong_frequency_index", "encoding_sq_distance")(3, 6) == pytest.approx(
        ((by_i[5] - by_i[2]) ** 2).sum())
    for mutation_id, pe in (("pe_sin_cos_swapped", _pe_loops(12, 6, swapped=True)), ("pe_wrong_frequency_index", by_i)):
        R = slip(mutation_id, "offset_rotation")(4, 6)  # the slipped encoding's own offset rotation
        np.testing.assert_allclose(pe[2] @ R, pe[6], atol=1e-12)
        assert not np.allclose(R, engine.offset_rotation(4, 6))


# --- feed-forward and normalization ------------------------------------------------------------

def test_feed_forward_without_relu_against_linear_layers() -> None:
    torch.manual_seed(1)
    l1, l2 = nn.Linear(4, 8).double(), nn.Linear(8, 4).double()
    x = RNG.normal(size=(3, 4))
    got = slip("forgot_relu", "feed_forward")(x, state(l1)["weight"].T, state(l1)["bias"], state(l2)["weight"].T,
                                              state(l2)["bias"])
    np.testing.assert_allclose(got, l2(l1(t(x))).detach().numpy(), atol=1e-12)
    got = slip("forgot_biases", "feed_forward")(x, state(l1)["weight"].T, state(l1)["bias"], state(l2)["weight"].T,
                                                state(l2)["bias"])
    want = torch.relu(t(x) @ l1.weight.detach().double().T) @ l2.weight.detach().double().T
    np.testing.assert_allclose(got, want.numpy(), atol=1e-12)


def test_normalization_slips_against_torch_statistics() -> None:
    x = RNG.normal(size=(4, 5))
    xt, eps = t(x), 0.1  # a large ε so that where it goes shows
    mean = xt.mean(-1, keepdim=True)
    cases = {
        "unbiased_variance": (xt - mean) / torch.sqrt(xt.var(-1, unbiased=True, keepdim=True) + eps),
        "layernorm_eps_omitted": (xt - mean) / xt.std(-1, unbiased=False, keepdim=True),
        "layernorm_eps_outside_root": (xt - mean) / (xt.std(-1, unbiased=False, keepdim=True) + eps),
    }
    for mutation_id, want in cases.items():
        np.testing.assert_allclose(slip(mutation_id, "layer_norm")(x, eps=eps), want.numpy(), atol=1e-12)
        assert not np.allclose(slip(mutation_id, "layer_norm")(x, eps=eps), engine.layer_norm(x, eps=eps))
    bn_unbiased = (xt - xt.mean(0)) / torch.sqrt(xt.var(0, unbiased=True) + eps)
    np.testing.assert_allclose(slip("unbiased_variance", "batch_norm")(x, eps=eps), bn_unbiased.numpy(), atol=1e-12)
    batch = nn.BatchNorm1d(5, eps=eps, affine=False).double().train()
    np.testing.assert_allclose(slip("layernorm_over_batch", "layer_norm")(x, eps=eps), batch(xt).detach().numpy(),
                               atol=1e-12)
    layer = nn.LayerNorm(5, eps=eps, elementwise_affine=False).double()
    np.testing.assert_allclose(slip("batchnorm_over_features", "batch_norm")(x, eps=eps), layer(xt).detach().numpy(),
                               atol=1e-12)


@pytest.mark.parametrize("norm_first", [False, True])
def test_pre_post_ln_swapped_is_the_other_torch_layer(norm_first: bool) -> None:
    torch.manual_seed(2)
    kwargs = {"dim_feedforward": 8, "dropout": 0.0, "batch_first": True, "dtype": torch.float64}
    other = nn.TransformerEncoderLayer(4, 2, norm_first=not norm_first, **kwargs).eval()  # type: ignore[arg-type]
    x = RNG.normal(size=(1, 3, 4))
    got = slip("pre_post_ln_swapped", "encoder_layer")(x, state(other), None, norm_first, num_heads=2)
    np.testing.assert_allclose(got, other(t(x)).detach().numpy(), atol=1e-10)
    dec = nn.TransformerDecoderLayer(4, 2, norm_first=not norm_first, **kwargs).eval()  # type: ignore[arg-type]
    memory = RNG.normal(size=(1, 2, 4))
    got = slip("pre_post_ln_swapped", "decoder_layer")(x, memory, state(dec), norm_first=norm_first, num_heads=2)
    np.testing.assert_allclose(got, dec(t(x), t(memory)).detach().numpy(), atol=1e-10)


# --- training ---------------------------------------------------------------------------------

def test_label_smoothing_other_convention() -> None:
    logits, target, eps, V_ = RNG.normal(size=(3, 5)), np.array([0, 3, 4]), 0.1, 5
    uniform_loss = nn.CrossEntropyLoss(label_smoothing=eps)(t(logits), torch.tensor(target)).item()
    assert slip("label_smoothing_other_convention", "smoothed_cross_entropy")(
        logits, target, eps, "non_gold") == pytest.approx(uniform_loss)
    q = slip("label_smoothing_other_convention", "label_smoothing_targets")(V_, 2, eps)  # asked uniform, gave non_gold
    assert q[2] == pytest.approx(1 - eps) and q[0] == pytest.approx(eps / (V_ - 1))


def test_warmup_branches_swapped_by_hand() -> None:
    d, w = 512, 4000
    swapped = slip("warmup_wrong_branch", "warmup_lr")
    assert swapped(100, d, w) == pytest.approx(d ** -0.5 * 100 ** -0.5)     # decay branch used while warming up
    assert swapped(9000, d, w) == pytest.approx(d ** -0.5 * 9000 * w ** -1.5)  # rise branch used after
    assert swapped(100, d, w) != pytest.approx(engine.warmup_lr(100, d, w))


def test_teacher_forcing_unshifted() -> None:
    y = np.array([[5, 6, 7], [8, 9, 2]])
    np.testing.assert_array_equal(slip("teacher_forcing_no_shift", "teacher_forcing_inputs")(y, 1), y)
    assert not np.array_equal(engine.teacher_forcing_inputs(y, 1), y)
