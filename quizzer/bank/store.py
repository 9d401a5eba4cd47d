"""Reading and writing the bank.  Every function takes a session and never creates one.

The caller owns the transaction: importing a set of files is all-or-nothing
because the caller commits once, after every file has been validated.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import insert
from sqlmodel import Session, col, delete, select

from quizzer.bank import CATALOG_DIGEST_KEY, PART_IDS_KEY, QUESTIONS_KEY
from quizzer.bank.db import begin_write, lock_setup
from quizzer.bank.models import Attempt, Meta, RecordTopic, RoutedRecord, Template, TemplateTopic, Topic
from quizzer.bank.readonly import parse_stored, part_ids_record, questions_record
from quizzer.common.clock import utcnow
from quizzer.common.errors import UserError, did_you_mean
from quizzer.grading.verdict import Verdict
from quizzer.templates import schema
from quizzer.templates.catalog import Catalog, catalog_digest, load_catalog
from quizzer.templates.sources import changed_files, content_hash, files_stat
from quizzer.templates.validate import LoadedTemplate, validate_files


@dataclass
class ImportReport:
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)

    def summary(self) -> str:
        return f"{len(self.added)} added, {len(self.updated)} updated, {len(self.unchanged)} unchanged"


def sync_catalog(*, session: Session, catalog: Catalog | None = None) -> bool:
    """Bring topics and routed records up to date with the course catalogue (``catalog``: already
    read); True when they changed.

    Its files' digest is kept in Meta: while it matches, the start-up costs one small read
    instead of parsing the YAML and a hundred-odd merges."""
    if catalog_current(session=session):
        return False
    catalog = catalog or load_catalog()
    upsert_catalog(session=session, catalog=catalog)
    session.merge(Meta(key=CATALOG_DIGEST_KEY, value=catalog.digest))
    return True


def catalog_current(*, session: Session) -> bool:
    """Whether the bank's topics and routed records were synced from the catalogue files as they are."""
    stored = session.get(Meta, CATALOG_DIGEST_KEY)
    return stored is not None and stored.value == catalog_digest()


def upsert_catalog(*, session: Session, catalog: Catalog) -> None:
    """Upsert topics and routed records from the catalogue (idempotent).

    The rows already there are read first, one query a table: a row found among them is merged
    (updated where it differs), any other is added, and the new rows of a table go in one flush.  A merge of a
    row the session has not seen asks the database for it and flushes alone: on a new bank that was
    ~150 round trips, 60 % of a learner's first start apart from reading the questions."""
    # Held here so that each merge finds its row in the session (whose identity map holds rows weakly).
    topics = {row.id: row for row in session.exec(select(Topic)).all()}
    records = {row.id: row for row in session.exec(select(RoutedRecord)).all()}
    links = set(session.exec(select(RecordTopic.record_id, RecordTopic.topic_id)).all())
    with session.no_autoflush:
        for topic in catalog.topics.values():
            row = Topic(id=topic.id, name=topic.name, week=topic.week, section=topic.section,
                        pages=topic.pages, summary=topic.summary, prerequisites=" ".join(topic.prerequisites))
            if topic.id in topics:
                session.merge(row)
            else:
                session.add(row)
    session.flush()
    with session.no_autoflush:
        for record in catalog.records.values():
            routed = RoutedRecord(id=record.id, paper=record.paper, question=record.question)
            if record.id in records:
                session.merge(routed)
            else:
                session.add(routed)
    session.flush()  # the records before the links that name them (the flush orders no tables without relations)
    session.add_all(RecordTopic(record_id=record.id, topic_id=topic_id) for record in catalog.records.values()
                    for topic_id in dict.fromkeys(record.topics) if (record.id, topic_id) not in links)


def stored_hashes(*, session: Session) -> dict[str, str]:
    return dict(session.exec(select(Template.key, Template.content_hash)).all())


