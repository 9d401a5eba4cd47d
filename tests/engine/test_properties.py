"""Property tests: the NumPy and PyTorch backends agree with each other and with PyTorch's own
modules over random shapes, values, masks and flags; attention keeps its invariants."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from types import ModuleType

import numpy as np
import pytest
import torch
import torch.nn as nn
from hypothesis import given, settings
from hypothesis import strategies as st

import engine

NP, PT = engine.get_backend("numpy"), engine.get_backend("torch")
FEW = settings(max_examples=50, deadline=None)
seeds = st.integers(0, 2**32 - 1)
small = st.integers(1, 4)


def close(actual: np.ndarray, expected: np.ndarray) -> None:
    """Agreement to float32 rounding: rtol 1e-5, atol 1e-6 for O(1) values. Rounding error of an
    entry that nearly cancels scales with the largest operands, so atol grows with max |expected|."""
    atol = 1e-6 * max(1.0, float(np.abs(expected).max(initial=0.0)))
    np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=atol)


def normal(rng: np.random.Generator, *shape: int) -> np.ndarray:
    """float32 N(0, 1) samples: float32 exercises dtype preservation and torch's default dtype."""
    return rng.normal(size=shape).astype(np.float32)


def random_mask(rng: np.random.Generator, B: int, T_q: int, T_k: int) -> np.ndarray:
    """A random True = blocked mask [B, T_q, T_k] that leaves every row one visible key."""
    mask = rng.random((B, T_q, T_k)) < 0.5
    keep = rng.integers(T_k, size=(B, T_q, 1))
    np.put_along_axis(mask, keep, False, axis=-1)
    return mask


def close64(actual: np.ndarray, expected: np.ndarray) -> None:
    """Agreement in float64. Whole layers are compared in double precision: a post-LN over a
    few features divides by a small standard deviation, which amplifies float32 rounding past
    any fixed float32 tolerance, while a real wiring error shows at every precision."""
    np.testing.assert_allclose(actual, expected, rtol=1e-9, atol=1e-10)


def randomized(module: nn.Module, seed: int) -> dict[str, np.ndarray]:
    """Fill every parameter (biases and norm affines included) with N(0, 0.5²); return the
    state_dict as NumPy, the form the engine's layer functions take."""
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(0.5 * torch.randn(p.shape, generator=generator))
    return {name: value.detach().numpy().copy() for name, value in module.state_dict().items()}


def torch_mask(mask: np.ndarray | None, h: int) -> torch.Tensor | None:
    """Our per-batch mask [B, T_q, T_k] as PyTorch's per-(batch, head) attn_mask [B·h, T_q, T_k]."""
    return None if mask is None else torch.from_numpy(mask).repeat_interleave(h, dim=0)


# ------------------------------------------------------------ softmax and masks


@FEW
@given(seed=seeds, B=small, T_q=small, T_k=st.integers(1, 6), masked=st.booleans())
def test_softmax_rows_sum_to_one_masked_entries_are_zero_and_backends_agree(
    seed: int, B: int, T_q: int, T_k: int, masked: bool
) -> None:
    rng = np.random.default_rng(seed)
    x = 5 * normal(rng, B, T_q, T_k)
    mask = random_mask(rng, B, T_q, T_k) if masked else None
    out = NP.softmax(x, mask=mask)
    assert out.dtype == np.float32
    close(out.sum(axis=-1), np.ones((B, T_q)))
    if mask is not None:
        assert np.all(out[mask] == 0.0) and np.all(PT.softmax(x, mask=mask)[mask] == 0.0)
    close(PT.softmax(x, mask=mask), out)
    close(NP.softmax(x, axis=0), torch.softmax(torch.from_numpy(x), dim=0).numpy())


