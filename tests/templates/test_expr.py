"""The restricted expression language: what it computes, and everything it refuses."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from quizzer.grading.expr import MAX_ARRAY_ELEMENTS, ExprError, check_allocation, compile_expr, evaluate

FUNCS = {"sqrt": math.sqrt, "max": max, "ones": lambda n: (check_allocation(n), np.ones(n))[1]}


@pytest.mark.parametrize(("source", "expected"), [
    ("1 + 2 * 3", 7),
    ("2 ** 10", 1024),
    ("7 // 2, 7 % 2", None),
    ("sqrt(3 / 2)", math.sqrt(1.5)),
    ("max(3, 9, 4)", 9),
    ("'yes' if 2 > 1 else 'no'", "yes"),
    ("1 < 2 < 3", True),
    ("1 < 2 > 3", False),
    ("not (1 and 0)", True),
    ("0 or 5", 5),
    ("[[1, 2], [3, 4]][1, 0]", 3.0),
    ("[1, 2, 3, 4][1:3]", None),
    ("x * y", 12),
    ("4_204_032", 4204032),
])
def test_evaluates(source: str, expected: object) -> None:
    value = evaluate(source, {"x": 3, "y": 4}, FUNCS)
    if expected is not None:
        assert value == expected


def test_numeric_lists_become_arrays() -> None:
    value = evaluate("[1, 2] @ [3, 4]")
    assert value == 11.0
    np.testing.assert_array_equal(evaluate("[1, 2, 3, 4][1:3]"), [2.0, 3.0])


def test_names_are_reported_with_suggestions() -> None:
    with pytest.raises(ExprError, match=r"unknown name 'd_modle' \(did you mean 'd_model'\?\)"):
        evaluate("d_modle * 2", {"d_model": 512})
    with pytest.raises(ExprError, match=r"unknown function 'sqr' \(did you mean 'sqrt'\?\)"):
        evaluate("sqr(2)", {}, FUNCS)


@pytest.mark.parametrize(("source", "message"), [
    ("__import__('os')", "names may not start with '_'"),
    ("__import__('os').system('touch /tmp/pwned')", "attribute access"),
    ("().__class__.__bases__[0].__subclasses__()", "attribute access"),
    ("x.real", "attribute access"),
    ("(lambda: 1)()", "lambda is not allowed"),
    ("[c for c in 'abc']", "comprehensions"),
    ("open('/etc/passwd')", "unknown function 'open'"),
    ("eval('1')", "unknown function 'eval'"),
    ("exec", "unknown name 'exec'"),
    ("{'a': 1}", "dict literals"),
    ("f'{x}'", "f-strings"),
    ("(y := 3)", "assignment"),
    ("sqrt(**x)", "'**' arguments"),
    ("9**9**9**9", "too large"),
    ("2 ** 100000", "too large"),
    ("'a' * 10**10", "too long"),
    ("ones(10**9)", "too large"),
    ("ones(-1)", "whole numbers"),
    ("(" * 100 + "1" + ")" * 100, "nests deeper"),
    ("1 +", "cannot parse"),
    ("1 / 0", "division by zero"),
    ("(-8) ** 0.5", "not a real number"),
    ("x" * 5000, "characters long"),
])
def test_refuses(source: str, message: str) -> None:
    with pytest.raises(ExprError, match=re.escape(message)):
        evaluate(source, {"x": 1.0}, FUNCS)


def test_list_repetition_is_harmless() -> None:
    # `[0]*10**10` would be ten billion elements in Python; here lists of numbers are arrays,
    # so this is element-wise multiplication of a one-element array.
    np.testing.assert_array_equal(evaluate("[0] * 10**10"), [0.0])


def test_step_budget_stops_long_evaluations() -> None:
    source = " + ".join(["1"] * 1500)
    with pytest.raises(ExprError):
        evaluate(" + ".join([f"({source})"] * 20))


def test_compiled_expressions_are_reusable_and_report_their_names() -> None:
    compiled = compile_expr("a * b + c")
    assert compiled.names == {"a", "b", "c"}
    assert evaluate(compiled, {"a": 2, "b": 3, "c": 1}) == 7
    assert evaluate(compiled, {"a": 5, "b": 5, "c": 0}) == 25


def test_allocation_check_runs_before_allocating() -> None:
    with pytest.raises(ExprError, match="too large"):
        check_allocation(100_000, 100_000)
    check_allocation(1000, MAX_ARRAY_ELEMENTS // 1000)
