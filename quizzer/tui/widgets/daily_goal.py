"""The practice screen's daily goal: minutes practised today out of the plan's minutes a day."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from quizzer.tui.widgets.mastery_bar import mastery_bar

BAR = 10


def goal_text(done_minutes: float, goal_minutes: int, answers_today: int) -> Text:
    """`Today ████▌░░░░░  45% · 13 of 30 min done · 12 answers` (green once the goal is reached): the minutes
    as the dashboard words them (a bare "(0 done)" beside "2 answers" read as no answers done)."""
    share = min(done_minutes / goal_minutes, 1.0) if goal_minutes > 0 else 1.0
    reached = " · goal reached" if done_minutes >= goal_minutes else ""
    return Text.assemble("Today ", mastery_bar(share, BAR, mastered=share >= 1),
                         f" · {done_minutes:.0f} of {goal_minutes} min done · "
                         f"{answers_today} answer{'s' * (answers_today != 1)}{reached}")


class DailyGoal(Static):
    """One line: today's minutes against the goal."""

    def show(self, done_minutes: float, goal_minutes: int, answers_today: int) -> None:
        self.update(goal_text(done_minutes, goal_minutes, answers_today))
