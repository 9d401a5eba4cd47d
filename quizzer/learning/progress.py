"""A learner's progress as a JSON document: every attempt and review state, losslessly.

``quizzer progress export`` writes it, ``quizzer progress import`` reads it into a bank on
another machine.  Import is idempotent: an attempt is identified by its natural key
(question, seed, time, response), so importing a file twice adds nothing; a review state
replaces the bank's only when it is more recent.  Every function that touches the bank
takes a session and never creates one; import validates the whole document before it
writes anything, and the caller commits once.

A progress file is a file a user hands in, so it is bounded (SECURITY.md): at most
``MAX_PROGRESS_BYTES``, nesting measured before it is parsed, every text of a bounded length and free of
control characters, every number finite and in its range (a seed up to ``MAX_SEED``, seconds up to
``MAX_SECONDS``, a score that agrees with its verdict), every time plausible (not in the future, beyond
a review's due date), every misconception id one the catalogue knows.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)
from sqlmodel import Session, col, select

from quizzer import __version__
from quizzer.bank.learners import learner_named
from quizzer.bank.models import Attempt, Learner, ReviewCard, Template
from quizzer.common.clock import utcnow
from quizzer.common.errors import UserError, did_you_mean
from quizzer.common.files import write_checked
from quizzer.common.untrusted import control_character, quoted
from quizzer.common.userfiles import MAX_SECONDS, json_depth
from quizzer.grading.parse import MAX_ANSWER_CHARS
from quizzer.learning.mastery import as_utc
from quizzer.learning.review import ReviewState
from quizzer.templates import MAX_SEED
from quizzer.templates.catalog import load_catalog

FORMAT = "quizzer-progress"
FORMAT_VERSION = 2  # 2: attempts carry their part and follow-through (a multi-part question)
READABLE_VERSIONS = (1, 2)  # a version-1 file is a version-2 one with no parts
MAX_PROGRESS_BYTES = 8 * 2**20  # some 20,000 attempts (a term of 100 answers a day); importing it stays under 300 MB
MAX_PROGRESS_DEPTH = 5  # document → reviews → one review → its state → a list in it
FUTURE_SLACK = timedelta(days=1)  # clocks disagree: an attempt "tomorrow" is a clock, a year 9999 is not
MAX_DUE = timedelta(days=36_600)  # FSRS's longest interval is 100 years


def _plain(text: str) -> str:
    """Text that reaches a terminal (history, the report): no control characters."""
    control = control_character(text)
    if control:
        raise ValueError(f"{control} is not allowed")
    return text


def _past(moment: datetime) -> datetime:
    if moment > utcnow() + FUTURE_SLACK:
        raise ValueError(f"{moment.isoformat()} is in the future")
    return moment


def _due(moment: datetime) -> datetime:
    if moment > utcnow() + MAX_DUE:
        raise ValueError(f"{moment.isoformat()} is more than a hundred years away")
    return moment


def _known_misconception(name: str | None) -> str | None:
    if name is not None and name not in load_catalog().misconceptions:
        raise ValueError(f"unknown misconception {quoted(name, 40)} (see data/misconceptions.yaml)")
    return name


Key = Annotated[str, Field(min_length=1, max_length=200), AfterValidator(_plain)]
Past = Annotated[AwareDatetime, AfterValidator(_past)]


class _Strict(BaseModel):
    # allow_inf_nan: JSON has no Infinity or NaN, and Python's reader accepts them (a seconds of Infinity was
    # imported, and exported again as no JSON reader reads it).
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, allow_inf_nan=False)


class AttemptRecord(_Strict):
    template_key: Key
    seed: int = Field(ge=0, le=MAX_SEED)
    response: Annotated[str, Field(max_length=MAX_ANSWER_CHARS), AfterValidator(_plain)]
    verdict: Literal["correct", "incorrect", "partial"]
    score: float = Field(ge=0, le=1)
    misconception: Annotated[str | None, Field(max_length=80), AfterValidator(_known_misconception)]
    seconds: float | None = Field(ge=0, le=MAX_SECONDS)
    created_at: Past
    # A multi-part question's part and follow-through (bank schema 3); absent in older files.
    part: str | None = Field(default=None, pattern=r"^[a-h]$")
    carried_forward: bool = False

    @model_validator(mode="after")
    def _score_agrees(self) -> AttemptRecord:
        """quizzer scores "correct" 1, "incorrect" 0 and "partial" in between; anything else was not graded."""
        agrees = {"correct": self.score == 1, "incorrect": self.score == 0, "partial": 0 < self.score < 1}
        if not agrees[self.verdict]:
            raise ValueError(f"a {self.verdict!r} attempt cannot score {self.score:g}")
        return self


class ReviewRecord(_Strict):
    template_key: Key
    state: dict[str, Any]
    due: Annotated[AwareDatetime, AfterValidator(_due)]
    updated_at: Past

    @field_validator("state")
    @classmethod
    def _fsrs_card(cls, state: dict[str, Any]) -> dict[str, Any]:
        ReviewState.from_json(json.dumps(state))  # raises ValueError, reported with the field's location
        return state


class ProgressDocument(_Strict):
    format: Literal["quizzer-progress"]
    version: int
    profile: Annotated[str, Field(max_length=64), AfterValidator(_plain)]
    exported_at: Past
    quizzer: Annotated[str, Field(max_length=40), AfterValidator(_plain)]
    attempts: list[AttemptRecord]
    reviews: list[ReviewRecord]


@dataclass(frozen=True)
class ImportReport:
    profile: str
    source_profile: str
    attempts_added: int
    attempts_present: int
    reviews_added: int
    reviews_updated: int
    reviews_kept: int

    def summary(self) -> str:
        return (f"{self.attempts_added} attempt(s) added, {self.attempts_present} already present; "
                f"{self.reviews_added} review state(s) added, {self.reviews_updated} updated, "
                f"{self.reviews_kept} unchanged")


# --- export -------------------------------------------------------------------------------

def export_progress(*, session: Session, learner: Learner) -> dict[str, Any]:
    """The learner's attempts (oldest first) and review states as a JSON-ready document."""
    attempts = session.exec(select(Attempt).where(Attempt.learner_id == learner.id)
                            .order_by(col(Attempt.created_at), col(Attempt.id))).all()
    cards = session.exec(select(ReviewCard).where(ReviewCard.learner_id == learner.id)
                         .order_by(col(ReviewCard.template_key))).all()
    return {
        "format": FORMAT, "version": FORMAT_VERSION, "profile": learner.name,
        "exported_at": utcnow().isoformat(), "quizzer": __version__,
        "attempts": [{"template_key": a.template_key, "seed": a.seed, "response": a.response, "verdict": a.verdict,
                      "score": a.score, "misconception": a.misconception, "seconds": a.seconds,
                      "created_at": as_utc(a.created_at).isoformat(), "part": a.part,
                      "carried_forward": a.carried_forward} for a in attempts],
        "reviews": [{"template_key": c.template_key, "state": json.loads(c.state_json),
                     "due": as_utc(c.due).isoformat(), "updated_at": as_utc(c.updated_at).isoformat()}
                    for c in cards],
    }


