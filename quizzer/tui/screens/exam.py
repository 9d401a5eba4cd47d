"""Mock exam: sit a routed paper with fresh numbers, optionally timed, marked only at the end."""

from __future__ import annotations

from datetime import datetime, timedelta

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.events import Key
from textual.reactive import reactive
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Button, ContentSwitcher, Header, Markdown, Static

from quizzer.grading.parts import whole_outcome
from quizzer.grading.verdict import Verdict
from quizzer.learning.study import Recorded, Study
from quizzer.text.mathtext import render_math
from quizzer.tui.screens.exam_picker import PaperPicker
from quizzer.tui.screens.practice import answer_widget, focus_answer, recall_markdown
from quizzer.tui.widgets.answer_box import AnswerBox
from quizzer.tui.widgets.choice_box import ChoiceBox
from quizzer.tui.widgets.exam_summary import ExamSummary, Slot, clock_text
from quizzer.tui.widgets.parts_box import PartsBox
from quizzer.tui.widgets.question_view import question_markdown
from quizzer.tui.widgets.recall_box import RecallBox
from quizzer.tui.widgets.steady_footer import SteadyFooter


class MockExamScreen(Screen[None]):
    """Pick a paper and a timer, answer every question without feedback, then see it marked."""

    CSS_PATH = "../styles/exam.tcss"
    BINDINGS = [
        Binding("escape", "back", "Back"),
        Binding("r", "new_seed", "New numbers"),
        Binding("t", "cycle_timer", "Timer"),
        Binding("ctrl+left", "move(-1)", "Previous", priority=True),
        Binding("ctrl+right", "move(1)", "Next", priority=True),
        Binding("left_square_bracket", "move(-1)", "Previous", show=False),
        Binding("right_square_bracket", "move(1)", "Next", show=False),
        Binding("ctrl+f", "finish", "Finish", priority=True),
        Binding("ctrl+o", "toggle_question", "Question", priority=True),
        # Priority: a focused option list would take them to move its highlight instead.
        Binding("pageup", "scroll_question(-1)", "Scroll up", show=False, priority=True),
        Binding("pagedown", "scroll_question(1)", "Scroll down", show=False, priority=True),
    ]
    PHASE_ACTIONS = {"new_seed": "picker", "cycle_timer": "picker", "move": "sitting", "finish": "sitting",
                     "scroll_question": "sitting", "toggle_question": "sitting"}

    phase: reactive[str] = reactive("picker", bindings=True)

    def __init__(self, study: Study) -> None:
        super().__init__()
        self.study = study
        self.paper, self.seed = "", 0
        self.slots: list[Slot] = []
        self.index = 0
        self.started: datetime | None = None
        self.shown_at: datetime | None = None
        self.finished: datetime | None = None
        self.deadline: datetime | None = None
        self.timer: Timer | None = None
        self.pending: str | None = None  # the action the confirmation bar asks about

    def compose(self) -> ComposeResult:
        yield Header()
        with ContentSwitcher(initial="exam-picker", id="exam-phases"):
            yield PaperPicker(self.study, id="exam-picker")
            with Vertical(id="exam-sitting"):
                yield Static("", id="exam-status")
                with VerticalScroll(id="exam-scroll"):
                    yield Markdown("", id="exam-question")
                    yield Markdown("", id="exam-model-answer")  # a recall card's, once revealed
                # The answer stays in view below a long question, which scrolls on its own.
                yield Vertical(id="exam-answer-slot")
                yield Static("", id="exam-saved")
                with Horizontal(id="exam-confirm"):
                    yield Static("", id="exam-confirm-text")
                    yield Button("Finish", id="exam-confirm-yes", variant="warning")
                    yield Button("Keep going", id="exam-confirm-no", variant="primary")
            yield ExamSummary(id="exam-summary")
        yield SteadyFooter()

    def on_mount(self) -> None:
        self.sub_title = "Mock exam"

    @property
    def minutes(self) -> int:
        """The timer picked: minutes per question (0: none)."""
        return self.query_one(PaperPicker).minutes

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Each phase shows and accepts only its own keys."""
        phase = self.PHASE_ACTIONS.get(action)
        return phase is None or phase == self.phase

    # --- picking a paper (PaperPicker) ------------------------------------------------------

    def action_new_seed(self) -> None:
        self.query_one(PaperPicker).new_seed()

    def action_cycle_timer(self) -> None:
        self.query_one(PaperPicker).cycle_timer()

    @on(PaperPicker.Chosen)
    async def paper_chosen(self, event: PaperPicker.Chosen) -> None:
        await self.start(event.paper, event.seed)

    async def start(self, paper: str, seed: int) -> None:
        """Generate the paper's questions from ``seed`` and start the clock."""
        try:
            instances = self.study.paper_instances(paper, seed)
        except LookupError as exc:
            self.notify(str(exc), severity="warning")
            return
        self.paper, self.seed = paper, seed
        self.slots = [Slot(instance) for instance in instances]
        self.started = self.shown_at = self._now()
        asked = sum(len(self.study.templates[slot.instance.key].routed_ids) or 1 for slot in self.slots)
        self.deadline = self.started + timedelta(minutes=self.minutes * asked) if self.minutes else None
        if self.deadline is not None:
            self.timer = self.set_interval(1, self.update_timer)
        self.phase = "sitting"
        self.query_one(ContentSwitcher).current = "exam-sitting"
        self.update_timer()
        await self._show_question(0)

    # --- sitting ---------------------------------------------------------------------------

    def update_timer(self) -> None:
        """Refresh the time left in the header; end the exam when it has run out."""
        if self.phase != "sitting":
            return
        header = f"Mock exam · {self.paper} · seed {self.seed}"
        if self.deadline is None:
            self.sub_title = header
            return
        left = (self.deadline - self._now()).total_seconds()
        self.sub_title = f"{header} · {clock_text(left)} left"
        if left <= 0:
            self.notify("Time is up: unanswered questions count as unanswered.", title="Exam over")
            self._finish()

    async def _show_question(self, index: int) -> None:
        self._stop_the_clock()
        self.index = index
        instance = self.slots[index].instance
        with self.app.batch_update():  # one layout pass per question (see PracticeScreen.action_next)
            await self.query_one("#exam-question", Markdown).update(question_markdown(instance, f"{index + 1}. "))
            await self._show_model_answer(self.slots[index].response is not None and instance.kind == "text")
            slot = self.query_one("#exam-answer-slot", Vertical)
            await slot.remove_children()  # removal is asynchronous: never let two inputs coexist
            # A chain left part-way goes on where it stopped; one answered in full is answered again from (a).
            given = self.slots[index].answers
            partway = instance.parts and any(given) and not all(given)
            await slot.mount(PartsBox(instance, [a for a in given if a]) if partway else answer_widget(instance))
            self._show_answer_slot(True)
            self.query_one("#exam-scroll", VerticalScroll).scroll_home(animate=False)
            self._show_progress()

    def action_toggle_question(self) -> None:
        """The whole screen for the question, or back to the answer (kept as it was), as in practice."""
        slot = self.query_one("#exam-answer-slot", Vertical)
        self._show_answer_slot(not slot.display)
        if slot.display:
            focus_answer(slot)
        else:
            self.query_one("#exam-scroll", VerticalScroll).focus()

    def _show_answer_slot(self, shown: bool) -> None:
        for part in self.query("#exam-answer-slot, #exam-saved"):
            part.display = shown

    def _show_progress(self) -> None:
        """The status line (where am I, what is answered) and this question's saved answer."""
        marks = ""
        for number, slot in enumerate(self.slots, 1):
            given = "●" if slot.response is not None else "◐" if slot.verdict is not None else "○"  # ◐: some parts
            style = "reverse" if number - 1 == self.index else "b" if slot.verdict is not None else "dim"
            marks += f"[{style}] {given} {number} [/]"
        answered = sum(s.response is not None for s in self.slots)
        self.query_one("#exam-status", Static).update(
            f"Question {self.index + 1} of {len(self.slots)} · {answered} answered   {marks}")
        current = self.slots[self.index]
        saved = ""
        if current.verdict is not None:
            # Options by their letters (the ticked options' full texts filled three lines at 80 columns).
            letters = current.instance.kind in ("choice", "multi", "order")
            shown = (current.response if letters else current.verdict.reading or current.response) or ""
            saved = f"Saved answer: [b]{render_math(shown)}[/] [dim]— answer again to change it[/]"
        if answered == len(self.slots):
            saved += "\nEvery question is answered: [b]ctrl+f[/] finishes and marks the paper."
        self.query_one("#exam-saved", Static).update(saved.strip())

    def _stop_the_clock(self) -> None:
        """Add the time since the current question was shown to its total."""
        now = self._now()
        if self.slots and self.shown_at is not None:
            self.slots[self.index].seconds += (now - self.shown_at).total_seconds()
        self.shown_at = now

    async def action_move(self, step: int) -> None:
        """Previous (-1) or next (+1) question."""
        target = self.index + step
        if 0 <= target < len(self.slots):
            self._hide_confirm()
            await self._show_question(target)

    def action_scroll_question(self, pages: int) -> None:
        """Page through a long question while the focus stays in the answer."""
        scroll = self.query_one("#exam-scroll", VerticalScroll)
        scroll.scroll_relative(y=pages * max(scroll.size.height - 1, 1))

    @on(AnswerBox.Submitted)
    @on(ChoiceBox.Submitted)
    async def submitted(self, event: AnswerBox.Submitted | ChoiceBox.Submitted) -> None:
        await self._answer(event.text)

    @on(RecallBox.Revealed)
    async def model_answer_revealed(self) -> None:
        await self._show_model_answer(True)
        scroll = self.query_one("#exam-scroll", VerticalScroll)
        self.call_after_refresh(scroll.scroll_to_widget, self.query_one("#exam-model-answer"), top=True,
                                animate=False)

    async def _show_model_answer(self, shown: bool) -> None:
        """A recall card's model answer below its question: after the reveal, or when it was rated before."""
        model = self.query_one("#exam-model-answer", Markdown)
        model.display = shown
        await model.update(recall_markdown(self.slots[self.index].instance) if shown else "")

    @on(RecallBox.Rated)
    async def rated(self, event: RecallBox.Rated) -> None:
        await self._answer(event.rating)

    @on(PartsBox.Submitted)
    async def parts_submitted(self, event: PartsBox.Submitted) -> None:
        """A multi-part question: all its parts graded together (follow-through), shown as one answer."""
        if self.phase != "sitting":
            return
        slot = self.slots[self.index]
        whole = self._save_parts(slot, event.answers)
        await self._saved(slot, "; ".join(event.answers), whole, slot.recorded)

    @on(PartsBox.PartGiven)
    def part_given(self, event: PartsBox.PartGiven) -> None:
        """The parts given so far are saved at once, as every answer is: the sitting may move on, or
        end, before the last part."""
        if self.phase == "sitting":
            self._save_parts(self.slots[self.index], event.answers)
            self._show_progress()

    def _save_parts(self, slot: Slot, given: list[str]) -> Verdict:
        """Grade and record the parts given (an earlier save of this question withdrawn); the whole's
        verdict scores each part not yet given as 0 of its marks."""
        self._stop_the_clock()
        answers = [*given, *[""] * (len(slot.instance.parts) - len(given))]  # blank: not given, not recorded
        parts, recorded = self.study.answer_parts(slot.instance, answers, round(slot.seconds, 1),
                                                  replacing=slot.recorded)
        marks = [part.question.points for part in slot.instance.parts]
        outcome, score = whole_outcome([(v.verdict.score if typed else 0.0, m)
                                        for v, m, typed in zip(parts, marks, answers, strict=True)])
        slot.parts, slot.answers, slot.recorded = parts, tuple(answers), recorded
        slot.verdict = Verdict(outcome, score, slot.instance.answer_text, "", reading="; ".join(given))
        return slot.verdict

    async def _answer(self, response: str) -> None:
        """Record the answer the moment it is given (a changed answer replaces the earlier one),
        show nothing of its verdict until the end, and go on to the next unanswered question."""
        if self.phase != "sitting":
            return
        self._stop_the_clock()
        slot = self.slots[self.index]
        verdict, recorded = self.study.answer(slot.instance, response, round(slot.seconds, 1),
                                              replacing=slot.recorded)
        if recorded is None:
            self.notify(verdict.feedback, title="Could not read that answer", severity="warning")
            return
        await self._saved(slot, response, verdict, recorded)

    async def _saved(self, slot: Slot, response: str, verdict: Verdict, recorded: Recorded | None) -> None:
        """Keep an answer with its question and go on to the next unanswered one."""
        slot.response, slot.verdict, slot.recorded = response, verdict, recorded
        following = self.slots[self.index + 1:] + self.slots[:self.index]
        unanswered = next((s for s in following if s.response is None), None)
        if unanswered is None:
            self._show_progress()
        else:
            await self._show_question(self.slots.index(unanswered))

    def action_finish(self) -> None:
        missing = sum(s.verdict is None for s in self.slots)
        if missing and self.pending != "finish":
            self._ask("finish", f"{missing} of {len(self.slots)} question(s) unanswered; they will count as "
                                "unanswered. Finish now?")
        else:
            self._finish()

    def action_back(self) -> None:
        if self.phase != "sitting":
            self.dismiss(None)
        elif self.pending is not None:
            self._hide_confirm()
        else:
            answered = sum(s.response is not None for s in self.slots)
            self._ask("leave", f"Leave the exam unfinished? Your {answered} answer(s) so far stay in your "
                               "history; the rest count as not attempted.")

    def _ask(self, action: str, question: str) -> None:
        """Ask in the confirmation bar, "Keep going" focused; its keys are said, since a student found only
        shift+tab reaching the other button (ctrl+f a second time finishes, as it always did)."""
        self.pending = action
        again = " · ^f finishes" if action == "finish" else ""
        self.query_one("#exam-confirm-text", Static).update(
            f"{question}\n[dim]←/→ enter choose · esc keeps going{again}[/]")
        self.query_one("#exam-confirm-yes", Button).label = action.capitalize()
        self._show_confirm(True)
        self.query_one("#exam-confirm-no", Button).focus()

    def on_key(self, event: Key) -> None:
        """←/→ move between the confirmation bar's buttons (the only ones focusable while it shows)."""
        if self.pending is not None and event.key == "left":
            event.stop()
            self.focus_previous()
        elif self.pending is not None and event.key == "right":
            event.stop()
            self.focus_next()

    def _hide_confirm(self) -> None:
        if self.pending is not None:
            self.pending = None
            self._show_confirm(False)
            self.focus_next("#exam-answer-slot *")  # back into the answer widget

    def _show_confirm(self, shown: bool) -> None:
        """Show or hide the confirmation bar; while it shows, tab cycles through its buttons only."""
        self.query_one("#exam-confirm").display = shown
        for question_part in self.query("#exam-scroll, #exam-answer-slot"):
            question_part.disabled = shown

    @on(Button.Pressed, "#exam-confirm-yes")
    def confirmed(self) -> None:
        if self.pending == "leave":
            self.dismiss(None)
        elif self.pending == "finish":
            self._finish()

    @on(Button.Pressed, "#exam-confirm-no")
    def declined(self) -> None:
        self._hide_confirm()

    # --- marking ---------------------------------------------------------------------------

    def _finish(self) -> None:
        """Stop the clocks and show the marks (every answer was recorded when it was given)."""
        self._stop_the_clock()
        if self.timer is not None:
            self.timer.stop()
        self.finished = finished = self._now()
        self.pending = None
        self._show_confirm(False)
        self.phase = "summary"
        self.sub_title = f"Mock exam · {self.paper} · seed {self.seed} · marked"
        self.query_one(ContentSwitcher).current = "exam-summary"
        assert self.started is not None
        ran_out = self.deadline is not None and finished >= self.deadline
        self.query_one(ExamSummary).show(self.slots, finished - self.started, ran_out=ran_out)

    def _now(self) -> datetime:
        return self.study.clock()


__all__ = ["MockExamScreen"]
