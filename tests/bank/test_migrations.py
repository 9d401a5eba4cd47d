"""Upgrading a real version-1 bank: every attempt and review state intact and owned by the default
learner, a backup first, all or nothing, once."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import inspect
from sqlalchemy.engine import Engine

from quizzer.bank import SCHEMA_VERSION, migrations
from quizzer.bank.db import open_bank
from quizzer.bank.ready import open_ready_bank
from tests.bank.v1 import build_v1_bank, rows

V1_ATTEMPT_COLUMNS = "id, template_key, seed, response, verdict, score, misconception, seconds, created_at"
V1_CARD_COLUMNS = "template_key, state_json, due, updated_at"


@pytest.fixture
def v1_bank(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr("quizzer.common.profiles.getpass.getuser", lambda: "marie")
    path = tmp_path / "bank.sqlite"
    build_v1_bank(path)
    return path


def content(path: Path) -> dict[str, list[tuple[object, ...]]]:
    """Everything a v1 bank holds, read with the v1 column lists."""
    return {"schema": rows(path, "SELECT type, name, sql FROM sqlite_master ORDER BY name"),
            "meta": rows(path, "SELECT * FROM meta"),
            "attempts": rows(path, f"SELECT {V1_ATTEMPT_COLUMNS} FROM attempt ORDER BY id"),
            "cards": rows(path, f"SELECT {V1_CARD_COLUMNS} FROM reviewcard ORDER BY template_key")}


def opened(path: Path) -> None:
    open_bank(str(path)).dispose()


def test_every_step_is_registered() -> None:
    assert sorted(migrations.STEPS) == list(range(1, SCHEMA_VERSION))


def test_upgrade_keeps_every_attempt_and_review_for_the_default_learner(
        v1_bank: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = content(v1_bank)
    assert len(before["attempts"]) == 40 and len(before["cards"]) == 3
    opened(v1_bank)
    ((learner_id, name),) = rows(v1_bank, "SELECT id, name FROM learner")
    assert name == "marie"
    assert rows(v1_bank, f"SELECT {V1_ATTEMPT_COLUMNS} FROM attempt ORDER BY id") == before["attempts"]
    assert rows(v1_bank, f"SELECT {V1_CARD_COLUMNS} FROM reviewcard ORDER BY template_key") == before["cards"]
    assert {owner for (owner,) in rows(v1_bank, "SELECT learner_id FROM attempt")} == {learner_id}
    assert {owner for (owner,) in rows(v1_bank, "SELECT learner_id FROM reviewcard")} == {learner_id}
    assert rows(v1_bank, "SELECT value FROM meta WHERE key = 'schema_version'") == [(str(SCHEMA_VERSION),)]
    assert rows(v1_bank, "PRAGMA foreign_key_check") == [] and rows(v1_bank, "PRAGMA integrity_check") == [("ok",)]
    backup = v1_bank.with_name("bank.sqlite.v1.bak")
    assert content(backup) == before
    err = capsys.readouterr().err
    assert err == (f"quizzer: upgraded the bank to schema version {SCHEMA_VERSION}; "
                   f"the previous bank is saved as {backup}\n")


def schema_of(engine: Engine) -> dict[str, Any]:
    """Columns (name, type, nullability), primary key, foreign keys and indexes of every table."""
    inspector = inspect(engine)
    return {table: {"columns": [(c["name"], str(c["type"]), c["nullable"]) for c in inspector.get_columns(table)],
                    "primary key": inspector.get_pk_constraint(table)["constrained_columns"],
                    "foreign keys": sorted((fk["constrained_columns"], fk["referred_table"], fk["options"])
                                           for fk in inspector.get_foreign_keys(table)),
                    "indexes": sorted((i["name"], i["column_names"], bool(i["unique"]))
                                      for i in inspector.get_indexes(table))}
            for table in sorted(inspector.get_table_names())}


def assert_schema_of_a_new_bank(bank: Path, tmp_path: Path) -> None:
    upgraded, fresh = open_bank(str(bank)), open_bank(str(tmp_path / "fresh.sqlite"))
    try:
        assert schema_of(upgraded) == schema_of(fresh)
    finally:
        upgraded.dispose()
        fresh.dispose()


def test_an_upgraded_bank_has_exactly_the_schema_of_a_new_one(v1_bank: Path, tmp_path: Path) -> None:
    assert_schema_of_a_new_bank(v1_bank, tmp_path)


def test_upgrading_twice_is_a_no_op(v1_bank: Path, capsys: pytest.CaptureFixture[str]) -> None:
    opened(v1_bank)
    capsys.readouterr()
    after_first = {table: rows(v1_bank, f"SELECT * FROM {table}") for table in ("learner", "attempt", "reviewcard")}
    opened(v1_bank)
    assert {table: rows(v1_bank, f"SELECT * FROM {table}") for table in after_first} == after_first
    assert capsys.readouterr().err == ""
    assert sorted(p.name for p in v1_bank.parent.glob("*.bak")) == ["bank.sqlite.v1.bak"]


def test_a_failure_in_the_middle_leaves_the_v1_bank_untouched(v1_bank: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before, file_before = content(v1_bank), v1_bank.read_bytes()
    real_rebuild = migrations._rebuild

    def fail_on_review_cards(connection: Any, new: Any, **kwargs: Any) -> None:
        if new.name == "reviewcard":  # the attempt table has been rebuilt by now
            raise RuntimeError("simulated crash half-way through the upgrade")
        real_rebuild(connection, new, **kwargs)

    monkeypatch.setattr(migrations, "_rebuild", fail_on_review_cards)
    with pytest.raises(RuntimeError, match="half-way"):
        opened(v1_bank)
    assert content(v1_bank) == before
    assert v1_bank.read_bytes() == file_before
    monkeypatch.setattr(migrations, "_rebuild", real_rebuild)
    opened(v1_bank)  # and the next start upgrades it properly
    assert len(rows(v1_bank, "SELECT learner_id FROM attempt")) == 40


def test_two_processes_opening_an_old_bank_upgrade_it_once(v1_bank: Path) -> None:
    errors: list[BaseException] = []

    def open_it() -> None:
        try:
            opened(v1_bank)
        except BaseException as exc:  # noqa: BLE001 - reported by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=open_it) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert rows(v1_bank, "SELECT name FROM learner") == [("marie",)]
    assert len(list(v1_bank.parent.glob("*.bak"))) == 1


def test_an_existing_backup_is_never_overwritten(v1_bank: Path) -> None:
    earlier = v1_bank.with_name("bank.sqlite.v1.bak")
    earlier.write_bytes(b"an older backup the user kept")
    opened(v1_bank)
    assert earlier.read_bytes() == b"an older backup the user kept"
    assert len(rows(v1_bank.with_name("bank.sqlite.v1.2.bak"), "SELECT * FROM attempt")) == 40


def test_the_upgraded_bank_takes_the_bundled_questions(v1_bank: Path) -> None:
    engine, session = open_ready_bank(str(v1_bank))
    session.close()
    engine.dispose()
    templates = rows(v1_bank, "SELECT count(*) FROM template")[0][0]
    assert templates > 100 and len(rows(v1_bank, "SELECT * FROM attempt")) == 40


def bank_at(path: Path, version: int) -> dict[str, tuple[str, list[tuple[object, ...]]]]:
    """Make the v1 bank at ``path`` one that stopped at ``version`` (the steps up to it run, as a quizzer of
    that version left it) and return every table's columns then and its rows in them."""
    from sqlalchemy import create_engine, text

    engine = create_engine(f"sqlite:///{path}")
    with engine.begin() as connection:
        for step in range(1, version):
            migrations.STEPS[step](connection, "marie")
        connection.execute(text("DELETE FROM meta WHERE key = 'schema_version'"))
        connection.execute(text("INSERT INTO meta (key, value) VALUES ('schema_version', :v)"), {"v": str(version)})
    engine.dispose()
    tables = [name for (name,) in rows(path, "SELECT name FROM sqlite_master WHERE type = 'table'") if name != "meta"]
    columns = {table: ", ".join(str(c[1]) for c in rows(path, f"PRAGMA table_info({table})")) for table in tables}
    return {table: (columns[table], rows(path, f"SELECT {columns[table]} FROM {table}")) for table in tables}


@pytest.mark.parametrize("version", range(1, SCHEMA_VERSION))
def test_a_bank_at_every_older_version_upgrades_keeping_its_rows(v1_bank: Path, tmp_path: Path, version: int,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    before = bank_at(v1_bank, version)
    opened(v1_bank)
    assert rows(v1_bank, "SELECT value FROM meta WHERE key = 'schema_version'") == [(str(SCHEMA_VERSION),)]
    for table, (columns, held) in before.items():  # every row kept, in the columns it had
        assert rows(v1_bank, f"SELECT {columns} FROM {table}") == held, table
    assert len(rows(v1_bank, "SELECT * FROM attempt")) == 40
    backup = v1_bank.with_name(f"bank.sqlite.v{version}.bak")
    assert capsys.readouterr().err == (f"quizzer: upgraded the bank to schema version {SCHEMA_VERSION}; "
                                       f"the previous bank is saved as {backup}\n")
    assert_schema_of_a_new_bank(v1_bank, tmp_path)