def import_templates(*, session: Session, loaded: Iterable[LoadedTemplate]) -> ImportReport:
    """Insert new templates and update changed ones by key and content hash; attempts are kept.
    The stored hashes are read under the write lock: another process importing at the same
    time waits, then finds these rows instead of inserting the same keys again."""
    report = ImportReport()
    begin_write(session)
    hashes = stored_hashes(session=session)
    for item in loaded:
        key, digest = item.template.key, content_hash(item.source)
        if hashes.get(key) == digest:
            report.unchanged.append(key)
            continue
        row = session.get(Template, key) or Template(key=key, source_yaml="", content_hash="", file="",
                                                      title="", week=0, kind="", difficulty=1)
        (report.updated if key in hashes else report.added).append(key)
        _fill(row, item, digest)
        session.add(row)
        session.exec(delete(TemplateTopic).where(col(TemplateTopic.template_key) == key))
        session.flush()
        for topic in item.template.topics:
            session.add(TemplateTopic(template_key=key, topic_id=topic))
    session.flush()
    if report.added or report.updated or session.get(Meta, PART_IDS_KEY) is None:
        chains = [(key, source, digest) for key, source, digest in session.exec(
            select(Template.key, Template.source_yaml, Template.content_hash).where(Template.kind == "parts"))]
        session.merge(Meta(key=PART_IDS_KEY, value=part_ids_record(chains)))
        session.flush()
    return report


def _fill(row: Template, item: LoadedTemplate, digest: str) -> None:
    t = item.template
    row.title, row.week, row.kind, row.difficulty, row.paper = t.title, t.week, t.kind, t.difficulty, t.paper
    row.source_yaml, row.content_hash, row.file, row.updated_at = item.source, digest, str(item.path), utcnow()


def get_template(*, session: Session, key: str) -> schema.Template:
    """The parsed template for ``key``; an unknown key is a UserError with a suggestion."""
    template = stored_template(session=session, key=key)
    if template is None:
        known = [*template_keys(session=session), *part_keys(session=session)]
        hint = did_you_mean(key, known, cutoff=0.5) or "; see 'quizzer list'"
        raise UserError(f"unknown question key {key!r}{hint}")
    return template


def stored_template(*, session: Session, key: str) -> schema.Template | None:
    """The parsed template for ``key``, or None when the bank has no such template."""
    row = session.get(Template, key)
    return None if row is None else parse_stored(row.source_yaml, row.content_hash, key)


def template_keys(*, session: Session) -> list[str]:
    """Every template key in the bank (nothing parsed)."""
    return list(session.exec(select(Template.key)).all())


def find_question(*, session: Session, key: str) -> tuple[schema.Template, int | None]:
    """The question ``key`` names: a template (part None), or the template one of whose parts carries
    ``key`` as its routed ID, and that part's index. A part wins over a template row of the same key: a
    bank opened before a chain was made one question keeps the old single question's row for its
    attempts."""
    found = part_keys(session=session).get(key)
    if found is not None:
        return get_template(session=session, key=found[0]), found[1]
    return get_template(session=session, key=key), None


def part_keys(*, session: Session) -> dict[str, tuple[str, int]]:
    """Every routed ID a part carries besides its question's own key -> (that key, the part's index)."""
    rows = session.exec(select(Template).where(Template.kind == "parts")).all()
    found: dict[str, tuple[str, int]] = {}
    for row in rows:
        template = parse_stored(row.source_yaml, row.content_hash, row.key)
        found |= {part_id: (row.key, i) for part_id, i in template.routed_parts.items()}
    return found


def all_templates(*, session: Session) -> list[schema.Template]:
    """Every template in the bank, parsed."""
    return [parse_stored(row.source_yaml, row.content_hash, row.key) for row in select_templates(session=session)]


def select_templates(*, session: Session, keys: Sequence[str] = (), topic: str | None = None,
                     week: int | None = None, paper: str | None = None) -> list[Template]:
    """Templates matching every given filter, ordered by week then key."""
    query = select(Template)
    if keys:
        query = query.where(col(Template.key).in_(keys))
    if topic:
        query = query.join(TemplateTopic).where(TemplateTopic.topic_id == topic)
    if week is not None:
        query = query.where(Template.week == week)
    if paper:
        query = query.where(Template.paper == paper)
    return list(session.exec(query.order_by(col(Template.week), col(Template.key))).all())


