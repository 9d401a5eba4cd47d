"""The dashboard kept for the next start: shown only while the bank is as it was, with the reviews due
recounted at the time of the start."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import datetime, time, timedelta
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
        seen = snapshot.bank_now(str(bank), "ada", clock())
        data = study.dashboard()
        snapshot.save(str(bank), "ada", data, primary_topics(study.templates),
                      study.plans_ahead(snapshot.DAYS_AHEAD), seen=seen)
        return study, data


def test_a_saved_dashboard_comes_back_with_the_reviews_due_now(bundled_bank: Path, clock: FakeClock) -> None:
    study, data = saved_study(bundled_bank, clock)
    assert snapshot.load(str(bundled_bank), "ada", clock()) == data
    assert snapshot.load(str(bundled_bank), "bob", clock()) is None  # another profile's
    clock.advance(days=2)  # the wrong answer's review is due now: recounted, as the bank would say
    later = snapshot.load(str(bundled_bank), "ada", clock())
    with bank_session(str(bundled_bank)) as session:
        learner = ensure_learner(session=session, name="ada")
        study = Study(session=session, catalog=load_catalog(), learner=learner, clock=clock)
        fresh, morning = study.dashboard(), study.plan_row(at=local_midnight(clock()))
    # The plan shown is the day's as it began (the app's worker then shows it as of now).
    assert later is not None and later.plan == morning and morning.day == clock().astimezone().date().isoformat()
    assert replace(later, plan=None) == replace(fresh, plan=None) and later.due == 1
    assert sum(row.due for row in later.topics) == 1


def local_midnight(moment: datetime) -> datetime:
    local = moment.astimezone()
    return datetime.combine(local.date(), time(0), tzinfo=local.tzinfo)


def test_on_a_day_it_holds_no_plan_for_it_is_stale(bundled_bank: Path, clock: FakeClock) -> None:
    saved_study(bundled_bank, clock)
    clock.advance(days=snapshot.DAYS_AHEAD)
    assert snapshot.load(str(bundled_bank), "ada", clock()) is not None
    clock.advance(days=1)
    assert snapshot.load(str(bundled_bank), "ada", clock()) is None


def test_a_new_exam_date_makes_it_stale(bundled_bank: Path, clock: FakeClock) -> None:
    study, data = saved_study(bundled_bank, clock)
    assert data.plan is not None and data.plan.exam is None
    with bank_session(str(bundled_bank)) as session:
        learner = ensure_learner(session=session, name="ada")
        Study(session=session, catalog=load_catalog(), learner=learner, clock=clock).set_plan(
            clock().date() + timedelta(days=20), None)
    assert snapshot.load(str(bundled_bank), "ada", clock()) is None


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
