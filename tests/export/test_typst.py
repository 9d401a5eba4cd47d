"""LaTeX → typst math on every formula of the bundled bank, and the PDF export."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import typst

from quizzer.export.richtext import math_spans
from quizzer.export.typstmath import MathConversionError, latex_to_typst
from quizzer.templates.catalog import questions_dir
from quizzer.templates.instance import make_instance
from quizzer.templates.loader import load_path
from tests.cli_runner import run


@pytest.mark.parametrize(("latex", "typst_math"), [
    (r"\frac{QK^\top}{\sqrt{d_k}}", "frac(Q K^(⊤), sqrt(d_(k)))"),
    (r"\sqrt[3]{x}", "root(3, x)"),
    (r"d_{\rm model} = 4{,}096", 'd_("model") ="4,096"'),
    (r"\begin{bmatrix} 1 & -2 \\ 0.5 & 3 \end{bmatrix}", 'mat(delim: "[", 1, - 2; 0.5, 3)'),
    (r"\mathbf{W}_1 \mathbb{R}^{d}", "upright(bold(W))_(1) bb(R)^(d)"),
    (r"\text{if } x \ne 0", '"if "x ≠ 0'),
    (r"\operatorname{softmax}\!\left(x\right)", 'op("softmax") #h(-0.17em) lr(( x ))'),
    (r"\max_i x_i / 2", 'op("max", limits: #true)_(i) x_(i) \\/ 2'),
    (r"\lVert x \rVert^2", "norm(x)^(2)"),
    (r"\hat y_t, X'", "hat(y)_(t) \\, X'"),
    (r"\underbrace{a+b}_{n}", "underbrace(a + b, n)"),
    (r"\sum_{i=1}^{T} \alpha_i", "sum_(i = 1)^(T) α_(i)"),
    (r"\begin{cases} 1 & x > 0 \\ 0 & \text{else} \end{cases}", 'cases(1 & x > 0, 0 & "else")'),
    # one bracket without its partner: escaped, or typst pairs it with lr's own "(" (unclosed delimiter)
    (r"\left( \frac{a}{b} \right.", "lr(\\( frac(a, b) )"),
    (r"\left. x \right]", "lr( x \\])"),
])
def test_conversions(latex: str, typst_math: str) -> None:
    assert latex_to_typst(latex, strict=True) == typst_math


def test_unknown_latex_is_an_error_in_strict_mode_and_text_otherwise() -> None:
    with pytest.raises(MathConversionError, match=r"\\frobnicate"):
        latex_to_typst(r"\frobnicate{x}", strict=True)
    assert latex_to_typst(r"\frobnicate", strict=False) == '"frobnicate"'
    assert latex_to_typst(r"\frac{1}{", strict=False) == '"\\\\frac{1}{"'


def _bank_math() -> list[tuple[str, bool]]:
    spans = []
    for path in sorted(questions_dir().rglob("*.yaml")):
        instance = make_instance(load_path(path), 0)
        texts = [instance.prompt, instance.solution, instance.answer_text, *instance.choices,
                 *(wrong.feedback for wrong in instance.spec.wrong_answers)]
        spans += [span for text in texts for span in math_spans(text)]
    return sorted(set(spans))


def test_every_formula_of_every_template_converts_and_compiles() -> None:
    spans = _bank_math()
    assert len(spans) > 1000  # seed 0 of all templates: the formulas the bank really uses
    converted = [latex_to_typst(tex, strict=True) for tex, _ in spans]  # strict: nothing unknown
    body = "\n\n".join(f"$ {code} $" if display else f"${code}$"
                       for code, (_, display) in zip(converted, spans, strict=True))
    pdf = typst.compile(f"#set page(width: 30cm, height: auto)\n{body}".encode(), ignore_system_fonts=True)
    assert pdf.startswith(b"%PDF")


@pytest.fixture
def pdf_paper(bundled_bank: Path, tmp_path: Path) -> Path:
    target = tmp_path / "paper.pdf"
    keys = ("--key", "practice/warmup-rate", "--key", "2024T3_Q1_NA Q277", "--key", "practice/recall-attention-formula")
    code, _, err = run("export", *keys, "--seed", "0", "--format", "pdf", "-o", str(target))
    assert code == 0, err
    return target


def _pdf_text(path: Path) -> str:
    """The text typst laid out, read back from the PDF with typst's own query-free route: pdftotext if present."""
    import shutil
    import subprocess

    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext (poppler-utils) is not installed")
    return subprocess.run(["pdftotext", "-layout", str(path), "-"], capture_output=True, text=True, check=True).stdout


def test_pdf_has_paper_then_answer_sheet_with_math_and_figure(pdf_paper: Path) -> None:
    data = pdf_paper.read_bytes()
    assert data.startswith(b"%PDF") and len(re.findall(rb"/Type\s*/Page\b", data)) >= 2
    text = _pdf_text(pdf_paper)
    paper, sheet = text.split("Answer sheet", 1)
    # The warm-up curve in the answer sheet, as vectors with real text: its legend and mark labels.
    assert "warm-up term" not in paper and "warm-up term" in sheet and "decay term" in sheet
    assert "'2024T3_Q1_NA Q277'" in paper  # straight quotes: the command can be pasted into a shell
    assert "regenerate with" in paper and "--seed 0" in paper and "--seed 0" in sheet
    assert "Answer:" not in paper and sheet.count("Answer:") == 3
    assert "18,944,000" in sheet and "Common wrong answers" in sheet
    assert "softmax" in sheet  # the recall card's model answer, typeset as math


def test_pdf_is_deterministic(pdf_paper: Path, tmp_path: Path) -> None:
    (tmp_path / "again").mkdir()
    again = tmp_path / "again" / "paper.pdf"  # the same name: the printed command names it
    keys = ("--key", "practice/warmup-rate", "--key", "2024T3_Q1_NA Q277", "--key", "practice/recall-attention-formula")
    assert run("export", *keys, "--seed", "0", "--format", "pdf", "-o", str(again))[0] == 0
    assert again.read_bytes() == pdf_paper.read_bytes()