def template_topics(*, session: Session) -> dict[str, list[str]]:
    links: dict[str, list[str]] = {}
    for key, topic in session.exec(select(TemplateTopic.template_key, TemplateTopic.topic_id)).all():
        links.setdefault(key, []).append(topic)
    return links


def record_attempt(*, session: Session, learner_id: int, key: str, seed: int, response: str, verdict: Verdict,
                   seconds: float | None = None, at: datetime | None = None, part: str | None = None,
                   carried_forward: bool = False) -> Attempt:
    """Store one learner's graded attempt (never an invalid one) and commit it at once: nothing
    answered is lost.  ``at`` is when it was graded (UTC; default now), so a study session's clock
    is the one recorded."""
    attempt = Attempt(**attempt_row(learner_id=learner_id, key=key, seed=seed, response=response, verdict=verdict,
                                    seconds=seconds, at=at, part=part, carried_forward=carried_forward))
    session.add(attempt)
    session.commit()
    session.refresh(attempt)
    return attempt


def attempt_row(*, learner_id: int, key: str, seed: int, response: str, verdict: Verdict,
                seconds: float | None = None, at: datetime | None = None, part: str | None = None,
                carried_forward: bool = False) -> dict[str, Any]:
    """The columns of one graded attempt (never an invalid one), for one row or for many at once;
    ``part``: which part of a multi-part question it answers."""
    if verdict.verdict == "invalid":
        raise ValueError("invalid responses are not attempts")
    return {"learner_id": learner_id, "template_key": key, "seed": seed, "response": response,
            "verdict": verdict.verdict, "score": verdict.score, "misconception": verdict.misconception,
            "seconds": seconds, "created_at": at or utcnow(), "part": part, "carried_forward": carried_forward}


def insert_attempts(*, session: Session, rows: Sequence[dict[str, Any]]) -> None:
    """Many attempts (a class's batch) in one statement, in the caller's transaction: the ORM's
    per-object bookkeeping was most of the cost of recording ten thousand answers."""
    if rows:
        session.execute(insert(Attempt), list(rows))


def require_directory(directory: Path) -> Path:
    """The bundled questions directory, or a UserError saying it is missing."""
    if not directory.is_dir():
        raise UserError("the bundled questions directory is missing", where=str(directory))
    return directory


def import_bundled(*, session: Session, directory: Path) -> ImportReport:
    """Bring the bank up to date with the course catalogue and the bundled ``questions/``: only new
    or changed files are validated (they were test-rendered over many seeds by ``make test``; here
    one seed proves they load)."""
    require_directory(directory)
    stat = files_stat(directory)  # before the files are read: one written meanwhile will not match it
    changed = changed_files(directory, set(stored_hashes(session=session).values()))
    catalog_stale = not catalog_current(session=session)
    if not changed and not catalog_stale:
        return ImportReport()  # the usual start: nothing to write, so no lock is taken
    # Reading and test-rendering the files comes before the set-up lock, not under it: on a
    # loaded machine it takes longer than SQLite's busy timeout, and learners starting together
    # on a new bank, all waiting for that lock, gave up with "the database stayed locked".  Under
    # the lock only the writes remain (milliseconds); each process looks again there and skips
    # what another one has just imported.
    loaded = validate_files(changed, seeds=1)
    catalog = load_catalog() if catalog_stale else None
    lock_setup(session.connection())
    sync_catalog(session=session, catalog=catalog)
    report = import_templates(session=session, loaded=loaded)
    # What the light read path checks instead of reading every file again (``readonly``).
    session.merge(Meta(key=QUESTIONS_KEY, value=questions_record(stat, stored_hashes(session=session).values())))
    return report

