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
``quizzer scan`` again.  The file keeps every row with its answer (the teacher's decisions, used again by
every later scan); new rows are added at its end.

**Recording** goes through ``grade --batch``'s path (:class:`~quizzer.learning.batch.BatchGrader`, the
same grading rules, mistakes and review cards as the app), with the exam's date as each attempt's time,
answer by answer: what the scanner is sure of at once, the rest when the teacher has answered its row.
An answer is recorded once: a question the student already has an attempt on at that time is left alone,
so scanning the stack again, or a page twice, changes nothing.  A blank question records nothing (the
app records no unanswered question either).
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
from quizzer.common.userfiles import csv_rows, read_bounded
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


@dataclass(frozen=True)
class SheetResult:
    """What one scan did with one student's sheet."""

    name: str  # VERSION/ID
    profile: str
    recorded: int  # answers recorded now
    earned: float  # their marks
    points: float  # out of
    before: int  # answers recorded by an earlier scan, left alone
    waiting: int  # answers in the teacher's queue


@dataclass
class Outcome:
    """What one scan did, for the command to print."""

    pages: int = 0
    sheets: list[SheetResult] = field(default_factory=list)
    queue: list[QueueRow] = field(default_factory=list)  # rows found this time
    open_rows: int = 0  # rows of the written queue the teacher has not answered
    errors: list[str] = field(default_factory=list)
    duplicates: list[str] = field(default_factory=list)


def read_roster(path: Path) -> dict[str, str]:
    """``id,name`` (name optional: the ID is then the profile's name) → student ID to profile name."""
    text = read_bounded(path, limit=MAX_ROSTER, what="a roster")
    reader = csv_rows(text, required=("id",), optional=("name",), shape="id[,name]", where=str(path),
                      heading="the roster's header")
    roster = {}
    for row in reader:
        row = {(k or "").strip(): (v or "").strip() for k, v in row.items()}
        student = row.get("id", "")
        if not student.isdigit():
            raise UserError(f"line {reader.line_num}: a student ID is digits, got {student[:20]!r}", where=str(path))
        roster[student] = valid_name(row.get("name") or student, where=f"{path}: line {reader.line_num}")
    return roster


def read_queue(path: Path) -> list[QueueRow]:
    """The queue as the teacher left it: every row so far, with the answers given."""
    if not path.exists():
        return []
    text = read_bounded(path, limit=MAX_ROSTER, what="the queue")
    reader = csv.DictReader(io.StringIO(text, newline=""))
    if tuple(reader.fieldnames or ()) != QUEUE_HEADER:
        raise UserError(f"line 1: the queue's header must be {','.join(QUEUE_HEADER)}", where=str(path))
    rows = []
    for row in reader:
        if None in row or any(value is None for value in row.values()):
            raise UserError(f"line {reader.line_num}: expected {len(QUEUE_HEADER)} fields", where=str(path))
        image = row["image"].split("/", 1)[1] if "/" in row["image"] else row["image"]
        rows.append(QueueRow(row["sheet"], row["question"], row["key"], row["reading"], row["why"], image,
                             row["answer"].strip()))
    return rows


@dataclass
class Stack:
    """The scanned pages, read once (a scan and the teacher's confirming both use them)."""

    count: int = 0  # pages in the files
    pages: list[ReadPage] = field(default_factory=list)
    unreadable: list[Unreadable] = field(default_factory=list)


def read_files(files: Sequence[Path], manifest: Manifest) -> Stack:
    stack = Stack()
    for path in files:
        try:
            images: list[PageImage] = load_pages(path)
        except Unreadable as bad:
            stack.unreadable.append(bad)
            continue
        for image in images:
            stack.count += 1
            try:
                stack.pages.append(read_page(image, manifest))
            except Unreadable as bad:
                stack.unreadable.append(bad)
    return stack


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


def sheet_lines(sheet: Sheet, manifest: Manifest, answers: dict[tuple[str, str], str], done: set[str],
                outcome: Outcome, images: dict[str, Any]) -> tuple[list[tuple[FieldSpec, str]], int, int]:
    """The answers to record from one sheet (not recorded before, not blank, not waiting for the teacher),
    how many were recorded before, and how many wait."""
    name = f"{sheet.version}/{sheet.student}"
    pages, fields = manifest.versions[sheet.version]
    for number in range(1, pages + 1):
        if number not in sheet.pages:
            outcome.queue.append(QueueRow(name, f"page {number}", why="page not scanned: its answers wait for it "
                                                                        "(write - here once you know it is lost)"))
    lines, before, waiting = [], 0, 0
    for spec in fields:
        page = sheet.pages.get(spec.page)
        if page is None:
            continue  # the missing page's row says it
        if spec.key in done:
            before += 1
            continue
        reading = read_field(spec, _ink(page, manifest))
        taught = answers.get((name, spec.name))
        if reading.doubt:
            row = QueueRow(name, spec.name, spec.key, _shown(reading), reading.doubt)
            row.image = _keep(images, row, page.crop(spec.rect))
            outcome.queue.append(row)
            if taught is None:
                waiting += 1
                continue
        answer = taught if reading.doubt else reading.answer
        if answer is not None and answer != BLANK:
            lines.append((spec, answer))
    return lines, before, waiting


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


