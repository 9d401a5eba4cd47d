"""A small cohort of the exam benchmark (``bench/exam_cohort.py``), run by ``make test`` on the same code.

16 simulated learners, 14 days at 20 minutes: enough to tell the plan from the previous "what next"
policy and from FSRS due-first (their intervals are far apart at this size), not from random practice
or cramming (``make bench`` runs 200 learners for those; README shows the table).
"""

from __future__ import annotations

import math

import pytest

from bench import exam_cohort
from bench.actr_learner import ALPHA, TAU, C, Chunk, S

LEARNERS, DAYS, MINUTES = 16, 14, 20


@pytest.fixture(scope="module")
def rows() -> dict[str, exam_cohort.Row]:
    return {policy: exam_cohort.summarise(policy, DAYS, MINUTES, exam_cohort.run(policy, DAYS, MINUTES, LEARNERS))
            for policy in ("plan", "what next", "FSRS due-first")}


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
