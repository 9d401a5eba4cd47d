"""The dashboard's plan: days to the exam, the predicted score with its interval, and today's plan.

Two or three lines under the summary, filled from ``Study.plan_view`` whenever the dashboard is.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from textual.widgets import Static

if TYPE_CHECKING:
    from quizzer.learning.study import PlanView
    from quizzer.templates.catalog import Topic

TODAY_TOPICS = 4  # topics named on the "today" line; the rest are counted


def plan_lines(view: PlanView, topics: Mapping[str, Topic], day: str = "Today") -> list[str]:
    """The panel's text: the exam line, then the day's (``day``: how to call it)."""
    settings, today, predicted = view.settings, view.today, view.prediction
    if settings.exam is None:
        exam = "No exam date (quizzer plan --exam YYYY-MM-DD): planning two weeks ahead"
    elif view.days_left == 0:
        exam = f"Exam today ({settings.exam.isoformat()})"
    else:
        exam = f"Exam in {view.days_left} day{'s' * (view.days_left != 1)} ({settings.exam.isoformat()})"
    if predicted.tried == 0:
        exam += " · predicted score: none yet (nothing answered)"
    else:
        exam += (f" · predicted score {predicted.score:.0%} (80 % interval {predicted.low:.0%}–{predicted.high:.0%};"
                 f" {predicted.tried} of {len(predicted.topics)} topics tried)")
    if not today.questions:
        plan = f"{day}: {today.done_minutes:.0f} of {today.goal_minutes} min done — the day's goal is reached"
    else:
        named = [f"{topics[t].name if t in topics else t} {n}" for t, n in list(today.topics.items())[:TODAY_TOPICS]]
        more = len(today.topics) - TODAY_TOPICS
        plan = (f"{day}: {today.done_minutes:.0f} of {today.goal_minutes} min done · next about {today.questions} "
                f"questions, {today.minutes:.0f} min: {', '.join(named)}" + (f" +{more} more" if more > 0 else ""))
    return [exam, plan]


class PlanPanel(Static):
    """The plan, in words; empty until the bank is open."""

    def show(self, view: PlanView, topics: Mapping[str, Topic]) -> None:
        self.update("\n".join(plan_lines(view, topics)))
