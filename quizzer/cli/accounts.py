"""The teacher's ``accounts`` group: who may sign in to ``quizzer serve``.  ``add`` one learner (or
teacher), ``import`` a class roster, ``reset`` a password, ``remove`` a sign-in; alone, the list.

quizzer makes every password (``quizzer.server.passwords``) and shows it once: the bank keeps only
its scrypt record.  A new password signs its owner out of every browser.  A bank with at least one
account makes ``quizzer serve`` ask everyone to sign in.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from quizzer.cli.parsing import arg, takes
from quizzer.cli.shared import bank_session, read_text
from quizzer.common.errors import UserError

MAX_ROSTER_BYTES = 1_000_000
MAX_ROSTER_ROWS = 5_000


@takes()
def accounts() -> None:
    """List who can sign in to 'quizzer serve', with their role and browsers signed in now."""
    from quizzer.bank.accounts import list_accounts

    with bank_session() as session:
        rows = list_accounts(session=session)
    if not rows:
        print("No accounts: 'quizzer serve' runs as one profile. Add learners with 'quizzer accounts add NAME' "
              "or 'quizzer accounts import ROSTER.csv'.")
        return
    width = max(4, *(len(row.name) for row in rows))
    print(f"{'NAME':<{width}}  ROLE     SIGNED IN  PASSWORD SET")
    for row in rows:
        changed = row.password_changed.astimezone()
        print(f"{row.name:<{width}}  {row.role:<7}  {row.signed_in:>9}  {changed:%Y-%m-%d %H:%M}")


@takes(
    arg("name", metavar="NAME", help="The learner's profile name (created if new; an existing one keeps its history)."),
    arg("--teacher", action="store_true", help="A teacher: may also read the class report in the browser."),
)
def add_account(name: str, teacher: bool) -> None:
    """Let NAME sign in to 'quizzer serve': makes their password and shows it once."""
    from quizzer.bank.accounts import password_record, set_password
    from quizzer.common.profiles import valid_name
    from quizzer.server.passwords import hash_password, new_password

    name = valid_name(name, where="NAME")
    password = new_password()
    with bank_session() as session:
        if password_record(session=session, name=name) is not None:
            raise UserError(f"{name!r} can already sign in; 'quizzer accounts reset {name}' gives a new password")
        set_password(session=session, name=name, password_hash=hash_password(password),
                     role="teacher" if teacher else "learner")
        session.commit()
    print(f"{name} ({'teacher' if teacher else 'learner'}) signs in with the password {password}")
    print("Give it to them now: it is not stored and cannot be shown again ('quizzer accounts reset' makes a new one).")


@takes(arg("name", metavar="NAME", help="Whose password to replace."))
def reset_account(name: str) -> None:
    """Give NAME a new password (shown once) and sign them out of every browser."""
    from quizzer.bank.accounts import password_record, set_password
    from quizzer.server.passwords import hash_password, new_password

    password = new_password()
    with bank_session() as session:
        if password_record(session=session, name=name) is None:
            raise UserError(f"{name!r} has no sign-in; 'quizzer accounts add {name}' makes one")
        set_password(session=session, name=name, password_hash=hash_password(password))
        session.commit()
    print(f"{name}'s new password is {password} (they are signed out everywhere; the old one no longer works)")


@takes(arg("name", metavar="NAME", help="Whose sign-in to remove (their profile and history stay)."))
def remove_account(name: str) -> None:
    """Stop NAME signing in, and sign them out of every browser; their history stays."""
    from quizzer.bank.accounts import remove_account as remove

    with bank_session() as session:
        remove(session=session, name=name)
        session.commit()
    print(f"{name} can no longer sign in; their profile and history are kept.")


@takes(
    arg("roster", type=Path, metavar="ROSTER", help="A CSV file with a 'name' column (and optionally 'role': "
                                                    "learner or teacher), one learner a row."),
    arg("--output", "-o", type=Path, required=True, metavar="SHEET",
        help="Where to write the CSV of names and their new passwords, to hand out."),
    arg("--force", action="store_true", help="Overwrite SHEET if it exists."),
)
def import_accounts(roster: Path, output: Path, force: bool) -> None:
    """Add every learner of a class roster (CSV): their passwords go to SHEET, once.

    Learners who can sign in already are left as they are (and said so). The whole roster is added,
    or, at the first bad row, nothing."""
    from quizzer.bank.accounts import password_record, set_password
    from quizzer.common.files import check_targets, write_files
    from quizzer.server.passwords import hash_password, new_password

    check_targets([output], force=force)
    people = read_roster(roster)
    sheet = io.StringIO()
    writer = csv.writer(sheet, lineterminator="\n")
    writer.writerow(["name", "role", "password"])
    added, kept = 0, []
    with bank_session() as session:
        for name, role in people:
            if password_record(session=session, name=name) is not None:
                kept.append(name)
                continue
            password = new_password()
            set_password(session=session, name=name, password_hash=hash_password(password), role=role)
            writer.writerow([name, role, password])
            added += 1
        write_files([(output, sheet.getvalue().encode("utf-8"))])  # before the commit: no password unrecorded
        try:
            session.commit()
        except BaseException:
            output.unlink(missing_ok=True)  # those passwords were never stored
            raise
    print(f"Added {added} account(s); their passwords are in {output} (hand them out, then delete the file).")
    if kept:
        print(f"Left {len(kept)} as they were (they can sign in already; 'quizzer accounts reset NAME' for a new "
              f"password): {', '.join(kept)}")


def read_roster(path: Path) -> list[tuple[str, str]]:
    """(name, role) for each row of a roster CSV, or a UserError naming the row that is wrong."""
    from quizzer.bank.accounts import ROLES
    from quizzer.common.profiles import valid_name

    if str(path) != "-" and path.is_file() and path.stat().st_size > MAX_ROSTER_BYTES:
        raise UserError(f"a roster is at most {MAX_ROSTER_BYTES:,} bytes", where=str(path))
    text = read_text(path)
    if len(text) > MAX_ROSTER_BYTES:
        raise UserError(f"a roster is at most {MAX_ROSTER_BYTES:,} bytes", where=str(path))
    try:
        rows = list(csv.DictReader(io.StringIO(text.removeprefix("\ufeff"))))
    except csv.Error as exc:
        raise UserError(f"not a CSV file ({exc})", where=str(path)) from None
    if not rows or "name" not in rows[0]:
        raise UserError("needs a header row with a 'name' column (and optionally 'role')", where=str(path))
    if len(rows) > MAX_ROSTER_ROWS:
        raise UserError(f"at most {MAX_ROSTER_ROWS:,} learners in one roster", where=str(path))
    people: dict[str, str] = {}
    for line, row in enumerate(rows, start=2):
        where = f"{path}:{line}"
        name = valid_name(row.get("name") or "", where=where)
        role = (row.get("role") or "learner").strip().lower()
        if role not in ROLES:
            raise UserError(f"role {role!r}: use learner or teacher", where=where)
        if name in people:
            raise UserError(f"{name!r} is in the roster twice", where=where)
        people[name] = role
    return list(people.items())
