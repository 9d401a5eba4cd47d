"""The bank as every entry point wants it: open, with the bundled questions up to date."""

from __future__ import annotations

from sqlalchemy.engine import Engine
from sqlmodel import Session

from quizzer.bank.db import database_errors, new_session, open_bank
from quizzer.bank.location import database_url
from quizzer.bank.store import import_bundled, require_directory
from quizzer.templates.catalog import questions_dir


def open_ready_bank(url: str | None = None, *, cross_thread: bool = False) -> tuple[Engine, Session]:
    """Open the bank, import new or changed bundled templates (committed), and return a session;
    the caller closes the session and disposes of the engine.  A missing questions directory is
    reported before the bank is touched."""
    directory = require_directory(questions_dir())
    engine = open_bank(url, cross_thread=cross_thread)
    session = new_session(engine)
    try:
        with database_errors(database_url(url)):
            import_bundled(session=session, directory=directory)
            session.commit()
    except BaseException:
        session.close()
        engine.dispose()
        raise
    return engine, session
