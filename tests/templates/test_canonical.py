"""Seed 0 of each template built on a worked example or code block reproduces the notes' numbers.

The expected values are copied from the notes (their printed precision), never from the engine.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from quizzer.templates.instance import make_instance
from quizzer.templates.loader import load_path
from quizzer.templates.parts import question_for
from quizzer.templates.schema import Template

QUESTIONS = Path(__file__).resolve().parents[2] / "questions"
E = np.e

# key -> (what the notes print, absolute tolerance for arrays/numbers; None = exact)
NOTES: dict[str, tuple[Any, float | None]] = {
    # Week 1 code blocks
    "practice/w1b-sdpa-code-output-shape": ((1, 2, 3, 4), None),                       # 5.1 attention shape
    "practice/w1b-sdpa-variance-table": (0.992, 0.0005),                                # 5.2 scaled_var at d_k=256
    "practice/w1b-mha-head-split-shape": ((2, 4, 5, 4), None),                          # 5.3 heads [B,h,T,d_k]
    "practice/w1b-mha-concat-shape": ((2, 5, 16), None),                                # 5.3 concat
    "practice/encoder-layer-count": (3_152_384, None),                                  # 5.4
    "practice/w1b-enc-mha-count": (1_050_624, None),                                    # 5.4 MHA formula
    "practice/w1b-enc-stack-count": (18_914_304, None),                                 # §4 six layers
    "practice/bahdanau-context-vector": ([0.351, -0.993, -0.053], 0.0005),              # 5.5 context
    # Week 1 worked checks
    "practice/qkv-projection-shape": (("B", 10, 64), None),
    "practice/w1b-sdpa-score-entries": (1_152, None),
    "practice/w1b-mha-per-head-weights": (32_768, None),                                # not the ebook's 32,178
    "practice/w1b-mha-wo-right-multiply": ([4, 6], 0.0),
    "practice/qkv-worked-example": ([0.5, 1.0], 0.0),
    # Week 2 code blocks
    "2024T1_ET_FN Q212": ([[1.0, 0, 0, 0], [0.3100, 0.6900, 0, 0], [0.2344, 0.1286, 0.6370, 0],
                           [0.2352, 0.1743, 0.1168, 0.4737]], 0.00005),                 # 01 causal mask
    "2025T1_Q1_NA Q104": ((2, 4, 3, 5), None),                                          # 02 cross-attention
    "2024T3_Q1_NA Q293": ([-0.989992, 1.000000], 0.0000005),                            # 03 PE entry range
    "2025T1_Q1_NA Q115": ([[-1.3416, -0.4472], [0.4472, 1.3416]], 0.00005),             # 04 BN feature 0
    "2025T1_Q1_NA Q116": ([-1.2247, 0.0, 1.2247], 0.00005),                             # 04 single-token LN
    "practice/ls-loss": (0.66827178, 0.0000001),                                        # 05 loss
    "practice/warmup-rate": (0.0001746928, 0.00000000005),                              # 06 step 1000
    "practice/train-warmup-peak": (0.0006987712, 0.00000000005),                        # 06 step 4000
    "2024T3_Q1_NA Q279": (4_204_032, None),                                             # 07 decoder layer
    "2024T1_Q1_NA Q192": ([0, 1, 7, 6], 0.0),                                           # 08 free-running
    # Week 2 worked examples
    "practice/ls-targets": ([0.92, 0.02], 1e-12),                                       # V=5, eps=0.1: [gold, others]
    "2024T1_Q1_NA Q196": ([E**2 / (E**2 + E), E / (E**2 + E), 0, 0], 1e-12),             # 0.7311 / 0.2689
    "practice/layernorm-token": ([-np.sqrt(1.5), 0, np.sqrt(1.5)], 1e-12),             # x = (1, 2, 3)
    "2024T3_Q1_NA Q277": (18_944_000, None),                                            # 512 × 37,000
}


@functools.cache
def bundled() -> dict[str, Template]:
    return {t.key: t for t in map(load_path, QUESTIONS.rglob("*.yaml"))}


def template(key: str) -> Template:
    return bundled()[key]


def canonical_answer(key: str) -> Any:
    """Seed 0's answer of the question ``key`` names: a template's, or a routed part's of a chain."""
    chain = template(key) if key in bundled() else next(t for t in bundled().values() if key in t.part_ids)
    return question_for(make_instance(chain, 0), key).answer


@pytest.mark.parametrize("key", sorted(NOTES))
def test_seed_zero_reproduces_the_notes(key: str) -> None:
    expected, tolerance = NOTES[key]
    answer = canonical_answer(key)
    if tolerance is None:
        assert (tuple(answer) if isinstance(answer, tuple) else answer) == expected
    else:
        np.testing.assert_allclose(np.asarray(answer, dtype=float), np.asarray(expected, dtype=float),
                                   rtol=0, atol=tolerance)


@pytest.mark.parametrize("key", ["2024T3_Q1_NA Q277", "practice/ls-targets", "2024T1_Q1_NA Q196"])
def test_other_seeds_vary_the_numbers(key: str) -> None:
    answers = {str(make_instance(template(key), seed).answer) for seed in range(1, 30)}
    assert len(answers) > 5
