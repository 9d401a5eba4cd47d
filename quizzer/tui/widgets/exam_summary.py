"""A marked mock exam: the score in marks, a row per question, and the highlighted question in full.

The exam screen hands it the sitting's :class:`Slot`s once the clock stops (:meth:`ExamSummary.show`);
every answer was graded and recorded as it was given, so nothing here grades or writes.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import timedelta

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import DataTable, Markdown, Static

from quizzer.grading.parts import PartVerdict
from quizzer.grading.verdict import Verdict
from quizzer.learning.study import Recorded
from quizzer.templates.instance import Instance
from quizzer.text.mathtext import render_math
from quizzer.tui.widgets.parts_box import parts_feedback_markdown
from quizzer.tui.widgets.question_view import (
    VERDICT_STYLE,
    answer_markdown,
    feedback_markdown,
    question_markdown,
    solution_heading,
)

# The table's columns other than the title, with their padding and the scroll bar: '#', the longest verdict
# ("◇ Self-rated again"), marks ("not marked"), time.
OTHER_COLUMNS = 2 + 19 + 10 + 7 + 5 * 2 + 2
VERDICT_COLOUR = {"correct": "green", "partial": "yellow", "incorrect": "red"}
OUTCOMES = {"correct": "correct", "partial": "partly right", "incorrect": "not quite", "self-rated": "self-rated",
            "unanswered": "unanswered"}


@dataclass
class Slot:
    """One question of the sitting: its latest answer (graded and recorded silently) and the time spent on it."""

    instance: Instance
    response: str | None = None
    verdict: Verdict | None = None
    recorded: Recorded | None = None
    seconds: float = 0.0
    parts: tuple[PartVerdict, ...] = ()  # a multi-part question: each part's verdict (``verdict`` is the whole's)
    answers: tuple[str, ...] = ()


def clock_text(seconds: float) -> str:
    """`m:ss` (or `h:mm:ss`), never negative."""
    minutes, secs = divmod(max(int(seconds), 0), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02}:{secs:02}" if hours else f"{minutes}:{secs:02}"


class ExamSummary(Vertical):
    """The marks of a finished sitting; ↑/↓ in the table shows each question, its answers and solution."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.slots: list[Slot] = []

    def compose(self) -> ComposeResult:
        yield Static("", id="exam-score")
        yield DataTable(id="exam-marks", cursor_type="row", zebra_stripes=True)
        with VerticalScroll(id="exam-detail-scroll"):
            yield Markdown("", id="exam-detail")

    def show(self, slots: list[Slot], taken: timedelta, *, ran_out: bool) -> None:
        """Mark the sitting: ``taken`` from its start to its end, ``ran_out`` when the timer ended it."""
        self.slots = slots
        verdicts = Counter(outcome(s.instance, s.verdict) for s in slots)
        # Recall cards are the student's own judgement: the score counts only what quizzer marked.
        marked = [s for s in slots if s.instance.kind != "text"]
        # In marks, as the paper prints them: a question of 3 marks half right earns 1.5.
        earned = sum(s.verdict.score * s.instance.points for s in marked if s.verdict)
        available = sum(s.instance.points for s in marked)
        counts = ", ".join(f"{verdicts[name]} {label}" for name, label in OUTCOMES.items() if verdicts[name])
        self.query_one("#exam-score", Static).update(
            f"[b]Score {round(earned, 2):g} / {available:g} marks[/] ({earned / (available or 1):.0%}) · {counts} · "
            f"time {clock_text(taken.total_seconds())}{' · [b]time ran out[/]' if ran_out else ''}\n"
            "[dim]↑/↓ question · tab: its solution · escape: dashboard[/]")
        marks = self.query_one("#exam-marks", DataTable)
        # The question by its title, cut with an ellipsis to what the pane leaves it (a title ran off the screen at
        # 80 columns, cut mid-word); its marks as the paper counts them ("1.5 / 3"), not a bare percentage.
        marks.add_column("#")
        marks.add_column("Question", width=max(self.screen.size.width - OTHER_COLUMNS, 16))  # not yet laid out
        marks.add_columns("Verdict", "Marks", "Time")
        for number, slot in enumerate(slots, 1):
            marks.add_row(str(number), Text(slot.instance.title, overflow="ellipsis", no_wrap=True),
                          verdict_text(slot.instance, slot.verdict), marks_text(slot.instance, slot.verdict),
                          clock_text(slot.seconds), key=str(number - 1))
        marks.focus()
        self._show_detail(0)

    @on(DataTable.RowHighlighted, "#exam-marks")
    def question_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_detail(int(str(event.row_key.value)))

    def _show_detail(self, index: int) -> None:
        """The question, the student's and the expected answer, what went wrong, the worked solution."""
        slot = self.slots[index]
        instance = slot.instance
        body = (parts_feedback_markdown(instance, slot.parts, slot.answers) if slot.parts else
                feedback_markdown(instance, slot.verdict) if slot.verdict else
                f"**— Unanswered**\n\n{answer_markdown('Expected', instance.answer_text)}\n\n"
                f"#### {solution_heading(instance)}\n\n{render_math(instance.solution, fenced=True)}")
        self.query_one("#exam-detail", Markdown).update(
            f"{question_markdown(instance, f'{index + 1}. ')}\n\n---\n\n{body}")
        self.query_one("#exam-detail-scroll", VerticalScroll).scroll_home(animate=False)


def outcome(instance: Instance, verdict: Verdict | None) -> str:
    """How an answer counts in the summary: a recall card's rating is the student's, not a mark."""
    if verdict is None:
        return "unanswered"
    return "self-rated" if instance.kind == "text" else verdict.verdict


def marks_text(instance: Instance, verdict: Verdict | None) -> str:
    """The marks earned of the question's marks (none earned unanswered); a recall card is not marked."""
    if instance.kind == "text":
        return "not marked"
    earned = round(verdict.score * instance.points, 2) if verdict else 0
    return f"{earned:g} / {instance.points:g}"


def verdict_text(instance: Instance, verdict: Verdict | None) -> Text:
    """The verdict as a coloured table cell; a recall card shows the rating the student gave."""
    if verdict is None:
        return Text("— Unanswered", style="dim")
    if instance.kind == "text":
        return Text(f"◇ Self-rated {verdict.reading}", style="italic")
    return Text(VERDICT_STYLE[verdict.verdict], style=VERDICT_COLOUR.get(verdict.verdict, ""))
