"""The light read path (``bank.readonly``) answers exactly when opening the bank through the ORM
would change nothing, and then answers what the ORM would."""

from __future__ import annotations

import os
import shutil
import sqlite3
import time
from contextlib import closing
from pathlib import Path

import pytest

from quizzer.bank import CATALOG_DIGEST_KEY, PART_IDS_KEY, RULES_KEY, VERSION_KEY, readonly
from quizzer.bank.readonly import current_templates
from quizzer.bank.store import get_template, select_templates
from quizzer.common.errors import UserError
from quizzer.learning.regrade import open_current_bank
from quizzer.templates.catalog import questions_dir
from quizzer.templates.loader import load_path

KEYS = ["practice/warmup-rate", "2024T3_Q1_NA Q277", "practice/warmup-rate"]  # one twice: read once


def execute(bank: Path, sql: str, *params: str) -> None:
    with closing(sqlite3.connect(bank)) as connection, connection:
        connection.execute(sql, params)


def test_a_current_bank_gives_what_the_orm_gives(bundled_bank: Path) -> None:
    engine, session = open_current_bank()
    with session:
        orm = [get_template(session=session, key=row.key) for row in select_templates(session=session, keys=KEYS)]
    engine.dispose()
    light = current_templates(KEYS)
    assert light is not None and len(light) == 2
    assert light == orm


@pytest.mark.parametrize("sql, params", [
    ("UPDATE meta SET value = ? WHERE key = ?", ("1", VERSION_KEY)),
    ("UPDATE meta SET value = ? WHERE key = ?", ("1", RULES_KEY)),
    ("UPDATE meta SET value = ? WHERE key = ?", ("stale", CATALOG_DIGEST_KEY)),
    ("DELETE FROM meta WHERE key = ?", (RULES_KEY,)),
    ("UPDATE template SET content_hash = ? WHERE key = ?", ("stale", "practice/warmup-rate")),
])
def test_a_bank_the_orm_would_change_is_left_to_it(bundled_bank: Path, sql: str, params: tuple[str, ...]) -> None:
    execute(bundled_bank, sql, *params)
    assert current_templates(KEYS) is None
    if params[-1] != VERSION_KEY:  # (an older schema version would be upgraded from its real tables)
        engine, session = open_current_bank()  # brings it up to date ...
        session.close()
        engine.dispose()
        assert current_templates(KEYS) is not None  # ... and the light path answers again


