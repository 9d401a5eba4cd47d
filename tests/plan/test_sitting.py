"""Issue 38's student, again: a 35-minute sitting through the app's own study session on a fresh bank.

Before the plan, "practise what I need" turned into a loop of reviews (the same questions three
times, minutes apart) and, after 92 answers, Self-Attention had never been offered.  Here a simulated
student answers whatever ``Study.next`` asks (as the app's enter does), each answer graded and
recorded by the app's code, the clock moving by the time each question takes, for 35 minutes.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, timedelta

import pytest
from sqlmodel import Session

from bench.simulated_learners import Learner, guesser, respond, steady
from quizzer.bank.learners import ensure_learner
from quizzer.learning.plan.forecast import FEEDBACK_SECONDS
from quizzer.learning.review import TYPICAL_SECONDS
from quizzer.learning.study import Study
from quizzer.templates.catalog import load_catalog
from tests.databases import bank_session
from tests.tui.conftest import FakeClock

SITTING_MINUTES = 35


@pytest.fixture
def session(bundled_bank_url: str) -> Iterator[Session]:
    with bank_session(bundled_bank_url) as session:
        yield session


def sitting(session: Session, learner: Learner, *, week: int | None, seed: int) -> list[tuple[str, str | None]]:
    """(question, primary topic) asked in one sitting, in order."""
    clock = FakeClock()
    study = Study(session=session, catalog=load_catalog(), learner=ensure_learner(session=session, name=learner.name),
                  clock=clock, rng=random.Random(seed), tz=UTC)
    rng, asked, end = random.Random(seed), [], clock.now + timedelta(minutes=SITTING_MINUTES)
    while clock.now < end:
        instance = study.next(week=week).instance
        asked.append((instance.key, instance.topics[0] if instance.topics else None))
        if instance.parts:
            study.answer_parts(instance, [respond(learner, part.question, rng) for part in instance.parts], 60.0)
        else:
            study.answer(instance, respond(learner, instance, rng), 60.0)
        clock.advance(seconds=TYPICAL_SECONDS[instance.kind] + FEEDBACK_SECONDS)
    return asked


def week_topics(week: int | None) -> set[str]:
    return {t.id for t in load_catalog().topics.values() if week is None or t.week == week}


@pytest.mark.parametrize(("learner", "week", "seed"), [
    (steady(0.6), 1, 1), (guesser(), 1, 2), (steady(0.8), 2, 3), (steady(0.6), None, 4)],
    ids=["right-60%-week-1", "guesser-week-1", "right-80%-week-2", "right-60%-whole-course"])
def test_a_35_minute_sitting_tries_every_topic_and_repeats_no_question_more_than_twice(
        session: Session, learner: Learner, week: int | None, seed: int) -> None:
    asked = sitting(session, learner, week=week, seed=seed)
    assert len(asked) >= 15, asked  # a sitting's worth of questions (35 min at 20 s to 4 min each)
    assert {topic for _, topic in asked} == week_topics(week)
    assert max(Counter(key for key, _ in asked).values()) <= 2
    # Reviews never crowd out untried topics: until the last topic is first tried, no topic has had a
    # third question.
    topics = week_topics(week)
    first = {topic: next(i for i, (_, t) in enumerate(asked) if t == topic) for topic in topics}
    last_new = max(first.values())
    before = Counter(t for _, t in asked[:last_new + 1])
    assert max(before.values()) <= 2, before
    # A question asked twice: never straight after itself (with fresh numbers, later in the sitting).
    assert all(a != b for (a, _), (b, _) in zip(asked, asked[1:], strict=False))
