"""``quizzer scan``: scanned answer sheets graded into the bank (the scanner is :mod:`quizzer.scan`).

Imported by the command table; OpenCV, zxing-cpp, the bank and the queue's screen (``--confirm``, the
Textual app of :mod:`quizzer.tui.scan_app`) are imported inside the command.
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from quizzer.cli.parsing import arg, takes
from quizzer.cli.shared import bank_session
from quizzer.common.errors import UserError
from quizzer.common.untrusted import quoted

if TYPE_CHECKING:
    from quizzer.scan.manifest import Manifest
    from quizzer.scan.run import Outcome
    from quizzer.tui.scan_app import ScanQueueApp



def exam_time(text: str) -> datetime:
    """``2026-12-10`` or ``2026-12-10T09:30`` (UTC unless it names a zone)."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise UserError(f"expected a date such as 2026-12-10 or 2026-12-10T09:30, got {text[:40]!r}",
                        where="--date") from None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


@takes(
    arg("files", nargs="*", type=Path, metavar="FILE",
        help="Scanned pages: PDFs or images (PNG, JPEG, TIFF), from a scanner or a phone."),
    arg("--sheets", type=Path, required=True, metavar="MANIFEST",
        help="The exam-sheets.json that `export --answer-sheets` wrote beside the sheets."),
    arg("--roster", type=Path, required=True, metavar="CSV", help="The class: id,name (name: the profile)."),
    arg("--date", required=True, help="When the exam was sat (each answer's time): 2026-12-10[T09:30]."),
    arg("--queue", type=Path, metavar="CSV",
        help="The teacher's queue (default: beside the manifest, EXAM-queue.csv, images in EXAM-queue/)."),
    arg("--confirm", action="store_true",
        help="Then answer the queue in a screen (each field's image beside its reading) and record the answers."),
    arg("--dry-run", action="store_true", help="Read and grade, record nothing, leave the queue as it is."),
)
def scan(files: list[Path], sheets: Path, roster: Path, date: str, queue: Path | None, confirm: bool,
         dry_run: bool) -> None:
    """Read scanned answer sheets and record them as the students' attempts.

    Boxes the scanner is unsure of, written answers and pages without a known student go to a queue
    (a CSV with each field's image); answer it with --confirm, or fill its answer column and run the
    same command again: every answer is recorded once."""
    from quizzer.scan.manifest import load_manifest
    from quizzer.scan.run import read_files, read_queue
    from quizzer.scan.run import scan as scan_files
    from quizzer.templates.catalog import load_catalog

    if confirm and dry_run:
        raise UserError("--confirm records what you answer; --dry-run records nothing: give one of them",
                        where="--confirm")
    if confirm and not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UserError("--confirm opens a screen and needs a terminal (or fill the queue file's answer column)",
                        where="--confirm")
    manifest = load_manifest(sheets)
    class_list = _class(roster)
    at = exam_time(date)
    stem = sheets.stem.removesuffix("-sheets")
    queue = queue or sheets.with_name(f"{stem}-queue.csv")
    with bank_session() as session:
        catalog = load_catalog()
        stack = read_files(files, manifest)
        outcome = scan_files(stack, manifest, class_list, at, queue, session, catalog, dry_run=dry_run)
        if not dry_run:
            session.commit()
        _report(outcome, queue, dry_run)
        while confirm and outcome.open_rows:
            shown = len(read_queue(queue))
            if not confirm_queue(queue, manifest, roster, session, catalog):
                break
            class_list = _class(roster)  # the teacher may have added a student while answering
            outcome = scan_files(stack, manifest, class_list, at, queue, session, catalog)
            session.commit()
            print("\nWith your answers:")
            _report(outcome, queue, dry_run)
            if len(read_queue(queue)) == shown:
                break  # rows found since (a student's written answers, once the ID is known) open it again


def _class(roster: Path) -> dict[str, str]:
    from quizzer.scan.run import read_roster

    class_list = read_roster(roster)
    if not class_list:
        raise UserError("the roster lists no student", where=str(roster))
    return class_list


