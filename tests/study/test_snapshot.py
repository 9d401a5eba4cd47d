"""The dashboard kept for the next start: shown only while the bank is as it was, with the reviews due
recounted at the time of the start."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from quizzer.bank.learners import ensure_learner
from quizzer.learning import snapshot
from quizzer.learning.dashboard import primary_topics
from quizzer.learning.study import Study
from quizzer.templates.catalog import load_catalog
from quizzer.templates.instance import make_instance
from tests.databases import bank_session
from tests.tui.conftest import FakeClock


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def saved_study(bank: Path, clock: FakeClock) -> tuple[Study, object]:
    with bank_session(str(bank)) as session:
        learner = ensure_learner(session=session, name="ada")
        study = Study(session=session, catalog=load_catalog(), learner=learner, clock=clock, rng=random.Random(7))
        key = sorted(k for k, t in study.templates.items() if t.kind == "number")[0]
        instance = make_instance(study.templates[key], 3)
        study.submit(instance, instance.answer_text, None)
        study.submit(instance, "0", None)  # wrong: its review comes due within minutes
        data = study.dashboard()
        snapshot.save(str(bank), "ada", clock(), data, primary_topics(study.templates))
        return study, data


def test_a_saved_dashboard_comes_back_with_the_reviews_due_now(bundled_bank: Path, clock: FakeClock) -> None:
    study, data = saved_study(bundled_bank, clock)
    assert snapshot.load(str(bundled_bank), "ada", clock()) == data
    assert snapshot.load(str(bundled_bank), "bob", clock()) is None  # another profile's
    clock.advance(days=2)  # the wrong answer's review is due now: recounted, as the bank would say
    later = snapshot.load(str(bundled_bank), "ada", clock())
    with bank_session(str(bundled_bank)) as session:
        learner = ensure_learner(session=session, name="ada")
        fresh = Study(session=session, catalog=load_catalog(), learner=learner, clock=clock).dashboard()
    assert later == fresh and later is not None and later.due == 1
    assert sum(row.due for row in later.topics) == 1


def test_any_new_answer_makes_it_stale(bundled_bank: Path, clock: FakeClock) -> None:
    saved_study(bundled_bank, clock)
    with bank_session(str(bundled_bank)) as session:
        learner = ensure_learner(session=session, name="ada")
        study = Study(session=session, catalog=load_catalog(), learner=learner, clock=clock)
        instance = make_instance(study.templates[sorted(study.templates)[0]], 5)
        study.submit(instance, instance.answer_text, None)
    assert snapshot.load(str(bundled_bank), "ada", clock()) is None


def test_a_damaged_or_foreign_snapshot_is_ignored(bundled_bank: Path, clock: FakeClock) -> None:
    saved_study(bundled_bank, clock)
    path = snapshot.snapshot_file(bundled_bank)
    for damage in (b"{not json", b'{"version": 99, "profiles": {}}', b'{"version": 1, "profiles": {"ada": 3}}',
                   path.read_bytes().replace(b'"attempts":2', b'"attempts":"two"')):
        path.write_bytes(damage)
        assert snapshot.load(str(bundled_bank), "ada", clock()) is None
    assert snapshot.load("postgresql://nobody@127.0.0.1:1/none", "ada", clock()) is None
