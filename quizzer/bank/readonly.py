"""The one-question commands' read path: templates by key from a SQLite bank that is already
current, read with the standard library's ``sqlite3`` (no ORM: importing SQLAlchemy and the
models took about 40 % of ``quizzer show``).

Every other way in (``open_current_bank``) first brings the bank up to date: creates or upgrades
the schema, imports new or changed bundled questions, syncs the catalogue, regrades attempts under
new scoring rules.  :func:`current_templates` answers only when all of that would do nothing —
the file exists and is writable, its schema version, scoring rules and catalogue digest are the
current ones and every bundled file's hash is in it — and every key is in it.  Otherwise it
returns None and the caller takes the ORM path, which does the work and reports every error as
before (an unknown key with a suggestion, a damaged file, PostgreSQL's errors).  So this path
never changes what a command prints; it only skips set-up that would be a no-op.

Templates are parsed by the same bounded loader as at import (``parse_stored``): a stored template
that no longer loads is one clear line, whichever path read it.  A key may name a part of a
multi-part question; which routed IDs the parts carry is kept in a Meta row written at import
(:func:`part_ids_record`), so a command parses its one template, not every multi-part question.
Likewise whether every bundled file is in the bank: a Meta row written at import
(:func:`questions_record`) answers from the files' ``stat`` while no file and no stored template
changed since; otherwise every file is read and hashed.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sqlite3
from collections.abc import Collection, Sequence
from contextlib import closing
from pathlib import Path

from quizzer.bank import CATALOG_DIGEST_KEY, PART_IDS_KEY, QUESTIONS_KEY, RULES_KEY, SCHEMA_VERSION, VERSION_KEY
from quizzer.bank.location import database_url
from quizzer.common.errors import TemplateError, UserError
from quizzer.grading.verdict import RULES_VERSION
from quizzer.templates import schema
from quizzer.templates.catalog import catalog_digest, questions_dir
from quizzer.templates.loader import load_text
from quizzer.templates.sources import changed_files, files_stat

READ_TIMEOUT_S = 2  # a bank held by a long write is left to the ORM path, which waits and reports


@functools.lru_cache(maxsize=1024)
def parse_stored(source: str, digest: str, key: str) -> schema.Template:
    """Parse a stored template once per content hash (the digest is the cache key's identity)."""
    try:
        return load_text(source, where=f"bank template {key!r}")
    except TemplateError as exc:
        raise UserError(f"the stored template no longer loads ({exc}); re-add its file") from None


def current_templates(keys: Sequence[str], url: str | None = None) -> list[schema.Template] | None:
    """The templates of ``keys`` (each once, ordered by week then key, as ``store.select_templates``
    orders them) from the bank ``url`` (default: ``QUIZZER_DB``), or None when only the ORM path can
    answer: not a SQLite file, not current, an unknown key, any SQLite error."""
    url = database_url(url)
    path = Path(url.removeprefix("sqlite:///"))
    wanted = sorted(set(keys))
    directory = questions_dir()
    if not (url.startswith("sqlite:///") and wanted and directory.is_dir() and path.is_file()
            and os.access(path, os.R_OK | os.W_OK)):  # an unwritable file is refused by the ORM path
        return None
    try:
        with closing(sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, timeout=READ_TIMEOUT_S)) as connection:
            connection.execute("BEGIN")  # one snapshot for every read below
            meta: dict[str, str] = dict(connection.execute(
                f"SELECT key, value FROM meta WHERE key IN ({', '.join('?' * len(_META_KEYS))})", _META_KEYS))
            if not _is_current(connection, meta, directory):
                return None
            rows = connection.execute(
                f"SELECT key, source_yaml, content_hash FROM template WHERE key IN ({', '.join('?' * len(wanted))})"
                " ORDER BY week, key", wanted).fetchall()
            part_ids = _part_ids(connection, meta.get(PART_IDS_KEY))
    except sqlite3.Error:
        return None
    # A routed ID that a part of a multi-part question carries names that part (``store.find_question``),
    # even where an older bank still holds a single question of that key: the ORM path resolves it.
    if len(rows) != len(wanted) or part_ids.intersection(wanted):
        return None
    return [parse_stored(source, digest, key) for key, source, digest in rows]


# The Meta rows the light path reads, in one query.
_META_KEYS = (VERSION_KEY, RULES_KEY, CATALOG_DIGEST_KEY, PART_IDS_KEY, QUESTIONS_KEY)
Chain = tuple[str, str, str]  # a multi-part question's row: key, source YAML, content hash


def part_ids_record(chains: Sequence[Chain]) -> str:
    """The Meta row's value for the bank's multi-part questions: the routed IDs their parts carry,
    and the content hashes they were read from (a row that no longer matches them is not used)."""
    return json.dumps({"hashes": sorted(digest for *_, digest in chains), "ids": sorted(_read_part_ids(chains))})


def _read_part_ids(chains: Sequence[Chain]) -> set[str]:
    return {part_id for key, source, digest in chains for part_id in parse_stored(source, digest, key).part_ids}


def _part_ids(connection: sqlite3.Connection, recorded: str | None) -> set[str]:
    """The routed IDs the bank's parts carry: from the Meta row (``recorded``) while it matches the
    stored multi-part questions, else read from them (a bank written before the row was kept)."""
    chains: list[Chain] = connection.execute(
        "SELECT key, source_yaml, content_hash FROM template WHERE kind = 'parts'").fetchall()
    try:
        record = json.loads(recorded) if recorded else None
    except ValueError:  # a damaged row is not trusted: the chains are read instead
        record = None
    if (isinstance(record, dict) and record.get("hashes") == sorted(digest for *_, digest in chains)
            and isinstance(record.get("ids"), list)):
        return set(record["ids"])
    return _read_part_ids(chains)


def _is_current(connection: sqlite3.Connection, meta: dict[str, str], directory: Path) -> bool:
    """Whether opening the bank through the ORM would change nothing (see the module's docstring)."""
    if (meta.get(VERSION_KEY) != str(SCHEMA_VERSION) or meta.get(RULES_KEY) != str(RULES_VERSION)
            or str(connection.execute("PRAGMA journal_mode").fetchone()[0]).lower() != "wal"
            or meta.get(CATALOG_DIGEST_KEY) != catalog_digest()):
        return False
    known = {digest for (digest,) in connection.execute("SELECT content_hash FROM template")}
    if meta.get(QUESTIONS_KEY) == questions_record(files_stat(directory), known):
        return True
    return not changed_files(directory, known)


def questions_record(stat: str, hashes: Collection[str]) -> str:
    """The Meta row's value once the bundled files (``files_stat``, taken before they were read) are
    imported: with the stored templates' hashes, so that a template added or changed since (``quizzer
    add``) does not match it either."""
    return hashlib.sha256("\n".join([stat, *sorted(hashes)]).encode()).hexdigest()
