"""The bank on a fresh database per test, SQLite and PostgreSQL: import, re-import, history, and
all-or-nothing writes."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlmodel import Session, select

from quizzer.bank import CATALOG_DIGEST_KEY
from quizzer.bank.db import new_session, open_bank
from quizzer.bank.learners import ensure_learner
from quizzer.bank.models import Attempt, Meta, RoutedRecord, Template, TemplateTopic, Topic
from quizzer.bank.store import (
    get_template,
    import_bundled,
    import_templates,
    record_attempt,
    select_templates,
)
from quizzer.common.errors import UserError
from quizzer.grading.verdict import grade
from quizzer.templates.catalog import catalog_digest, load_catalog
from quizzer.templates.instance import make_instance
from quizzer.templates.validate import validate_files
from tests.databases import bank_session

REPO = Path(__file__).resolve().parents[2]
QUESTIONS = REPO / "questions"


@pytest.fixture
def session(bank_url: str) -> Iterator[Session]:
    """An empty bank."""
    with bank_session(bank_url) as session:
        yield session


@pytest.fixture
def imported(bundled_bank_url: str) -> Iterator[Session]:
    """A bank with the bundled questions imported (a copy of one prepared per test run)."""
    with bank_session(bundled_bank_url) as session:
        yield session


@pytest.fixture
def ada(imported: Session) -> int:
    """A learner's id in the imported bank, for recording attempts."""
    learner_id = ensure_learner(session=imported, name="ada").id
    assert learner_id is not None
    return learner_id


def test_sqlite_settings() -> None:
    engine = open_bank()
    with new_session(engine) as session:
        assert session.exec(text("PRAGMA foreign_keys")).one()[0] == 1  # type: ignore[call-overload]
        assert session.exec(text("PRAGMA journal_mode")).one()[0] == "wal"  # type: ignore[call-overload]
        assert session.exec(text("PRAGMA busy_timeout")).one()[0] >= 5000  # type: ignore[call-overload]
    engine.dispose()


def test_bundled_import_fills_catalogue_and_templates(session: Session) -> None:
    catalog = load_catalog()
    import_bundled(session=session, directory=QUESTIONS)
    session.commit()
    imported = session
    assert len(imported.exec(select(Topic)).all()) == len(catalog.topics)
    assert len(imported.exec(select(RoutedRecord)).all()) == 65
    files = sorted(QUESTIONS.rglob("*.yaml"))
    assert len(imported.exec(select(Template)).all()) == len(files)
    assert imported.exec(select(TemplateTopic)).all()


def test_reimport_is_idempotent(imported: Session) -> None:
    report = import_bundled(session=imported, directory=QUESTIONS)
    assert report.added == [] and report.updated == []


