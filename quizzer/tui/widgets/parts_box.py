"""A multi-part question answered one part after another, the earlier parts and answers kept in view.

The box shows part (a) with an answer box of its kind; a readable answer moves on to (b), with what was
typed for (a) on one line above it, and so on. After the last part it posts :class:`PartsBox.Submitted` with
every answer, which the screen grades together (follow-through needs them all). ctrl+b goes back one
part, its answer in the box to change. :func:`parts_feedback_markdown` is the feedback afterwards:
each part's verdict, its expected answer and, for an answer right on the learner's own earlier value,
that it was carried forward.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Input, Markdown

from quizzer.grading.parts import PartVerdict
from quizzer.templates.instance import Instance
from quizzer.text.mathtext import render_math
from quizzer.tui.widgets.answer_box import AnswerBox, answer_context
from quizzer.tui.widgets.question_view import answer_markdown, feedback_markdown, matrix_display, verdict_line


class PartsBox(Vertical):
    """The parts of ``instance``, asked in order; posts :class:`PartsBox.Submitted` with one answer per part."""

    BINDINGS = [Binding("ctrl+b", "back", "Previous part", show=False)]

    class Submitted(Message):
        def __init__(self, answers: list[str]) -> None:
            self.answers = answers
            super().__init__()

    class PartGiven(Message):
        """A part before the last answered: the answers so far (the mock exam saves them at once)."""

        def __init__(self, answers: list[str]) -> None:
            self.answers = answers
            super().__init__()

    def __init__(self, instance: Instance, answers: Sequence[str] = (), **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.instance = instance
        self.answers: list[str] = list(answers)[:len(instance.parts) - 1]  # a revision starts at the last part

    def compose(self) -> ComposeResult:
        yield Markdown(self._asked(), id="parts-asked")
        yield Vertical(id="parts-input")

    async def on_mount(self) -> None:
        await self._ask()

    def _asked(self) -> str:
        """The parts answered so far, one line each with its answer, then the part being asked.

        An answered part's question is not repeated: at 80×24 the stem's lines (the matrices the parts are
        about) were scrolled away by part (c) to show (a) and (b) again; ctrl+b brings a part back whole."""
        lines = [f"**({part.label})** Your answer: `{typed}`  "
                 for part, typed in zip(self.instance.parts, self.answers, strict=False)]
        if lines:  # the last answered part is the one ctrl+b goes back to
            lines[-1] = lines[-1].rstrip() + " · *ctrl+b changes it*"
            lines.append("")
        current = self.instance.parts[len(self.answers)]
        lines += [f"**({current.label})** {render_math(current.question.prompt.strip())} "
                  f"*({current.question.points:g} marks; part {len(self.answers) + 1} of {len(self.instance.parts)})*"]
        return "\n".join(lines)

    async def _ask(self, given: str = "") -> None:
        """Ask the next part, its answer box holding ``given`` (the answer of a part gone back to)."""
        part = self.instance.parts[len(self.answers)]
        await self.query_one("#parts-asked", Markdown).update(self._asked())
        slot = self.query_one("#parts-input", Vertical)
        await slot.remove_children()
        await slot.mount(AnswerBox(part.question.kind, answer_context(part.question), value=given))

    @on(AnswerBox.Submitted)
    async def answered(self, event: AnswerBox.Submitted) -> None:
        event.stop()  # the screen hears only the whole answer
        self.answers.append(event.text)  # readable: the box takes no other, so there is a value to follow through from
        if len(self.answers) == len(self.instance.parts):
            self.post_message(self.Submitted(list(self.answers)))
            return
        self.post_message(self.PartGiven(list(self.answers)))
        await self._ask()

    async def action_back(self) -> None:
        """Go back one part, its answer in the box to change."""
        if self.answers:
            await self._ask(self.answers.pop())

    @on(Input.Changed)
    def _keep_in_view(self) -> None:
        self.scroll_visible(animate=False)


def parts_markdown(instance: Instance) -> str:
    """Every part under the stem, with its letter and marks (a preview, where nothing is answered)."""
    return "\n\n".join(f"**({part.label})** {render_math(part.question.prompt.strip())} "
                       f"*({part.question.points:g} marks)*" for part in instance.parts)


def parts_feedback_markdown(instance: Instance, verdicts: Sequence[PartVerdict], answers: Sequence[str], *,
                            with_solution: bool = True) -> str:
    """Each part: its verdict (right on your value when carried forward), what you typed, what was expected."""
    lines: list[str] = []
    for part, result, typed in zip(instance.parts, verdicts, answers, strict=True):
        verdict = result.verdict
        lines += [f"**({part.label})** {render_math(part.question.prompt.strip())}", ""]
        if not typed:  # a mock exam ended before this part was given
            lines += ["**— Unanswered**  ", answer_markdown("Expected", matrix_display(verdict.expected)), ""]
            continue
        carried = f" — {result.on_their_value}" if result.carried_forward else ""
        # The part's answer, expected answer and note as a one-part question's: matrices side by side as grids,
        # options marked, the slip named in the note.
        lines += [f"**{verdict_line(verdict)}{carried}**", "",
                  feedback_markdown(part.question, verdict, with_solution=False, with_verdict=False)]
    if with_solution:
        lines += ["#### Worked solution", "", render_math(instance.solution, fenced=True)]
    return "\n".join(lines)
