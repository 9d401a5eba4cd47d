"""One ``quizzer scan``: pages → sheets → the teacher's queue, and complete sheets graded and recorded.

**Sheets.**  A page belongs to the sheet of its QR code's version and of the student ID marked on it
(every page carries the ID grid, so a page that came loose is still the student's).  The ID is looked up
in the roster (``id,name``: the profile the answers go to).  A page whose ID is unreadable, or not on the
roster, waits for the teacher: nothing is ever given to a student by a guess.  The same page scanned
twice is read once.

**The queue** is a CSV beside the manifest (``exam-queue.csv``; the images in ``exam-queue/``): one row
per field the scanner doubts (with the reason, and the field's image, as the student left it), per
written answer (a frame marked by hand: the teacher types what the student wrote, and quizzer grades it
by the app's rules), per page without an ID or with one not on the roster, and per missing page.  The
teacher fills the ``answer`` column (``-`` for "no answer"; for a student ID, the ID) and runs the same
``quizzer scan`` again: the answers are applied, the sheets now complete are recorded, and the rows
still open are written back.

**Recording** goes through ``grade --batch``'s path (:class:`~quizzer.learning.batch.BatchGrader`, the
same grading rules, mistakes and review cards as the app), with the exam's date as each attempt's time.
A sheet is recorded once: a student who already has an attempt at that time on one of the sheet's
questions is skipped ("already recorded"), so scanning the stack again changes nothing.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from quizzer.common.errors import UserError
from quizzer.common.profiles import valid_name
from quizzer.scan.manifest import FieldSpec, Manifest
from quizzer.scan.page import PageImage, ReadPage, Unreadable, load_pages, read_page
from quizzer.scan.readings import Darkness, Reading, read_field, read_student_id

QUEUE_HEADER = ("sheet", "question", "key", "reading", "why", "image", "answer")
MAX_ROSTER = 5_000_000
BLANK = "-"


@dataclass
class QueueRow:
    sheet: str  # "VERSION/ID", or the page's source when its student is not known
    question: str  # a field's name, "student ID" or "page N"
    key: str = ""
    reading: str = ""
    why: str = ""
    image: str = ""
    answer: str = ""  # the teacher's


@dataclass
class Sheet:
    version: str
    student: str
    pages: dict[int, ReadPage] = field(default_factory=dict)


@dataclass
class Outcome:
    """What one scan did, for the command to print."""

    pages: int = 0
    recorded: list[tuple[str, str, float, float, int]] = field(default_factory=list)  # sheet, profile, marks…
    already: list[str] = field(default_factory=list)
    waiting: set[str] = field(default_factory=set)
    queue: list[QueueRow] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    duplicates: list[str] = field(default_factory=list)


def read_roster(path: Path) -> dict[str, str]:
    """``id,name`` (name optional: the ID is then the profile's name) → student ID to profile name."""
    try:
        if path.stat().st_size > MAX_ROSTER:
            raise UserError("the roster is over 5 MB", where=str(path))
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
        raise UserError(f"cannot read the roster: {reason}", where=str(path)) from None
    reader = csv.DictReader(io.StringIO(text, newline=""))
    if not reader.fieldnames or "id" not in [name.strip() for name in reader.fieldnames]:
        raise UserError("line 1: the roster's header must be id[,name]", where=str(path))
    roster = {}
    for row in reader:
        row = {(k or "").strip(): (v or "").strip() for k, v in row.items()}
        student = row.get("id", "")
        if not student.isdigit():
            raise UserError(f"line {reader.line_num}: a student ID is digits, got {student[:20]!r}", where=str(path))
        roster[student] = valid_name(row.get("name") or student, where=f"{path}: line {reader.line_num}")
    return roster


def read_queue(path: Path) -> dict[tuple[str, str], str]:
    """The teacher's answers in an earlier queue: (sheet, question) → answer."""
    if not path.exists():
        return {}
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError):
        raise UserError("cannot read the queue (UTF-8 CSV)", where=str(path)) from None
    reader = csv.DictReader(io.StringIO(text, newline=""))
    if tuple(reader.fieldnames or ()) != QUEUE_HEADER:
        raise UserError(f"line 1: the queue's header must be {','.join(QUEUE_HEADER)}", where=str(path))
    return {(row["sheet"], row["question"]): row["answer"].strip() for row in reader if (row["answer"] or "").strip()}