def write_document(document: dict[str, Any], path: Path, *, force: bool) -> None:
    """Write JSON atomically: a crash leaves the old file or the new one, never half of one.
    An existing file is replaced only with ``force``."""
    write_checked(path, (document_text(document, where=str(path)) + "\n").encode("utf-8"), force=force)


def document_text(document: dict[str, Any], *, where: str) -> str:
    """The document as JSON text; JSON has no Infinity or NaN, so a bank holding one (damaged) is refused
    rather than written as a file no reader, this one included, would read back."""
    try:
        return json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False)
    except ValueError:
        raise UserError("the bank holds a number that is not finite (damaged?); nothing was written",
                        where=where) from None


# --- import -------------------------------------------------------------------------------

def read_document(text: str, *, where: str) -> ProgressDocument:
    """Parse and check a progress file; anything malformed is one UserError naming the place."""
    depth, line = json_depth(text)
    if depth > MAX_PROGRESS_DEPTH:  # measured before parsing: 200,000 brackets never reach the parser
        raise UserError(f"line {line}: nests {depth:,} deep; a progress file nests at most {MAX_PROGRESS_DEPTH}",
                        where=where)
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UserError(f"not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})", where=where) from None
    except ValueError as exc:  # a number of thousands of digits, which Python will not convert
        raise UserError(f"not a progress file: {str(exc)[:80]}", where=where) from None
    if not isinstance(raw, dict) or raw.get("format") != FORMAT:
        raise UserError(f"not a quizzer progress file (no \"format\": \"{FORMAT}\")", where=where)
    if raw.get("version") not in READABLE_VERSIONS:
        raise UserError(f"progress format version {raw.get('version')!r} is not one this quizzer reads "
                        f"({', '.join(map(str, READABLE_VERSIONS))})", where=where)
    try:
        return ProgressDocument.model_validate_json(text)
    except ValidationError as exc:
        error = exc.errors()[0]
        place = ".".join(str(part) for part in error["loc"])
        raise UserError(f"{place}: {error['msg'][:200]}", where=where) from None


