"""The dashboard's rows (and its plan) as plain data, and the one rule of its "due" column.

Standard library only: the app shows these rows from the snapshot it saved last time
(``quizzer.learning.snapshot``) before the bank's ORM, NumPy and the catalogue are loaded, and
``quizzer.learning.dashboard`` computes them from the attempts once they are.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class TopicRow:
    id: str
    name: str
    week: int
    mastery: float  # the level shown (quizzer.learning.mastery)
    mastered: bool
    attempts: int
    accuracy: float | None
    due: int
    templates: int
    misconceptions: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class PaperRow:
    paper: str
    done: int  # questions whose latest answer was right
    routed: int
    title: str = ""  # "2025 T2 · ET/FN", from the routing table's year, term and codes
    topics: tuple[str, ...] = ()  # the names of the topics its routed questions examine, most asked first


@dataclass(frozen=True)
class PlanRow:
    """The plan as the dashboard shows it for one day (``quizzer.learning.plan.schedule``): the exam date
    and days left, the predicted exam score, and that day's plan from the moment it was computed."""

    day: str  # the learner's local date it is for (ISO): a snapshot shows it on that day only
    exam: str | None  # ISO date; None: no exam date set (the plan looks two weeks ahead)
    days_left: int | None
    predicted: float
    low: float  # the predicted score's 80 % interval
    high: float
    tried: int  # topics practised at least once (0: no prediction worth showing)
    topic_count: int
    questions: int  # the rest of the day's plan: questions, minutes, (topic name, questions) most first
    minutes: float
    topics: tuple[tuple[str, int], ...]
    done_minutes: float
    goal_minutes: int


@dataclass(frozen=True)
class Dashboard:
    topics: list[TopicRow]
    papers: list[PaperRow]
    attempts: int
    due: int
    # The catalogue's short title of each misconception a row names (the screen shows titles, not ids).
    titles: dict[str, str] = field(default_factory=dict)
    plan: PlanRow | None = None  # None: not computed (a dashboard built without the plan)


def due_by_topic(due_keys: Iterable[str], primary: Mapping[str, str]) -> Counter[str]:
    """Reviews due per topic: a question's review counts once, in its primary topic (where every answer to
    it counts), so the column adds up to the dashboard's "reviews due" and no untried topic shows one."""
    return Counter(primary[key] for key in due_keys if key in primary)