def read_files(files: Sequence[Path], manifest: Manifest, outcome: Outcome) -> tuple[list[ReadPage], list[Unreadable]]:
    pages, unreadable = [], []
    for path in files:
        try:
            images: list[PageImage] = load_pages(path)
        except Unreadable as bad:
            unreadable.append(bad)
            continue
        for image in images:
            outcome.pages += 1
            try:
                pages.append(read_page(image, manifest))
            except Unreadable as bad:
                unreadable.append(bad)
    return pages, unreadable


def sort_sheets(pages: Iterable[ReadPage], manifest: Manifest, roster: dict[str, str],
                answers: dict[tuple[str, str], str], outcome: Outcome,
                images: dict[str, Any]) -> dict[tuple[str, str], Sheet]:
    """Pages grouped by (version, student ID); a page whose student is not known goes to the queue."""
    sheets: dict[tuple[str, str], Sheet] = {}
    for page in pages:
        reading = read_student_id(manifest.student_id, _ink(page, manifest))
        student = answers.get((page.source, "student ID"), reading.answer or "")
        if not student or student not in roster:
            why = reading.doubt or f"student ID {student} is not on the roster"
            row = QueueRow(page.source, "student ID", reading=reading.answer or "", why=why)
            row.image = _keep(images, row, page.crop(_id_rect(manifest)))
            outcome.queue.append(row)
            continue
        sheet = sheets.setdefault((page.version, student), Sheet(page.version, student))
        if page.page in sheet.pages:
            outcome.duplicates.append(f"{page.source} (version {page.version} page {page.page} of {student} again)")
            continue
        sheet.pages[page.page] = page
    return sheets


def sheet_answers(sheet: Sheet, manifest: Manifest, answers: dict[tuple[str, str], str], outcome: Outcome,
                  images: dict[str, Any]) -> list[tuple[FieldSpec, str]] | None:
    """The sheet's answers (blank fields left out), or None when some still wait for the teacher."""
    name = f"{sheet.version}/{sheet.student}"
    pages, fields = manifest.versions[sheet.version]
    complete = True
    for number in range(1, pages + 1):
        if number not in sheet.pages and (name, f"page {number}") not in answers:
            outcome.queue.append(QueueRow(name, f"page {number}", why="page not scanned: scan it, or write - to "
                                                                        "count its questions unanswered"))
            complete = False
    result = []
    for spec in fields:
        page = sheet.pages.get(spec.page)
        if page is None:
            continue  # the missing page's row says it
        reading = read_field(spec, _ink(page, manifest))
        taught = answers.get((name, spec.name))
        if reading.doubt and taught is None:
            row = QueueRow(name, spec.name, spec.key, _shown(reading), reading.doubt)
            row.image = _keep(images, row, page.crop(spec.rect))
            outcome.queue.append(row)
            complete = False
            continue
        answer = taught if reading.doubt else reading.answer
        if answer is not None and answer != BLANK:
            result.append((spec, answer))
    return result if complete else None


def _ink(page: ReadPage, manifest: Manifest) -> Darkness:
    return lambda box: page.ink(box, manifest.box)


def _shown(reading: Reading) -> str:
    return reading.answer or ""


def _id_rect(manifest: Manifest) -> tuple[float, float, float, float]:
    columns = manifest.student_id
    x, y = columns[0][0]
    return x - 6.0, y - 12.0, columns[-1][0][0] - x + manifest.box + 8.0, columns[0][-1][1] - y + manifest.box + 13.0


def _keep(images: dict[str, Any], row: QueueRow, pixels: Any) -> str:
    """Name the image for a queue row (written with the queue)."""
    name = re.sub(r"[^A-Za-z0-9]+", "-", f"{row.sheet}-{row.question}").strip("-")[:120] + ".png"
    images[name] = pixels
    return name


