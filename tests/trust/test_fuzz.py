"""Fuzzing the two places where arbitrary text meets code: the answer parsers and the evaluator.

Hypothesis feeds every answer kind both random Unicode and near-valid maths (Unicode minus,
fractions, roots, nested brackets, huge exponents, NaN/∞, right-to-left and control
characters, very long strings).  The only allowed outcomes are a verdict, or for the parser
the documented :class:`AnswerFormatError`/:class:`ExprError`; for the evaluator a value or
:class:`ExprError`.  Work is bounded without timing anything: the memory a call allocates
is measured with tracemalloc.  Runs are derandomized, so CI sees the same examples every time;
strings that once broke something live in ``corpus/`` and run as ordinary tests.
"""

from __future__ import annotations

import contextlib
import tracemalloc
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quizzer.grading import budget, expr
from quizzer.grading.expr import ExprError
from quizzer.grading.parse import parse
from quizzer.grading.typed import AnswerFormatError
from quizzer.grading.verdict import VERDICTS, AnswerSpec, Verdict, WrongAnswer, grade
from quizzer.templates.functions import template_functions

CORPUS = Path(__file__).with_name("corpus")
MAX_CALL_BYTES = 64 * 2**20  # 8× the largest array the evaluator allows (1e6 float64 = 8 MB)

SPECS: dict[str, AnswerSpec] = {
    "number": AnswerSpec("number", 0.7311, wrong_answers=(WrongAnswer("m", 0.5, "half"),)),
    "integer": AnswerSpec("integer", 4_204_032, wrong_answers=(WrongAnswer("m", 4_202_496, "no bias"),)),
    "vector": AnswerSpec("vector", np.array([0.5, -1.0, 0.25])),
    "matrix": AnswerSpec("matrix", np.array([[1.0, 0.0], [0.5, 2.0]])),
    "shape": AnswerSpec("shape", ("B", "T", 64)),
    "bool": AnswerSpec("bool", True),
    "choice": AnswerSpec("choice", 1, options=("0.25", "1/sqrt(2)", "d_k", "none of these")),
    "multi": AnswerSpec("multi", frozenset({0, 2}), options=("softmax", "a, b", "LayerNorm", "2 × d")),
    "expression": AnswerSpec("expression", "2*d*f + f", variables=("d", "f")),
    "text": AnswerSpec("text", "attention is a weighted average"),
}

