"""The answer sheets' common wrong answers in md, html and pdf: each known mistake's typed answer and
what the mistake is, on the answer sheet only, with an expression's ``*`` kept as typed."""

from __future__ import annotations

import json
import re
from html import escape
from pathlib import Path

import pytest

from quizzer.export import pdf
from quizzer.export.document import Selection, build_paper, code_span, plain_markdown, typed_expression
from quizzer.export.richtext import escape_typst, to_html_inline, to_typst_inline
from quizzer.templates.catalog import load_catalog, questions_dir
from quizzer.templates.instance import Instance, make_instance
from quizzer.templates.loader import load_path
from tests.cli_runner import run
from tests.export.test_typst import _pdf_text

EXPRESSION = "practice/w1b-enc-bias-false-formula"  # its mistakes are expressions: 4*d^2 + 2*d*f, …
FILES = {
    EXPRESSION: "week1/encoder_parameters/practice-w1b-enc-bias-false-formula.yaml",
    "2024T3_Q1_NA Q277": "week2/decoder_output_params/2024T3_Q1_NA_Q277.yaml",  # integer: forgot the bias
    "2025T3_Q1_NA Q174": "week2/sinusoidal_positions/2025T3_Q1_NA_Q174.yaml",  # choice: a distractor, no id
}
SEED = 3
SELECTION = (*(arg for key in FILES for arg in ("--key", key)), "--seed", str(SEED))


def instances() -> list[Instance]:
    return [make_instance(load_path(questions_dir() / path), SEED) for path in FILES.values()]


def catalogued(mistakes: list[dict]) -> list[tuple[str, str]]:
    """(typed answer, catalogue title) of every mistake with a misconception id."""
    titles = load_catalog().misconceptions
    return [(mistake["answer_text"], titles[mistake["id"]].title) for mistake in mistakes if mistake["id"]]


@pytest.fixture
def mistakes(bundled_bank: Path) -> list[tuple[str, str]]:
    """What the exported questions' known mistakes are, as ``generate`` lists them."""
    code, out, _ = run("generate", *SELECTION, "--format", "json", "--solutions")
    assert code == 0
    found = catalogued([mistake for instance in json.loads(out) for mistake in instance["mistakes"]])
    assert len(found) >= 4 and any("*" in typed for typed, _ in found)
    return found


def as_shown(typed: str) -> str:
    """A typed wrong answer as the sheets show it: an expression (it has letters) also as maths."""
    return typed_expression(typed) if re.search(r"[A-Za-z]", typed) else code_span(typed)


def test_the_document_holds_each_mistake_once_as_markdown() -> None:
    paper = build_paper(instances(), Selection(seed=SEED, keys=tuple(FILES)), "md")
    titles = load_catalog().misconceptions
    for question in paper.questions:
        shown = [mistake for mistake in question.instance.mistakes if mistake.id or mistake.feedback]
        assert len(question.wrong_answers) == len(shown) > 0
        for wrong, mistake in zip(question.wrong_answers, shown, strict=True):
            if question.instance.kind == "choice":  # the option as the paper prints it, letter and text
                letter = mistake.answer_text
                assert wrong.answer == f"({letter}) {question.instance.choices[ord(letter) - 97].rstrip('.')}"
            else:
                assert wrong.answer == as_shown(mistake.answer_text)
            assert wrong.mistake == (plain_markdown(titles[mistake.id].title) if mistake.id else "")
            assert wrong.feedback
    expression = next(question for question in paper.questions if question.instance.key == EXPRESSION)
    assert expression.sheet_answer == typed_expression(expression.instance.answer_text)


def test_markdown_sheet_lists_them_and_the_paper_does_not(tmp_path: Path, mistakes: list[tuple[str, str]]) -> None:
    target = tmp_path / "paper.md"
    assert run("export", *SELECTION, "--format", "md", "-o", str(target))[0] == 0
    paper, sheet = target.read_text(), (tmp_path / "paper-answers.md").read_text()
    assert sheet.count("**Common wrong answers.**") == len(FILES) and "Common wrong answers" not in paper
    for typed, title in mistakes:
        assert re.search(rf"^- {re.escape(as_shown(typed))} — \*mistake:\* \*\*{re.escape(title)}\.\*\* ", sheet,
                         re.MULTILINE), (typed, title)
        assert title not in paper and code_span(typed) not in paper
    assert "`4*d^2 + 2*d*f`" in sheet  # an expression keeps its stars: a code span, never emphasis
    assert "- (b) $k = 10$ — " in sheet  # a choice distractor: its letter and option text, then its feedback


