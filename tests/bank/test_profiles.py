"""Learner profiles: naming, the current profile, listing and renaming."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlmodel import Session

from quizzer.bank.learners import ensure_learner, find_learner, list_learners, rename_learner
from quizzer.bank.store import record_attempt
from quizzer.common.errors import UserError
from quizzer.common.profiles import current_profile_name, os_profile_name, valid_name
from quizzer.grading.verdict import Verdict
from tests.databases import bank_session


@pytest.fixture
def session(bundled_bank: Path) -> Iterator[Session]:
    with bank_session(bundled_bank) as session:
        yield session


@pytest.mark.parametrize("name", ["ada", "Ada Lovelace", "j.doe_2-b", "Zoë", "学生", "x" * 40, "  padded  "])
def test_valid_names(name: str) -> None:
    assert valid_name(name, where="--profile") == name.strip()


@pytest.mark.parametrize("name", ["", "   ", "x" * 41, "a/b", "a:b", "tab\there", "new\nline", "ada;drop", "ü" * 41])
def test_invalid_names_say_what_is_allowed(name: str) -> None:
    with pytest.raises(UserError, match=r"^--profile: invalid profile name .*: use 1–40 letters, digits"):
        valid_name(name, where="--profile")


def test_the_current_profile_is_the_option_then_the_environment_then_the_os_user(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("quizzer.common.profiles.getpass.getuser", lambda: "marie")
    assert current_profile_name() == "marie"
    monkeypatch.setenv("QUIZZER_PROFILE", "pierre")
    assert current_profile_name() == "pierre"
    assert current_profile_name("irene") == "irene"
    monkeypatch.setenv("QUIZZER_PROFILE", "bad/name")
    with pytest.raises(UserError, match="^QUIZZER_PROFILE: invalid profile name 'bad/name'"):
        current_profile_name()


@pytest.mark.parametrize("user, expected", [("CORP\\jdoe", "CORP_jdoe"), ("a@b.c", "a_b.c"), ("", "student"),
                                            ("u" * 60, "u" * 40), ("///", "___")])
def test_an_os_user_name_becomes_a_valid_profile_name(user: str, expected: str,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("quizzer.common.profiles.getpass.getuser", lambda: user)
    assert os_profile_name() == expected
    assert valid_name(expected, where="test") == expected


def test_no_os_user_at_all_falls_back_to_student(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_user() -> str:
        raise OSError("no login name")

    monkeypatch.setattr("quizzer.common.profiles.getpass.getuser", no_user)
    assert os_profile_name() == "student"


def test_ensure_learner_creates_once(session: Session) -> None:
    first = ensure_learner(session=session, name="ada")
    assert ensure_learner(session=session, name="ada").id == first.id
    assert [learner.name for learner in list_learners(session=session)] == ["ada"]


def test_a_learner_created_for_the_callers_transaction_goes_with_it(session: Session, bundled_bank: Path) -> None:
    """commit=False: the new learner is the caller's to commit or roll back, on a session that has not
    begun anything yet (a savepoint alone would have become SQLite's transaction and committed)."""
    ensure_learner(session=session, name="ada", commit=False)
    with bank_session(bundled_bank) as other:
        assert list_learners(session=other) == []  # nothing committed yet
    session.rollback()
    assert list_learners(session=session) == []
    ensure_learner(session=session, name="bob", commit=False)
    session.commit()
    assert [learner.name for learner in list_learners(session=session)] == ["bob"]


def record(session: Session, learner_id: int, at: datetime) -> None:
    record_attempt(session=session, learner_id=learner_id, key="practice/warmup-rate", seed=1, response="1",
                   verdict=Verdict("correct", 1.0, "1", ""), at=at)


def test_list_learners_counts_attempts_and_last_activity(session: Session) -> None:
    ada, bob = ensure_learner(session=session, name="ada"), ensure_learner(session=session, name="bob")
    ensure_learner(session=session, name="carol")
    assert ada.id is not None and bob.id is not None
    for day in (1, 3, 2):
        record(session, ada.id, datetime(2026, 5, day, 9, tzinfo=UTC))
    record(session, bob.id, datetime(2026, 4, 1, tzinfo=UTC))
    rows = {row.name: row for row in list_learners(session=session)}
    assert [name for name in rows] == ["ada", "bob", "carol"]
    assert (rows["ada"].attempts, rows["bob"].attempts, rows["carol"].attempts) == (3, 1, 0)
    last_active = rows["ada"].last_active
    assert last_active is not None and last_active.replace(tzinfo=None) == datetime(2026, 5, 3, 9)
    assert rows["carol"].last_active is None


def test_rename_keeps_progress_and_refuses_an_existing_name(session: Session) -> None:
    ada = ensure_learner(session=session, name="ada")
    ensure_learner(session=session, name="bob")
    assert ada.id is not None
    record(session, ada.id, datetime(2026, 5, 1, tzinfo=UTC))
    with pytest.raises(UserError, match="a profile called 'bob' already exists"):
        rename_learner(session=session, old="ada", new="bob")
    with pytest.raises(UserError, match=r"no profile called 'adda' \(did you mean 'ada'\?\)"):
        rename_learner(session=session, old="adda", new="zed")
    with pytest.raises(UserError, match="invalid profile name"):
        rename_learner(session=session, old="ada", new="a/b")
    rename_learner(session=session, old="ada", new="Ada Lovelace")
    session.commit()
    assert find_learner(session=session, name="Ada Lovelace").id == ada.id
    assert {row.name: row.attempts for row in list_learners(session=session)} == {"Ada Lovelace": 1, "bob": 0}
