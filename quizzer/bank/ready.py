"""The bank as every entry point wants it: open, with the bundled questions up to date."""

from __future__ import annotations

from sqlalchemy.engine import Engine
from sqlmodel import Session

from quizzer.bank.db import lock_setup, new_session, open_bank
from quizzer.bank.store import import_bundled
from quizzer.catalog import load_catalog, questions_dir


def open_ready_bank(url: str | None = None, *, cross_thread: bool = False) -> tuple[Engine, Session]:
    """Open the bank, import new or changed bundled templates (committed), and return a session;
    the caller closes the session and disposes of the engine."""
    engine = open_bank(url, cross_thread=cross_thread)
    session = new_session(engine)
    try:
        lock_setup(session.connection())  # learners starting together import the questions once
        import_bundled(session=session, catalog=load_catalog(), directory=questions_dir())
        session.commit()
    except BaseException:
        session.close()
        engine.dispose()
        raise
    return engine, session