@pytest.mark.parametrize("name", engine.BACKENDS)
def test_fully_masked_row_raises_instead_of_nan(name: str) -> None:
    backend = engine.get_backend(name)
    mask = np.zeros((2, 3, 4), dtype=bool)
    mask[0, 2] = True
    x, kv, w = np.ones((2, 3, 4), np.float32), np.ones((2, 4, 4), np.float32), np.eye(4, dtype=np.float32)
    with pytest.raises(ValueError, match=r"every key is masked in row \(0, 2\)"):
        backend.softmax(x, mask=mask)
    with pytest.raises(ValueError, match="every key is masked"):
        backend.scaled_dot_product_attention(x, kv, kv, mask)
    with pytest.raises(ValueError, match="every key is masked"):
        backend.multi_head_attention(x, kv, np.vstack([w, w, w]), None, w, None, 2, mask)
    with pytest.raises(ValueError, match="every key is masked"):
        backend.softmax([-np.inf, -np.inf])


@pytest.mark.parametrize("name", engine.BACKENDS)
def test_mask_helpers(name: str) -> None:
    backend = engine.get_backend(name)
    assert backend.padding_mask([2, 3], 4).tolist() == [[[False, False, True, True]], [[False, False, False, True]]]
    for bad in ([0, 2], [5, 1]):
        with pytest.raises(ValueError):
            backend.padding_mask(bad, 4)
    with pytest.raises(TypeError, match="boolean"):
        backend.softmax([1.0, 2.0], mask=[0, 1])


# ------------------------------------------------------------ attention


@FEW
@given(seed=seeds, B=small, T_q=small, T_k=small, d_k=small, d_v=small, scale=st.sampled_from([True, False, 0.3]))
def test_sdpa_backends_agree(seed: int, B: int, T_q: int, T_k: int, d_k: int, d_v: int, scale: bool | float) -> None:
    rng = np.random.default_rng(seed)
    q, k, v = normal(rng, B, T_q, d_k), normal(rng, B, T_k, d_k), normal(rng, B, T_k, d_v)
    mask = random_mask(rng, B, T_q, T_k)
    for m in (None, mask):
        out, weights = NP.scaled_dot_product_attention(q, k, v, m, scale)
        out_t, weights_t = PT.scaled_dot_product_attention(q, k, v, m, scale)
        assert out.dtype == out_t.dtype == np.float32 and out.shape == (B, T_q, d_v)
        close(out_t, out)
        close(weights_t, weights)
    factor = {True: d_k**-0.5, False: 1.0, 0.3: 0.3}[scale]
    close(weights, NP.softmax((q @ k.transpose(0, 2, 1)) * factor, mask=mask))


@FEW
@given(seed=seeds, T_s=small, d_h=small, d_s=small, d_a=small)
def test_additive_attention_backends_agree(seed: int, T_s: int, d_h: int, d_s: int, d_a: int) -> None:
    rng = np.random.default_rng(seed)
    args = normal(rng, T_s, d_h), normal(rng, d_s), normal(rng, d_h, d_a), normal(rng, d_s, d_a), normal(rng, d_a)
    for ours, theirs in zip(NP.additive_attention(*args), PT.additive_attention(*args), strict=True):
        close(theirs, ours)


@FEW
@given(
    seed=seeds, B=small, T_q=small, T_k=small, h=small, d_k=small,
    bias=st.booleans(), masked=st.booleans(), unbatched=st.booleans(),
)  # fmt: skip
def test_mha_equals_torch_module_and_backends_agree(
    seed: int, B: int, T_q: int, T_k: int, h: int, d_k: int, bias: bool, masked: bool, unbatched: bool
) -> None:
    rng = np.random.default_rng(seed)
    B = 1 if unbatched else B
    d_model = h * d_k
    module = nn.MultiheadAttention(d_model, h, bias=bias, batch_first=True)
    sd = randomized(module, seed)
    x_q, x_kv = normal(rng, B, T_q, d_model), normal(rng, B, T_k, d_model)
    mask = random_mask(rng, B, T_q, T_k) if masked else None
    expected, expected_w = module(
        torch.from_numpy(x_q), torch.from_numpy(x_kv), torch.from_numpy(x_kv),
        attn_mask=torch_mask(mask, h), average_attn_weights=False,
    )  # fmt: skip
    weights = (sd["in_proj_weight"], sd.get("in_proj_bias"), sd["out_proj.weight"], sd.get("out_proj.bias"), h)
    if unbatched:
        x_q, x_kv, mask = x_q[0], x_kv[0], None if mask is None else mask[0]
        expected, expected_w = expected[0], expected_w[0]
    for backend in (NP, PT):
        out, attn = backend.multi_head_attention(x_q, x_kv, *weights, mask)
        close(out, expected.detach().numpy())
        close(attn, expected_w.detach().numpy())