def test_a_changed_bundled_file_is_left_to_the_orm(bundled_bank: Path, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    copy = tmp_path / "questions"
    shutil.copytree(questions_dir(), copy)
    monkeypatch.setenv("QUIZZER_QUESTIONS_DIR", str(copy))
    assert current_templates(KEYS) is not None
    edited = next(copy.rglob("*.yaml"))
    edited.write_text(edited.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    assert current_templates(KEYS) is None


def test_the_files_are_read_only_when_one_changed_since_the_last_import(bundled_bank: Path, tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The Meta row written at import lets the light path trust the files' ``stat``; a file written
    since (even with the same text) sends it back to reading and hashing them, which decides."""
    copy = tmp_path / "questions"
    shutil.copytree(questions_dir(), copy)
    monkeypatch.setenv("QUIZZER_QUESTIONS_DIR", str(copy))
    edited = copy / "week2" / "decoder_output_params" / "2024T3_Q1_NA_Q278.yaml"
    edited.write_text(edited.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    engine, session = open_current_bank()  # imports the edited file and writes the row for this folder
    session.close()
    engine.dispose()
    read: list[Path] = []
    with monkeypatch.context() as patch:
        patch.setattr(readonly, "changed_files", lambda directory, known: read.append(directory) or [])
        assert current_templates(KEYS) is not None and read == []  # answered from stat alone
        os.utime(edited, ns=(time.time_ns(), time.time_ns() + 10**9))  # written again, the same text
        assert current_templates(KEYS) is not None and read == [copy]  # so read again
    assert current_templates(KEYS) is not None  # and, read for real, still current
    edited.write_text(edited.read_text(encoding="utf-8") + "# and again\n", encoding="utf-8")
    assert current_templates(KEYS) is None


@pytest.mark.parametrize("keys", [["no/such-key"], [*KEYS, "no/such-key"], []])
def test_an_unknown_key_is_left_to_the_orm_which_names_it(bundled_bank: Path, keys: list[str]) -> None:
    assert current_templates(keys) is None


def test_no_file_postgres_or_not_a_bank_is_left_to_the_orm(isolated_bank: Path, tmp_path: Path) -> None:
    assert current_templates(KEYS) is None and not isolated_bank.exists()  # never creates the file
    assert current_templates(KEYS, "postgresql://u:p@127.0.0.1:1/db") is None
    (tmp_path / "junk.sqlite").write_bytes(b"not a database at all" * 100)
    assert current_templates(KEYS, str(tmp_path / "junk.sqlite")) is None


def part_id() -> str:
    """A routed ID that a part of a bundled multi-part question carries."""
    return next(part for path in sorted(questions_dir().rglob("*.yaml")) for part in load_path(path).part_ids)


@pytest.mark.parametrize("sql, params", [
    pytest.param(None, (), id="as import wrote it"),
    pytest.param("DELETE FROM meta WHERE key = ?", (PART_IDS_KEY,), id="missing: a bank from before the row"),
    pytest.param("UPDATE meta SET value = ? WHERE key = ?", ('{"hashes": ["other"], "ids": []}', PART_IDS_KEY),
                 id="not matching the stored questions"),
    pytest.param("UPDATE meta SET value = ? WHERE key = ?", ("not json", PART_IDS_KEY), id="damaged"),
])
def test_a_key_a_part_carries_is_left_to_the_orm_whatever_the_meta_row_says(
        bundled_bank: Path, sql: str | None, params: tuple[str, ...]) -> None:
    """The part wins over a single question of the same key (``store.find_question``): the light path
    must see every part's ID, from the row import keeps or, where that row is missing or does not
    match the stored questions, from the questions themselves."""
    key = part_id()
    with closing(sqlite3.connect(bundled_bank)) as connection:
        recorded = connection.execute("SELECT value FROM meta WHERE key = ?", (PART_IDS_KEY,)).fetchone()[0]
    assert key in recorded
    if sql is not None:
        execute(bundled_bank, sql, *params)
    execute(bundled_bank, "INSERT INTO template (key, title, week, kind, difficulty, paper, source_yaml, content_hash, "
            "file, imported_at, updated_at) SELECT ?, title, week, kind, difficulty, paper, source_yaml, content_hash, "
            "file, imported_at, updated_at FROM template WHERE key = ?", key, KEYS[0])  # an old single question's row
    assert current_templates([KEYS[0]]) is not None
    assert current_templates([key]) is None


def test_a_stored_template_that_no_longer_loads_is_one_clear_line(bundled_bank: Path) -> None:
    execute(bundled_bank, "UPDATE template SET source_yaml = ? WHERE key = ?", "key: [unclosed", "practice/warmup-rate")
    with pytest.raises(UserError, match="the stored template no longer loads") as caught:
        current_templates(["practice/warmup-rate"])
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("args", [
    ("show", "2024T3_Q1_NA Q277", "--seed", "3"),
    ("generate", "-k", KEYS[0], "-k", KEYS[1], "-n", "5", "--seed", "4", "--solutions", "--format", "json"),
    ("grade", "2024T3_Q1_NA Q277", "--seed", "3", "--answer", "34850000", "--dry-run", "--json"),
])
def test_commands_print_the_same_on_either_path(bundled_bank: Path, args: tuple[str, ...]) -> None:
    from tests.cli_runner import run

    light = run(*args)
    execute(bundled_bank, "UPDATE meta SET value = ? WHERE key = ?", "stale", CATALOG_DIGEST_KEY)
    assert current_templates(KEYS) is None  # so the command below takes the ORM path
    assert run(*args) == light and light[0] == 0