def test_html_sheet_lists_them_and_the_paper_does_not(tmp_path: Path, mistakes: list[tuple[str, str]]) -> None:
    target = tmp_path / "paper.html"
    assert run("export", *SELECTION, "--format", "html", "-o", str(target))[0] == 0
    paper, sheet = target.read_text().split('<section class="answers">')
    assert sheet.count("<h3>Common wrong answers</h3>") == len(FILES) and "Common wrong answers" not in paper
    for typed, title in mistakes:
        assert f'<span class="wrong"><code>{escape(typed, quote=False)}</code>' in sheet
        assert f"<strong>{escape(title, quote=False)}.</strong>" in sheet
        assert escape(title, quote=False) not in paper and f"<code>{escape(typed, quote=False)}</code>" not in paper
    assert "<code>4*d^2 + 2*d*f</code>" in sheet and "<em>" not in sheet.split("</aside>")[0]
    assert "<strong>Answer:</strong> <code>4*d^2 + 2*d*f + 2*d</code>" in sheet  # the right answer keeps its stars too

    only = tmp_path / "only.html"
    assert run("export", *SELECTION, "--format", "html", "--paper-only", "-o", str(only))[0] == 0
    assert "Common wrong answers" not in only.read_text() and "mistake:" not in only.read_text()


def test_typst_source_lists_them_on_the_sheet_only(tmp_path: Path) -> None:
    paper = build_paper(instances(), Selection(seed=SEED, keys=tuple(FILES)), "pdf")
    sheet, questions = pdf.typst_source(paper, ("answers",), tmp_path), pdf.typst_source(paper, ("paper",), tmp_path)
    found = catalogued([mistake.to_json() for instance in instances() for mistake in instance.mistakes])
    assert sheet.count("*Common wrong answers*") == len(FILES) and "Common wrong answers" not in questions
    for typed, title in found:
        assert f"{to_typst_inline(as_shown(typed))} — #why[_mistake:_] #strong[{escape_typst(title)}.]" in sheet
        assert escape_typst(title) not in questions
    assert "`4*d^2 + 2*d*f`" in sheet  # inline raw: typst shows the stars as typed, in monospace
    assert "*Answer:* `4*d^2 + 2*d*f + 2*d`" in sheet


def test_pdf_sheet_shows_them_and_the_paper_does_not(tmp_path: Path, mistakes: list[tuple[str, str]]) -> None:
    target = tmp_path / "paper.pdf"
    assert run("export", *SELECTION, "--format", "pdf", "-o", str(target))[0] == 0
    paper, sheet = (" ".join(part.split()) for part in _pdf_text(target).split("Answer sheet", 1))
    assert sheet.count("Common wrong answers") == len(FILES) and "Common wrong answers" not in paper
    for typed, title in mistakes:
        assert typed in sheet and f" — mistake: {title}." in sheet, (typed, title)
        assert title not in paper
    assert "Answer: 4*d^2 + 2*d*f + 2*d" in sheet  # stars as typed, in the right answer too


@pytest.mark.parametrize("text", ["Forgot to divide by sqrt(d_k)", "FFN written as W_1x",
                                  "a*b* and $x$ [y](z) _u_ <v>"])
def test_a_catalogue_title_reads_back_as_itself(text: str) -> None:
    assert to_html_inline(plain_markdown(text), math="mathml") == escape(text, quote=False)
    assert to_typst_inline(plain_markdown(text)) == escape_typst(text)
    assert plain_markdown("sqrt(d_k)") == "sqrt(d_k)"  # nothing to escape: the Markdown file reads as plain text


def test_a_code_span_survives_backticks() -> None:
    assert code_span("3*n*a + 2*a") == "`3*n*a + 2*a`"
    assert to_html_inline(code_span("a `b` c"), math="mathml") == "<code>a `b` c</code>"
    assert to_html_inline(code_span("`x"), math="mathml") == "<code>`x</code>"
