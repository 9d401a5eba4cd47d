"""The dashboard's rows as plain data, and the one rule of its "due" column.

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
class Dashboard:
    topics: list[TopicRow]
    papers: list[PaperRow]
    attempts: int
    due: int
    # The catalogue's short title of each misconception a row names (the screen shows titles, not ids).
    titles: dict[str, str] = field(default_factory=dict)


def due_by_topic(due_keys: Iterable[str], primary: Mapping[str, str]) -> Counter[str]:
    """Reviews due per topic: a question's review counts once, in its primary topic (where every answer to
    it counts), so the column adds up to the dashboard's "reviews due" and no untried topic shows one."""
    return Counter(primary[key] for key in due_keys if key in primary)
