"""The Markdown the practice screen shows for questions and answers, and how the app's stylesheet lays it out."""

from __future__ import annotations

import asyncio
from pathlib import Path

from markdown_it import MarkdownIt
from textual.app import App, ComposeResult
from textual.widgets import Label, Markdown
from textual.widgets._markdown import MarkdownFence, MarkdownH3

import quizzer.tui.app
from quizzer.grading.verdict import grade
from quizzer.templates.parts import grade_instance
from quizzer.text.mathtext import render_math
from quizzer.tui.screens.browser import preview_markdown
from quizzer.tui.widgets.answer_box import AnswerBox, answer_context
from quizzer.tui.widgets.parts_box import parts_feedback_markdown
from quizzer.tui.widgets.question_view import answer_markdown, feedback_markdown, question_markdown, revealed_markdown
from tests.bundled_templates import instance


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


def notes(markdown: str) -> list[str]:
    """The grader's notes: the block quotes under a verdict."""
    return [line.removeprefix("> ") for line in markdown.splitlines() if line.startswith("> ")]


def test_a_right_answer_with_fewer_digits_than_asked_keeps_the_graders_note() -> None:
    """Found in the app: it showed a note only under a wrong answer, so a right one typed to 3 decimals
    where 4 are asked lost "the question asks for 4 decimals, you gave 3", which the CLI printed."""
    item = instance("practice/softmax-scaling-peakedness", 3)  # 0.3647, asked to 4 decimals (the tolerance)
    short = grade(item.spec, "0.365")  # right to 3 decimals: half right since the precision asked is the tolerance
    assert (short.verdict, short.score) == ("partial", 0.5)
    assert notes(feedback_markdown(item, short, with_solution=False)) == ["right to 3 decimals; give 4"]
    assert notes(feedback_markdown(item, grade(item.spec, "0.3647"), with_solution=False)) == []
    assert notes(feedback_markdown(item, grade(item.spec, "0.5"), with_solution=False)) != []


def test_a_part_right_on_a_carried_value_says_so_and_a_plainly_right_part_has_no_note() -> None:
    item = instance("2024T3_Q1_NA Q279", 0)
    mine = 4_100_000  # a wrong layer count, then the stack and total computed from it
    typed = [str(mine), f"{6 * mine:,}", str(18_944_000 + 6 * mine)]
    carried = notes(parts_feedback_markdown(item, grade_instance(item, typed), typed, with_solution=False))
    assert len(carried) == 3 and all(note.startswith("Right on your value") for note in carried[1:])
    right = [str(a) for a in item.answer]
    assert notes(parts_feedback_markdown(item, grade_instance(item, right), right, with_solution=False)) == []


class Pane(App[None]):
    """The app's stylesheet around one question's Markdown, standing in for the app's question pane."""

    CSS_PATH = Path(quizzer.tui.app.__file__).parent / quizzer.tui.app.QuizzerApp.CSS_PATH

    def __init__(self, markdown: str) -> None:
        super().__init__()
        self.markdown = markdown

    def compose(self) -> ComposeResult:
        yield Markdown(self.markdown)


def test_a_title_longer_than_the_pane_wraps_instead_of_being_cut_off() -> None:
    """Q281's title in the app at 80 columns ended "…, outpu": Textual sizes an H3 to its text unless told
    (here a 60-column pane, narrower than the title)."""
    async def title_size() -> tuple[int, int]:
        app = Pane(question_markdown(instance("2024T3_Q1_NA Q281", 0), "1. "))
        async with app.run_test(size=(60, 24)) as pilot:
            await pilot.pause()
            size = app.query_one(MarkdownH3).size
            return size.width, size.height

    width, height = asyncio.run(title_size())
    assert len(instance("2024T3_Q1_NA Q281", 0).title) > 60 and width <= 60 and height >= 2


