"""A class's results from another system (an LMS's export, another scanner, R/exams' ``nops_eval``), read
for the item analysis: ``quizzer report --results FILE``.

The file is CSV, UTF-8, with the header ``learner,question,score[,version][,answered_at]``:

* ``learner``: who answered (any name or ID, 1–80 characters);
* ``question``: which question (1–200 characters);
* ``score``: the share of the question's marks earned, from 0 to 1 (``1`` right, ``0`` wrong, ``0.5`` half);
* ``version``: optional, the variant of the question this learner had (an exam's version code): the
  per-variant comparison of ``items`` uses it;
* ``answered_at``: optional, an ISO date or time; a learner's first try at a question is their earliest
  row for it (without times, the first in the file).

One row per learner and question answered; a question a learner did not answer has no row.  The file
is bounded (``MAX_BYTES``, ``MAX_ROWS``) and checked whole before anything is computed: a bad row is one
line naming the file, the line and the field (exit status 2).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from quizzer.common.errors import UserError
from quizzer.common.userfiles import csv_rows, read_bounded
from quizzer.reporting.classdata import ClassAttempt

MAX_BYTES = 50_000_000
MAX_ROWS = 1_000_000
REQUIRED = ("learner", "question", "score")
OPTIONAL = ("version", "answered_at")
START = datetime(2000, 1, 1, tzinfo=UTC)  # rows without a time keep the file's order from here


@dataclass(frozen=True)
class ImportedQuestion:
    """A question of imported results: all the item analysis reads of one (``classdata.Question``)."""

    title: str
    paper: str | None = None
    kind: str = "number"
    variables: tuple[str, ...] = ()


def read_results(path: Path) -> tuple[list[ClassAttempt], dict[str, ImportedQuestion]]:
    """The file's rows as attempts, and its questions by name."""
    text = read_bounded(path, limit=MAX_BYTES, what="a results file")
    reader = csv_rows(text, required=REQUIRED, optional=OPTIONAL, where=str(path),
                      shape="learner,question,score[,version][,answered_at]")
    attempts: list[ClassAttempt] = []
    questions: dict[str, ImportedQuestion] = {}
    for row in reader:
        where = f"{path}: line {reader.line_num}"
        if reader.line_num > MAX_ROWS + 1:
            raise UserError(f"more than {MAX_ROWS} rows", where=str(path))
        if None in row or any(value is None for value in row.values()):
            raise UserError(f"expected {len(reader.fieldnames or ())} fields, as in the header", where=where)
        learner, question = row["learner"].strip(), row["question"].strip()
        if not 1 <= len(learner) <= 80 or not 1 <= len(question) <= 200:
            raise UserError("learner (1–80 characters) and question (1–200) must be given", where=where)
        score = _score(row["score"], where)
        at = _time(row.get("answered_at") or "", where) or START + timedelta(microseconds=len(attempts))
        verdict = "correct" if score >= 1 else "partial" if score > 0 else "incorrect"
        attempts.append(ClassAttempt(learner=learner, key=question, seed=0, verdict=verdict, score=score,
                                     misconception=None, seconds=None, at=at,
                                     version=(row.get("version") or "").strip()))
        questions.setdefault(question, ImportedQuestion(question))
    if not attempts:
        raise UserError("no results in the file", where=str(path))
    return attempts, questions


def _score(text: str, where: str) -> float:
    try:
        score = float(text)
    except ValueError:
        score = math.nan
    if not 0 <= score <= 1:
        raise UserError(f"score must be a number from 0 to 1, got {text.strip()[:20]!r}", where=where)
    return score


def _time(text: str, where: str) -> datetime | None:
    if not text.strip():
        return None
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise UserError(f"answered_at must be an ISO date or time, got {text.strip()[:30]!r}", where=where) from None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment
