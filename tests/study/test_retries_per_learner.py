"""Issue 42 (alice cannot read or write bob's data): the second tries issue 41 added are each learner's own.

A served app process runs one learner's ``Study``; its history lists that learner's second tries
(``Study.retries``).  On one bank, alice's and bob's second tries must never show in each other's history,
and a second try leaves the other learner's attempts, mastery and reviews as they were."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from sqlmodel import Session

from quizzer.bank.learners import ensure_learner
from quizzer.learning.study import Study
from quizzer.templates.catalog import load_catalog
from tests.databases import bank_session
from tests.study.test_study import instance_of
from tests.tui.conftest import FakeClock


@pytest.fixture
def session(bundled_bank_url: str) -> Iterator[Session]:
    with bank_session(bundled_bank_url) as session:
        yield session


def learner(session: Session, name: str) -> Study:
    return Study(session=session, catalog=load_catalog(), learner=ensure_learner(session=session, name=name),
                 clock=FakeClock(), rng=random.Random(7))


def test_each_learner_sees_only_their_own_second_tries(session: Session) -> None:
    alice, bob = learner(session, "alice"), learner(session, "bob")
    instance = instance_of(alice, "integer")
    _, alices_first = alice.answer(instance, "123456789", 10.0)
    assert alices_first is not None
    bobs_state = (bob.attempts(), bob.review_states(), bob.mastery(), bob.retries())
    alice.retry(instance, alices_first, instance.answer_text, 8.0)
    assert [(r.attempt_id, r.response) for [r] in alice.retries().values()] == [
        (alices_first.attempt_id, instance.answer_text)]
    assert (bob.attempts(), bob.review_states(), bob.mastery(), bob.retries()) == bobs_state
    assert bobs_state[0] == [] and bobs_state[1] == {} and bobs_state[3] == {}

    _, bobs_first = bob.answer(instance, "1", 10.0)
    assert bobs_first is not None
    bob.retry(instance, bobs_first, "2", 5.0)
    assert [r.response for [r] in bob.retries().values()] == ["2"]
    assert [r.response for [r] in alice.retries().values()] == [instance.answer_text]  # not bob's
    assert [a.response for a in alice.attempts()] == ["123456789"] and [a.response for a in bob.attempts()] == ["1"]