@pytest.fixture
def data_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A private copy of ``data/`` that QUIZZER_DATA_DIR points at; the cached catalogue is
    forgotten before and after, so no other test sees the edited one."""
    folder = tmp_path / "data"
    shutil.copytree(REPO / "data", folder)
    monkeypatch.setenv("QUIZZER_DATA_DIR", str(folder))
    load_catalog.cache_clear()
    yield folder
    load_catalog.cache_clear()


def test_unchanged_catalogue_is_not_synced_again(imported: Session) -> None:
    assert imported.get(Meta, CATALOG_DIGEST_KEY).value == catalog_digest()  # type: ignore[union-attr]
    topic = imported.get(Topic, "softmax")
    assert topic is not None
    topic.name = "edited in the bank"  # a re-sync would overwrite this with the catalogue's name
    imported.add(topic)
    imported.commit()
    import_bundled(session=imported, directory=QUESTIONS)
    imported.commit()
    assert imported.get(Topic, "softmax").name == "edited in the bank"  # type: ignore[union-attr]


def test_changed_catalogue_is_synced(imported: Session, data_copy: Path) -> None:
    old_digest = imported.get(Meta, CATALOG_DIGEST_KEY).value  # type: ignore[union-attr]
    topics = data_copy / "topics.yaml"
    topics.write_text(topics.read_text(encoding="utf-8").replace(
        "  - id: softmax\n    name: ", "  - id: softmax\n    name: Renamed ", 1), encoding="utf-8")
    assert catalog_digest() != old_digest
    import_bundled(session=imported, directory=QUESTIONS)
    imported.commit()
    assert imported.get(Topic, "softmax").name.startswith("Renamed ")  # type: ignore[union-attr]
    assert imported.get(Meta, CATALOG_DIGEST_KEY).value == catalog_digest()  # type: ignore[union-attr]


def test_changed_template_keeps_its_history(imported: Session, ada: int, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    # The new version comes from another file, which validation refuses for a bundled key (see
    # tests/cli/test_cli.py); here the bundled directory is elsewhere, as for a teacher's own pack.
    monkeypatch.setenv("QUIZZER_QUESTIONS_DIR", str(tmp_path / "no-bundled-questions"))
    key = "practice/warmup-rate"
    template = get_template(session=imported, key=key)
    instance = make_instance(template, 5)
    record_attempt(session=imported, learner_id=ada, key=key, seed=5, response=str(instance.answer),
                   verdict=grade(instance.spec, str(instance.answer)))
    changed = tmp_path / "warmup.yaml"
    source = next(QUESTIONS.rglob("warmup-rate.yaml")).read_text()
    changed.write_text(source.replace("title: The original", "title: Revised — the original"))
    report = import_templates(session=imported, loaded=validate_files([changed], seeds=3))
    imported.commit()
    assert report.updated == [key]
    assert get_template(session=imported, key=key).title.startswith("Revised —")
    attempts = imported.exec(select(Attempt).where(Attempt.template_key == key)).all()
    assert [a.verdict for a in attempts] == ["correct"]


def test_attempts_are_committed_immediately(imported: Session, ada: int) -> None:
    key = "2024T3_Q1_NA Q277"
    instance = make_instance(get_template(session=imported, key=key), 3)
    record_attempt(session=imported, learner_id=ada, key=key, seed=3, response="1", verdict=grade(instance.spec, "1"),
                   seconds=4.5)
    other = open_bank()
    with Session(other) as reader:
        row = reader.exec(select(Attempt)).one()
    other.dispose()
    assert (row.learner_id, row.template_key, row.seed, row.verdict, row.score, row.seconds) == (
        ada, key, 3, "incorrect", 0.0, 4.5)
    assert row.created_at is not None


def test_invalid_responses_are_never_recorded(imported: Session, ada: int) -> None:
    instance = make_instance(get_template(session=imported, key="2024T3_Q1_NA Q277"), 1)
    with pytest.raises(ValueError):
        record_attempt(session=imported, learner_id=ada, key=instance.key, seed=1, response="banana",
                       verdict=grade(instance.spec, "banana"))


def test_selection_filters(imported: Session) -> None:
    paper = select_templates(session=imported, paper="2024T3_Q1_NA")
    assert "2024T3_Q1_NA Q277" in {t.key for t in paper}
    assert all(t.key.startswith("2024T3_Q1_NA ") for t in paper)
    assert all(t.week == 1 for t in select_templates(session=imported, week=1))
    assert {t.key for t in select_templates(session=imported, topic="training_tricks")} >= {"practice/warmup-rate"}


def test_unknown_key_suggests(imported: Session) -> None:
    with pytest.raises(UserError, match="did you mean '2024T3_Q1_NA Q278'"):
        get_template(session=imported, key="2024T3_Q1_NA Q278x")


def test_corrupt_database_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    broken = tmp_path / "broken.sqlite"
    broken.write_bytes(b"this is not a database" * 100)
    before = broken.read_bytes()
    monkeypatch.setenv("QUIZZER_DB", str(broken))
    with pytest.raises(UserError, match="cannot open the bank: file is not a database"):
        open_bank()
    assert broken.read_bytes() == before


def test_missing_questions_directory(session: Session, tmp_path: Path) -> None:
    with pytest.raises(UserError, match="questions directory is missing"):
        import_bundled(session=session, directory=tmp_path / "nowhere")


def test_copy_of_questions_imports_all_or_nothing(session: Session, tmp_path: Path) -> None:
    folder = tmp_path / "questions"
    shutil.copytree(QUESTIONS, folder)
    (folder / "zz-broken.yaml").write_text("key: practice/broken\n")
    with pytest.raises(UserError):
        import_bundled(session=session, directory=folder)
    session.rollback()
    assert session.exec(select(Template)).all() == []
