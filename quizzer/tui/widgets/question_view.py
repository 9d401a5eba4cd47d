"""A question's text (and later its feedback and worked solution) as Markdown, with math as Unicode."""

from __future__ import annotations

import re

from quizzer.grading.verdict import Verdict, expected_text
from quizzer.templates.instance import Instance
from quizzer.text.mathtext import render_math

VERDICT_STYLE = {"correct": "✔ Correct", "partial": "◐ Partly right", "incorrect": "✘ Not quite", "invalid": "?"}


def question_markdown(instance: Instance, number: str = "") -> str:
    """The prompt as Markdown for a terminal: math converted, choices listed separately by their widget."""
    header = f"### {number}{instance.title}\n\n"
    return header + render_math(instance.prompt, fenced=True)


# Side by side while both grids fit the question pane at 80 columns (as long displays are held to, see
# tests/templates/test_bank_content.py), else one under the other.
SIDE_BY_SIDE_COLUMNS = 70


def _bmatrix(text: str) -> str | None:
    """A matrix written as nested lists (``[[0, 1], [0, 0]]``, as grading writes one) as LaTeX, else None."""
    rows = re.findall(r"\[([^\[\]]*)\]", text)
    if not text.startswith("[[") or not rows:
        return None
    body = r" \\ ".join(" & ".join(entry.strip() for entry in row.split(",")) for row in rows)
    return f"\\begin{{bmatrix}} {body} \\end{{bmatrix}}"


def matrix_display(text: str) -> str:
    """A matrix written as nested lists as a display formula, drawn as a grid; other text unchanged."""
    latex = _bmatrix(text)
    return text if latex is None else f"$${latex}$$"


def matrices_markdown(reading: str | None, expected: str) -> list[str]:
    """The learner's matrix and the expected one as grids, side by side when they fit, to compare row by row."""
    yours, theirs = _bmatrix(reading or ""), _bmatrix(expected)
    if yours is not None and theirs is not None:
        both = render_math(f"$$\\text{{You answered }}{yours}\\qquad\\text{{Expected }}{theirs}$$")
        if max(len(line) for line in both.splitlines()) <= SIDE_BY_SIDE_COLUMNS:
            return [both]
    return ([answer_markdown("You answered", matrix_display(reading)), ""] if reading else []) + [
        answer_markdown("Expected", matrix_display(expected))]


def verdict_line(verdict: Verdict) -> str:
    """`✔ Correct`, or `◐ Partly right — score 86%`."""
    return VERDICT_STYLE[verdict.verdict] + (f" — score {verdict.score:.0%}" if verdict.verdict == "partial" else "")


def answer_markdown(label: str, text: str) -> str:
    """`label: **answer**`, or for an answer of several lines (bold cannot span paragraphs) a block."""
    # Only blank lines are trimmed at the start: a display formula is an indented block, and
    # losing its first line's indentation would run the formula's rows into one paragraph.
    shown = render_math(text).rstrip().lstrip("\n")
    return f"{label}:\n\n{shown}" if "\n" in shown else f"{label}: **{shown.strip()}**"


def options_markdown(instance: Instance, reading: str | None) -> str:
    """Every option, marked: what you chose, what was right, what you missed."""
    correct = {instance.answer} if instance.kind == "choice" else set(instance.answer)
    lines = []
    for index, text in enumerate(instance.choices):
        label = f"({chr(97 + index)})"
        # The grader's reading lists the chosen options as "(b) text", so membership identifies them.
        chosen = f"{label} {text}" in (reading or "")
        mark, note = (("✔", "") if index in correct else ("✘", " — *your choice*")) if chosen else (
            ("○", " — *missed*" if instance.kind == "multi" else " — *the answer*") if index in correct
            else ("·", ""))
        lines.append(f"{mark} **{label}** {render_math(text)}{note}")
    return "  \n".join(lines)  # hard line breaks: one option per line, without list bullets


def order_markdown(instance: Instance) -> str:
    """The steps of an ordering question in their right order, each with its letter."""
    steps = [f"{place}. **({chr(97 + step)})** {render_math(instance.choices[step])}"
             for place, step in enumerate(instance.answer, start=1)]
    return "The right order:  \n" + "  \n".join(steps)


def revealed_markdown(instance: Instance) -> str:
    """The answer and worked solution shown without an answer given: an ordering question's steps in their
    right order with their texts (its letters alone name nothing once the options are gone), a matrix as
    a grid."""
    if instance.kind == "order":
        answer = order_markdown(instance)
    else:
        answer = answer_markdown("Answer", matrix_display(instance.answer_text) if instance.kind == "matrix"
                                 else shown_answer(instance))
    return f"{answer}\n\n#### {solution_heading(instance)}\n\n{render_math(instance.solution, fenced=True)}"


def feedback_markdown(instance: Instance, verdict: Verdict, *, with_solution: bool = True,
                      with_verdict: bool = True, written: str = "") -> str:
    """Verdict, what went wrong, the answer given beside the expected one, and the worked solution."""
    headline = f"◇ Self-rated: {verdict.reading}" if instance.kind == "text" else verdict_line(verdict)
    lines = [f"**{headline}**", ""] if with_verdict else []
    # What went wrong first, under the verdict: below two matrices drawn as grids it was off the screen at 80×24.
    # (A recall card's note is its rating's word, "well done", already in the verdict line.)
    if verdict.note and instance.kind != "text":
        lines += [f"> {render_math(verdict.note)}", ""]
    if instance.kind in ("choice", "multi"):
        lines += [options_markdown(instance, verdict.reading), ""]
    elif instance.kind == "order":
        if verdict.reading:
            lines.append(f"You answered: {verdict.reading}  ")
        lines += [order_markdown(instance), ""]
    elif instance.kind == "text":
        lines += [f"You rated yourself: **{verdict.reading}**", "", written_markdown(written),
                  answer_markdown("Model answer", verdict.expected), ""]
    elif instance.kind == "matrix":  # as grids: a flat nested list wraps mid-row at 80 columns
        lines += [*matrices_markdown(verdict.reading, verdict.expected), ""]
    else:
        if verdict.reading:
            lines.append(f"You answered: {render_math(verdict.answered)}  ")
        lines += [answer_markdown("Expected", verdict.expected), ""]
    if with_solution:
        lines += [f"#### {solution_heading(instance)}", "", render_math(instance.solution, fenced=True)]
    return "\n".join(lines)


def shown_answer(instance: Instance) -> str:
    """The answer as the feedback writes it: an expression as maths (`BhT(T+1)/2`, as grading shows the
    student's own, not the template's `BhT*(T+1)/2`); any other answer as the template writes it."""
    if instance.kind == "expression" and not instance.parts:
        return expected_text(instance.spec)
    return instance.answer_text


def solution_heading(instance: Instance) -> str:
    """A recall card's solution says how to rate oneself against the model answer: not a worked solution."""
    return "How to rate your answer" if instance.kind == "text" else "Worked solution"


def written_markdown(written: str) -> str:
    """What a student wrote on a recall card before seeing the model answer (nothing when they only thought it)."""
    return f"{answer_markdown('You wrote', written)}\n\n" if written.strip() else ""
