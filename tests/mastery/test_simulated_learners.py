"""Mastery on simulated learners practising in the app's own study session (``bench/simulated_learners.py``).

Fixed seeds, so each run is the same every time; the seeds and topics are many, so the rules hold
across learners and the bank, not for one lucky draw.  40 answers each, as the issue asks.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench.simulated_learners import guesser, mastered_topics, max_level, one_topic, practise, steady, study_bank
from quizzer.learning.mastery import DEFAULTS
from quizzer.templates.catalog import load_catalog

TOPICS = list(load_catalog().topics)


@pytest.fixture
def session(bundled_bank_file: Path, tmp_path: Path) -> Iterator[Any]:
    shutil.copyfile(bundled_bank_file, tmp_path / "sim.sqlite")
    with study_bank(tmp_path / "sim.sqlite") as session:
        yield session


def test_a_guesser_stays_below_35_percent_on_every_topic(session: Any) -> None:
    runs = [practise(session, guesser(), seed=seed) for seed in range(3)]  # "practise what I need most"
    runs += [practise(session, guesser(), seed=seed, focus=TOPICS[seed * 5], focus_share=1.0) for seed in range(3)]
    assert all(len(run.outcomes) == 40 for run in runs)
    assert any(o.right for run in runs for o in run.outcomes)  # it does guess right now and then
    assert max_level(runs) < 0.35
    assert not any(mastered_topics(run) for run in runs)


# A seed per test (each run is checked on its own, and a learner's runs read only its own history):
# the twelve runs took one xdist worker ~8 s in a single test.
@pytest.mark.parametrize("seed", range(6))
def test_a_learner_right_65_percent_of_the_time_masters_no_topic(session: Any, seed: int) -> None:
    for focus in (TOPICS[(seed * 5) % len(TOPICS)], None):  # all 40 on one topic, or the app's choice
        run = practise(session, steady(0.65), seed=seed, focus=focus, focus_share=1.0)
        assert 0.45 < sum(o.right for o in run.outcomes) / 40 < 0.85  # 65 % ± about 2.5 sd
        assert mastered_topics(run) == set(), (seed, focus)
        assert max_level([run]) < DEFAULTS.threshold


@pytest.mark.parametrize("topic", TOPICS)
def test_a_learner_who_knows_one_topic_masters_that_one_only(session: Any, topic: str) -> None:
    run = practise(session, one_topic(topic), seed=1, focus=topic, focus_share=1.0)
    assert mastered_topics(run) == {topic}
    state = run.mastery[topic]
    assert state.templates_right >= DEFAULTS.min_templates and state.computed_right


@pytest.mark.parametrize("topic", TOPICS[::3])
def test_mixed_practice_masters_no_topic_the_learner_does_not_know(session: Any, topic: str) -> None:
    run = practise(session, one_topic(topic), seed=2, focus=topic, focus_share=0.5)
    assert mastered_topics(run) <= {topic}
