"""Cost rules and the instance budget: every whitelisted function is charged before it runs, results
are bounded before they are allocated, one budget covers a whole instance, and validation bounds all
seeds together."""

from __future__ import annotations

import tracemalloc
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import engine
from quizzer.common.errors import TemplateError
from quizzer.grading import budget
from quizzer.grading.budget import Budget, Costed, shared_budget
from quizzer.grading.expr import ExprError, evaluate
from quizzer.templates import validate
from quizzer.templates.functions import template_functions
from quizzer.templates.instance import make_instance
from quizzer.templates.loader import load_path
from tests.bundled_templates import SEEDS, bundled

HOSTILE = Path(__file__).resolve().parents[1] / "hostile"
BIG = {"v": np.ones(2000), "m": np.ones((40, 50)), "words": ["w"] * 2000, "i": np.zeros(2000, dtype=int)}

# One call per function that takes sizes, with arguments of a few thousand elements.
SIZED_CALLS = [
    "sqrt(v)", "exp(v)", "log(v)", "tanh(v)", "abs(v)", "relu(v)", "round(v, 2)", "sum(v)", "prod(v)", "mean(v)",
    "var(v)", "std(v)", "argmax(v)", "argmin(v)", "all(v)", "any(v)", "array(v)", "transpose(m)", "min(v)",
    "max(words)", "zeros(2000)", "ones(40, 50)", "eye(50)", "arange(2000)", "dot(m, transpose(m))",
    "outer(v[0:500], v)",
    "concat(v, v)", "stack(v, v)", "reshape(v, 40, 50)", "where(v > 0, v, 0)", "clip(v, 0, 1)", "maximum(v, 0)",
    "minimum(v, 0)", "isclose(v, v)", "sorted(words)", "unique(v)", "show(v)", "fmt(v, 2)", "sig(v, 2)", "tex(m)",
    "softmax(m)", "layer_norm(m)", "causal_mask(50)", "sinusoidal_encoding(40, 50)", "offset_rotation(1, 50)",
    "scaled_dot_product_attention(m, m, m)", "label_smoothing_targets(50, i[0:40], 0.1)",
    "dot_product_variances(1, [4, 8], 100)",
]


def spy_functions(calls: list[str]) -> dict[str, Any]:
    """The whitelist with every function recording that it ran."""
    def spy(name: str, entry: Costed) -> Costed:
        def run(*args: Any, **kwargs: Any) -> Any:
            calls.append(name)
            return entry.function(*args, **kwargs)
        return Costed(run, entry.cost)
    return {name: spy(name, entry) for name, entry in template_functions().items()}


def test_every_whitelisted_function_has_a_cost_rule() -> None:
    functions = template_functions()
    assert all(isinstance(entry, Costed) for entry in functions.values())
    assert {name for name in engine.PUBLIC_API if name != "dot_product_variance"} <= set(functions)


@pytest.mark.parametrize("source", SIZED_CALLS)
def test_a_call_is_charged_before_it_runs(source: str) -> None:
    """With the budget nearly spent the call is refused and never runs; with a fresh one it runs and
    is charged at least one operation per element it reads."""
    calls: list[str] = []
    functions = spy_functions(calls)
    with shared_budget(Budget(work=budget.MAX_WORK - 40)), pytest.raises(ExprError, match="element operations"):
        evaluate(source, BIG, functions)
    name = source.split("(")[0]
    assert name not in calls
    with shared_budget() as fresh:
        evaluate(source, BIG, functions)
    assert name in calls and fresh.work >= 40


@pytest.mark.parametrize(("source", "elements"), [
    ("zeros(100, 1000)[rows]", 100_000_000),  # integer-array indexing: a thousand rows per index
    ("zeros(10, 10)[reshape(rows, 100000, 1), rows[0:100]]", 10_000_000),  # index arrays broadcast
])
def test_fancy_indexing_is_bounded_by_its_result_before_allocating(source: str, elements: int) -> None:
    names = {"rows": np.zeros(100_000, dtype=int)}
    tracemalloc.start()
    try:
        with pytest.raises(ExprError, match=f"would have {elements:,} elements"):
            evaluate(source, names, template_functions())
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 * 2**20  # the zeros and reshapes; never the result's 800 MB