FUZZ = settings(max_examples=200, derandomize=True, database=None, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

# --- near-valid typed maths ---------------------------------------------------------------------

ODD_CHARACTERS = ["−", "–", "×", "·", "÷", "√", "π", "²", "⁻¹", "½", "⁄", "\u202e", "\u200f", "\u200b",
                  "\x00", "\x1b[2J", "\r", "\t", "\ufeff", "٣", "𝟙", "ﬁ", "e", "E", "%", "∞", "NaN"]
NUMBERS = st.one_of(
    st.integers(-10**30, 10**30).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(["1e308", "1e999999999", "9" * 1200, "0.000…1", "4,204,032", "1 000 000", "3,5", ".5",
                     "5.", "1e-400", "10^10^10", "9**9**9**9", "2**-1074", "nan", "inf", "-0", "1/0", "0/0"]),
)
ATOMS = st.one_of(NUMBERS, st.sampled_from(["pi", "e", "d", "f", "x", "B", "T", "a", "(b)", "yes", "none",
                                            "sqrt", "log", "ln", "exp", "d_k", "tensor", "np.array"]),
                  st.sampled_from(ODD_CHARACTERS))
JOINERS = st.sampled_from(["", " ", "+", "-", "*", "/", "^", "**", ",", ";", "\n", " x ", "×10^", "(", ")",
                           "[", "]", "{", "}", " and ", "&", "@", "%", "|", "=", "≈"])


@st.composite
def near_valid(draw: st.DrawFn) -> str:
    """Typed-looking maths: atoms joined by operators and separators, sometimes bracketed deeply."""
    parts = draw(st.lists(st.tuples(ATOMS, JOINERS), min_size=1, max_size=12))
    text = "".join(atom + joiner for atom, joiner in parts)
    depth = draw(st.integers(0, 3)) ** 3  # mostly shallow, sometimes 27 levels
    text = "(" * depth + text + ")" * draw(st.integers(0, depth))
    return text * draw(st.sampled_from([1, 1, 1, 2, 10, 40]))  # and sometimes long, near or past the limit


TYPED = st.one_of(st.text(max_size=60), st.text(alphabet=st.characters(codec="utf-8"), max_size=300),
                  near_valid())


# --- the properties -------------------------------------------------------------------------------

@pytest.fixture
def traced() -> Iterator[None]:
    """Measure what each call allocates (tracemalloc makes everything ~4× slower, so only some tests)."""
    tracemalloc.start()
    yield
    tracemalloc.stop()


def peak_bytes(call: Callable[[], Any]) -> tuple[Any, int]:
    """Run ``call``; return its result (or the exception it raised) and, when tracing, the bytes
    it allocated at its peak (else 0)."""
    tracemalloc.reset_peak()
    before = tracemalloc.get_traced_memory()[0]
    try:
        result: Any = call()
    except Exception as exc:  # noqa: BLE001 - the caller checks which exceptions are allowed
        result = exc
    return result, tracemalloc.get_traced_memory()[1] - before


def check_verdict(kind: str, text: str) -> Verdict:
    verdict, used = peak_bytes(lambda: grade(SPECS[kind], text))
    assert isinstance(verdict, Verdict), f"{kind} {text!r}: {verdict!r}"
    assert verdict.verdict in VERDICTS and 0.0 <= verdict.score <= 1.0
    assert (verdict.reading is None) == (verdict.verdict == "invalid")
    assert used < MAX_CALL_BYTES, f"{kind} {text!r} allocated {used:,} bytes"
    return verdict


def check_parse(kind: str, text: str) -> None:
    """The parser returns a value or raises the documented error, nothing else."""
    context = {"options": SPECS[kind].options} if kind in ("choice", "multi") else {}
    context |= {"variables": SPECS[kind].variables} if kind == "expression" else {}
    with contextlib.suppress(AnswerFormatError, ExprError):
        parse(kind, text, **context)


@pytest.mark.parametrize("kind", list(SPECS))
@FUZZ
@given(text=TYPED)
def test_any_typed_answer_gets_a_verdict(kind: str, text: str) -> None:
    check_verdict(kind, text)
    check_parse(kind, text)


@pytest.mark.parametrize("kind", list(SPECS))
@settings(FUZZ, max_examples=40)
@given(text=near_valid())
def test_grading_any_answer_allocates_a_bounded_amount(kind: str, text: str, traced: None) -> None:
    check_verdict(kind, text)


# --- the evaluator ------------------------------------------------------------------------------

FUNCTIONS = template_functions()
CALLABLE = sorted(FUNCTIONS)
NAMES = {"n": 3, "d": 4.0, "x": np.arange(6.0), "M": np.eye(3), "s": "text", "big": np.zeros((1000, 1000))}
OPERATORS = ["+", "-", "*", "/", "//", "%", "**", "@", "==", "<", " in ", " and ", " or ", " if n else "]


def expressions() -> st.SearchStrategy[str]:
    """Well-formed expressions of the template language with any function, name and operator."""
    leaves = st.one_of(st.sampled_from([*NAMES, "pi", "e", "inf", "True", "None", "'a'", "-1", "0", "2.5",
                                        "10**9", "1e308", "[1, 2, 3]", "[[1, 2], [3]]", "[]", "()"]),
                       st.integers(-10**6, 10**6).map(str))

    def extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        return st.one_of(
            st.tuples(inner, st.sampled_from(OPERATORS), inner).map(lambda t: f"({t[0]}{t[1]}{t[2]})"),
            st.tuples(st.sampled_from(CALLABLE), st.lists(inner, max_size=4)).map(
                lambda t: f"{t[0]}({', '.join(t[1])})"),
            st.tuples(inner, inner).map(lambda t: f"{t[0]}[{t[1]}]"),
            st.tuples(inner, inner).map(lambda t: f"{t[0]}[{t[1]}:]"),
            inner.map(lambda t: f"-{t}"), inner.map(lambda t: f"not {t}"),
        )
    return st.recursive(leaves, extend, max_leaves=12)


def check_evaluates(source: str) -> None:
    outcome, used = peak_bytes(lambda: expr.evaluate(source, NAMES, FUNCTIONS))
    assert not isinstance(outcome, Exception) or isinstance(outcome, ExprError), f"{source!r}: {outcome!r}"
    assert used < MAX_CALL_BYTES, f"{source!r} allocated {used:,} bytes"


@settings(FUZZ, max_examples=2000)
@given(source=expressions())
def test_any_expression_gives_a_value_or_an_expression_error(source: str) -> None:
    check_evaluates(source)


@settings(FUZZ, max_examples=1000)
@given(source=st.one_of(st.text(max_size=80), near_valid()))
def test_any_text_as_an_expression_gives_a_value_or_an_expression_error(source: str) -> None:
    check_evaluates(source)


@settings(FUZZ, max_examples=200)
@given(source=expressions())
def test_evaluating_any_expression_allocates_a_bounded_amount(source: str, traced: None) -> None:
    check_evaluates(source)


def test_the_time_budget_stops_an_evaluation(monkeypatch: pytest.MonkeyPatch) -> None:
    """The deadline is checked at every step, so even a short expression of slow calls stops."""
    monkeypatch.setattr(budget, "MAX_SECONDS", 0.0)
    with pytest.raises(ExprError, match="take longer than"):
        expr.evaluate("sum(big) + sum(big)", NAMES, FUNCTIONS)


@pytest.mark.parametrize("source", ["var(x, ddof=6)", "std(M, 0, ddof=3)", "var(d, ddof=1)"])
def test_a_spread_with_no_degrees_of_freedom_is_an_error_not_a_warning(source: str) -> None:
    """NumPy would print "RuntimeWarning: Degrees of freedom <= 0" past the one-line message."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ExprError, match="leaves no degrees of freedom"):
            expr.evaluate(source, NAMES, FUNCTIONS)

# --- strings that once broke something ----------------------------------------------------------

def corpus(name: str) -> list[str]:
    """One case per line; escapes such as \\x00 and \\u202e are decoded so any string fits."""
    lines = (CORPUS / name).read_text(encoding="utf-8").splitlines()
    return [line.encode("ascii", "backslashreplace").decode("unicode_escape") for line in lines
            if line and not line.startswith("#")]


@pytest.mark.parametrize("kind", list(SPECS))
@pytest.mark.parametrize("text", corpus("answers.txt"))
def test_answer_corpus(kind: str, text: str, traced: None) -> None:
    check_verdict(kind, text)
    check_parse(kind, text)


@pytest.mark.parametrize("source", corpus("expressions.txt"))
def test_expression_corpus(source: str, traced: None) -> None:
    check_evaluates(source)


def test_evaluations_sharing_a_budget_stop_at_its_step_limit() -> None:
    """No single expression can take 20,000 steps (4,000 characters, no loops), but the many
    expressions of one template instance share one budget, and that one runs out."""
    chain = "+".join(["n"] * 150)  # 149 steps
    with budget.shared_budget(), pytest.raises(ExprError, match="evaluation steps in all"):
        for _ in range(budget.MAX_STEPS // 149 + 1):
            expr.evaluate(chain, NAMES, FUNCTIONS)


def test_evaluations_sharing_a_budget_stop_at_its_element_limit() -> None:
    with budget.shared_budget() as spent, pytest.raises(ExprError, match="array elements built in all"):
        for _ in range(5):
            expr.evaluate("big + 1", NAMES, FUNCTIONS)
    assert spent.elements > budget.MAX_TOTAL_ELEMENTS
