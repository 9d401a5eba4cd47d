"""Grade many typed answers in one process: ``quizzer grade --batch FILE``.

This is how a teacher marks a class's answers collected elsewhere (a form, a transcribed paper).
The file is CSV with the header ``key,seed,answer[,learner,seconds,answered_at]``, or JSON Lines with
those fields (``{"key": …, "seed": …, "answer": …}``, ``learner``, ``seconds`` and ``answered_at``
optional); which one is told by its first character. ``answered_at`` (ISO-8601; no zone: UTC; never in
the future) records an answer given on paper or in another system at its real time: the learner's review
cards of the questions it answers are then replayed in time order (mastery and the plan are always
computed from the attempts in time order). A line answers one part of a multi-part question, named by
its key and label (``practice/warmup-chain (b)``) or by the part's routed ID. Each line is graded
exactly as the app grades it and, unless it is a dry run, recorded by :meth:`Study.record` — the one
path every answer takes — as an attempt of its learner (created if new; the current profile when the
line names none), with its review card. The answers, and the profiles of new learners, are committed
together after the last line, not one by one: a class's file is one piece of work, recorded whole or not
at all.

One result comes out per input line, in order, with the fields of ``quizzer grade --json`` and the
line number; a line that cannot be graded (an unknown key, a bad seed, an unreadable answer) gets
``{"line": n, "error": "…"}`` and the others are still graded.  The results are printed after the
commit, so no line is reported as recorded that is not in the bank.

The file is bounded (SECURITY.md): at most ``MAX_BATCH_BYTES`` and ``MAX_BATCH_LINES`` answers, read in
full before anything is graded (a CSV that cannot be parsed, or too many lines, is one line naming where,
and nothing is graded); each JSON line is one flat object; a key, an answer and a learner's name have
their lengths, a seed and the seconds their ranges, each refused on its own line.
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeVar

from sqlmodel import Session

from quizzer.bank.db import begin_write
from quizzer.bank.learners import ensure_learner
from quizzer.bank.store import part_keys, stored_template, template_keys
from quizzer.common.clock import Clock, utcnow
from quizzer.common.errors import UserError, did_you_mean
from quizzer.common.profiles import valid_name
from quizzer.common.untrusted import control_character, quoted
from quizzer.common.userfiles import csv_rows, json_depth, seconds_taken
from quizzer.grading.parse import MAX_ANSWER_CHARS
from quizzer.grading.parts import PartVerdict
from quizzer.grading.verdict import Verdict, grade
from quizzer.learning.study import Study
from quizzer.templates import MAX_SEED
from quizzer.templates.catalog import Catalog
from quizzer.templates.instance import Instance, make_instance
from quizzer.templates.parts import LABELS, PART_NAME
from quizzer.templates.schema import Template

REQUIRED = ("key", "seed", "answer")
OPTIONAL = ("learner", "seconds", "answered_at")
HEADER = "key,seed,answer[,learner,seconds,answered_at]"
MAX_BATCH_BYTES = 16 * 2**20  # a class of 300 answering 100 questions is about 3 MB
MAX_BATCH_LINES = 100_000
MAX_KEY_CHARS = 200
_SEED = re.compile(r"[0-9]{1,19}")  # MAX_SEED (2**63 - 1) has 19 digits: an exam's seeds use them all
INSTANCES_KEPT = 4096  # a class answering one paper shares a few (key, seed) pairs: compute each once
VERDICTS_KEPT = 65536
K = TypeVar("K")
V = TypeVar("V")


@dataclass(frozen=True)
class Line:
    """One answer to grade, as read from the file."""

    number: int
    key: str
    seed: int
    answer: str
    learner: str | None
    seconds: float | None
    answered_at: datetime | None = None


class BadLine(Exception):
    """A line that cannot be graded, and why."""

    def __init__(self, number: int, message: str) -> None:
        super().__init__(message)
        self.number = number


def read_lines(text: str, *, where: str | None = None) -> list[Line | BadLine]:
    """Every answer line of a CSV or JSON Lines file, or why it cannot be read; read in full first, so a
    file that cannot be read as a whole (broken CSV quoting, too many lines) is refused before anything is
    graded, with the line where it went wrong."""
    lines: list[Line | BadLine] = []
    reader = _json_lines(text) if text.lstrip().startswith("{") else _csv_lines(text, where)
    for line in reader:
        lines.append(line)
        if len(lines) > MAX_BATCH_LINES:
            raise UserError(f"line {line.number}: a batch holds at most {MAX_BATCH_LINES:,} answers; split the file",
                            where=where)
    return lines


def _csv_lines(text: str, where: str | None) -> Iterator[Line | BadLine]:
    reader = csv_rows(text, required=REQUIRED, optional=OPTIONAL, shape=HEADER,
                      where=where, heading="the CSV header")
    rows = iter(reader)
    while True:
        try:
            row = next(rows)
        except StopIteration:
            return
        except csv.Error as exc:  # an unclosed quote running to a field over the csv module's limit
            raise UserError(f"line {reader.line_num + 1}: not readable as CSV ({exc}); nothing was graded",
                            where=where) from None
        number = reader.line_num
        if None in row or any(value is None for value in row.values()):
            yield BadLine(number, f"expected {len(reader.fieldnames or ())} fields, as in the header")
            continue
        yield _line(number, row)


def _json_lines(text: str) -> Iterator[Line | BadLine]:
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        depth, _ = json_depth(raw)
        if depth > 1:  # measured before parsing: a line 200,000 brackets deep never reaches the parser
            yield BadLine(number, f"a line is one flat JSON object of keys and values; this one nests {depth:,} deep")
            continue
        try:
            record = json.loads(raw)
        except (ValueError, RecursionError) as exc:
            yield BadLine(number, f"not a JSON object ({exc.__class__.__name__})")
            continue
        if not isinstance(record, dict):
            yield BadLine(number, "not a JSON object")
            continue
        unknown = sorted(set(record) - set(REQUIRED + OPTIONAL))
        if unknown:
            yield BadLine(number, f"unknown field {unknown[0]!r}{did_you_mean(unknown[0], REQUIRED + OPTIONAL)}")
            continue
        yield _line(number, record)


def _line(number: int, record: dict[str, Any]) -> Line | BadLine:
    """Check one record's fields; every problem is the line's own error."""
    try:
        missing = [name for name in REQUIRED if record.get(name) in (None, "")]
        if missing:
            raise ValueError(f"missing {missing[0]!r}")
        key, answer = record["key"], record["answer"]
        if not isinstance(key, str) or not isinstance(answer, str | int | float) or isinstance(answer, bool):
            raise ValueError("'key' must be text and 'answer' text or a number")
        if len(key) > MAX_KEY_CHARS:
            raise ValueError(f"'key' is {len(key):,} characters long; a question key is at most {MAX_KEY_CHARS}")
        control = control_character(str(answer))
        if control:  # it would be stored, and shown again in the app's history
            raise ValueError(f"'answer' holds a {control}")
        if len(str(answer)) > MAX_ANSWER_CHARS:
            raise ValueError(f"'answer' is {len(str(answer)):,} characters long; an answer is at most "
                             f"{MAX_ANSWER_CHARS:,}, as in the answer box")
        learner = record.get("learner") or None
        if learner is not None:
            learner = valid_name(str(learner), where="'learner'")
        seconds = record.get("seconds")
        return Line(number, key.strip(), _seed(record["seed"]), str(answer), learner,
                    None if seconds in (None, "") else seconds_taken(seconds),
                    _answered_at(record.get("answered_at")))
    except (ValueError, UserError) as exc:
        return BadLine(number, str(exc))


def _seed(value: Any) -> int:
    text = str(value).strip()
    if isinstance(value, bool) or not _SEED.fullmatch(text) or int(text) > MAX_SEED:  # ASCII digits, not 5,000
        raise ValueError(f"'seed' must be a whole number from 0 to {MAX_SEED}, got {quoted(text, 40)}")
    return int(text)


def _answered_at(value: Any) -> datetime | None:
    """An ISO-8601 instant as aware UTC (no zone: UTC); in the future is an error."""
    if value in (None, ""):
        return None
    text = str(value).strip()
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise ValueError(f"'answered_at' must be an ISO-8601 instant such as 2026-06-01T18:00:00Z, "
                         f"got {quoted(text, 40)}") from None
    moment = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    if moment > utcnow():
        raise ValueError(f"'answered_at' {text} is in the future")  # parsed: an ISO instant, nothing unsafe
    return moment


class BatchGrader:
    """Grades lines against the bank's templates, recording each for its learner unless ``dry_run``."""

    def __init__(self, session: Session, catalog: Catalog, *, profile: str, dry_run: bool,
                 clock: Clock = utcnow) -> None:
        self.session, self.catalog, self.profile, self.dry_run = session, catalog, profile, dry_run
        self.clock = clock  # when the answers were given: now, or a paper exam's date (quizzer scan)
        # Parsed on first use: a batch answers a few of the bank's questions, and parsing them all
        # cost half a second before the first line was graded.
        self.templates: dict[str, Template | None] = {}
        self.parts = part_keys(session=session)  # a chain's part is graded on its own by its routed ID
        self.studies: dict[str, Study] = {}
        self.instances: dict[tuple[str, int], Instance] = {}
        self.verdicts: dict[tuple[str, int, str], Verdict] = {}
        self.dated: set[tuple[str, str]] = set()  # (learner, question) answered at a given time: replayed

    def results(self, lines: Iterable[Line | BadLine]) -> Iterator[dict[str, Any]]:
        """One result per line, in order: the verdict, or the line's error.  After the last one, the
        recorded answers are in the session, for the caller to commit."""
        for line in lines:
            if isinstance(line, BadLine):
                yield {"line": line.number, "error": str(line)}
                continue
            try:
                yield self.grade(line)
            except BadLine as bad:
                yield {"line": bad.number, "error": str(bad)}
        for study in self.studies.values():
            study.stage_for_commit()
        self._replay_dated()

    def grade(self, line: Line) -> dict[str, Any]:
        whole, part = self._instance(line)
        instance = whole.parts[part].question if part is not None else whole
        learner = line.learner or self.profile
        verdict = self._verdict(line, instance)
        if verdict.verdict == "invalid":  # checked before a learner is created for it
            raise BadLine(line.number, f"could not read the answer {quoted(line.answer, 60)}: {verdict.feedback}")
        if not self.dry_run and line.answered_at is not None:
            self.dated.add((learner, whole.key))
        if not self.dry_run and part is not None:
            self._study(learner).record_parts(whole, [(PartVerdict(whole.parts[part].label, verdict), line.answer)],
                                              line.seconds, at=line.answered_at)
        elif not self.dry_run:
            self._study(learner).record(instance, line.answer, verdict, line.seconds, at=line.answered_at)
        return {"line": line.number, "learner": learner,
                **verdict.to_json(line.key, line.seed, recorded=not self.dry_run),
                # marks: the question's points, scaled by the score (a select-all answer earns part of them)
                "points": instance.points, "earned": round(verdict.score * instance.points, 6)}

    def _verdict(self, line: Line, instance: Instance) -> Verdict:
        """Grading is pure, and a class types the same right answers and the same mistakes again and
        again: each distinct (question, seed, answer) is graded once."""
        return _remembered(self.verdicts, (line.key, line.seed, line.answer), VERDICTS_KEPT,
                           lambda: grade(instance.spec, line.answer))

    def _instance(self, line: Line) -> tuple[Instance, int | None]:
        """The instance a line answers, and the part of it, if any: a chain's part by its routed ID, or by its
        question's key and its label, ``KEY (b)`` (as history lists it: most parts carry no routed ID)."""
        labelled = PART_NAME.fullmatch(line.key)
        key, part = ((labelled["key"], LABELS.index(labelled["label"])) if labelled
                     else self.parts.get(line.key, (line.key, None)))
        template = self._template(key)
        if template is None:
            known = [*template_keys(session=self.session), *self.parts]
            raise BadLine(line.number, f"unknown question {quoted(line.key)}{did_you_mean(line.key, known)}")
        labels = LABELS[:len(template.parts or ())]
        if template.parts and part is None:
            raise BadLine(line.number, f"{line.key!r} is a multi-part question (parts {', '.join(labels)}): a line "
                                       f"answers one part, named '{key} (b)' or by its routed ID; or grade all "
                                       "parts together with 'quizzer grade KEY --seed N --answer … --answer …'")
        if part is not None and part >= len(labels):
            raise BadLine(line.number, f"{key!r} has no part ({LABELS[part]})" + (
                f": its parts are {', '.join(labels)}" if labels else ": it is a question of one part"))
        instance = _remembered(self.instances, (key, line.seed), INSTANCES_KEPT,
                               lambda: make_instance(template, line.seed))
        return instance, part

    def _replay_dated(self) -> None:
        """The review cards of questions answered with ``answered_at``, rebuilt from their answers in
        time order: an answer dated before the card's last review must not count as the latest."""
        if not self.dated:
            return
        self.session.flush()
        for name, key in sorted(self.dated):
            study = self.studies[name]
            template = self._template(key)
            if template is not None:
                study.replay_card(template)

    def _template(self, key: str) -> Template | None:
        if key not in self.templates:
            self.templates[key] = stored_template(session=self.session, key=key)
        return self.templates[key]

    def _study(self, name: str) -> Study:
        if name not in self.studies:
            # Under the write lock first: on SQLite, a savepoint opened outside a transaction would
            # commit at its release, and the new profile must wait for the batch's one commit.
            begin_write(self.session)
            learner = ensure_learner(session=self.session, name=name, commit=False)
            self.studies[name] = Study(self.session, self.catalog, learner, clock=self.clock, commit_each=False)
        return self.studies[name]


def _remembered(cache: dict[K, V], key: K, limit: int, compute: Callable[[], V]) -> V:
    """``cache[key]``, computed once; the cache starts afresh at ``limit`` entries, so memory stays bounded."""
    if key not in cache:
        if len(cache) >= limit:
            cache.clear()
        cache[key] = compute()
    return cache[key]
