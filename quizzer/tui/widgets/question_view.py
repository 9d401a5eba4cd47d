"""A question's text (and later its feedback and worked solution) as Markdown, with math as Unicode."""

from __future__ import annotations

from quizzer.grading.verdict import Verdict
from quizzer.templates.instance import Instance
from quizzer.text.mathtext import render_math

VERDICT_STYLE = {"correct": "✔ Correct", "partial": "◐ Partly right", "incorrect": "✘ Not quite", "invalid": "?"}


def question_markdown(instance: Instance, number: str = "") -> str:
    """The prompt as Markdown for a terminal: math converted, choices listed separately by their widget."""
    header = f"### {number}{instance.title}\n\n"
    return header + render_math(instance.prompt, fenced=True)


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


def feedback_markdown(instance: Instance, verdict: Verdict, *, with_solution: bool = True,
                      with_verdict: bool = True) -> str:
    """Verdict, the expected answer, what went wrong, and the worked solution."""
    headline = f"◇ Self-rated: {verdict.reading}" if instance.kind == "text" else verdict_line(verdict)
    lines = [f"**{headline}**", ""] if with_verdict else []
    if instance.kind in ("choice", "multi"):
        lines += [options_markdown(instance, verdict.reading), ""]
    elif instance.kind == "order":
        if verdict.reading:
            lines.append(f"You answered: {verdict.reading}  ")
        lines += [order_markdown(instance), ""]
    elif instance.kind == "text":
        lines += [f"You rated yourself: **{verdict.reading}**", "",
                  answer_markdown("Model answer", verdict.expected), ""]
    else:
        if verdict.reading:
            lines.append(f"You answered: {render_math(verdict.answered)}  ")
        lines += [answer_markdown("Expected", verdict.expected), ""]
    if verdict.note:
        lines += [f"> {render_math(verdict.note)}", ""]
    if with_solution:
        lines += ["#### Worked solution", "", render_math(instance.solution, fenced=True)]
    return "\n".join(lines)
