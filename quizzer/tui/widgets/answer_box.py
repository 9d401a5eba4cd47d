"""A typed-answer input that shows, as you type, how quizzer reads your answer, and takes only an
answer it can read: enter on one it cannot says why right there, under the input, and waits."""

from __future__ import annotations

from typing import Any

import numpy as np
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import Input, Static

from quizzer.grading.parse import preview
from quizzer.templates.instance import Instance
from quizzer.text.mathtext import render_math

PLACEHOLDERS = {
    "number": "a number: 0.7311, 6.99e-4, 1/sqrt(2), e^2/(e^2+e)",
    "integer": "a whole number: 4204032 or 4,204,032",
    "vector": "numbers: [0.5, 1] or 0.5 1",
    "matrix": "rows: [[1, 0], [0, 1]] or 1 0; 0 1",
    "shape": "a shape: [B, T, 64] or 2x4x3x5",
    "bool": "true or false",
}
# No example of an expression: any one in the question's names looks like some question's answer (a student read
# 4*d^2 + 2*d*f above the answer 4d² + 2df + 2d); the names to use and how to write them give nothing away.
EXPRESSION_PLACEHOLDER = "an expression in {names}: 2 {a} or 2*{a}, {a}^2, sqrt({a}), ({a} + {b})/2"


def answer_context(instance: Instance) -> dict[str, Any]:
    """What reading an answer to ``instance`` needs besides its kind: an expression's variables, a vector's
    length or a matrix's shape (three numbers for four are refused here, as grading would refuse them)."""
    if instance.kind == "expression":
        return {"variables": instance.spec.variables}
    if instance.kind == "vector":
        return {"length": len(np.asarray(instance.answer))}
    if instance.kind == "matrix":
        return {"shape": np.shape(instance.answer)}
    if instance.kind in ("number", "integer"):
        return {"units": instance.spec.units}
    return {}


class AnswerBox(Vertical):
    """Input plus a live preview; posts :class:`AnswerBox.Submitted` with the raw text."""

    class Submitted(Message):
        def __init__(self, text: str) -> None:
            self.text = text
            super().__init__()

    def __init__(self, kind: str, context: dict[str, Any] | None = None, value: str = "", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.kind = kind
        self.context = context or {}
        self.value = value  # an answer given before, to change (a part gone back to)

    def compose(self) -> ComposeResult:
        # An answer given before is kept whole to edit, the cursor after it: selected, one key would erase it.
        yield Input(self.value, placeholder=self.placeholder(), id="answer-input", select_on_focus=not self.value)
        yield Static(self.reading(self.value), id="answer-preview", classes="preview")

    def placeholder(self) -> str:
        """How to write an answer of this kind; for an expression, in the question's own names."""
        names = self.context.get("variables")
        if self.kind == "expression" and names:
            second = names[1] if len(names) > 1 else 1
            return EXPRESSION_PLACEHOLDER.format(names=", ".join(names), a=names[0], b=second)
        return PLACEHOLDERS.get(self.kind, "your answer")

    def on_mount(self) -> None:
        # Focus without scrolling: a long prompt is read from its top; typing brings the input into view.
        self.query_one(Input).focus(scroll_visible=False)

    def on_input_changed(self, event: Input.Changed) -> None:
        shown = self.query_one("#answer-preview", Static)
        shown.update(self.reading(event.value))
        shown.remove_class("refused")
        self.scroll_visible(animate=False)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        shown = self.query_one("#answer-preview", Static)
        if not event.value.strip():  # a blank answer is never counted: say so where the reading shows
            shown.update(Content.assemble(("nothing typed yet: type your answer, then enter", "dim")))
            return
        reading = preview(self.kind, event.value, **self.context)
        if not reading.readable:  # told where the eyes are, not in a notice over the question's title
            shown.update(Content.assemble(("✘ not read: ", "bold"), reading.text, " — correct it, then enter"))
            shown.add_class("refused")
            return
        self.post_message(self.Submitted(event.value))

    def reading(self, text: str) -> Content:
        """'I read: …' for text that parses, the reason when it does not, nothing when empty."""
        # Assembled rather than markup: answers and messages are full of brackets ("[B, T, 64]").
        if not text.strip():
            return Content("")
        shown = preview(self.kind, text, **self.context)
        if not shown.readable:
            return Content.assemble((f"not readable yet: {shown.text}", "dim"))
        return Content.assemble("I read: ", (render_math(shown.text), "bold"))
