"""Attempts graded under older scoring rules are regraded when the bank is opened, cards replayed."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from sqlmodel import select

from quizzer.bank import RULES_KEY
from quizzer.bank.learners import ensure_learner
from quizzer.bank.models import Attempt, Meta, ReviewCard
from quizzer.grading.verdict import RULES_VERSION
from quizzer.learning.regrade import open_current_bank, regrade_if_rules_changed
from quizzer.learning.review import new_state
from quizzer.learning.study import Study
from quizzer.templates.catalog import load_catalog
from quizzer.templates.instance import make_instance
from tests.databases import bank_session
from tests.tui.conftest import START, FakeClock

Q150, Q277, Q282 = "2025T2_Q1_NA Q150", "2024T3_Q1_NA Q277", "2024T3_Q1_NA Q282"
ANSWERS = [(Q150, 1, "none"), (Q282, 0, "[2, 1]"), (Q150, 1, "b, e"), (Q277, 0, "18981000"), (Q282, 0, "[2, 0.6667]")]


def answered_in_the_app(url: str) -> tuple[dict[int, tuple], dict[str, str]]:
    """ANSWERS given through Study under today's rules: each attempt's grade, and each card."""
    clock = FakeClock()
    with bank_session(url) as session:
        study = Study(session=session, catalog=load_catalog(), learner=ensure_learner(session=session, name="ada"),
                      clock=clock, rng=random.Random(1))
        for key, seed, typed in ANSWERS:
            clock.advance(minutes=7)
            study.answer(make_instance(study.templates[key], seed), typed, 20.0)
        grades = {a.id: (a.verdict, a.score, a.misconception) for a in study.attempts()}
        cards = {c.template_key: c.state_json for c in session.exec(select(ReviewCard)).all()}
    return grades, cards


def age(url: str) -> None:
    """Make the bank look graded under the first rules: stale grades, stale cards, rules 1."""
    with bank_session(url) as session:
        for attempt in session.exec(select(Attempt)).all():
            attempt.verdict, attempt.score, attempt.misconception = "partial", 0.625, "stale_rule"
            session.add(attempt)
        for card in session.exec(select(ReviewCard)).all():
            card.state_json = new_state(START).to_json()
            session.add(card)
        session.merge(Meta(key=RULES_KEY, value="1"))
        session.commit()


def test_stale_grades_are_regraded_and_cards_replayed_as_the_app_made_them(
        bundled_bank_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    grades, cards = answered_in_the_app(bundled_bank_url)
    assert grades[1] == ("incorrect", 0.0, None)                 # "none" on a select-all
    assert grades[2] == ("partial", 0.5, "unbiased_variance")    # a named mistake keeps its credit
    age(bundled_bank_url)
    engine, session = open_current_bank(bundled_bank_url)
    with session:
        assert {a.id: (a.verdict, a.score, a.misconception) for a in session.exec(select(Attempt)).all()} == grades
        assert {c.template_key: c.state_json for c in session.exec(select(ReviewCard)).all()} == cards
        assert session.get(Meta, RULES_KEY).value == str(RULES_VERSION)  # type: ignore[union-attr]
        assert regrade_if_rules_changed(session, bundled_bank_url) is None  # done once
    engine.dispose()
    said = capsys.readouterr().err
    assert f"regraded {len(ANSWERS)} answers under the current scoring rules ({len(ANSWERS)} changed)" in said
    if bundled_bank_url.startswith("sqlite:///"):
        backup = Path(bundled_bank_url.removeprefix("sqlite:///") + ".rules1.bak")
        assert backup.is_file() and "the previous bank is saved as" in said


def test_a_bank_without_answers_is_marked_current_silently(bundled_bank_url: str,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    engine, session = open_current_bank(bundled_bank_url)
    with session:
        assert session.get(Meta, RULES_KEY).value == str(RULES_VERSION)  # type: ignore[union-attr]
    engine.dispose()
    assert "regraded" not in capsys.readouterr().err
