"""Discovered mistakes: a wrong answer no template lists is named by rerunning it with an engine slip.

For every mutation a small template that calls the engine function it alters, and lists no
misconception, is answered with the slipped value typed as printed: the grader must name that
mutation's id, give no credit, and say so in the feedback. Bundled templates show the listed
misconception winning over a slip that gives the same answer, and the validate report.
"""

from __future__ import annotations

import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest
from msgspec.structs import replace

from engine.mutations import BY_ID, MUTATIONS
from quizzer.grading.verdict import grade
from quizzer.templates.answer_text import answer_text
from quizzer.templates.discovery import FEEDBACK_PREFIX, applicable_mutations, slipped_answer
from quizzer.templates.instance import make_instance
from quizzer.templates.loader import load_path, load_text
from quizzer.templates.slip_coverage import coverage_table, template_slips

QUESTIONS = Path(__file__).resolve().parents[2] / "questions"
BASE = textwrap.dedent("""\
    key: practice/slip-test
    title: A slip test
    week: 1
    topics: [softmax]
    difficulty: 1
    source: tests
    prompt: p
    solution: s
    params:
      n: {choice: [1]}
    """)
Q, K = "array([[1, 2], [0, 1]])", "array([[1, 0], [2, 1], [0, 2]])"
X = "array([[1, 0], [0, 2], [1, 1]])"
ATTENTION = f"scaled_dot_product_attention({Q}, {K}, {K})[1]"
SQUARE = f"scaled_dot_product_attention({Q}, array([[1, 0], [2, 1]]), array([[1, 0], [2, 1]]))[1]"
CAUSAL = f"scaled_dot_product_attention({X}, {X}, {X}, causal_mask(3))[1]"
EPS = "layer_norm(array([1.0, 1.01]), eps=0.001)"
# mutation id -> (kind, answer expression, tolerance): the smallest question whose answer the slip changes.
CASES: dict[str, tuple[str, str, str]] = {
    "no_sqrt_dk_scaling": ("matrix", ATTENTION, "{abs: 0.0005}"),
    "scaled_by_d_k": ("matrix", ATTENTION, "{abs: 0.0005}"),
    "softmax_over_wrong_axis": ("matrix", ATTENTION, "{abs: 0.0005}"),
    "k_instead_of_k_transpose": ("matrix", SQUARE, "{abs: 0.0005}"),
    "k_times_q_transpose": ("matrix", SQUARE, "{abs: 0.0005}"),
    "causal_mask_omitted": ("matrix", CAUSAL, "{abs: 0.0005}"),
    "mask_applied_after_softmax": ("matrix", f"softmax({X} @ transpose({X}), mask=causal_mask(3))", "{abs: 0.0005}"),
    "mask_filled_with_zero": ("matrix", CAUSAL, "{abs: 0.0005}"),
    "one_head_counted_for_all": ("integer", "score_entries(2, 8, 5, 5)", "{}"),
    "forgot_output_projection": ("integer", "mha_params(64)", "{}"),
    "forgot_biases": ("integer", "mha_params(64)", "{}"),
    "counted_nonexistent_biases": ("integer", "mha_params(64, bias=False)", "{}"),
    "stack_counted_as_one_layer": ("integer", "stack_params(mha_params(64), 6)", "{}"),
    "d_k_is_d_model": ("integer", "head_projection_params(512, 64)", "{}"),
    "pe_sin_cos_swapped": ("matrix", "sinusoidal_encoding(3, 4)", "{abs: 0.0005}"),
    "pe_wrong_frequency_index": ("matrix", "sinusoidal_encoding(3, 4)", "{abs: 0.0005}"),
    "pe_positions_from_one": ("matrix", "sinusoidal_encoding(3, 4)", "{abs: 0.0005}"),
    "forgot_relu": ("vector", "feed_forward(array([1, -1]), array([[1, -1], [-2, 1]]), None, eye(2), None)",
                    "{abs: 0.0005}"),
    "unbiased_variance": ("vector", "layer_norm(array([1.0, 2.0, 4.0]))", "{abs: 0.0005}"),
    "layernorm_eps_omitted": ("vector", EPS, "{abs: 0.0005}"),
    "layernorm_eps_outside_root": ("vector", EPS, "{abs: 0.0005}"),
    "layernorm_over_batch": ("matrix", f"layer_norm({X})", "{abs: 0.0005}"),
    "batchnorm_over_features": ("matrix", f"batch_norm({X})", "{abs: 0.0005}"),
    "label_smoothing_other_convention": ("vector", "label_smoothing_targets(4, 1, 0.1)", "{abs: 0.0005}"),
    "warmup_wrong_branch": ("number", "warmup_lr(100, 512)", "{rel: 0.001}"),
    "teacher_forcing_no_shift": ("vector", "teacher_forcing_inputs(array([5, 6, 7]), 1)", "{}"),
}
# encoder_layer and decoder_layer take a parameter dict, which the expression language cannot
# build (no dict literals), so no template can call them: their slip is tested in tests/engine only.
NO_TEMPLATE_CAN_CALL = {"pre_post_ln_swapped"}


