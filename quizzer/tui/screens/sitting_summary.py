"""The end of a sitting: answers, accuracy, mastery per topic before and after, the mistakes made,
and what tomorrow holds.  Shown when the student leaves practice (esc or q) after answering."""

from __future__ import annotations

from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Header, Static

from quizzer.learning.sitting import SittingSummary
from quizzer.tui.widgets.plan_panel import plan_lines

MISTAKES_SHOWN = 5


def summary_text(summary: SittingSummary) -> str:
    accuracy = f"{summary.right / summary.answers:.0%}" if summary.answers else "–"
    lines = [f"[b]This sitting[/]: {summary.answers} answer{'s' * (summary.answers != 1)}, {accuracy} right, "
             f"{summary.minutes:.0f} min", "", "[b]Mastery[/] (before → after)"]
    lines += [f"  {escape(c.name)}: {c.before:.0%} → {c.after:.0%} ({c.answers} answered)" for c in summary.topics]
    lines += ["", "[b]Mistakes made[/]"]
    lines += [f"  {escape(title)} ×{n}" for title, n in summary.mistakes[:MISTAKES_SHOWN]] or ["  none named"]
    if summary.wrong_questions:
        count = len(summary.wrong_questions)
        lines.append(f"  {count} question{'s' * (count != 1)} to redo: [b]m[/] on the dashboard, fresh numbers")
    tomorrow = plan_lines(summary.tomorrow, day="Tomorrow")
    lines += ["", "[b]Tomorrow[/]", *(f"  {escape(line)}" for line in tomorrow)]
    return "\n".join(lines)


class SittingSummaryScreen(Screen[None]):
    BINDINGS = [Binding("escape,enter,q", "dismiss", "Back to the dashboard")]

    def __init__(self, summary: SittingSummary) -> None:
        super().__init__()
        self.summary = summary

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll(id="sitting-summary"):
            yield Static(summary_text(self.summary), id="sitting-text")
        yield Static("[b]enter[/] or [b]esc[/]: back to the dashboard", id="keys")
