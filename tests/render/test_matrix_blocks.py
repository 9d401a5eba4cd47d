"""Matrices in prompts and solutions are blocks in the app, each at one precision (issue 22, point 7).

The app's Markdown joined an indented display formula after a list item into one paragraph:
"Z=AV=⎡ 0.9933 1.9507 ⎤ ⎣ -1.1924 2.0219 ⎦"; and tex() trimmed each entry on its own (1.951 beside 0.9933).
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from markdown_it import MarkdownIt

from quizzer.templates.formatting import terms, tex
from quizzer.text.mathtext import render_math
from tests.bundled_templates import instance


def test_one_precision_per_matrix() -> None:
    assert tex(np.array([[0.9933, 1.951], [-1.1924, 2.0219]])) == \
        r"\begin{bmatrix} 0.9933 & 1.9510 \\ -1.1924 & 2.0219 \end{bmatrix}"
    assert tex(np.array([[1.0, 0.5], [2.0, -np.inf]])) == r"\begin{bmatrix} 1.0 & 0.5 \\ 2.0 & -∞ \end{bmatrix}"
    assert tex(np.array([[1, 2], [3, 4]])) == r"\begin{bmatrix} 1 & 2 \\ 3 & 4 \end{bmatrix}"


def test_every_matrix_of_a_solution_prints_its_entries_to_one_precision() -> None:
    solution = render_math(instance("practice/w1b-sdpa-output-matrix", 1).solution, fenced=True)
    blocks = [b for b in re.findall(r"```text\n(.*?)\n```", solution, re.DOTALL) if "\n" in b]
    assert len(blocks) == 3  # S, A and Z = AV (every display is fenced as text; these three have rows)
    for block in blocks:
        decimals = {len(number.partition(".")[2]) for number in re.findall(r"-?\d+\.\d+", block)}
        assert decimals == {4}, block


def test_a_matrix_after_a_list_item_stays_a_block_in_markdown() -> None:
    """What the app's Markdown widget parses: the rows of Z = AV stay on their own lines."""
    solution = render_math(instance("practice/w1b-sdpa-output-matrix", 1).solution, fenced=True)
    tokens = MarkdownIt("commonmark").parse(solution)
    blocks = [token.content for token in tokens if token.type == "fence"]
    z = next(block for block in blocks if "Z" in block)
    rows = z.rstrip("\n").split("\n")
    assert len(rows) == 2 and rows[0].lstrip().startswith("Z") and "⎡" in rows[0] and "⎣" in rows[1]
    unfenced = MarkdownIt("commonmark").parse(render_math(instance("practice/w1b-sdpa-output-matrix", 1).solution))
    assert not any(token.type == "fence" for token in unfenced)  # a plain terminal gets no fences


def test_a_one_line_display_formula_is_fenced_as_text_only_for_the_app() -> None:
    assert render_math("Text\n\n$$Z = AV$$\n") == "Text\n\n    Z = AV\n"  # a plain terminal
    # the app's Markdown would guess an indented block's language and highlight the maths as code
    assert render_math("Text\n\n$$Z = AV$$\n", fenced=True) == "Text\n\n```text\n    Z = AV\n```\n"


@pytest.mark.parametrize(("values", "written"), [
    ([2, -3, -1], "2 - 3 - 1"), ([-2.5, 3.0], "-2.5 + 3"), ([[12.0, 8.0], [8.0, -12.0]], "12 + 8 + 8 - 12"),
    ([0.73106], "0.7311"), ([], "0"),
])
def test_a_sum_is_written_with_each_sign_once(values: list, written: str) -> None:
    """``terms``: a worked mean read "(1/3)(2+-3+-1)" when each term was shown on its own."""
    assert terms(values) == written


def test_display_maths_in_a_worked_solution_is_never_highlighted_as_code() -> None:
    """2026T2_Q1_NA Q7's `1 + 2 + … + T = T(T+1)/2` was guessed to be Python, its `…` on an error's red: every
    display block the app shows is fenced as plain text."""
    solution = render_math(instance("2026T2_Q1_NA Q7", 0).solution, fenced=True)
    fences = re.findall(r"^\s*```(\w*)$", solution, re.MULTILINE)
    assert fences and set(fences[0::2]) == {"text"} and set(fences[1::2]) == {""}
    assert "1+2+…+T" in solution
