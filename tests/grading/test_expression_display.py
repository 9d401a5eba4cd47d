"""Expression answers are shown as maths, the student's and the expected one alike (issue 22, point 4).

Typed `BhT(T+1)/2` was shown "BhT*(T+1)/2" against "BhT(T+1)/2*": the normalised Python text
(`B*h*T*(T+1)/2`) went through Markdown, whose emphasis ate the stars.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from quizzer.grading.parse import preview
from quizzer.grading.readers import read_expression
from quizzer.grading.verdict import grade
from quizzer.reporting.classdata import ClassAttempt
from quizzer.reporting.items import analyse_items
from quizzer.text.exprtext import expression_unicode
from quizzer.tui.widgets.question_view import feedback_markdown
from tests.bundled_templates import bundled, instance

KEY = "2026T2_Q1_NA Q7"  # answer: B*h*T*(T+1)/2 in B, h, T
VARIABLES = ["B", "h", "T", "d", "f", "x", "d_k", "d_model"]


@pytest.mark.parametrize(("typed", "shown"), [
    ("BhT(T+1)/2", "BhT(T+1)/2"),
    ("B*h*T*(T+1)/2", "BhT(T+1)/2"),
    ("4d^2+2df", "4d² + 2df"),
    ("4*d**2+4*d", "4d² + 4d"),
    ("d - (x + 1)", "d - (x+1)"),
    ("-x + d", "-x + d"),
    ("(d + f)^2", "(d+f)²"),
    ("x/(2*h)", "x/(2h)"),
    ("d_k/sqrt(d_model)", "dₖ/√d_model"),
    ("3*4*d", "3·4d"),
])
def test_the_live_preview_reads_an_expression_as_maths(typed: str, shown: str) -> None:
    assert preview("expression", typed, variables=VARIABLES) == (True, shown)


@pytest.mark.parametrize("text", ["B*h*T*(T+1)/2", "4*d**2 + 2*d*f", "d - (x + 1)", "-(d + f)**2/x", "x/(2*h) - d**-1"])
def test_the_maths_means_what_was_typed(text: str) -> None:
    """Read back as typed (implicit products, superscripts), the shown maths is the same expression."""
    typed = read_expression(text, VARIABLES)
    shown = read_expression(expression_unicode(typed.compiled.tree.body), VARIABLES)
    for value in (0.7, 1.3, 2.9):
        point = {name: value + index / 10 for index, name in enumerate(VARIABLES)}
        assert shown.value_at(point) == pytest.approx(typed.value_at(point))


@pytest.mark.parametrize("typed", ["BhT(T+1)/2", "B*h*T*(T+1)/2", "T(T+1)hB/2"])
def test_both_sides_of_the_feedback_are_the_same_maths(typed: str) -> None:
    question = instance(KEY, 1)
    verdict = grade(question.spec, typed)
    assert verdict.verdict == "correct"
    assert verdict.expected == "BhT(T+1)/2"
    markdown = feedback_markdown(question, verdict, with_solution=False)
    assert "Expected: **BhT(T+1)/2**" in markdown
    answered = next(line for line in markdown.splitlines() if line.startswith("You answered:"))
    assert "*" not in answered.replace(f"`{typed}`", "")  # no star outside the code span for Markdown to eat
    shown = preview("expression", typed, variables=["B", "h", "T"]).text
    assert answered.startswith(f"You answered: {shown}")
    assert (f"(typed `{typed}`)" in answered) == (typed != shown)


def test_a_wrong_expression_is_shown_as_maths_with_what_was_typed() -> None:
    verdict = grade(instance(KEY, 1).spec, "B*h*T^2")
    assert (verdict.verdict, verdict.reading, verdict.answered) == (
        "incorrect", "BhT²", "BhT² (typed `B*h*T^2`)")


def test_the_report_counts_equivalent_spellings_of_one_wrong_expression_once() -> None:
    at = datetime(2026, 12, 1, tzinfo=UTC)
    typed = ["B*h*T^2", "BhT²", "BhT^2", "BhT**2", "B*h*T"]
    attempts = [ClassAttempt(f"learner{i}", KEY, 1, "incorrect", 0.0, None, None, at, response)
                for i, response in enumerate(typed)]
    item, = analyse_items(attempts, {KEY: bundled()[KEY]}).items
    assert [(share.text, share.count) for share in item.wrong_answers] == [("BhT²", 4), ("BhT", 1)]