@pytest.mark.parametrize(("source", "message"), [
    ("label_smoothing_targets(1000, zeros(5000), 0.1)", r"shape \(5000, 1000\) is too large"),
    ("scaled_dot_product_attention(x, x, x)", "one call would do 1,000,000,000"),  # 1000 × 1000 × 1000
    ("scaled_dot_product_attention(heads, heads, heads)", r"shape \(7680, 7680\) is too large"),
    ("where(reshape(arange(2000), 2000, 1) > 0, arange(2000), 0)", r"shape \(2000, 2000\) is too large"),
])
def test_engine_and_broadcasting_results_are_bounded_first(source: str, message: str) -> None:
    calls: list[str] = []
    names = {"x": np.ones((1000, 1000)), "heads": np.ones((64, 120, 128))}
    with pytest.raises(ExprError, match=message):
        evaluate(source, names, spy_functions(calls))
    assert source.split("(")[0] not in calls


def test_lists_hold_only_plain_items() -> None:
    """[row] * 1000 would be a million items behind a thousand references; lists stay flat and short."""
    with pytest.raises(ExprError, match="a list may hold only"):
        evaluate("[row] * 1000", {"row": ["a"] * 1000})
    with pytest.raises(ExprError, match="the text in a list is too long"):
        evaluate("[page] * 1000", {"page": "x" * 1000})


def test_one_budget_covers_every_expression_of_an_instance() -> None:
    """Each product is allowed alone (64 M operations); the instance's budget stops the fourth."""
    product = "sum(m @ m)"
    names = {"m": np.ones((400, 400))}
    with shared_budget(), pytest.raises(ExprError, match="element operations in all"):
        for _ in range(4):
            evaluate(product, names, template_functions())
    for _ in range(4):  # evaluations without a shared budget each get their own
        evaluate(product, names, template_functions())


def test_the_instance_deadline_is_shared() -> None:
    # Work on an array looks at the clock; an operation on two numbers (bounded work) only counts a step.
    with shared_budget(Budget(deadline=0.0)), pytest.raises(ExprError, match="longer than"):
        evaluate("[1, 2] * 2")


class CountingClock:
    """Processor time that moves only when a test says so, counting how often it is read."""

    def __init__(self) -> None:
        self.now, self.reads = 100.0, 0

    def __call__(self) -> float:
        self.reads += 1
        return self.now


def test_budgets_in_a_burst_start_from_one_reading_and_never_late(monkeypatch: pytest.MonkeyPatch) -> None:
    """Reading processor time is a system call, slow on a busy machine: budgets started one after another
    take their start from a reading made within the last FRESH_SECONDS, which only makes a deadline early."""
    fake = CountingClock()
    monkeypatch.setattr(budget, "clock", fake)
    monkeypatch.setattr(budget, "_last_reading", (0.0, -float("inf")))
    fresh = Budget()
    fresh.step()
    assert fake.reads == 1 and fresh.deadline == 100.0 + budget.MAX_SECONDS
    fake.now = 100.004  # processor time moves on, but the next budget starts within FRESH_SECONDS
    monkeypatch.setattr(budget.time, "perf_counter", lambda: budget._last_reading[1] + budget.FRESH_SECONDS / 2)
    burst = Budget()
    burst.step()
    assert fake.reads == 1 and burst.deadline == 100.0 + budget.MAX_SECONDS  # a little early, never late
    # Twice FRESH_SECONDS: read_at + FRESH_SECONDS - read_at can round below FRESH_SECONDS
    monkeypatch.setattr(budget.time, "perf_counter", lambda: budget._last_reading[1] + 2 * budget.FRESH_SECONDS)
    later = Budget()
    later.step()
    assert fake.reads == 2 and later.deadline == 100.004 + budget.MAX_SECONDS  # an old reading is read again


