"""``quizzer scan``: scanned answer sheets graded into the bank (the scanner is :mod:`quizzer.scan`).

Imported by the command table; OpenCV, zxing-cpp and the bank are imported inside the command.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from quizzer.cli.parsing import arg, takes
from quizzer.cli.shared import bank_session
from quizzer.common.errors import UserError


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
    arg("--dry-run", action="store_true", help="Read and grade, record nothing, leave the queue as it is."),
)
def scan(files: list[Path], sheets: Path, roster: Path, date: str, queue: Path | None, dry_run: bool) -> None:
    """Read scanned answer sheets and record them as the students' attempts.

    Boxes the scanner is unsure of, written answers and pages without a known student go to a queue
    (a CSV with each field's image); fill its answer column and run the same command again: every
    answer is recorded once."""
    from quizzer.scan.manifest import load_manifest
    from quizzer.scan.run import read_roster
    from quizzer.scan.run import scan as scan_files
    from quizzer.templates.catalog import load_catalog

    manifest = load_manifest(sheets)
    class_list = read_roster(roster)
    if not class_list:
        raise UserError("the roster lists no student", where=str(roster))
    at = exam_time(date)
    stem = sheets.stem.removesuffix("-sheets")
    queue = queue or sheets.with_name(f"{stem}-queue.csv")
    with bank_session() as session:
        outcome = scan_files(files, manifest, class_list, at, queue, session, load_catalog(), dry_run=dry_run)
        if not dry_run:
            session.commit()
    verb = "graded" if dry_run else "recorded"
    for sheet in outcome.sheets:
        parts = [f"{sheet.recorded} answer(s) {verb} ({round(sheet.earned, 2):g} of their {sheet.points:g} marks)"]
        parts += [f"{sheet.before} recorded before"] if sheet.before else []
        parts += [f"{sheet.waiting} waiting in the queue"] if sheet.waiting else []
        print(f"{sheet.name:<14} {sheet.profile:<20} {', '.join(parts)}")
    for text in outcome.duplicates:
        print(f"the same page again, read once: {text}")
    for text in outcome.errors:
        print(f"not recorded: {text}")
    answers = sum(sheet.recorded for sheet in outcome.sheets)
    print(f"{outcome.pages} page(s) read, {len(outcome.sheets)} student(s); {answers} answer(s) {verb}; "
          + (f"{outcome.open_rows} row(s) for you to fill in {queue}" if outcome.open_rows
             else "nothing waits for you" if not dry_run else "the queue is left as it was"))