@pytest.mark.parametrize("name", engine.BACKENDS)
def test_mha_rejects_bad_weights_and_indivisible_width(name: str) -> None:
    backend = engine.get_backend(name)
    x, w = np.ones((1, 2, 4)), np.ones((12, 4))
    with pytest.raises(ValueError, match=r"in_proj_weight: expected shape \(12, 4\).*got \(4, 12\)"):
        backend.multi_head_attention(x, x, w.T, None, np.ones((4, 4)), None, 2)
    with pytest.raises(ValueError, match=r"out_proj_bias: expected shape \(4,\).*got \(3,\)"):
        backend.multi_head_attention(x, x, w, None, np.ones((4, 4)), np.ones(3), 2)
    with pytest.raises(ValueError, match="not divisible"):
        backend.multi_head_attention(x, x, w, None, np.ones((4, 4)), None, 3)


# ------------------------------------------------------------ permutation equivariance


@FEW
@given(seed=seeds, T=st.integers(2, 6), h=small, d_k=small)
def test_self_attention_mha_and_encoder_layer_are_permutation_equivariant(seed: int, T: int, h: int, d_k: int) -> None:
    rng = np.random.default_rng(seed)
    d_model = h * d_k
    x = rng.normal(size=(2, T, d_model))
    perm = rng.permutation(T)
    sd = randomized(nn.TransformerEncoderLayer(d_model, h, 2 * d_model, dropout=0.0, batch_first=True), seed)
    layers: tuple[Callable[[np.ndarray], np.ndarray], ...] = (
        lambda a: NP.scaled_dot_product_attention(a, a, a)[0],
        lambda a: NP.multi_head_attention(a, a, sd["self_attn.in_proj_weight"], sd["self_attn.in_proj_bias"],
                                          sd["self_attn.out_proj.weight"], sd["self_attn.out_proj.bias"], h)[0],
        lambda a: NP.encoder_layer(a, sd, num_heads=h),
        lambda a: PT.encoder_layer(a, sd, num_heads=h),
    )  # fmt: skip
    for layer in layers:
        np.testing.assert_allclose(layer(x[:, perm]), layer(x)[:, perm], rtol=1e-9, atol=1e-12)


# ------------------------------------------------------------ layers


@FEW
@given(seed=seeds, B=small, T=small, d=st.integers(1, 8), d_ff=st.integers(1, 8), bias=st.booleans())
def test_ffn_and_norms_backends_agree(seed: int, B: int, T: int, d: int, d_ff: int, bias: bool) -> None:
    rng = np.random.default_rng(seed)
    x = normal(rng, B, T, d)
    b1, b2 = (normal(rng, d_ff), normal(rng, d)) if bias else (None, None)
    ffn = (normal(rng, d, d_ff), b1, normal(rng, d_ff, d), b2)
    close(PT.feed_forward(x, *ffn), NP.feed_forward(x, *ffn))
    gamma, beta = (normal(rng, d), normal(rng, d)) if bias else (None, None)
    for norm in ("layer_norm", "batch_norm"):
        if norm == "batch_norm" and B * T == 1:
            continue  # one observation per channel: rejected (tested in the notes' tests)
        ours = getattr(NP, norm)(x, gamma, beta)
        assert ours.dtype == np.float32
        np.testing.assert_allclose(getattr(PT, norm)(x, gamma, beta), ours, rtol=1e-4, atol=1e-5)


