"""What the report is computed from: a class's attempts (:class:`ClassAttempt`) and the profiles and
templates in scope (:class:`ClassData`).

Plain records, in a module of their own so that ``report`` (the class report) and ``items`` (its item
analysis, which ``report`` calls) both read them without importing each other; ``queries`` fills them
from the bank.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from quizzer.templates.parts import part_name
from quizzer.templates.schema import Template


class Question(Protocol):
    """What the item analysis reads of a question: a bank's :class:`Template`, or a question of a class's results
    imported from another system (``quizzer.reporting.results``)."""

    @property
    def title(self) -> str: ...

    @property
    def paper(self) -> str | None: ...

    @property
    def kind(self) -> str: ...

    @property
    def variables(self) -> Sequence[str]: ...


@dataclass(frozen=True)
class ClassAttempt:
    """One recorded attempt, with whose it is."""

    learner: str
    key: str
    seed: int
    verdict: str
    score: float
    misconception: str | None
    seconds: float | None
    at: datetime
    response: str = ""  # as typed; only the item analysis reads it
    part: str | None = None  # the part's label, for a part of a multi-part question
    version: str = ""  # the paper's version (imported results); else the seed tells the variant apart

    @property
    def question(self) -> str:
        """What was answered, as the report counts it: the question's key, or ``KEY (b)`` for a part of a
        multi-part question.  Each part is asked and marked on its own: counted as the whole, a learner who
        left (a) and (b) blank and got (c) right was "right first try" on it."""
        return part_name(self.key, self.part)

    @property
    def variant(self) -> str:
        """Which variant of the question was answered: the exam's version, or the seed its numbers came from."""
        return self.version or f"seed {self.seed}"

    def title(self, template: Question) -> str:
        """The question's title, with the part's label."""
        return part_name(template.title, self.part)


@dataclass(frozen=True)
class ClassData:
    """What the report is computed from: every profile (including those with no attempts yet),
    the templates in scope by key, and every learner's attempts on them."""

    learners: list[str]
    templates: dict[str, Template]
    attempts: list[ClassAttempt]
