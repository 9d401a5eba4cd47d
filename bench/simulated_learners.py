"""Simulated learners with known per-topic skill, practising the bank as the app would have them.

The outcome model is the one mastery assumes (``quizzer.learning.mastery.p_correct``) with a
learner's *true* skill per topic, that of the question's subject (its first topic; few questions
carry a second, and mastery weighs those less).  A guesser is simulated literally instead: a random option, a
random true/false, a wrong number — never the model's own guessing rate.

``practise`` runs the app's own choices (``quizzer.learning.policy.next_question`` with FSRS
review states and interleaving), one answer a minute and a half apart, so repeats inside the
review's short-term window happen as they would for a student; the per-answer predictions are
what ``bench/calibration.py`` scores.  Used by the mastery tests and by ``make bench``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from quizzer.learning.mastery import (
    GradedAttempt,
    MasteryParams,
    TopicMastery,
    Tracker,
    guess_probability,
    p_correct,
    predicted,
    template_counts,
)
from quizzer.learning.policy import Candidate, next_question
from quizzer.learning.review import ReviewState, after_answer
from quizzer.templates.schema import Template

START = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)
GAP = timedelta(seconds=90)


@dataclass(frozen=True)
class Item:
    """What the simulation needs of a template."""

    key: str
    topics: tuple[str, ...]
    kind: str
    n_options: int | None

    @property
    def guess(self) -> float:
        return guess_probability(self.kind, self.n_options)


@dataclass(frozen=True)
class Learner:
    """True skill per topic (``default`` for the rest); ``guesser``: answers at random, whatever the skill."""

    skills: Mapping[str, float] = field(default_factory=dict)
    default: float = 0.0
    guesser: bool = False

    def skill(self, item: Item) -> float:
        return self.skills.get(item.topics[0], self.default)

    def chance(self, item: Item) -> float:
        """P(right answer) on ``item``."""
        if self.guesser:
            if item.kind == "bool":
                return 0.5
            if item.kind == "choice" and item.n_options:
                return 1 / item.n_options
            if item.kind == "multi" and item.n_options:
                return 0.5 ** item.n_options
            return 0.0  # a wrong number, a made-up expression, "again" on a recall card
        return p_correct(self.skill(item), item.guess)


@dataclass(frozen=True)
class Answer:
    item: Item
    right: bool
    predicted: float  # mastery's P(right) for this question's subject, before the answer


def items_of(templates: Mapping[str, Template]) -> list[Item]:
    """The templates that carry a topic, as items."""
    return [Item(key, tuple(t.topics), t.kind, len(t.choices) if t.choices else None)
            for key, t in templates.items() if t.topics]


def practise(learner: Learner, items: Sequence[Item], answers: int, rng: random.Random,
             params: MasteryParams = MasteryParams(), focus: Sequence[str] = ()) -> tuple[list[Answer],
                                                                                       dict[str, TopicMastery]]:
    """``answers`` answers chosen by the app's policy; the answers and the mastery they leave.

    ``focus``: topic practice, taking these topics in turn (the app's ``p`` on each), else open practice."""
    by_key = {item.key: item for item in items}
    tracker = Tracker(template_counts({i.key: i.topics for i in items}, {i.key: i.kind for i in items}), params)
    candidates = [Candidate(item.key, item.topics) for item in items]
    reviews: dict[str, ReviewState] = {}
    recent: list[str] = []
    settled: set[str] = set()  # answered right in this sitting (the whole run is one sitting)
    log: list[Answer] = []
    for n in range(answers):
        now = START + n * GAP
        pick = next_question(candidates, tracker.states, reviews, {}, recent[-5:], now, rng, prior=params.p_init,
                             topic=focus[n % len(focus)] if focus else None, settled=settled)
        item = by_key[pick.key]
        recent.append(item.key)
        right = rng.random() < learner.chance(item)
        log.append(Answer(item, right, predicted(tracker.states.get(item.topics[0]), item.guess, params)))
        verdict, score = ("correct", 1.0) if right else ("incorrect", 0.0)
        (settled.add if right else settled.discard)(item.key)
        rating = ("good" if right else "again") if item.kind == "text" else ""
        reviews[item.key] = after_answer(reviews.get(item.key), verdict=verdict, score=score, seconds=30.0,
                                         kind=item.kind, response=rating, at=now)
        tracker.fold(GradedAttempt(item.key, n, verdict, score, 30.0, now), item.topics, item.kind, item.n_options)
    return log, tracker.states
