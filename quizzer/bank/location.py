"""Where the bank is: ``QUIZZER_DB`` (a SQLAlchemy URL or a plain file path), else ``bank.sqlite``
in the user data directory.  No ORM here: the light read path needs the location too."""

from __future__ import annotations

import os
from pathlib import Path

POSTGRES_SCHEMES = ("postgresql", "postgres", "postgresql+psycopg")


def default_location() -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir("quizzer", appauthor=False)) / "bank.sqlite"


def database_url(value: str | None = None) -> str:
    """``QUIZZER_DB`` (URL or path), else the default file; PostgreSQL URLs name the psycopg driver."""
    value = value or os.environ.get("QUIZZER_DB") or str(default_location())
    if "://" not in value:
        return f"sqlite:///{Path(value).expanduser()}"
    scheme, rest = value.split("://", 1)
    return f"postgresql+psycopg://{rest}" if scheme in POSTGRES_SCHEMES else value
