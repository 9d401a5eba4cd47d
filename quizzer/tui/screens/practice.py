"""Practice: one question at a time, graded at once, with feedback and the worked solution."""

from __future__ import annotations

import time
from typing import TypedDict

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Header, Markdown, Static

from quizzer.grading.parts import whole_outcome
from quizzer.grading.verdict import Verdict
from quizzer.learning.study import Question, Study
from quizzer.templates.instance import Instance
from quizzer.text.mathtext import render_math
from quizzer.tui.widgets.answer_box import AnswerBox
from quizzer.tui.widgets.choice_box import ChoiceBox
from quizzer.tui.widgets.figure_view import FigureView
from quizzer.tui.widgets.order_box import OrderBox
from quizzer.tui.widgets.parts_box import PartsBox, parts_feedback_markdown
from quizzer.tui.widgets.question_view import answer_markdown, feedback_markdown, question_markdown, verdict_line
from quizzer.tui.widgets.recall_box import RecallBox

NEXT_HINT = "[b]n[/] or [b]enter[/]: next question"


def answer_widget(instance: Instance, *, model_answer: bool = False) -> Widget:
    """The input that suits the question's kind (``model_answer``: recall cards reveal it before rating)."""
    if instance.parts:
        return PartsBox(instance)
    if instance.kind in ("choice", "multi"):
        return ChoiceBox(instance.choices, multi=instance.kind == "multi")
    if instance.kind == "order":
        return OrderBox(instance.choices)
    if instance.kind == "text":
        return RecallBox(recall_markdown(instance) if model_answer else None)
    context = {"variables": instance.spec.variables} if instance.kind == "expression" else {}
    return AnswerBox(instance.kind, context)


def recall_markdown(instance: Instance) -> str:
    """A recall card's model answer, then its solution (which says what a "good" answer must contain)."""
    return f"{answer_markdown('Model answer', instance.answer_text)}\n\n{render_math(instance.solution)}"


OPEN_KEYS = Content.from_markup(
    "[b]enter[/] submit  [b]ctrl+s[/] skip  [b]ctrl+r[/] reveal solution  [b]esc[/] back  [b]?[/] help")
ANSWERED_KEYS = Content.from_markup("[b]n[/] or [b]enter[/] next question  [b]esc[/] back  [b]?[/] help")


class PracticeFilters(TypedDict):
    """The keyword arguments of ``Study.next``: None leaves that filter open."""

    topic: str | None
    week: int | None
    paper: str | None