def layer_inputs(seed: int, B: int, T: int, S: int, h: int, d_k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """float64 decoder/encoder input [B, T, d], memory [B, S, d] and a causal+random self mask [B, T, T]."""
    rng = np.random.default_rng(seed)
    mask = random_mask(rng, B, T, T) & NP.causal_mask(T)  # the diagonal always stays visible
    return normal(rng, B, T, h * d_k).astype(np.float64), normal(rng, B, S, h * d_k).astype(np.float64), mask


@FEW
@given(seed=seeds, B=small, T=small, h=small, d_k=small, norm_first=st.booleans(), bias=st.booleans(),
       masked=st.booleans())
def test_encoder_layer_equals_torch_module(
    seed: int, B: int, T: int, h: int, d_k: int, norm_first: bool, bias: bool, masked: bool
) -> None:
    x, _, causal = layer_inputs(seed, B, T, 1, h, d_k)
    mask = causal if masked else None
    module = nn.TransformerEncoderLayer(h * d_k, h, 3, dropout=0.0, batch_first=True, norm_first=norm_first, bias=bias)
    sd = randomized(module.double(), seed)
    with torch.no_grad():
        expected = module.eval()(torch.from_numpy(x), src_mask=torch_mask(mask, h)).numpy()
    for backend in (NP, PT):
        close64(backend.encoder_layer(x, sd, mask, norm_first, num_heads=h), expected)


@FEW
@given(
    seed=seeds, B=small, T=small, S=small, h=small, d_k=small,
    norm_first=st.booleans(), bias=st.booleans(), masked=st.booleans(),
)  # fmt: skip
def test_decoder_layer_equals_torch_module(
    seed: int, B: int, T: int, S: int, h: int, d_k: int, norm_first: bool, bias: bool, masked: bool
) -> None:
    y, memory, tgt_mask = layer_inputs(seed, B, T, S, h, d_k)
    memory_mask = random_mask(np.random.default_rng(seed + 1), B, T, S) if masked else None
    module = nn.TransformerDecoderLayer(h * d_k, h, 3, dropout=0.0, batch_first=True, norm_first=norm_first, bias=bias)
    sd = randomized(module.double(), seed)
    with torch.no_grad():
        expected = module.eval()(
            torch.from_numpy(y), torch.from_numpy(memory), tgt_mask=torch_mask(tgt_mask, h),
            memory_mask=torch_mask(memory_mask, h),
        ).numpy()
    for backend in (NP, PT):
        close64(backend.decoder_layer(y, memory, sd, tgt_mask, memory_mask, norm_first, num_heads=h), expected)


# ------------------------------------------------------------ positions


def pe_at(position: float, d: int) -> np.ndarray:
    """PE(position) straight from the formula: (sin pω_0, cos pω_0, sin pω_1, ...)."""
    omega = 10000.0 ** (-np.arange(0, d, 2) / d)
    return np.stack([np.sin(position * omega), np.cos(position * omega)], axis=-1).ravel()


@FEW
@given(n=st.integers(1, 30), half_d=st.integers(1, 16), k=st.floats(-50, 50), p=st.integers(0, 1000))
def test_positions_backends_agree_and_offset_is_linear(n: int, half_d: int, k: float, p: int) -> None:
    d = 2 * half_d
    np.testing.assert_allclose(PT.sinusoidal_encoding(n, d), NP.sinusoidal_encoding(n, d), atol=1e-12)
    R = NP.offset_rotation(k, d)
    np.testing.assert_allclose(PT.offset_rotation(k, d), R, atol=1e-12)
    for backend in (NP, PT):
        assert backend.encoding_dot(k, d) == pytest.approx(NP.encoding_dot(k, d), abs=1e-9)
        assert backend.encoding_sq_distance(k, d) == pytest.approx(NP.encoding_sq_distance(k, d), abs=1e-9)
    # The rotation and the dot product hold at arbitrary real positions p, not just the table's rows.
    np.testing.assert_allclose(pe_at(p, d) @ R, pe_at(p + k, d), atol=1e-9)
    assert pe_at(p, d) @ pe_at(p + k, d) == pytest.approx(NP.encoding_dot(k, d), abs=1e-9)


# ------------------------------------------------------------ parameter counts


def counted(module: nn.Module) -> int:
    """sum(p.numel()) over the module's distinct parameters."""
    return sum(p.numel() for p in module.parameters())


def with_norm_affine(layer: nn.Module, affine: bool) -> nn.Module:
    """The layer, each LayerNorm replaced by a parameter-free one unless affine."""
    if affine:
        return layer
    for name, child in list(layer.named_children()):
        if isinstance(child, nn.LayerNorm):
            setattr(layer, name, nn.LayerNorm(child.normalized_shape, elementwise_affine=False))
    return layer


@FEW
@given(d=st.integers(1, 96), d_ff=st.integers(1, 200), h=st.integers(1, 4), bias=st.booleans(), affine=st.booleans(),
       V=st.integers(1, 500))
def test_parameter_counts_equal_torch_modules(d: int, d_ff: int, h: int, bias: bool, affine: bool, V: int) -> None:
    d_model = d * h  # divisible by h: the head count must not change any count
    linear = partial(nn.Linear, bias=bias, device="meta")
    encoder = partial(nn.TransformerEncoderLayer, d_model, h, d_ff, bias=bias, device="meta")
    decoder = partial(nn.TransformerDecoderLayer, d_model, h, d_ff, bias=bias, device="meta")
    expected = {
        ("mha_params", (d_model, bias)): nn.MultiheadAttention(d_model, h, bias=bias, device="meta"),
        ("ffn_params", (d_model, d_ff, bias)): nn.Sequential(linear(d_model, d_ff), linear(d_ff, d_model)),
        ("layer_norm_params", (d_model, bias, affine)): nn.LayerNorm(d_model, elementwise_affine=affine, bias=bias,
                                                                      device="meta"),
        ("encoder_layer_params", (d_model, d_ff, bias, affine)): with_norm_affine(encoder(), affine),
        ("decoder_layer_params", (d_model, d_ff, bias, affine)): with_norm_affine(decoder(), affine),
        ("output_projection_params", (d_model, V, bias)): linear(d_model, V),
        ("head_projection_params", (d_model, d, bias)): linear(d_model, d),
    }
    for (name, args), module in expected.items():
        assert getattr(NP, name)(*args) == getattr(PT, name)(*args) == counted(module), name
    layers = nn.ModuleList(encoder() for _ in range(3))
    stacked = NP.stack_params(NP.encoder_layer_params(d_model, d_ff, bias), 3)
    assert stacked == PT.stack_params(counted(layers[0]), 3) == counted(layers)
    entries = torch.empty(d, h, d_ff, V, device="meta").numel()
    assert NP.score_entries(d, h, d_ff, V) == PT.score_entries(d, h, d_ff, V) == entries


@FEW
@given(d=st.integers(1, 64), V=st.integers(1, 300), bias=st.booleans())
def test_tied_output_projection_counts_shared_weights_once(d: int, V: int, bias: bool) -> None:
    embedding, projection = nn.Embedding(V, d, device="meta"), nn.Linear(d, V, bias=bias, device="meta")
    projection.weight = embedding.weight
    model_total = counted(nn.ModuleDict({"embedding": embedding, "projection": projection}))
    for backend in (NP, PT):
        assert backend.output_projection_params(d, V, bias, tied=True) == model_total - V * d


# ------------------------------------------------------------ training


@FEW
@given(seed=seeds, N=small, V=st.integers(2, 8), eps=st.floats(0, 1),
       convention=st.sampled_from(["uniform", "non_gold"]))
def test_label_smoothing_and_loss_backends_agree(seed: int, N: int, V: int, eps: float, convention: str) -> None:
    rng = np.random.default_rng(seed)
    target, logits = rng.integers(V, size=N), 3 * rng.normal(size=(N, V))
    q = NP.label_smoothing_targets(V, target, eps, convention)
    np.testing.assert_allclose(q.sum(axis=-1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(PT.label_smoothing_targets(V, target, eps, convention), q, rtol=1e-12, atol=1e-15)
    loss = NP.smoothed_cross_entropy(logits, target, eps, convention)
    assert PT.smoothed_cross_entropy(logits, target, eps, convention) == pytest.approx(loss, rel=1e-10)
    log_p = torch.log_softmax(torch.from_numpy(logits), dim=-1).numpy()
    assert loss == pytest.approx(-(q * log_p).sum(axis=-1).mean(), rel=1e-10)


@pytest.mark.parametrize("name", engine.BACKENDS)
def test_label_smoothing_rejects_bad_arguments(name: str) -> None:
    backend = engine.get_backend(name)
    for args in [(5, 2, 0.1, "gold"), (5, 2, 1.5, "uniform"), (5, 2, -0.1, "uniform"), (5, 5, 0.1, "uniform"),
                 (5, [0, -1], 0.1, "uniform")]:
        with pytest.raises(ValueError):
            backend.label_smoothing_targets(*args)
    assert backend.label_smoothing_targets(3, [0, 2], 0.3).shape == (2, 3)


@FEW
@given(step=st.integers(1, 10**6), d=st.integers(1, 4096), warmup=st.integers(1, 10**5))
def test_warmup_backends_agree(step: int, d: int, warmup: int) -> None:
    assert PT.warmup_lr(step, d, warmup) == pytest.approx(NP.warmup_lr(step, d, warmup), rel=1e-12)


@FEW
@given(seed=seeds, shape=st.lists(st.integers(1, 5), min_size=1, max_size=3), bos=st.integers(-3, 3))
def test_teacher_forcing_backends_agree(seed: int, shape: list[int], bos: int) -> None:
    targets = np.random.default_rng(seed).integers(100, size=shape)
    shifted = NP.teacher_forcing_inputs(targets, bos)
    np.testing.assert_array_equal(PT.teacher_forcing_inputs(targets, bos), shifted)
    assert np.all(shifted[..., 0] == bos) and np.array_equal(shifted[..., 1:], targets[..., :-1])


@settings(max_examples=10, deadline=None)
@given(seed=seeds, d_k=st.integers(1, 64))
def test_dot_product_variance_backends_agree(seed: int, d_k: int) -> None:
    ours = NP.dot_product_variance(np.random.default_rng(seed), d_k, 500)
    theirs = PT.dot_product_variance(np.random.default_rng(seed), d_k, 500)
    np.testing.assert_allclose(theirs, ours, rtol=1e-10)


# ------------------------------------------------------------ shapes


@FEW
@given(seed=seeds, B=small, T_q=small, T_k=small, h=small, d_k=small, cross=st.booleans())
def test_attention_shapes_match_real_computation(seed: int, B: int, T_q: int, T_k: int, h: int, d_k: int,
                                                 cross: bool) -> None:
    rng = np.random.default_rng(seed)
    d_model = h * d_k
    T_k = T_k if cross else T_q
    shapes = NP.attention_shapes(B, T_q, d_model, h, T_k if cross else None)
    assert PT.attention_shapes(B, T_q, d_model, h, T_k if cross else None) == shapes
    w = normal(rng, 3 * d_model, d_model)
    out, weights = NP.multi_head_attention(normal(rng, B, T_q, d_model), normal(rng, B, T_k, d_model), w, None,
                                           w[:d_model], None, h)
    assert shapes["out"] == out.shape and shapes["A"] == weights.shape
    assert shapes["concat"] == (B, T_q, d_model) and shapes["W_O"] == (d_model, d_model)


def test_attention_shapes_symbolic() -> None:
    for backend in (NP, PT):
        shapes = backend.attention_shapes("B", "T", "d_model", "h")
        assert shapes["Q_heads"] == ("B", "h", "T", "d_k") and shapes["concat"] == ("B", "T", "h*d_v")
        assert shapes["W_O"] == ("h*d_v", "d_model") and shapes["A"] == ("B", "h", "T", "T")
        assert backend.attention_shapes("B", "T_dec", 512, 8, T_k="T_enc")["A"] == ("B", 8, "T_dec", "T_enc")
        assert backend.attention_shapes(2, 3, 512, "h", d_v=64)["concat"] == (2, 3, "h*64")
        with pytest.raises(ValueError, match="not divisible"):
            backend.attention_shapes(2, 3, 10, 3)


# ------------------------------------------------------------ dtype


@pytest.mark.parametrize("backend", [NP, PT], ids=engine.BACKENDS)
def test_float32_in_float32_out_and_lists_give_float64(backend: ModuleType) -> None:
    x = np.ones((2, 3, 4), dtype=np.float32)
    assert backend.softmax(x).dtype == np.float32
    assert backend.scaled_dot_product_attention(x, x, x)[0].dtype == np.float32
    assert backend.layer_norm(x).dtype == backend.batch_norm(x).dtype == np.float32
    assert backend.softmax([1, 2, 3]).dtype == np.float64
    assert backend.layer_norm([[1.0, 2.0]]).dtype == np.float64
