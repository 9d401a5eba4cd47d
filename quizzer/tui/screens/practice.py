"""Practice: one question at a time, graded at once, with feedback and the worked solution."""

from __future__ import annotations

from typing import TypedDict

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.events import Key
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Header, Input, Markdown, Static

from quizzer.grading.parts import whole_outcome
from quizzer.grading.verdict import Verdict
from quizzer.learning.study import Question, Recorded, Study
from quizzer.templates.instance import Instance
from quizzer.text.mathtext import render_math
from quizzer.tui.widgets.answer_box import AnswerBox, answer_context
from quizzer.tui.widgets.choice_box import ChoiceBox
from quizzer.tui.widgets.daily_goal import DailyGoal
from quizzer.tui.widgets.figure_view import FigureView
from quizzer.tui.widgets.key_gate import KeyGate
from quizzer.tui.widgets.order_box import OrderBox
from quizzer.tui.widgets.parts_box import PartsBox, parts_feedback_markdown
from quizzer.tui.widgets.question_view import (
    answer_markdown,
    feedback_markdown,
    question_markdown,
    revealed_markdown,
    solution_heading,
    verdict_line,
    written_markdown,
)
from quizzer.tui.widgets.recall_box import RecallBox

NEXT_HINT = "[b]n[/] or [b]enter[/]: next question"


def answer_widget(instance: Instance) -> Widget:
    """The input that suits the question's kind."""
    if instance.parts:
        return PartsBox(instance)
    if instance.kind in ("choice", "multi"):
        return ChoiceBox(instance.choices, multi=instance.kind == "multi")
    if instance.kind == "order":
        return OrderBox(instance.choices)
    if instance.kind == "text":
        return RecallBox()
    return AnswerBox(instance.kind, answer_context(instance))


def focus_answer(slot: Widget) -> None:
    """Focus the input (or options, or button) in ``slot`` again, leaving what was typed as it was: an input
    that selects its text on focus would have the next key replace the answer being written."""
    target = next(iter(slot.query("Input, OptionList, Button")), None)
    if isinstance(target, Input):
        target.select_on_focus = False
    if target is not None:
        target.focus(scroll_visible=False)


def recall_markdown(instance: Instance) -> str:
    """A recall card's model answer, then its solution (which says what a "good" answer must contain)."""
    return (f"{answer_markdown('Model answer', instance.answer_text)}\n\n#### {solution_heading(instance)}\n\n"
            f"{render_math(instance.solution, fenced=True)}")


OPEN_KEYS = Content.from_markup(
    "[b]enter[/] submit  [b]^s[/] skip  [b]^r[/] solution  [b]^o[/] question  [b]pgup/pgdn[/]  "
    "[b]esc[/] back  [b]?[/] help")
# ctrl+o: the whole screen for the question (its data, a table or matrices, all at once), again for the answer.
QUESTION_KEYS = Content.from_markup(
    "[b]^o[/] back to your answer  [b]↑/↓ pgup/pgdn[/] scroll the question  [b]esc[/] back  [b]?[/] help")
# A recall card is not submitted: enter shows the model answer, then a key from 1 to 4 rates the answer.
RECALL_KEYS = Content.from_markup(
    "[b]enter[/] show the model answer  [b]^s[/] skip  [b]^o[/] question  [b]pgup/pgdn[/]  "
    "[b]esc[/] back  [b]?[/] help")
RATING_KEYS = Content.from_markup(
    "[b]1[/]–[b]4[/] rate your answer  [b]ctrl+s[/] skip  [b]pgup/dn[/] scroll  [b]esc[/] back  [b]?[/] help")
# After a wrong or partial first answer: a second try on the same numbers, or the solution.
OFFER_KEYS = Content.from_markup(
    "[b]t[/] try again (same numbers)  [b]enter[/]/[b]n[/] show the solution  [b]esc[/] back  [b]?[/] help")
ANSWERED_KEYS = Content.from_markup(
    "[b]n[/]/[b]enter[/] next question  [b]↑/↓ pgup/dn[/] scroll  [b]q[/]/[b]esc[/] end the sitting  [b]?[/] help")


class PracticeFilters(TypedDict):
    """The keyword arguments of ``Study.next``: None leaves that filter open."""

    topic: str | None
    week: int | None
    paper: str | None
    key: str | None
    mode: str  # the plan, or new questions, reviews or mistakes only