def _report(outcome: Outcome, queue: Path, dry_run: bool) -> None:
    verb = "graded" if dry_run else "recorded"
    for sheet in outcome.sheets:
        parts = [f"{sheet.recorded} answer(s) {verb}"
                 + (f" ({round(sheet.earned, 2):g} of their {sheet.points:g} marks)" if sheet.recorded else "")]
        parts += [f"{sheet.before} recorded before"] if sheet.before else []
        parts += [f"{sheet.waiting} waiting in the queue"] if sheet.waiting else []
        print(f"{sheet.name:<14} {sheet.profile:<20} {', '.join(parts)}")
    for text in outcome.duplicates:
        print(f"the same page again, read once: {text}")
    for text in outcome.errors:
        print(f"not recorded: {text}")
    answers = sum(sheet.recorded for sheet in outcome.sheets)
    print(f"{outcome.pages} page(s) read, {len(outcome.sheets)} student(s); {answers} answer(s) {verb}; "
          + (f"{outcome.open_rows} row(s) for you to answer in {queue} (or with --confirm)" if outcome.open_rows
             else "nothing waits for you" if not dry_run else "the queue is left as it was"))


def confirm_queue(queue: Path, manifest: Manifest, roster: Path, session: Any, catalog: Any) -> int:
    """The queue's screen, run in this terminal: how many rows the teacher answered (saved as they go)."""
    app = queue_app(queue, manifest, roster, session, catalog)
    before = sum(bool(row.answer) for row in app.rows)
    app.run()
    answered = sum(bool(row.answer) for row in app.rows) - before
    if answered:
        app.save()  # once more, whatever the screen's last save was doing at its close
    return answered


def queue_app(queue: Path, manifest: Manifest, roster: Path, session: Any, catalog: Any) -> ScanQueueApp:
    """The app that shows ``queue``'s rows, checks each typed answer as ``grade --batch`` reads it and saves
    the file at every answer (the tests drive it with Textual's pilot)."""
    import cv2

    from quizzer.learning.batch import BadLine, BatchGrader, Line
    from quizzer.scan.run import BLANK, read_queue, read_roster, save_answers
    from quizzer.tui.scan_app import ScanQueueApp

    rows = read_queue(queue)
    grader = BatchGrader(session, catalog, profile="scan", dry_run=True)
    fields = {(version, spec.name): spec for version, (_, specs) in manifest.versions.items() for spec in specs}

    def image(row: Any) -> Any:
        """The row's PNG, by its name inside the queue's folder only (None: missing or not an image)."""
        try:
            return cv2.imread(str(queue.with_suffix("") / Path(row.image).name), cv2.IMREAD_GRAYSCALE)
        except cv2.error:  # over OpenCV's pixel limit, which quizzer.scan.page sets
            return None

    def check(row: Any, text: str) -> str:
        """Why ``text`` cannot answer ``row`` ("" when it can)."""
        if text == BLANK:
            return ""
        if row.question == "student ID":
            if not text.isdigit():
                return f"a student ID is digits, not {quoted(text, 40)}"
            try:
                known = read_roster(roster)  # read again: the teacher may be adding the student right now
            except UserError as error:
                return str(error)  # a roster broken while the screen is open: said on the screen
            return "" if text in known else f"{text} is not on the roster: add it to {roster} first"
        spec = fields.get((row.sheet.partition("/")[0], row.question))
        if spec is None:
            return f"a page's row takes {BLANK} once you know what became of the page"
        try:
            grader.grade(Line(1, spec.key, spec.seed, text, "scan", None))
        except BadLine as bad:
            return str(bad).removeprefix("line 1: ")
        except UserError as error:  # the question's stored template no longer loads: said on the screen
            return str(error)
        return ""

    return ScanQueueApp(rows, image=image, check=check, save=lambda: save_answers(queue, rows), title=str(queue))
