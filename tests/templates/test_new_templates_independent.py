"""The templates added for issue 21 against independent computations: PyTorch's own functions and
modules, or the notes' formulas written out here, on several seeds each (never the engine)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from tests.bundled_templates import instance

SEEDS = range(0, 40, 8)


def t(x: object) -> torch.Tensor:
    return torch.as_tensor(np.asarray(x, dtype=float))


def count(module: torch.nn.Module) -> int:
    return sum(p.numel() for p in module.parameters())


@pytest.mark.parametrize("seed", SEEDS)
def test_in_proj_slice_is_torch_linear_on_the_packed_rows(seed: int) -> None:
    item = instance("practice/w1c-in-proj-slicing", seed)
    v = item.values
    lo, hi = 2 * v["part"], 2 * v["part"] + 2
    expected = F.linear(t(v["x"]), t(v["W"])[lo:hi], t(v["b"])[lo:hi])
    np.testing.assert_allclose(item.answer, expected.numpy(), atol=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_key_padding_row_matches_torch_sdpa_with_a_key_mask(seed: int) -> None:
    item = instance("practice/w1c-key-padding-row", seed)
    v = item.values
    keep = torch.arange(v["T"]) < v["length"]                        # torch's bool mask: True = attend
    weights = torch.softmax(t(v["s"]).masked_fill(~keep, float("-inf")), dim=-1)
    np.testing.assert_allclose(item.answer, (weights @ t(v["V"])).numpy(), atol=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_layernorm_with_affine_matches_torch(seed: int) -> None:
    item = instance("practice/w1c-layernorm-affine", seed)
    v = item.values
    expected = F.layer_norm(t(v["x"]), (4,), t(v["gamma"]), t(v["beta"]), eps=0.0)
    np.testing.assert_allclose(item.answer, expected.numpy(), atol=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_break_even_length_equalises_the_stated_costs(seed: int) -> None:
    item = instance("practice/w1c-attention-ffn-break-even", seed)
    v = item.values
    d, f, T = v["d_model"], v["d_ff"], item.answer
    attention = (4 * T * d * d if v["with_proj"] else 0) + T * T * d + T * T * d
    assert attention == T * d * f + T * f * d
    assert T > 0


def test_learned_position_table_is_an_embedding_of_max_len_rows() -> None:
    item = instance("practice/w1c-learned-vs-sinusoidal-pe", 0)
    assert item.answer == count(torch.nn.Embedding(512, 512))


def test_label_smoothing_optimum_is_the_notes_entropy_and_torch_loss_at_p_equal_q() -> None:
    q = [0.92] + [0.02] * 4                                             # the notes' V = 5, eps = 0.1 targets
    assert instance("practice/ls-optimum-entropy", 0).answer == pytest.approx(-sum(x * math.log(x) for x in q))
    assert instance("practice/ls-optimum-entropy", 0).answer == pytest.approx(0.390, abs=0.0005)
    for seed in SEEDS:
        item = instance("practice/ls-optimum-entropy", seed)
        V, eps = item.values["V"], item.values["eps"]
        q_t = torch.full((1, V), eps / V, dtype=torch.float64)
        q_t[0, 0] += 1 - eps
        at_optimum = F.cross_entropy(q_t.log(), torch.tensor([0]), label_smoothing=eps)
        assert item.answer == pytest.approx(at_optimum.item(), abs=1e-9)
        nudged = q_t.log() + torch.linspace(0, 0.3, V, dtype=torch.float64)
        assert F.cross_entropy(nudged, torch.tensor([0]), label_smoothing=eps).item() > item.answer


def lr(step: float, d: int, w: int) -> float:
    return d ** -0.5 * min(step ** -0.5, step * w ** -1.5)             # the notes' schedule, written out


def test_warmup_mirror_step_has_the_same_rate_and_reproduces_the_printed_step_1000() -> None:
    assert lr(1000, 512, 4000) == pytest.approx(0.0001746928, abs=5e-11)   # 06_warmup_schedule.py
    for seed in SEEDS:
        item = instance("practice/warmup-mirror-step", seed)
        v = item.values
        assert item.answer > v["warmup"]
        assert lr(item.answer, v["d_model"], v["warmup"]) == pytest.approx(lr(v["step"], v["d_model"], v["warmup"]))


@pytest.mark.parametrize("seed", SEEDS)
def test_batchnorm_eval_uses_running_statistics_like_torch(seed: int) -> None:
    item = instance("practice/bn-eval-running-stats", seed)
    v = item.values
    out = F.batch_norm(t(v["X"]), t(v["run_mean"]), t(v["run_var"]), training=False, eps=0.0)
    np.testing.assert_allclose(item.answer, out[v["which"]].numpy(), atol=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_rotated_pair_is_the_encoding_of_p_plus_k(seed: int) -> None:
    item = instance("practice/pe-rotation-apply", seed)
    v = item.values
    angle = (v["p"] + v["k"]) * 10000 ** (-2 * v["i"] / v["d"])
    np.testing.assert_allclose(item.answer, [math.sin(angle), math.cos(angle)], atol=1e-4)  # the prompt rounds to 4 dp


@pytest.mark.parametrize("seed", SEEDS)
def test_sequence_probability_and_next_token_distribution_match_torch(seed: int) -> None:
    item = instance("practice/decoder-sequence-probability", seed)
    logp = torch.log_softmax(t(item.values["L"]), dim=-1)
    y = torch.as_tensor(np.asarray(item.values["y"], dtype=int))
    assert item.answer == pytest.approx(logp.gather(1, y[:, None]).sum().exp().item())
    nxt = instance("practice/decoder-next-token-probs", seed)
    row = torch.softmax(t(nxt.values["L"]), -1)[nxt.values["t"] - 1]
    np.testing.assert_allclose(nxt.answer, row.numpy(), atol=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_cross_attention_row_matches_torch_sdpa(seed: int) -> None:
    item = instance("practice/cross-attention-row", seed)
    v = item.values
    z = F.scaled_dot_product_attention(t(v["q"])[None], t(v["K"]), t(v["Vm"]))[0]
    np.testing.assert_allclose(item.answer, z.numpy(), atol=1e-12)


def test_decoder_counts_match_torch_modules_and_the_notes() -> None:
    dec = count(torch.nn.TransformerDecoderLayer(512, 8, 2048, dropout=0.0, batch_first=True))
    enc = count(torch.nn.TransformerEncoderLayer(512, 8, 2048, dropout=0.0, batch_first=True))
    assert instance("practice/decoder-stack-params", 0).answer == 6 * dec == 25_224_192
    assert instance("practice/decoder-minus-encoder-stack", 0).answer == 6 * (dec - enc) == 25_224_192 - 18_914_304


@pytest.mark.parametrize("seed", SEEDS)
def test_logits_shape_is_that_of_a_torch_output_layer(seed: int) -> None:
    v = instance("practice/decoder-logits-shape", seed).values
    with torch.device("meta"):                                        # shapes only, no memory
        logits = torch.nn.Linear(v["d_model"], v["vocab"])(torch.empty(v["B"], v["T"], v["d_model"]))
    assert tuple(instance("practice/decoder-logits-shape", seed).answer) == tuple(logits.shape)
