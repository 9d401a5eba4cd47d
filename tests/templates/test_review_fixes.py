"""The fixes from the review of the bank (issue 21) hold on every checked seed."""

from __future__ import annotations

import numpy as np
import pytest

from tests.bundled_templates import SEEDS, instance

DISTRACTORS = {  # key -> a misconception the review found missing
    "practice/ls-loss": "label_smoothing_plain_nll",
    "2025T3_ET_FN Q2": "batchnorm_ignores_padding",
    "practice/train-width-ratio": "warmup_ignores_width",
    "2024T3_Q1_NA Q276": "embedding_not_scaled",
    "2025T3_ET_AN Q26": "finite_mask_exact_zero",
}


@pytest.mark.parametrize(("key", "mistake"), sorted(DISTRACTORS.items()))
def test_the_missing_distractor_is_diagnosed_on_every_seed(key: str, mistake: str) -> None:
    for seed in SEEDS:
        assert mistake in {m.id for m in instance(key, seed).mistakes}, (key, seed)


def test_subtract_max_premise_holds_every_logit_overflows() -> None:
    for seed in range(40):
        z = np.asarray(instance("practice/softmax-subtract-max", seed).values["z"], dtype=float)
        with np.errstate(over="ignore"):
            assert np.all(np.isinf(np.exp(z))), seed


def test_q9_says_the_target_ends_with_eos_and_q276_says_eval_mode() -> None:
    assert "ends with EOS" in instance("2026T2_Q1_NA Q9", 0).prompt
    assert "evaluation mode" in instance("2024T3_Q1_NA Q276", 0).prompt


def test_q26_calls_a_large_leak_large() -> None:
    item = instance("2025T3_ET_AN Q26", 0)
    assert item.answer > 0.3 and "small" not in item.solution.split("blocked keys receive")[1].split("\n")[0]


def test_q117_and_q151_ask_different_questions() -> None:
    single, several = instance("2025T1_Q1_NA Q117", 0), instance("2025T2_Q1_NA Q151", 0)
    assert single.kind == "number" and several.kind == "vector"
    assert "batch_size_one_is_single_value" in {m.id for m in several.mistakes}
    assert len(several.answer) >= 2 and np.ptp(several.answer) > 0   # several time steps, not one value → β