class PracticeScreen(Screen[None]):
    """Practise within optional filters (topic, week, paper); every answer is recorded at once."""

    BINDINGS = [
        Binding("escape", "dismiss", "Back"),
        Binding("ctrl+s", "skip", "Skip"),
        Binding("ctrl+r", "reveal", "Reveal solution"),
        Binding("n", "next", "Next question"),
        # Reached only when no focused input claims enter, i.e. once the feedback shows.
        Binding("enter", "next", "Next question", show=False),
    ]

    def __init__(self, study: Study, *, topic: str | None = None, week: int | None = None,
                 paper: str | None = None) -> None:
        super().__init__()
        self.study = study
        self.filters: PracticeFilters = {"topic": topic, "week": week, "paper": paper}
        self.question: Question | None = None
        self.shown_at = 0.0
        self.answered = False
        self.count = 0

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="reason")
        with VerticalScroll(id="question-scroll"):
            yield Markdown("", id="question")
            yield FigureView("prompt", id="prompt-figure")
            yield Vertical(id="answer-slot")
            yield Static("", id="verdict")
            yield Markdown("", id="feedback")
            yield FigureView("solution", id="solution-figure")
        # A one-line key guide instead of Textual's Footer: the Footer rebuilds every key widget
        # whenever the available actions change, which cost ~90 ms on each new question.
        yield Static("", id="keys")

    async def on_mount(self) -> None:
        await self.action_next()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Skip and reveal while a question is open; next once it is answered."""
        if action in ("skip", "reveal"):
            return not self.answered
        if action == "next":
            return self.answered
        return True

    async def action_next(self) -> None:
        """Show the next question, once this one is answered, skipped or revealed."""
        if self.question is not None and not self.answered:
            return
        try:
            self.question = self.study.next(**self.filters)
        except LookupError as exc:
            self.notify(str(exc).capitalize(), title="Nothing to practise", severity="warning")
            self.dismiss(None)
            return
        self.count += 1
        instance = self.question.instance
        # One layout pass for the whole swap: without the batch, each awaited step below lets
        # Textual lay the screen out again (three full passes per question instead of one).
        with self.app.batch_update():
            self._set_answered(False)
            self._show_figures()
            self.sub_title = f"{instance.key} · seed {instance.seed}"
            self.query_one("#reason", Static).update(Content(f"Question {self.count} · {self.question.reason}"))
            await self.query_one("#question", Markdown).update(question_markdown(instance))
            self._show_verdict("", None)
            await self.query_one("#feedback", Markdown).update("")
            slot = self.query_one("#answer-slot", Vertical)
            await slot.remove_children()  # before mounting the next input, so a fast skip cannot overlap them
            await slot.mount(answer_widget(instance, model_answer=True))
            self.query_one("#question-scroll", VerticalScroll).scroll_home(animate=False)
        self.shown_at = time.monotonic()

    async def action_skip(self) -> None:
        """Leave this question unanswered (nothing is recorded) and show another."""
        if not self.answered:
            self._set_answered(True)
            await self.action_next()

    async def action_reveal(self) -> None:
        """Show the answer and solution without grading (nothing is recorded)."""
        if self.question is None or self.answered:
            return
        instance = self.question.instance
        self._show_verdict(f"Solution revealed — not counted · {NEXT_HINT}", "revealed")
        await self._show_feedback(f"{answer_markdown('Answer', instance.answer_text)}\n\n"
                                  f"#### Worked solution\n\n{render_math(instance.solution)}")

    @on(AnswerBox.Submitted)
    @on(ChoiceBox.Submitted)
    async def submitted(self, event: AnswerBox.Submitted | ChoiceBox.Submitted) -> None:
        await self._answer(event.text)

    @on(RecallBox.Rated)
    async def rated(self, event: RecallBox.Rated) -> None:
        await self._answer(event.rating)

    @on(PartsBox.Submitted)
    async def parts_submitted(self, event: PartsBox.Submitted) -> None:
        """A multi-part question's answers, graded together (follow-through) and recorded part by part."""
        if self.question is None or self.answered:
            return
        instance = self.question.instance
        verdicts, _ = self.study.answer_parts(instance, event.answers, self._seconds())
        outcome, score = whole_outcome([(v.verdict.score, p.question.points)
                                        for v, p in zip(verdicts, instance.parts, strict=True)])
        carried = sum(v.carried_forward for v in verdicts)
        note = f" · {carried} part{'s' * (carried != 1)} right on your value" if carried else ""
        self._show_verdict(f"{verdict_line(Verdict(outcome, score, '', ''))}{note} · {NEXT_HINT}", outcome)
        await self._show_feedback(parts_feedback_markdown(instance, verdicts, event.answers))

    async def _answer(self, response: str) -> None:
        """Grade and record a typed answer, a choice or a recall card's rating (once per question)."""
        if self.question is None or self.answered:
            return
        await self._graded(self.study.submit(self.question.instance, response, self._seconds()))

    async def _graded(self, verdict: Verdict) -> None:
        assert self.question is not None
        instance = self.question.instance
        if verdict.verdict == "invalid":
            self.notify(verdict.feedback, title="Could not read that answer", severity="warning")
            return
        headline = (f"Rated {verdict.reading}: {verdict.feedback}" if instance.kind == "text"
                    else verdict_line(verdict))
        self._show_verdict(f"{headline} · {NEXT_HINT}", verdict.verdict)
        await self._show_feedback(feedback_markdown(instance, verdict, with_verdict=False))

    def _show_verdict(self, text: str, verdict: str | None) -> None:
        """The coloured verdict banner (hidden while a question is open)."""
        banner = self.query_one("#verdict", Static)
        banner.update(text)
        banner.set_classes(f"-{verdict}" if verdict else "")
        banner.display = verdict is not None

    async def _show_feedback(self, markdown: str) -> None:
        with self.app.batch_update():  # one layout pass, as for a new question
            self._set_answered(True)
            self._show_figures()
            await self.query_one("#answer-slot", Vertical).remove_children()
            await self.query_one("#feedback", Markdown).update(markdown)
        scroll = self.query_one("#question-scroll", VerticalScroll)
        scroll.focus()
        # A long prompt can push the verdict below the fold: bring it to the top (the prompt is above),
        # once the feedback is laid out, or there would be nothing below to scroll to.
        self.call_after_refresh(scroll.scroll_to_widget, self.query_one("#verdict", Static), top=True,
                                animate=False)

    def _show_figures(self) -> None:
        if self.question is not None:
            for view in self.query(FigureView):
                view.show(self.question.instance, answered=self.answered)

    def _set_answered(self, answered: bool) -> None:
        self.answered = answered
        self.query_one("#keys", Static).update(ANSWERED_KEYS if answered else OPEN_KEYS)

    def _seconds(self) -> float:
        return round(time.monotonic() - self.shown_at, 1)