def test_a_budget_started_from_a_recent_reading_still_runs_out(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = CountingClock()
    monkeypatch.setattr(budget, "clock", fake)
    wall = [50.0]
    monkeypatch.setattr(budget.time, "perf_counter", lambda: wall[0])
    budget.processor_time()  # some earlier budget's reading, just now
    spending = Budget()
    spending.step()
    assert fake.reads == 1
    wall[0] += budget.MAX_SECONDS / budget.PROCESSORS  # only now could MAX_SECONDS of processor time have gone
    fake.now += budget.MAX_SECONDS + 0.001
    with pytest.raises(budget.BudgetError, match="longer than"):
        spending.step()


def test_the_variance_experiment_is_run_once_per_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    """The notes' run draws 13.6 M numbers; the same arguments give the same table, so it is kept, per backend."""
    from quizzer.templates import functions

    calls: list[tuple[str, int]] = []
    real = engine.dot_product_variance
    monkeypatch.setattr(engine, "dot_product_variance",
                        lambda rng, d, n: (calls.append((engine.current_backend(), d)), real(rng, d, n))[1])
    functions._variance_table.cache_clear()
    first = functions.dot_product_variances(7, [4, 8], 300)
    first[0, 0] = -1.0  # a caller's copy: changing it changes nothing kept
    again = functions.dot_product_variances(7, np.array([4.0, 8.0]), 300)
    assert calls == [("numpy", 4), ("numpy", 8)]
    rng = np.random.default_rng(7)
    assert again.tolist() == [list(real(rng, 4, 300)), list(real(rng, 8, 300))]
    with engine.use_backend("torch"):
        functions.dot_product_variances(7, [4, 8], 300)
    assert calls[2:] == [("torch", 4), ("torch", 8)]
    functions._variance_table.cache_clear()


def test_validation_stops_early_once_all_seeds_would_cost_too_much(monkeypatch: pytest.MonkeyPatch) -> None:
    template = load_path(HOSTILE / "cost-steps-over-all-seeds.yaml")
    rendered: list[int] = []
    monkeypatch.setattr(validate, "make_instance",
                        lambda t, seed, b: (rendered.append(seed), make_instance(t, seed, b))[1])
    with pytest.raises(TemplateError, match=r"field 'derived\.many\d+': too costly to validate"):
        validate.check_renders(template, range(200))
    assert rendered == [0]  # projected from the first seed, refused before the second


def test_a_canonical_seed_zero_is_counted_once_not_projected() -> None:
    template = bundled()["practice/w1b-sdpa-variance-table"]
    spend = validate.ValidationSpend(template, 200)
    spend.add(Budget(work=validate.MAX_VALIDATION_COST // 20))  # the notes' 13.6 M draws: 1/20 of the limit
    spend.add(Budget(work=1000))
    uncanonical = validate.ValidationSpend(bundled()["practice/qkv-score-matrix"], 200)
    with pytest.raises(TemplateError, match="too costly to validate"):
        uncanonical.add(Budget(work=validate.MAX_VALIDATION_COST // 20))


def test_the_bundled_bank_stays_far_inside_every_limit() -> None:
    """SECURITY.md states these margins; a template that eats into them should be a decision."""
    worst = Budget()
    for template in bundled().values():
        for seed in SEEDS:
            spent = Budget()
            make_instance(template, seed, spent)
            worst = Budget(max(worst.steps, spent.steps), work=max(worst.work, spent.work),
                           elements=max(worst.elements, spent.elements))
    assert worst.steps * 20 < budget.MAX_STEPS
    assert worst.work * 3 < budget.MAX_WORK  # the notes' variance experiment, seed 0
    assert worst.elements * 50 < budget.MAX_TOTAL_ELEMENTS