def write_queue(path: Path, rows: Sequence[QueueRow], images: dict[str, Any],
                answers: dict[tuple[str, str], str]) -> None:
    """The open rows (with any answer the teacher already gave that could not be used yet), and their images."""
    import cv2

    from quizzer.common.files import write_files

    folder = path.with_suffix("")
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(QUEUE_HEADER)
    files = []
    for row in rows:
        image = f"{folder.name}/{row.image}" if row.image else ""
        writer.writerow([row.sheet, row.question, row.key, row.reading, row.why, image,
                         answers.get((row.sheet, row.question), "")])
        if row.image:
            ok, png = cv2.imencode(".png", images[row.image])
            if ok:
                files.append((folder / row.image, png.tobytes()))
    folder.mkdir(exist_ok=True)
    write_files([(path, buffer.getvalue().encode()), *files])


def already_recorded(session: Any, profile: str, keys: Iterable[str], at: datetime) -> bool:
    """Whether ``profile`` has an attempt at ``at`` on one of ``keys`` (a part's key names its question)."""
    from sqlmodel import col, select

    from quizzer.bank.models import Attempt, Learner
    from quizzer.templates.parts import PART_NAME

    bases = {match["key"] if (match := PART_NAME.fullmatch(key)) else key for key in keys}
    query = (select(Attempt.id).join(Learner, col(Learner.id) == col(Attempt.learner_id))
             .where(Learner.name == profile, col(Attempt.template_key).in_(bases), Attempt.created_at == at).limit(1))
    return session.exec(query).first() is not None


def record(session: Any, catalog: Any, complete: dict[tuple[str, str], list[tuple[FieldSpec, str]]],
           manifest: Manifest, roster: dict[str, str], at: datetime, outcome: Outcome, *, dry_run: bool) -> None:
    """Grade and record every complete sheet not recorded before, through ``grade --batch``'s path."""
    from quizzer.learning.batch import BatchGrader, Line

    grader = BatchGrader(session, catalog, profile=next(iter(roster.values())), dry_run=dry_run, clock=lambda: at)
    for (version, student), answered in sorted(complete.items()):
        profile, name = roster[student], f"{version}/{student}"
        lines = [Line(number, spec.key, spec.seed, answer, profile, None)
                 for number, (spec, answer) in enumerate(answered, start=1)]
        earned = 0.0
        for result in grader.results(iter(lines)):
            if "error" in result:
                spec = answered[result["line"] - 1][0]
                outcome.errors.append(f"{name} question {spec.name}: {result['error']}")
            else:
                earned += result["earned"]
        total = sum(spec.points for spec in manifest.versions[version][1])
        outcome.recorded.append((name, profile, earned, total, len(lines)))


def scan(files: Sequence[Path], manifest: Manifest, roster: dict[str, str], at: datetime, queue: Path,
         session: Any, catalog: Any, *, dry_run: bool = False) -> Outcome:
    """Read ``files``, apply the teacher's answers in ``queue``, record the complete sheets, rewrite the queue."""
    outcome = Outcome()
    answers = read_queue(queue)
    images: dict[str, Any] = {}
    pages, unreadable = read_files(files, manifest, outcome)
    for bad in unreadable:
        row = QueueRow(bad.source, "page", why=bad.reason)
        if bad.image is not None:
            row.image = _keep(images, row, bad.image)
        outcome.queue.append(row)
    sheets = sort_sheets(pages, manifest, roster, answers, outcome, images)
    complete = {}
    for key, sheet in sorted(sheets.items()):
        every_key = (spec.key for spec in manifest.versions[sheet.version][1])
        if already_recorded(session, roster[sheet.student], every_key, at):  # its queue rows are done with
            outcome.already.append(f"{sheet.version}/{sheet.student}")
            continue
        answered = sheet_answers(sheet, manifest, answers, outcome, images)
        if answered is None:
            outcome.waiting.add(f"{sheet.version}/{sheet.student}")
        else:
            complete[key] = answered
    record(session, catalog, complete, manifest, roster, at, outcome, dry_run=dry_run)
    if not dry_run:
        write_queue(queue, outcome.queue, images, answers)
    return outcome