def queue_text(path: Path, rows: Iterable[QueueRow]) -> bytes:
    """The queue file's CSV (each image named relative to the queue's folder, ``exam-queue/…``)."""
    folder = path.with_suffix("").name
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(QUEUE_HEADER)
    for row in rows:
        writer.writerow([row.sheet, row.question, row.key, row.reading, row.why,
                         f"{folder}/{row.image}" if row.image else "", row.answer])
    return buffer.getvalue().encode()


def save_answers(path: Path, rows: Sequence[QueueRow]) -> None:
    """The queue written again with the teacher's answers (the confirm screen's way of filling it in)."""
    from quizzer.common.files import write_files

    write_files([(path, queue_text(path, rows))])


def write_queue(path: Path, previous: Sequence[QueueRow], found: Sequence[QueueRow], images: dict[str, Any]) -> int:
    """The teacher's queue: every earlier row (with its answer), then the new ones with their images; how
    many rows have no answer yet."""
    import cv2

    from quizzer.common.files import write_files

    folder = path.with_suffix("")
    known = {(row.sheet, row.question) for row in previous}
    rows = [*previous, *(row for row in found if (row.sheet, row.question) not in known)]
    files = []
    for row in rows:
        if row.image in images and (row.sheet, row.question) not in known:
            ok, png = cv2.imencode(".png", images[row.image])
            if ok:
                files.append((folder / row.image, png.tobytes()))
    folder.mkdir(exist_ok=True)
    write_files([(path, queue_text(path, rows)), *files])
    return sum(not row.answer for row in rows)


def recorded_at(session: Any, profile: str, at: datetime) -> set[str]:
    """The questions (a part as ``KEY (b)``) ``profile`` has an answer to at ``at``: the exam's, recorded before."""
    from sqlmodel import col, select

    from quizzer.bank.models import Attempt, Learner
    from quizzer.templates.parts import part_name

    query = (select(Attempt.template_key, Attempt.part).join(Learner, col(Learner.id) == col(Attempt.learner_id))
             .where(Learner.name == profile, Attempt.created_at == at))
    return {part_name(key, part) for key, part in session.exec(query).all()}


def scan(stack: Stack, manifest: Manifest, roster: dict[str, str], at: datetime, queue: Path,
         session: Any, catalog: Any, *, dry_run: bool = False) -> Outcome:
    """Apply the teacher's answers in ``queue`` to the pages of ``stack`` (:func:`read_files`), record every
    answer that is sure and not recorded before (through ``grade --batch``'s path), and write the queue back."""
    from quizzer.learning.batch import BatchGrader, Line

    outcome = Outcome(pages=stack.count)
    previous = read_queue(queue)
    answers = {(row.sheet, row.question): row.answer for row in previous if row.answer}
    images: dict[str, Any] = {}
    pages = stack.pages
    for bad in stack.unreadable:
        row = QueueRow(bad.source, "page", why=bad.reason)
        if bad.image is not None:
            row.image = _keep(images, row, bad.image)
        outcome.queue.append(row)
    grader = BatchGrader(session, catalog, profile=next(iter(roster.values())), dry_run=dry_run, clock=lambda: at)
    for (version, student), sheet in sorted(sort_sheets(pages, manifest, roster, answers, outcome, images).items()):
        profile, name = roster[student], f"{version}/{student}"
        answered, before, waiting = sheet_lines(sheet, manifest, answers, recorded_at(session, profile, at),
                                                outcome, images)
        lines = [Line(number, spec.key, spec.seed, answer, profile, None)
                 for number, (spec, answer) in enumerate(answered, start=1)]
        earned, recorded = 0.0, 0
        for result in grader.results(iter(lines)):
            if "error" in result:
                spec = answered[result["line"] - 1][0]
                outcome.errors.append(f"{name} question {spec.name}: {result['error']}")
            else:
                earned, recorded = earned + result["earned"], recorded + 1
        points = sum(spec.points for spec, _ in answered)
        outcome.sheets.append(SheetResult(name, profile, recorded, earned, points, before, waiting))
    if not dry_run:
        outcome.open_rows = write_queue(queue, previous, outcome.queue, images)
    return outcome
