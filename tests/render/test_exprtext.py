"""Answer expressions written as maths: the student's and the expected one look alike."""

from __future__ import annotations

import pytest

from quizzer.grading.verdict import grade
from quizzer.text.exprtext import as_maths, expression_unicode
from quizzer.tui.widgets.question_view import code_span, feedback_markdown
from tests.bundled_templates import instance


@pytest.mark.parametrize(("source", "shown"), [
    ("B*h*T*(T+1)/2", "BhT(T+1)/2"),
    ("4*d**2+2*d*f", "4d² + 2df"),
    ("4*d**2+4*d", "4d² + 4d"),
    ("T**2*B/2", "T²B/2"),  # the exponent is the 2 alone
    ("d_model*h", "d_model·h"),  # a multi-letter name keeps a dot: d_modelh would misread
    ("a*bc", "a·bc"),
    ("2*3", "2·3"),
    ("x*2", "x·2"),
    ("2*pi*x", "2πx"),
    ("sqrt(d_k)", "√dₖ"),
    ("e**(x+1)", "eˣ⁺¹"),
    ("(a+b)*(a-b)", "(a+b)(a−b)"),
    ("-x+y", "−x + y"),
    ("x-(-y)", "x − (−y)"),
])
def test_expression_unicode(source: str, shown: str) -> None:
    assert expression_unicode(source) == shown


def test_other_kinds_keep_their_latex_rendering() -> None:
    assert as_maths("number", r"$\sqrt{2}$") == "√2"
    assert as_maths("expression", "4*d**2") == "4d²"


def test_code_span_holds_backticks() -> None:
    assert code_span("4d^2") == "`4d^2`"
    assert code_span("a`b") == "``a`b``"


@pytest.mark.parametrize("typed", ["BhT(T+1)/2", "B*h*T*(T+1)/2"])
def test_feedback_shows_both_expressions_as_maths_and_the_typed_text_as_typed(typed: str) -> None:
    question = instance("2026T2_Q1_NA Q7", 3)
    verdict = grade(question.spec, typed)
    text = feedback_markdown(question, verdict, with_solution=False, typed=typed)
    assert "You answered: **BhT(T+1)/2**" in text and "Expected: **BhT(T+1)/2**" in text
    if typed == "BhT(T+1)/2":
        assert "typed" not in text  # shown exactly as typed: nothing to add
    else:
        assert f"typed `{typed}`" in text and "*" not in text.replace(f"`{typed}`", "").replace("**", "")
