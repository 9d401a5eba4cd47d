"""Opening the bank on either database: URLs, masked passwords, UTC times, and set-up races."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta, timezone

import pytest
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError
from sqlmodel import Session, select

from quizzer.bank import SCHEMA_VERSION
from quizzer.bank.db import database_errors, database_url, display_url, new_session, open_bank
from quizzer.bank.learners import ensure_learner
from quizzer.bank.models import Attempt, Meta, ReviewCard, Template
from quizzer.bank.ready import open_ready_bank
from quizzer.bank.store import record_attempt
from quizzer.common.errors import UserError
from quizzer.grading.verdict import Verdict
from tests.databases import PostgresServer

KEY = "2024T3_Q1_NA Q277"
SECRET = "s3cret-Pa55"


def verdict(kind: str = "correct") -> Verdict:
    return Verdict(verdict=kind, score=1.0 if kind == "correct" else 0.0, expected="1", feedback="")


@pytest.mark.parametrize("value, url", [
    ("/tmp/x/bank.sqlite", "sqlite:////tmp/x/bank.sqlite"),
    ("sqlite:///rel.sqlite", "sqlite:///rel.sqlite"),
    ("postgresql://u:p@h/db", "postgresql+psycopg://u:p@h/db"),
    ("postgres://u:p@h:5433/db", "postgresql+psycopg://u:p@h:5433/db"),
    ("postgresql+psycopg://u@h/db", "postgresql+psycopg://u@h/db"),
])
def test_database_url_names_the_psycopg_driver(value: str, url: str) -> None:
    assert database_url(value) == url


@pytest.mark.parametrize("url, shown", [
    (f"postgresql+psycopg://teacher:{SECRET}@db.example.org:5432/course", "postgresql+psycopg://teacher:***@db.example.org:5432/course"),
    (f"postgresql+psycopg://teacher:{SECRET}@h:port/course", "postgresql+psycopg://…"),
    ("sqlite:////home/a/bank.sqlite", "/home/a/bank.sqlite"),
])
def test_a_url_is_shown_without_its_password(url: str, shown: str) -> None:
    assert display_url(url) == shown


def test_an_unreachable_server_is_one_line_without_the_password() -> None:
    url = f"postgresql://teacher:{SECRET}@127.0.0.1:1/course"  # nothing listens on port 1
    with pytest.raises(UserError) as caught:
        open_bank(url)
    message = str(caught.value)
    assert message.startswith("postgresql+psycopg://teacher:***@127.0.0.1:1/course: cannot open the bank: ")
    assert "refused" in message and SECRET not in message and "\n" not in message


@pytest.mark.parametrize("url, fragment", [
    ("mysql://u:p@h/db", "unsupported database 'mysql'"),
    (f"postgresql://u:{SECRET}@h:port/db", "not a valid database URL"),
])
def test_an_unusable_url_is_a_user_error(url: str, fragment: str) -> None:
    with pytest.raises(UserError, match=fragment) as caught:
        open_bank(url)
    assert SECRET not in str(caught.value)


def test_a_failure_midway_is_one_line_with_the_password_masked() -> None:
    url = f"postgresql+psycopg://teacher:{SECRET}@h/course"
    with pytest.raises(UserError) as caught, database_errors(url):
        raise OperationalError("SELECT 1", {}, Exception(f"server closed the connection ({SECRET})\nmore detail"))
    assert str(caught.value) == ("postgresql+psycopg://teacher:***@h/course: cannot use the bank: "
                                 "server closed the connection (***)")


def learner(session: Session) -> int:
    learner_id = ensure_learner(session=session, name="ada").id
    assert learner_id is not None
    return learner_id


def test_times_come_back_as_the_same_aware_utc_instant(bundled_bank_url: str) -> None:
    engine = open_bank(bundled_bank_url)
    graded_at = datetime(2026, 3, 1, 23, 30, tzinfo=timezone(timedelta(hours=-5)))  # 04:30 UTC the next day
    with new_session(engine) as session:
        record_attempt(session=session, learner_id=learner(session), key=KEY, seed=1, response="1",
                       verdict=verdict(), at=graded_at)
        session.add(ReviewCard(learner_id=learner(session), template_key=KEY, state_json="{}",
                               due=datetime(2026, 3, 2, 4, 30)))  # naive: UTC
        session.commit()
    engine.dispose()
    engine = open_bank(bundled_bank_url)
    with new_session(engine) as session:
        created = session.exec(select(Attempt.created_at)).one()
        due = session.exec(select(ReviewCard.due)).one()
        later = session.exec(select(Attempt).where(Attempt.created_at > datetime(2026, 3, 2, 4, 0, tzinfo=UTC))).all()
    engine.dispose()
    assert created == graded_at and created.tzinfo is UTC
    assert due == datetime(2026, 3, 2, 4, 30, tzinfo=UTC)
    assert len(later) == 1  # comparisons in SQL see UTC too


@pytest.mark.postgresql
def test_a_server_in_another_time_zone_changes_nothing(postgres: PostgresServer,
                                                       postgres_bundled_template: str) -> None:
    bank = postgres.create(postgres_bundled_template)
    far_away = make_url(bank).update_query_dict({"options": "-c timezone=Pacific/Auckland"})
    graded_at = datetime(2026, 7, 1, 12, 0, tzinfo=UTC)
    try:
        for url in (far_away.render_as_string(hide_password=False), bank):  # write there, read in UTC
            engine = open_bank(url)
            with new_session(engine) as session:
                if url != bank:
                    record_attempt(session=session, learner_id=learner(session), key=KEY, seed=1, response="1",
                                   verdict=verdict(), at=graded_at)
                assert session.exec(select(Attempt.created_at)).one() == graded_at
            engine.dispose()
    finally:
        postgres.drop(bank)


def test_a_64_bit_seed_is_stored(bundled_bank_url: str) -> None:
    engine = open_bank(bundled_bank_url)
    with new_session(engine) as session:
        record_attempt(session=session, learner_id=learner(session), key=KEY, seed=2**63 - 1, response="1",
                       verdict=verdict())
        assert session.exec(select(Attempt.seed)).one() == 2**63 - 1
    engine.dispose()


def test_learners_starting_together_set_a_new_bank_up_once(bank_url: str) -> None:
    def start(_: int) -> int:
        engine, session = open_ready_bank(bank_url)
        with session:
            count = len(session.exec(select(Template.key)).all())
        engine.dispose()
        return count

    with ThreadPoolExecutor(max_workers=4) as pool:
        counts = list(pool.map(start, range(4)))
    engine = open_bank(bank_url)
    with new_session(engine) as session:
        versions = session.exec(select(Meta).where(Meta.key == "schema_version")).all()
    engine.dispose()
    assert len(set(counts)) == 1 and counts[0] > 100
    assert len(versions) == 1


def test_a_bank_from_a_newer_quizzer_is_refused(bank_url: str) -> None:
    engine = open_bank(bank_url)
    with new_session(engine) as session:
        session.get(Meta, "schema_version").value = str(SCHEMA_VERSION + 1)  # type: ignore[union-attr]
        session.commit()
    engine.dispose()
    with pytest.raises(UserError, match=f"schema version {SCHEMA_VERSION + 1}, newer than this quizzer"):
        open_bank(bank_url)
