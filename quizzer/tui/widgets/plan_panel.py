"""The dashboard's plan: days to the exam, the predicted score with its interval, and today's plan.

A few lines under the summary, filled with the dashboard (``Dashboard.plan``, plain data: the start-up
snapshot carries it, so the plan is in the first frame like the tables).  Its phrases are laid out to
the panel's width, a line break only between them, and today's topics are named as many as fit (at
80 columns a long topic name would otherwise wrap the plan over five lines).  The sitting summary
words tomorrow's plan with the same ``plan_lines``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from textual.content import Content
from textual.events import Resize
from textual.widgets import Static

if TYPE_CHECKING:
    from quizzer.learning.dashboard_rows import PlanRow

TODAY_TOPICS = 4  # topics named on the "today" line when the width is not known
SEPARATOR = " · "


def fitted(parts: Sequence[str], width: int | None) -> list[str]:
    """``parts`` joined by " · ", a new line wherever the next part would pass ``width`` (None: one line)."""
    lines: list[str] = []
    for part in parts:
        if lines and (width is None or len(lines[-1]) + len(SEPARATOR) + len(part) <= width):
            lines[-1] += SEPARATOR + part
        else:
            lines.append(part)
    return lines


def named_topics(row: PlanRow, room: int | None) -> str:
    """`Softmax 3, Self-Attention 2 +5 more`: as many of the day's topics as fit ``room`` cells (one at least)."""
    shown = TODAY_TOPICS if room is None else 1
    while room is not None and shown < len(row.topics) and len(_topics(row, shown + 1)) <= room:
        shown += 1
    return _topics(row, shown)


def _topics(row: PlanRow, shown: int) -> str:
    more = len(row.topics) - shown
    return ", ".join(f"{name} {n}" for name, n in row.topics[:shown]) + (f" +{more} more" if more > 0 else "")


def plan_lines(row: PlanRow, day: str = "Today", width: int | None = None) -> list[str]:
    """The panel's text: the exam's phrases, then the day's (``day``: how to call it), fitted to ``width``."""
    if row.exam is None:
        exam = ["No exam date: planning two weeks ahead (quizzer plan --exam YYYY-MM-DD)"]
    elif row.days_left is not None and row.days_left < 0:
        exam = [f"The exam was on {row.exam} (the next: quizzer plan --exam YYYY-MM-DD)"]
    elif row.days_left == 0:
        exam = [f"Exam today ({row.exam})"]
    else:
        exam = [f"Exam in {row.days_left} day{'s' * (row.days_left != 1)} ({row.exam})"]
    if row.tried == 0:
        exam.append("predicted score: none yet (nothing answered)")
    else:
        exam.append(f"predicted score {row.predicted:.0%} (80 % interval {row.low:.0%}–{row.high:.0%}; "
                    f"{row.tried} of {row.topic_count} topics tried)")
    done = f"{day}: {row.done_minutes:.0f} of {row.goal_minutes} min done"
    if not row.questions:
        return [*fitted(exam, width), *fitted([done, "the day's goal is reached"], width)]
    next_up = f"next about {row.questions} questions, {row.minutes:.0f} min: "
    if width is None:
        return [*fitted(exam, width), *fitted([done, next_up + named_topics(row, None)], width)]
    # On the line of `done` if one topic fits there, else on a line of its own.
    beside = width - len(done) - len(SEPARATOR) - len(next_up)
    room = beside if len(named_topics(row, 0)) <= beside else width - len(next_up)
    return [*fitted(exam, width), *fitted([done, next_up + named_topics(row, room)], width)]


class PlanPanel(Static):
    """The plan, in words, fitted to the panel's width; empty until the dashboard's data is there."""

    row: PlanRow | None = None

    def show(self, row: PlanRow | None) -> None:
        self.row = row
        # Before the first layout the panel has no width yet: the screen's (it spans the screen).
        width = self.size.width or self.app.size.width - self.styles.gutter.width
        self.update(Content("\n".join(plan_lines(row, width=width))) if row is not None else "")  # text, not markup

    def on_resize(self, event: Resize) -> None:
        self.show(self.row)
