"""One learner's history as the plan reads it, folded answer by answer, oldest first.

The app builds it from the bank's attempts and folds each new answer as it is recorded; the cohort
benchmark keeps one in memory per simulated learner and folds the same way, so both plan from the
same state.  It holds:

* the mastery tracker (``quizzer.learning.mastery``): the posterior of each topic's θ;
* a **memory card per topic** (FSRS, ``quizzer.learning.review``): an exam question is a *topic*
  with fresh numbers, not a question seen before, so what must be remembered on the exam day is the
  topic's method.  Each answer on a question reviews its primary topic's card (right: Good, a slow
  or half-right answer: Hard, wrong: Again);
* per question: when it was answered, and whether the last answer was right (the mistakes queue);
* per topic: answers and right answers (prerequisites are "tried with some success" after one);
* the learner's own pace by kind (median seconds of their last answers, weighed against the typical time).

A multi-part question records one attempt per part at the same instant: that is one answer to the
question, folded into mastery part by part but counted once everywhere else.
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict, deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime

from quizzer.learning.mastery import GradedAttempt, MasteryTracker, TemplateLike, as_utc
from quizzer.learning.review import TYPICAL_SECONDS, Rating, ReviewState, new_state, review

PACE_KEPT = 30  # the last answers per kind whose median is the learner's pace
# The typical time counts as this many answers beside the learner's own median, so that a first few quick
# answers (a guess in five seconds) do not make a day's plan of a hundred questions; by thirty answers the
# learner's own pace is most of the estimate.
PACE_PRIOR_ANSWERS = 5


def rating_of(verdict: str, score: float) -> Rating:
    """The topic card's rating for an answer: right Good, half or more of a partial Hard, else Again."""
    if verdict == "correct":
        return Rating.Good
    return Rating.Hard if verdict == "partial" and score >= 0.5 else Rating.Again


@dataclass
class LearnerState:
    """What the plan knows of one learner (see the module docstring)."""

    templates: Mapping[str, TemplateLike]
    tracker: MasteryTracker = field(init=False)
    topic_cards: dict[str, ReviewState] = field(default_factory=dict)
    answered: dict[str, list[datetime]] = field(default_factory=lambda: defaultdict(list))
    last_right: dict[str, bool] = field(default_factory=dict)
    topic_answers: Counter[str] = field(default_factory=Counter)
    topic_right: Counter[str] = field(default_factory=Counter)
    topic_times: dict[str, list[datetime]] = field(default_factory=lambda: defaultdict(list))
    pace: dict[str, deque[float]] = field(default_factory=dict)
    spent: list[tuple[datetime, float]] = field(default_factory=list)  # (when, seconds) of each answer
    answers: int = 0
    latest: datetime | None = None
    # Bumped by every fold: a cache of derived figures (the picker's gains) keys on it.
    version: int = 0

    def __post_init__(self) -> None:
        self.tracker = MasteryTracker(self.templates)
        self._last: tuple[str, datetime] | None = None  # the answer the previous fold belonged to

    @classmethod
    def of(cls, templates: Mapping[str, TemplateLike], attempts: Iterable[GradedAttempt]) -> LearnerState:
        """The state after ``attempts``, oldest first."""
        state = cls(templates)
        for attempt in attempts:
            state.fold(attempt)
        return state

    def fold(self, attempt: GradedAttempt) -> None:
        """Add one attempt, the latest so far."""
        at = as_utc(attempt.at)
        self.tracker.fold(attempt)
        self.version += 1
        template = self.templates.get(attempt.key)
        same_answer = self._last == (attempt.key, at)  # another part of the same multi-part answer
        self._last, self.latest = (attempt.key, at), at
        right = attempt.verdict == "correct"
        if same_answer:
            self.last_right[attempt.key] = self.last_right[attempt.key] and right
            return
        self.answers += 1
        self.answered[attempt.key].append(at)
        self.last_right[attempt.key] = right
        if attempt.seconds is not None and template is not None:
            self.pace.setdefault(template.answered_kind, deque(maxlen=PACE_KEPT)).append(attempt.seconds)
        kind = template.answered_kind if template is not None else ""
        self.spent.append((at, attempt.seconds if attempt.seconds is not None else self.seconds_for(kind)))
        if template is None or not template.topics:
            return
        topic = template.topics[0]
        self.topic_answers[topic] += 1
        self.topic_right[topic] += right
        self.topic_times[topic].append(at)
        card = self.topic_cards.get(topic) or new_state(at)
        self.topic_cards[topic] = review(card, rating_of(attempt.verdict, attempt.score), at)

    def copy(self) -> LearnerState:
        """An independent state to fold answers into that will not be kept (a day's plan, a dry run)."""
        twin = LearnerState(self.templates)
        twin.tracker = self.tracker.copy()
        twin.topic_cards = dict(self.topic_cards)
        twin.answered = defaultdict(list, {key: list(times) for key, times in self.answered.items()})
        twin.last_right, twin.topic_answers, twin.topic_right = dict(self.last_right), Counter(self.topic_answers), \
            Counter(self.topic_right)
        twin.topic_times = defaultdict(list, {t: list(times) for t, times in self.topic_times.items()})
        twin.pace = {kind: deque(times, maxlen=PACE_KEPT) for kind, times in self.pace.items()}
        twin.spent, twin.answers, twin.latest, twin.version = list(self.spent), self.answers, self.latest, self.version
        twin._last = self._last
        return twin

    def seconds_since(self, since: datetime) -> float:
        """Seconds of practice answered at or after ``since``."""
        total = 0.0
        for at, seconds in reversed(self.spent):
            if at < since:
                break
            total += seconds
        return total

    def seconds_for(self, kind: str) -> float:
        """The expected time of a question of ``kind``: the learner's median of their last answers of that
        kind, weighed against the typical time as :data:`PACE_PRIOR_ANSWERS` answers."""
        typical = float(TYPICAL_SECONDS.get(kind, 90))
        own = self.pace.get(kind)
        if not own:
            return typical
        return (len(own) * statistics.median(own) + PACE_PRIOR_ANSWERS * typical) / (len(own) + PACE_PRIOR_ANSWERS)

    def last_seen(self, key: str) -> datetime | None:
        times = self.answered.get(key)
        return times[-1] if times else None

    def mistakes(self) -> list[str]:
        """Questions whose latest answer was wrong, most recent mistake first."""
        wrong = [key for key, right in self.last_right.items() if not right and key in self.templates]
        return sorted(wrong, key=lambda key: self.answered[key][-1], reverse=True)
