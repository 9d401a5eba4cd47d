"""A small cohort of the exam benchmark (``bench/exam_cohort.py``), run by ``make test`` on the same code.

16 simulated learners, 14 days at 20 minutes: enough to tell the plan from the previous "what next"
policy and from FSRS due-first (their intervals are far apart at this size), not from random practice
or cramming (``make bench`` runs 200 learners for those; bench/results/exam_cohort.md holds the table).
"""

from __future__ import annotations

import math
from dataclasses import asdict
from datetime import datetime, timedelta

import pytest

from bench import exam_cohort
from bench.actr_learner import ALPHA, TAU, C, Chunk, S
from tests.run_once import once_per_run

LEARNERS, DAYS, MINUTES = 16, 14, 20


@pytest.fixture(scope="module")
def rows(tmp_path_factory: pytest.TempPathFactory) -> dict[str, exam_cohort.Row]:
    """The three policies' rows, simulated once per test run (``tests/run_once.py``): under pytest-xdist
    each worker that took one of the two tests below simulated all 48 learners again."""
    computed = once_per_run(tmp_path_factory, "exam-cohort", lambda _: {
        policy: asdict(exam_cohort.summarise(policy, DAYS, MINUTES, exam_cohort.run(policy, DAYS, MINUTES, LEARNERS)))
        for policy in ("plan", "what next", "FSRS due-first")})
    return {policy: exam_cohort.Row(**row) for policy, row in computed.items()}


def test_the_plan_beats_what_next_and_fsrs_due_first_beyond_their_intervals(rows: dict[str, exam_cohort.Row]) -> None:
    plan = rows["plan"]
    for other in ("what next", "FSRS due-first"):
        assert plan.mean - plan.half_width > rows[other].mean + rows[other].half_width, (plan, rows[other])


def test_the_plan_tries_every_topic_and_keeps_to_the_daily_minutes(rows: dict[str, exam_cohort.Row]) -> None:
    assert rows["plan"].untried == 0
    assert rows["plan"].max_day_minutes <= MINUTES
    assert rows["what next"].untried > 0  # the locking the issue saw: topics never offered


def test_the_ground_truths_activation_is_pavlik_and_andersons() -> None:
    """Two traces by hand: m = β + ln(t1^-d1 + t2^-d2), d1 = α (nothing active yet), d2 = c·e^{m(t2)} + α."""
    chunk = Chunk(beta=0.3)
    chunk.practise(0.0, 1.0)
    chunk.practise(100.0, 1.0)
    m_at_100 = 0.3 + math.log(100.0 ** -ALPHA)
    d2 = C * math.exp(m_at_100) + ALPHA
    m = 0.3 + math.log(400.0 ** -ALPHA + 300.0 ** -d2)
    assert chunk.activation(400.0) == pytest.approx(m, rel=1e-12)
    assert chunk.recall(400.0) == pytest.approx(1 / (1 + math.exp((TAU - m) / S)), rel=1e-12)


def test_cramming_is_massed_topic_by_topic_in_the_last_three_days_with_the_same_minutes(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Each cram day goes through the topics in blocks (a topic's questions back to back, never
    returned to that day), on the last three days only, every topic reached, no day over the
    cram day's share of the same total minutes."""
    answers: list[tuple[datetime, str]] = []
    record = exam_cohort.record

    def spy(practice: exam_cohort.Practice, template: exam_cohort.Template, seed: int, right: bool, seconds: float,
            at: datetime, *, cards: bool) -> None:
        answers.append((at, template.topics[0]))
        record(practice, template, seed, right, seconds, at, cards=cards)

    monkeypatch.setattr(exam_cohort, "record", spy)
    outcome = exam_cohort.simulate("cramming", DAYS, MINUTES, learner_seed=3)
    days = sorted({at.date() for at, _ in answers})
    last = exam_cohort.EXAM_DATE
    assert days == [last - timedelta(days=n) for n in (3, 2, 1)]
    for day in days:
        topics = [topic for at, topic in answers if at.date() == day]
        blocks = [topic for i, topic in enumerate(topics) if i == 0 or topics[i - 1] != topic]
        assert len(blocks) == len(set(blocks)), (day, blocks)  # massed: one block per topic a day
    assert outcome.untried == 0
    assert MINUTES < outcome.max_day_minutes <= MINUTES * DAYS / exam_cohort.CRAM_DAYS


@pytest.mark.parametrize("key", ["2024T3_Q1_NA Q279", "practice/softmax-properties", "2026T2_ET_AN Q3"])
def test_the_cohort_answers_are_made_and_graded_by_the_app(key: str) -> None:
    """A multi-part question, a select-all and a recall card: the right answer is graded correct part by part,
    the wrong one not correct, each part recorded as Study records it."""
    parts = max(len(exam_cohort.make_instance(exam_cohort.course()[0][key], 0).parts), 1)
    right = exam_cohort.graded_answer(key, 0, True)
    wrong = exam_cohort.graded_answer(key, 0, False)
    assert [verdict for verdict, _ in right.parts] == ["correct"] * parts and right.whole == ("correct", 1.0)
    assert parts > 1 or key != "2024T3_Q1_NA Q279"
    assert len(wrong.parts) == parts and wrong.whole[0] != "correct" and wrong.whole[1] < 1.0
