"""What the command modules share: the arguments more than one command takes, the bank session,
and the small checks and readers more than one command needs.

Imports only ``quizzer.cli.parsing`` and ``quizzer.common`` at module level; the bank and the
catalogue are imported inside the functions that use them (the ORM only where a command writes,
filters or must set the bank up: ``one_question`` reads a current SQLite bank without it).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from quizzer.cli.parsing import arg, between
from quizzer.common.errors import UserError, did_you_mean

if TYPE_CHECKING:
    from sqlmodel import Session

    from quizzer.templates.validate import LoadedTemplate

JSON = arg("--json", dest="as_json", action="store_true", help="Print JSON.")
# Which questions `generate` and `export` take (each adds its own --seed).
SELECTION = (
    arg("-k", "--key", action="append", help="A question key (repeatable)."),
    arg("--topic", help="Questions on this topic id."),
    arg("--week", type=int, help="Questions of this week."),
    arg("--paper", help="The routed questions of this paper."),
    arg("-n", type=between(1, 1000), help="How many questions (default: all selected)."),
)


@contextmanager
def bank_session() -> Iterator[Session]:
    """Open the bank, bring the bundled questions up to date (and the attempts under the current
    scoring rules), and yield a session."""
    from quizzer.bank.db import database_errors
    from quizzer.learning.regrade import open_current_bank

    with database_errors():
        engine, session = open_current_bank()
        try:
            with session:
                yield session
        finally:
            engine.dispose()


def read_text(file: Path) -> str:
    """A UTF-8 file's text ('-': standard input), or a UserError naming it."""
    try:
        return sys.stdin.read() if str(file) == "-" else file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
        raise UserError(f"cannot read the file: {reason}", where=str(file)) from None


PRACTICE_PREFIX = "practice/"  # every bundled practice question's key starts with it


def validate_for_bank(files: list[Path], seeds: int) -> list[LoadedTemplate]:
    """``quizzer validate`` and ``quizzer add``: one validation, so a file is valid exactly when it would be
    added — with every export's rendering checked on every seed and the engine-slip report, both inside
    each template's validation budget (SECURITY.md)."""
    from quizzer.export.renderable import ExportCheck
    from quizzer.templates.validate import validate_files

    return validate_files(files, seeds=seeds, check=ExportCheck, slips=True)


def one_question(key: str) -> tuple[Any, int | None]:
    """The question a one-question command needs: its template and, for a routed ID that a part of a
    multi-part question carries, that part's index (else None).  Read with the standard library from
    a current SQLite bank (``bank.readonly``, no ORM), else through the ORM, which sets the bank up
    first and names an unknown key with a suggestion."""
    from quizzer.bank.readonly import current_templates

    # A practice question by the name the app's bank browser and history show (`warmup-rate`), as well as
    # by its key (`practice/warmup-rate`): the key itself first, so a question of that very name wins.
    candidates = [key] if "/" in key or " " in key else [key, PRACTICE_PREFIX + key]
    for candidate in candidates:
        templates = current_templates([candidate])
        if templates is not None:
            return templates[0], None
    from quizzer.bank.store import find_question, stored_template

    with bank_session() as session:
        for candidate in candidates[1:]:
            if stored_template(session=session, key=key) is None and stored_template(session=session,
                                                                                     key=candidate):
                return find_question(session=session, key=candidate)
        return find_question(session=session, key=key)


def check_filters(*, topic: str | None, paper: str | None) -> None:
    """Unknown topic or paper ids are bad input, not an empty result."""
    from quizzer.templates.catalog import load_catalog

    catalog = load_catalog()
    if topic and topic not in catalog.topics:
        hint = did_you_mean(topic, catalog.topics) or "; see 'quizzer topics'"
        raise UserError(f"unknown topic {topic!r}{hint}", where="--topic")
    if paper and paper not in catalog.papers:
        hint = did_you_mean(paper, catalog.papers) or f"; papers: {', '.join(catalog.papers)}"
        raise UserError(f"unknown paper {paper!r}{hint}", where="--paper")


def note_repeats(keys: list[str]) -> None:
    """Say on stderr when ``-n`` asked for more questions than the selection holds: the rest repeat its
    questions with other numbers (a teacher found Q113 three times on a paper of 40 and was not told)."""
    distinct = len(set(keys))
    if distinct < len(keys):
        match = "1 question matches" if distinct == 1 else f"{distinct} questions match"
        print(f"quizzer: note: {match}, so {len(keys) - distinct} of the {len(keys)} asked repeat "
              f"{'it' if distinct == 1 else 'one of them'} with other numbers", file=sys.stderr)