def import_progress(*, session: Session, document: ProgressDocument, profile: str, where: str) -> ImportReport:
    """Add the document's attempts and review states to ``profile`` (created if new), all in the
    caller's transaction (it commits once).  Every question the document mentions must be in the
    bank; otherwise nothing is added."""
    _require_templates(session, document, where)
    learner = learner_named(session=session, name=profile) or Learner(name=profile)
    session.add(learner)
    session.flush()
    assert learner.id is not None, "a flushed learner"
    present = {_natural_key(a.template_key, a.seed, a.created_at, a.response, a.part)
               for a in session.exec(select(Attempt).where(Attempt.learner_id == learner.id)).all()}
    added = 0
    for record in document.attempts:
        key = _natural_key(record.template_key, record.seed, record.created_at, record.response, record.part)
        if key not in present:
            present.add(key)
            session.add(Attempt(learner_id=learner.id, **record.model_dump(exclude={"created_at"}),
                                created_at=as_utc(record.created_at)))
            added += 1
    reviews = _merge_reviews(session, document.reviews, learner)
    session.flush()
    return ImportReport(learner.name, document.profile, added, len(document.attempts) - added, *reviews)


def _merge_reviews(session: Session, records: list[ReviewRecord], learner: Learner) -> tuple[int, int, int]:
    """Insert missing review states; replace one only with a more recent state.  (added, updated, kept)"""
    assert learner.id is not None, "a flushed learner"
    counts = [0, 0, 0]
    for record in records:
        card = session.get(ReviewCard, (learner.id, record.template_key))
        if card is not None and as_utc(card.updated_at) >= as_utc(record.updated_at):
            counts[2] += 1
            continue
        counts[0 if card is None else 1] += 1
        card = card or ReviewCard(learner_id=learner.id, template_key=record.template_key, state_json="",
                                  due=record.due)
        card.state_json = json.dumps(record.state, sort_keys=True)  # as quizzer.learning.review stores it
        card.due, card.updated_at = as_utc(record.due), as_utc(record.updated_at)
        session.add(card)
    return counts[0], counts[1], counts[2]


def _require_templates(session: Session, document: ProgressDocument, where: str) -> None:
    known = set(session.exec(select(Template.key)).all())
    sections: tuple[tuple[str, Sequence[AttemptRecord | ReviewRecord]], ...] = (
        ("attempts", document.attempts), ("reviews", document.reviews))
    for field, records in sections:
        for index, record in enumerate(records):
            if record.template_key not in known:
                hint = did_you_mean(record.template_key, known) or "; add its template first ('quizzer add')"
                raise UserError(f"{field}.{index}.template_key: unknown question key {record.template_key!r}{hint}",
                                where=where)


def _natural_key(template_key: str, seed: int, created_at: datetime, response: str,
                 part: str | None) -> tuple[str, int, datetime, str, str | None]:
    """One answer, whichever bank holds it (the parts of one multi-part answer share the rest)."""
    return template_key, seed, as_utc(created_at), response, part