class PracticeScreen(Screen[None]):
    """Practise within optional filters (topic, week, paper); every answer is recorded at once."""

    BINDINGS = [
        Binding("escape", "dismiss", "Back"),
        Binding("q", "dismiss", "End the sitting", show=False),  # reached once answered: no input has the focus
        Binding("ctrl+s", "skip", "Skip"),
        Binding("ctrl+r", "reveal", "Reveal solution"),
        Binding("n", "next", "Next question"),
        # Reached only when no focused input claims enter, i.e. once the feedback shows.
        Binding("enter", "next", "Next question", show=False),
        # Priority: a focused option list would take them to move its highlight instead.
        Binding("pageup", "scroll_question(-1)", "Scroll up", show=False, priority=True),
        Binding("pagedown", "scroll_question(1)", "Scroll down", show=False, priority=True),
        Binding("ctrl+o", "toggle_question", "Question / answer", show=False, priority=True),
        Binding("t", "try_again", "Try again", show=False),
    ]

    def __init__(self, study: Study, *, topic: str | None = None, week: int | None = None,
                 paper: str | None = None, key: str | None = None, mode: str = "plan") -> None:
        super().__init__()
        self.study = study
        self.filters: PracticeFilters = {"topic": topic, "week": week, "paper": paper, "key": key, "mode": mode}
        self.question: Question | None = None
        self.shown_at = study.clock()  # when the question (or its second try) was shown
        self.answered = False
        self.count = 0
        self.feedback_gate = KeyGate()  # n/enter act on feedback only once it was on screen
        self.written = ""  # what the student wrote on a recall card before its model answer
        # A wrong or partial first answer (its verdict, record and text) while its second try is offered
        # (``offering``) or being answered (``retrying``); None once the solution is shown.
        self.first: tuple[Verdict, Recorded, str] | None = None
        self.offering = self.retrying = False

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="reason")
        with VerticalScroll(id="question-scroll"):
            yield Markdown("", id="question")
            yield FigureView("prompt", id="prompt-figure")
            yield Static("", id="verdict")
            yield Markdown("", id="feedback")
            yield FigureView("solution", id="solution-figure")
        # Outside the scroll: the input (or the options) stays in view below a long question,
        # which scrolls on its own (pgup/pgdn) while the focus stays in the answer.
        yield Vertical(id="answer-slot")
        # A one-line key guide instead of Textual's Footer: the Footer rebuilds every key widget
        # whenever the available actions change, which cost ~90 ms on each new question.
        yield Static("", id="keys")
        yield DailyGoal("", id="daily-goal")

    async def on_mount(self) -> None:
        await self.action_next()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Skip and reveal while a question is open; next once it is answered."""
        if action in ("skip", "reveal"):
            return not self.answered
        if action == "try_again":
            return self.offering
        if action == "next":
            return self.answered
        return True

    async def action_next(self) -> None:
        """Show the next question, once this one is answered, skipped or revealed (while a second try is
        offered: the solution instead, the first answer's)."""
        if self.question is not None and not self.answered:
            return
        if self.offering and self.first is not None:
            self.offering = False
            verdict, _, _ = self.first
            self.first = None
            await self._show_full_feedback(verdict)
            return
        try:
            self.question = self.study.next(**self.filters)
        except LookupError as exc:
            self.notify(str(exc).capitalize(), title="Nothing to practise", severity="warning", timeout=15)
            self.dismiss(None)
            return
        self.count += 1
        self.written = ""
        self.first, self.offering, self.retrying = None, False, False
        instance = self.question.instance
        # One layout pass for the whole swap: without the batch, each awaited step below lets
        # Textual lay the screen out again (three full passes per question instead of one).
        with self.app.batch_update():
            self._set_answered(False)
            self._show_figures()
            self.sub_title = f"seed {instance.seed} · {instance.key}"  # a narrow title bar cuts the end
            self.query_one("#reason", Static).update(Content(f"Question {self.count} · {self.question.reason}"))
            self._show_goal()
            await self.query_one("#question", Markdown).update(question_markdown(instance))
            self._show_verdict("", None)
            await self.query_one("#feedback", Markdown).update("")
            slot = self.query_one("#answer-slot", Vertical)
            await slot.remove_children()  # before mounting the next input, so a fast skip cannot overlap them
            await slot.mount(answer_widget(instance))
            slot.display = True
            self.query_one("#question-scroll", VerticalScroll).scroll_home(animate=False)
        self.shown_at = self.study.clock()

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
        await self._show_feedback(revealed_markdown(instance))

    @on(AnswerBox.Submitted)
    @on(ChoiceBox.Submitted)
    async def submitted(self, event: AnswerBox.Submitted | ChoiceBox.Submitted) -> None:
        await self._answer(event.text)

    @on(RecallBox.Revealed)
    async def model_answer_revealed(self, event: RecallBox.Revealed) -> None:
        """Show the model answer where the question scrolls, just below it (under what the student wrote)."""
        if self.question is not None:
            self.written = event.written
            await self.query_one("#feedback", Markdown).update(
                written_markdown(event.written) + recall_markdown(self.question.instance))
            self.query_one("#keys", Static).update(RATING_KEYS)
            self._scroll_to_feedback()

    @on(RecallBox.Rated)
    async def rated(self, event: RecallBox.Rated) -> None:
        await self._answer(event.rating)

    def on_key(self, event: Key) -> None:
        """A next-question key pressed before the feedback was drawn (typed ahead with the answer)
        is dropped: it was not meant to skip feedback the student never saw."""
        if self.answered and event.key in ("n", "enter"):
            self.feedback_gate.early(event)

    def action_toggle_question(self) -> None:
        """The whole screen for the question (a long one's data all in view), or back to the answer.  The
        answer slot is hidden, not removed: what was typed, picked or placed so far is kept."""
        slot = self.query_one("#answer-slot", Vertical)
        if self.answered or not slot.children:
            return
        slot.display = not slot.display
        if slot.display:
            self._set_answered(False)
            focus_answer(slot)
        else:
            self.query_one("#keys", Static).update(QUESTION_KEYS)
            self.query_one("#question-scroll", VerticalScroll).focus()

    def action_scroll_question(self, pages: int) -> None:
        """Page through a long question while the focus stays in the answer."""
        scroll = self.query_one("#question-scroll", VerticalScroll)
        scroll.scroll_relative(y=pages * max(scroll.size.height - 1, 1), animate=False)

    @on(PartsBox.Submitted)
    async def parts_submitted(self, event: PartsBox.Submitted) -> None:
        """A multi-part question's answers, graded together (follow-through) and recorded part by part."""
        if self.question is None or self.answered:
            return
        instance = self.question.instance
        verdicts, _ = self.study.answer_parts(instance, event.answers, self._seconds())
        outcome, score = whole_outcome([(v.verdict.score, p.question.points)
                                        for v, p in zip(verdicts, instance.parts, strict=True)])
        carried = [v for v in verdicts if v.carried_forward]
        how = "right" if all(v.verdict.verdict == "correct" for v in carried) else "graded"
        note = f" · {len(carried)} part{'s' * (len(carried) != 1)} {how} on your value" if carried else ""
        self._show_verdict(f"{verdict_line(Verdict(outcome, score, '', ''))}{note} · {NEXT_HINT}", outcome)
        await self._show_feedback(parts_feedback_markdown(instance, verdicts, event.answers))

    async def _answer(self, response: str) -> None:
        """Grade and record a typed answer, a choice or a recall card's rating (once per question); a second
        try is graded and kept apart (``Study.retry``)."""
        if self.question is None or self.answered:
            return
        instance = self.question.instance
        if self.retrying and self.first is not None:
            second = self.study.retry(instance, self.first[1], response, self._seconds())
            if second.verdict == "invalid":
                self._unreadable(second)
                return
            await self._show_full_feedback(second)
            return
        verdict, recorded = self.study.answer(instance, response, self._seconds())
        if verdict.verdict == "invalid":
            self._unreadable(verdict)
        elif verdict.verdict in ("incorrect", "partial") and instance.kind != "text" and recorded is not None:
            self.first = (verdict, recorded, response)
            await self._offer_retry(verdict)
        else:
            await self._show_full_feedback(verdict)

    def _unreadable(self, verdict: Verdict) -> None:
        self.notify(verdict.feedback, title="Could not read that answer", severity="warning")

    async def _offer_retry(self, verdict: Verdict) -> None:
        """A wrong or partial first answer: what went wrong, and the choice of a second try on the same numbers
        before the solution gives the answer away.  The first answer is recorded already; it is what counts."""
        assert self.question is not None
        self.offering = True
        self._show_verdict(f"{verdict_line(verdict)} · [b]t[/] try again on the same numbers · [b]enter[/] the "
                           "solution", verdict.verdict)
        note = f"> {render_math(verdict.note)}\n\n" if verdict.note else ""
        await self._show_feedback(f"{note}*Your first answer is the one that counts for your mastery; a second "
                                  "try is kept in your history.*")
        self.query_one("#keys", Static).update(OFFER_KEYS)

    async def action_try_again(self) -> None:
        """The same question, same numbers, the answer given first in the box to change."""
        if not self.offering or self.question is None or self.first is None:
            return
        self.offering, self.retrying = False, True
        instance = self.question.instance
        with self.app.batch_update():
            self._set_answered(False)
            self._show_verdict(f"Second try, same numbers: {verdict_line(self.first[0])} the first time", "retry")
            await self.query_one("#feedback", Markdown).update("")
            slot = self.query_one("#answer-slot", Vertical)
            await slot.remove_children()
            widget = answer_widget(instance)
            if isinstance(widget, AnswerBox):  # a typed answer comes back to edit; options are picked afresh
                widget = AnswerBox(instance.kind, answer_context(instance), value=self.first[2])
            await slot.mount(widget)
            slot.display = True
        self.shown_at = self.study.clock()

    async def _show_full_feedback(self, verdict: Verdict) -> None:
        """The verdict, what went wrong, the answer beside the expected one and the worked solution; after a
        second try, both tries."""
        assert self.question is not None
        instance = self.question.instance
        first = self.first if self.retrying else None
        self.retrying = False
        headline = (f"Rated {verdict.reading}: {verdict.feedback}" if instance.kind == "text"
                    else verdict_line(verdict))
        if first is not None:
            headline = f"Second try: {headline} (first: {verdict_line(first[0])})"
        self._show_verdict(f"{headline} · {NEXT_HINT}", verdict.verdict)
        tried = (f"First try: {render_math(first[0].answered or first[2])} — {verdict_line(first[0])}  \n"
                 if first is not None else "")
        await self._show_feedback(tried + feedback_markdown(instance, verdict, with_verdict=False,
                                                            written=self.written))

    def _show_goal(self) -> None:
        """Today's minutes against the daily goal (the plan's minutes a day)."""
        done, goal, answers = self.study.today_progress()
        self.query_one("#daily-goal", DailyGoal).show(done, goal, answers)

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
            slot = self.query_one("#answer-slot", Vertical)
            await slot.remove_children()
            slot.display = False  # the feedback takes its place (`:empty` is not re-checked on removal)
            await self.query_one("#feedback", Markdown).update(markdown)
        self.query_one("#question-scroll", VerticalScroll).focus()
        self._show_goal()
        self.feedback_gate.arm(self)
        self._scroll_to_feedback()

    def _scroll_to_feedback(self) -> None:
        """Bring the feedback into view, keeping the end of the question (where it asks) above it.

        After the refresh, once the feedback is laid out, or there would be nothing below to scroll to."""
        def scroll() -> None:
            view = self.query_one("#question-scroll", VerticalScroll)
            verdict = self.query_one("#verdict", Static)
            anchor = verdict if verdict.display else self.query_one("#feedback", Markdown)
            top, height = anchor.virtual_region.y, view.size.height
            if top <= height // 3:
                return  # the whole question and most of the feedback show as they are
            # A third of the view for the question's last lines: pgup is one key back to its start.
            view.scroll_to(y=top - height // 3, animate=False)
        self.call_after_refresh(scroll)

    def _show_figures(self) -> None:
        if self.question is not None:
            for view in self.query(FigureView):
                view.show(self.question.instance, answered=self.answered)

    def _set_answered(self, answered: bool) -> None:
        self.answered = answered
        recall = self.question is not None and self.question.instance.kind == "text"
        self.query_one("#keys", Static).update(ANSWERED_KEYS if answered else RECALL_KEYS if recall else OPEN_KEYS)

    def _seconds(self) -> float:
        """The time the answer took, by the study's clock, as the mock exam times its questions: tests fix that
        clock, so nothing recorded or shown (today's minutes) depends on how fast a busy machine typed."""
        return max(round((self.study.clock() - self.shown_at).total_seconds(), 1), 0.0)
