"""The Markdown the practice screen shows for answers (no app needed)."""

from __future__ import annotations

from markdown_it import MarkdownIt

from quizzer.tui.widgets.question_view import answer_markdown


def blocks(markdown: str) -> list[str]:
    tokens = MarkdownIt("commonmark").parse(markdown)
    return [token.type for token in tokens if token.nesting != -1 and token.level == 0]


def test_a_one_line_answer_is_bold_after_its_label() -> None:
    assert answer_markdown("Expected", "$[0.5, 1]$") == "Expected: **[0.5,1]**"


def test_a_display_formula_of_several_rows_stays_one_preformatted_block() -> None:
    # A cases formula renders to two rows; found in the app: they ran together into one paragraph
    # because the block's first line lost its indentation.
    shown = answer_markdown("Model answer", r"$$M_{ij} = \begin{cases} 0 & j \le i \\ -\infty & j > i \end{cases}$$"
                                            "\n\nThe mask is added before the softmax.")
    assert blocks(shown) == ["paragraph_open", "code_block", "paragraph_open"]
    rows = next(t for t in MarkdownIt("commonmark").parse(shown) if t.type == "code_block").content.splitlines()
    assert len(rows) == 2 and "⎧" in rows[0] and "⎩" in rows[1]