def slip_template(kind: str, answer: str, tolerance: str):  # noqa: ANN201 - a Template
    return load_text(BASE + f"kind: {kind}\ntolerance: {tolerance}\nanswer: \"{answer}\"\n", where="t.yaml")


def test_every_mutation_has_a_case() -> None:
    assert set(CASES) | NO_TEMPLATE_CAN_CALL == set(BY_ID)


@pytest.mark.parametrize("mutation_id", sorted(CASES))
def test_a_slipped_answer_is_named_without_being_listed(mutation_id: str) -> None:
    template = slip_template(*CASES[mutation_id])
    assert not template.misconceptions
    assert BY_ID[mutation_id] in applicable_mutations(template)
    instance = make_instance(template, 0)
    value = slipped_answer(template, instance.values, BY_ID[mutation_id])
    assert value is not None
    typed = answer_text(template, value, (), instance.spec.precision)
    assert typed != instance.answer_text
    verdict = grade(instance.spec, typed)
    assert verdict.misconception == mutation_id
    assert verdict.verdict in ("incorrect", "partial") and verdict.score < 1  # never credited as right
    no_discovery = grade(replace(instance.spec, discover=None), typed)  # a named slip costs no credit either
    assert (no_discovery.verdict, no_discovery.score, no_discovery.misconception) == (
        verdict.verdict, verdict.score, None)
    assert verdict.feedback.startswith(FEEDBACK_PREFIX) and len(verdict.feedback) > len(FEEDBACK_PREFIX)
    assert grade(instance.spec, instance.answer_text).verdict == "correct"  # the right answer is still right


def test_an_answer_no_slip_gives_names_nothing() -> None:
    instance = make_instance(slip_template(*CASES["forgot_biases"]), 0)
    verdict = grade(instance.spec, "12345")
    assert verdict.verdict == "incorrect" and verdict.misconception is None


def bundled(name: str):  # noqa: ANN201
    return load_path(next(QUESTIONS.rglob(name)))


def test_listed_misconception_wins_and_unlisted_one_is_discovered_on_a_bundled_template() -> None:
    template = bundled("practice-w1b-sdpa-weights-matrix.yaml")  # lists no_sqrt_dk_scaling, softmax_over_wrong_axis
    instance = make_instance(template, 3)
    for mutation_id, listed in (("softmax_over_wrong_axis", True), ("scaled_by_d_k", False)):
        value = slipped_answer(template, instance.values, BY_ID[mutation_id])
        verdict = grade(instance.spec, answer_text(template, value, (), instance.spec.precision))
        assert verdict.misconception == mutation_id and verdict.score == 0.0
        assert verdict.feedback.startswith(FEEDBACK_PREFIX) != listed  # listed: the template's own feedback


def test_validate_reports_listed_and_discovered_slips() -> None:
    row = template_slips(bundled("practice-w1b-sdpa-weights-matrix.yaml"), range(3))
    assert {"no_sqrt_dk_scaling", "softmax_over_wrong_axis"} <= set(row.listed)
    assert "scaled_by_d_k" in row.discovered and not row.not_graded_back
    table = coverage_table([row])
    assert "scaled_by_d_k" in table and "1 templates; 1 call an engine function with a slip" in table


T = TypeVar("T")


def processor_time(call: Callable[..., T], *args: Any) -> tuple[T, float]:
    """``call(*args)`` and the processor time this thread spent on it."""
    started = time.thread_time()
    result = call(*args)
    return result, time.thread_time() - started


def test_discovery_is_computed_once_and_costs_a_few_instances() -> None:
    """Latency as a ratio: the first discovering grade against building the instance itself, each the least of
    a few seeds' processor times (this thread's: a busy machine's preemptions are not the work compared)."""
    template = bundled("practice-w1b-mha-two-head-forward.yaml")
    for seed in range(3):  # warm the caches
        make_instance(template, seed)
    runs = []
    for seed in range(7, 10):
        instance, build = processor_time(make_instance, template, seed)
        typed = answer_text(template, slipped_answer(template, instance.values, BY_ID["scaled_by_d_k"]), (),
                            instance.spec.precision)
        verdict, first = processor_time(grade, instance.spec, typed)
        assert verdict.misconception == "scaled_by_d_k"
        verdict, plain = processor_time(grade, replace(instance.spec, discover=None), typed)
        assert verdict.misconception is None
        runs.append((build, first, plain))
    builds, firsts, plains = zip(*runs, strict=True)
    assert min(firsts) < 20 * (min(builds) + min(plains))  # nine slips, each a partial rerun of the template
    calls = []
    spec = replace(instance.spec, discover=lambda s: calls.append(1) or instance.spec.discover(s))  # type: ignore
    grade(spec, typed)
    grade(spec, typed)
    assert len(calls) == 2 and instance.spec.discover is not None
    assert instance.spec.discover._found is not None  # kept with the instance: the second call reran nothing


def test_every_mutation_is_in_the_catalogue() -> None:
    from quizzer.templates.catalog import load_catalog

    assert {m.id for m in MUTATIONS} <= set(load_catalog().misconceptions)
