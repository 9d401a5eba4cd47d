"""``quizzer accounts``: a teacher adds learners one by one or from a roster, each password made by
quizzer, shown once and stored only as its scrypt record; a reset replaces it and signs its owner out;
a bad roster names its row and adds nobody; the passwords module itself (records, decoys, lengths)."""

from __future__ import annotations

import csv
import re
from datetime import timedelta
from pathlib import Path

import pytest
from sqlmodel import select

from tests.cli_runner import run
from tests.databases import bank_session

PASSWORD = re.compile(r"[a-hj-km-np-z2-9]{4}-[a-hj-km-np-z2-9]{4}-[a-hj-km-np-z2-9]{4}")


def records() -> dict[str, tuple[str, str]]:
    from quizzer.bank.models import Credential, Learner

    with bank_session() as session:
        rows = session.exec(select(Learner.name, Credential.password_hash, Credential.role)
                            .join(Credential, Credential.learner_id == Learner.id)).all()  # type: ignore[arg-type]
    return {name: (record, role) for name, record, role in rows}


def test_add_shows_the_password_once_and_stores_only_its_scrypt_record(isolated_bank: Path) -> None:
    from quizzer.server.passwords import check_password

    code, out, err = run("accounts", "add", "alice")
    assert (code, err) == (0, "")
    password = PASSWORD.search(out)
    assert password and out.startswith("alice (learner) signs in with the password ")
    record, role = records()["alice"]
    assert role == "learner" and record.startswith("scrypt$16384$8$5$") and password.group() not in record
    assert check_password(password.group(), record) and not check_password(password.group() + "x", record)
    assert run("accounts", "add", "alice") == (
        2, "", "quizzer: 'alice' can already sign in; 'quizzer accounts reset alice' gives a new password\n")
    code, out, _ = run("accounts", "add", "teach", "--teacher")
    assert code == 0 and records()["teach"][1] == "teacher"
    code, out, _ = run("accounts")
    assert code == 0 and re.search(r"alice\s+learner\s+0", out) and re.search(r"teach\s+teacher\s+0", out)


def test_reset_replaces_the_password_and_signs_out_everywhere(isolated_bank: Path) -> None:
    from quizzer.bank.accounts import signed_in, start_session
    from quizzer.server.passwords import check_password

    run("accounts", "add", "alice")
    old = records()["alice"][0]
    with bank_session() as session:
        start_session(session=session, name="alice", token="a browser's token", lifetime=timedelta(hours=1))
        session.commit()
    code, out, _ = run("accounts", "reset", "alice")
    new = PASSWORD.search(out)
    assert code == 0 and new and records()["alice"][0] != old and check_password(new.group(), records()["alice"][0])
    with bank_session() as session:
        assert signed_in(session=session, token="a browser's token") is None
    assert run("accounts", "reset", "bob")[0] == 2
    assert run("accounts", "remove", "alice") == (0, "alice can no longer sign in; their profile and history are "
                                                     "kept.\n", "")
    assert records() == {}


def test_a_roster_becomes_accounts_and_a_sheet_of_passwords(isolated_bank: Path, tmp_path: Path) -> None:
    from quizzer.server.passwords import check_password

    roster, sheet = tmp_path / "roster.csv", tmp_path / "sheet.csv"
    roster.write_text("\ufeffname,role,email\nalice,,a@example.org\nbob,learner,\nteach,Teacher,\n")
    run("accounts", "add", "bob")
    bobs = records()["bob"][0]
    code, out, err = run("accounts", "import", str(roster), "-o", str(sheet))
    assert (code, err) == (0, "")
    assert "Added 2 account(s)" in out and "Left 1 as they were" in out and "bob" in out
    rows = list(csv.DictReader(sheet.open()))
    assert [(row["name"], row["role"]) for row in rows] == [("alice", "learner"), ("teach", "teacher")]
    stored = records()
    assert all(check_password(row["password"], stored[row["name"]][0]) for row in rows)
    assert stored["bob"][0] == bobs  # kept, not reset
    assert run("accounts", "import", str(roster), "-o", str(sheet))[0] == 2  # the sheet exists: no --force


@pytest.mark.parametrize(("text", "message"), [
    ("email\nx@example.org\n", "needs a header row with a 'name' column"),
    ("name\nalice\n../etc\n", "invalid profile name '../etc'"),
    ("name,role\nalice,admin\n", "role 'admin': use learner or teacher"),
    ("name\nalice\nalice\n", "'alice' is in the roster twice"),
    ("", "needs a header row"),
])
def test_a_bad_roster_names_its_row_and_adds_nobody(isolated_bank: Path, tmp_path: Path, text: str,
                                                    message: str) -> None:
    roster = tmp_path / "roster.csv"
    roster.write_text(text)
    code, out, err = run("accounts", "import", str(roster), "-o", str(tmp_path / "sheet.csv"))
    assert (code, out, err.count("\n")) == (2, "", 1) and message in err and str(roster) in err
    assert records() == {} and not (tmp_path / "sheet.csv").exists()


def test_a_huge_roster_is_refused_unread(isolated_bank: Path, tmp_path: Path) -> None:
    roster = tmp_path / "roster.csv"
    roster.write_text("name\n" + "x" * 1_100_000)
    code, _, err = run("accounts", "import", str(roster), "-o", str(tmp_path / "sheet.csv"))
    assert code == 2 and "a roster is at most 1,000,000 bytes" in err


def test_password_records() -> None:
    from quizzer.server.passwords import MAX_PASSWORD, check_password, hash_password, new_password

    made = {new_password() for _ in range(50)}
    assert len(made) == 50 and all(PASSWORD.fullmatch(password) for password in made)
    record = hash_password("correct horse")
    assert hash_password("correct horse") != record  # salted
    assert check_password("correct horse", record)
    for wrong in ("correct hors", "Correct horse", "", "correct horse" + "x" * MAX_PASSWORD):
        assert not check_password(wrong, record)
    for damaged in ("", "scrypt$1$2$3", record.replace("scrypt", "md5"), record[:-8] + "!!!!!!!!", None):
        assert not check_password("correct horse", damaged)