def test_a_printed_output_wider_than_the_pane_wraps_instead_of_being_cut_off() -> None:
    """At 80 columns a student saw 'max |manual - torch.nn.MultiheadAttention' without the '=0.00000009' the
    question asks about: Textual scrolls a code block sideways with no scroll bar."""
    item = instance("practice/w1c-float-agreement", 0)

    async def fence() -> tuple[int, int, int]:
        app = Pane(question_markdown(item, "1. "))
        async with app.run_test(size=(80, 40)) as pilot:
            await pilot.pause()
            block = app.query_one(MarkdownFence)
            return block.max_scroll_x, block.size.width, block.query_one(Label).size.height

    hidden, width, height = asyncio.run(fence())
    printed = next(line for line in item.prompt.splitlines() if "MultiheadAttention" in line)
    assert len(printed) > width and hidden == 0 and height > 3  # the three printed lines, the long ones wrapped


def test_a_matrix_answer_and_the_expected_one_are_drawn_as_grids() -> None:
    """A 5 × 5 mask written as one nested list wrapped mid-row at 80 columns."""
    item = instance("2024T1_ET_AN Q157", 0)
    verdict = grade(item.spec, "0 1 1 1 1; 0 0 1 1 1; 0 0 0 1 1; 0 0 0 0 1; 0 0 0 0 0")
    text = feedback_markdown(item, verdict, with_solution=False)
    grids = [line for line in text.splitlines() if line.count("⎡") + line.count("⎢") + line.count("⎣") == 2]
    assert len(grids) == len(item.answer)  # yours beside the expected one, a line per row
    assert "[[" not in text and "You answered" in text and "Expected" in text


def test_a_part_is_fed_back_as_a_one_part_question_is() -> None:
    """A chain's matrix parts were fed back as the typed text in backticks above one grid, where a one-part
    question draws the learner's matrix beside the expected one: (b) here divides by d - 1."""
    item = instance("2024T3_Q1_NA Q281", 0)
    mu, variance = item.values["mu"], item.values["sigma2"]
    typed = [str(item.parts[0].question.answer.tolist()),
             "; ".join(f"{m:.4f} {v * 3 / 2:.4f}" for m, v in zip(mu, variance, strict=True)), ""]
    text = parts_feedback_markdown(item, grade_instance(item, typed[:2] + [""]), typed, with_solution=False)
    part_b = text.split("**(b)**")[1].split("**(c)**")[0]
    grids = [line for line in part_b.splitlines() if line.count("⎡") == 2]
    assert len(grids) == 1 and "You answered" in part_b and "Expected" in part_b and "`" not in part_b
    assert any("d-1 = 2" in note for note in notes(part_b))  # the slip, named as the one-part feedback names it


def test_a_revealed_ordering_question_names_its_steps_in_order() -> None:
    """Revealing showed 'Answer: f, g, c, e, b, d, a', the options gone: letters that named nothing."""
    item = instance("practice/w1c-encoder-layer-order", 2)
    text = revealed_markdown(item)
    first = item.choices[item.answer[0]]
    assert "The right order" in text and render_math(first) in text and "Worked solution" in text


def test_an_expressions_placeholder_shows_how_to_write_in_its_names_without_an_answer_like_example() -> None:
    """The box read "an expression, e.g. 4*d^2 + 2*d*f" above a question whose answer is 4d² + 2df + 2d."""
    item = instance("practice/w1b-enc-bias-false-formula", 0)
    shown = AnswerBox(item.kind, answer_context(item)).placeholder()
    assert shown.startswith("an expression in d, f:") and "(d + f)/2" in shown
    assert grade(item.spec, shown.partition(": ")[2].split(", ")[-1]).verdict == "incorrect"


def test_an_expression_answer_is_written_as_maths_wherever_it_is_shown() -> None:
    """The bank preview and a revealed solution printed the template's `B*h*T*(T+1)/2` where practice's
    feedback writes `BhT(T+1)/2`: one writing everywhere."""
    shown = instance("2026T2_Q1_NA Q7", 1)
    assert shown.kind == "expression" and "*" in shown.answer_text
    written = grade(shown.spec, shown.answer_text).expected
    assert "*" not in written
    for markdown in (preview_markdown(shown), revealed_markdown(shown)):
        assert written in markdown and shown.answer_text not in markdown
