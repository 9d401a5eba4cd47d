"""The scanner on synthetic scans of filled-in sheets (``synthetic``), and ``quizzer scan`` as a teacher uses it.

The full run (30 versions × 40 students) is ``bench/bench_scan.py`` in ``make bench``; here a subset of
every condition: three versions, each at 150, 200 and 300 dpi, photographed badly.
"""

from __future__ import annotations

import asyncio
import csv
import functools
import random
import shutil
from datetime import UTC, datetime
from pathlib import Path

import cv2
import numpy as np
import pytest
from sqlmodel import select

from quizzer.bank.models import Attempt, Learner
from quizzer.grading.verdict import grade
from quizzer.scan.manifest import load_manifest
from quizzer.scan.page import PageImage, read_page
from quizzer.scan.readings import read_field, read_student_id, state
from quizzer.templates.instance import make_instance
from tests.bundled_templates import bundled
from tests.cli_runner import run
from tests.databases import bank_session
from tests.run_once import once_per_run
from tests.scan.synthetic import fill, photograph, render

pytestmark = pytest.mark.skipif(shutil.which("pdftoppm") is None, reason="needs pdftoppm (poppler-utils)")
EXAM = ("export", "--week", "2", "-n", "12", "--seed", "4812", "--format", "pdf", "--answer-sheets")


@pytest.fixture(scope="module")
def exam(tmp_path_factory: pytest.TempPathFactory, bundled_bank_file: Path) -> Path:
    """The folder of one exam of three versions (its papers, answer sheets and ``exam-sheets.json``), exported
    once per test run for this module's tests (``tests/run_once.py``: under pytest-xdist each worker exported
    its own): an export costs seconds, and the tests only read it (the bank records no exam; ``scan`` reads
    the manifest and the sheets)."""
    return Path(once_per_run(tmp_path_factory, "scan-exam", lambda folder: str(_export(folder, bundled_bank_file))))


def _export(folder: Path, bundled_bank_file: Path) -> Path:
    shutil.copyfile(bundled_bank_file, folder / "bank.sqlite")
    with pytest.MonkeyPatch.context() as env:
        env.setenv("QUIZZER_DB", str(folder / "bank.sqlite"))
        env.setenv("XDG_DATA_HOME", str(folder / "xdg"))
        code, out, err = run(*EXAM, "--versions", "3", "-o", str(folder / "exam.pdf"))
    assert code == 0, err
    return folder


@functools.cache
def _rendered(pdf: Path, dpi: int) -> tuple[np.ndarray, ...]:
    """pdftoppm's pages of a sheet, rendered once per run of a worker; ``fill`` draws on a copy."""
    pages = tuple(render(pdf, dpi))
    for pixels in pages:
        pixels.flags.writeable = False
    return pages


def test_synthetic_scans_read_box_by_box(exam: Path) -> None:
    manifest = load_manifest(exam / "exam-sheets.json")
    rng = random.Random(43)
    boxes = wrong = doubtful_sheets = sheets = misplaced = 0
    for version in "ABC":
        for dpi in (150, 200, 300):
            pages = _rendered(exam / f"exam-sheet-{version}.pdf", dpi)
            for _ in range(2):
                student = str(rng.randrange(10**7, 10**8))
                sheets += 1
                doubtful = False
                for number, pixels in enumerate(pages, start=1):
                    filled = fill(pixels, manifest, version, number, student, dpi, rng)
                    data = photograph(filled.pixels, rng)
                    page = read_page(PageImage("synthetic", cv2.imdecode(np.frombuffer(data, np.uint8), 0)),
                                     manifest)
                    ink = lambda box, p=page: p.ink(box, manifest.box)  # noqa: E731
                    identity = read_student_id(manifest.student_id, ink)
                    misplaced += (page.version, page.page) != (version, number) or identity.answer not in (None,
                                                                                                          student)
                    doubtful |= bool(identity.doubt)
                    for box, marked in filled.marked.items():
                        boxes += 1
                        read = state(ink(box))
                        wrong += read != "uncertain" and (read == "marked") != marked
                    for spec in manifest.versions[version][1]:
                        if spec.page == number and spec.type != "hand":
                            reading = read_field(spec, ink)
                            doubtful |= bool(reading.doubt)
                            assert reading.doubt or reading.answer == filled.answers[spec.name], (spec, reading)
                doubtful_sheets += doubtful
    assert misplaced == 0
    assert wrong <= boxes / 1000, f"{wrong} of {boxes} boxes misread"
    assert doubtful_sheets <= 0.02 * sheets, f"{doubtful_sheets} of {sheets} sheets queued"
    assert boxes > 3000


def _photos(exam: Path, tmp_path: Path, students: dict[str, str]) -> list[Path]:
    """Each student's filled-in sheet of their version, as JPEG photos in ``tmp_path``."""
    manifest = load_manifest(exam / "exam-sheets.json")
    rng, files = random.Random(7), []
    for student, version in students.items():
        for number, pixels in enumerate(_rendered(exam / f"exam-sheet-{version}.pdf", 200), start=1):
            path = tmp_path / f"scan-{student}-{number}.jpg"
            path.write_bytes(photograph(fill(pixels, manifest, version, number, student, 200, rng).pixels, rng))
            files.append(path)
    return files


def _attempts(url: Path) -> list[tuple[str, Attempt]]:
    with bank_session(url) as session:
        rows = session.exec(select(Learner.name, Attempt).join(Attempt, Learner.id == Attempt.learner_id)).all()
        return [(name, attempt) for name, attempt in rows]


def _answer(queue: Path) -> list[dict[str, str]]:
    """The teacher fills the queue: the unknown student's ID, and "no answer" for every written one."""
    rows = list(csv.DictReader(queue.open()))
    for row in rows:
        if not row["answer"]:
            row["answer"] = "33333333" if row["question"] == "student ID" else "-"
    with queue.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return rows


def _first_scan(exam: Path, tmp_path: Path, students: dict[str, str],
                roster: str) -> tuple[tuple[str, ...], list[Path]]:
    """The module's exam, each student's sheet photographed, and a first ``quizzer scan`` with ``roster``
    (``class.csv``; the queue is ``exam-queue.csv``): the command's arguments and the photos."""
    sheets = tmp_path / "exam-sheets.json"  # the queue and the page images are written beside it
    shutil.copyfile(exam / "exam-sheets.json", sheets)
    files = _photos(exam, tmp_path, students)
    (tmp_path / "class.csv").write_text(roster)
    scan = ("scan", "--sheets", str(sheets), "--roster", str(tmp_path / "class.csv"), "--date",
            "2026-12-10T09:00", *map(str, files))
    code, out, err = run(*scan)
    assert code == 0, err
    return scan, files


def test_scan_records_each_answer_once_through_the_queue(exam: Path, bundled_bank: Path, tmp_path: Path) -> None:
    scan, files = _first_scan(exam, tmp_path, {"11111111": "A", "22222222": "B", "33333333": "A"},
                              "id,name\n11111111,ada\n22222222,grace\n")
    roster, queue = tmp_path / "class.csv", tmp_path / "exam-queue.csv"
    rows = list(csv.DictReader(queue.open()))
    unknown = [row for row in rows if row["question"] == "student ID"]
    assert [row["reading"] for row in unknown] == ["33333333"]  # not on the roster: waits, never guessed
    assert all((tmp_path / row["image"]).is_file() for row in rows)
    written = {row["sheet"] for row in rows if row["why"] == "written answer: marked by hand"}
    assert written == {"A/11111111", "B/22222222"}  # the bubbled answers are recorded, the written ones wait
    first = _attempts(bundled_bank)
    assert {name for name, _ in first} == {"ada", "grace"}

    roster.write_text("id,name\n11111111,ada\n22222222,grace\n33333333,alan\n")
    _answer(queue)
    code, out, err = run(*scan)
    assert code == 0, err
    assert "recorded before" in out and "alan" in out, out
    _answer(queue)  # alan's written answers, found once his ID was known
    code, out, err = run(*scan)
    assert code == 0, err
    assert "nothing waits for you" in out, out
    recorded = _attempts(bundled_bank)
    assert {name for name, _ in recorded} == {"ada", "grace", "alan"}
    exam = datetime(2026, 12, 10, 9, 0, tzinfo=UTC)
    templates = bundled()
    for _, attempt in recorded:
        assert attempt.created_at.astimezone(UTC) == exam
        whole = make_instance(templates[attempt.template_key], attempt.seed)
        question = next(p.question for p in whole.parts if p.label == attempt.part) if attempt.part else whole
        verdict = grade(question.spec, attempt.response)  # the app's rules, on the very numbers printed
        assert (attempt.verdict, attempt.score, attempt.misconception) == (verdict.verdict, verdict.score,
                                                                           verdict.misconception)
    code, out, err = run(*scan, str(files[0]))  # the whole stack again, and one page twice
    assert code == 0, err
    assert "0 answer(s) recorded" in out and "the same page again" in out, out
    assert len(_attempts(bundled_bank)) == len(recorded)


def test_the_queue_answered_on_its_screen_is_recorded(exam: Path, bundled_bank: Path, tmp_path: Path) -> None:
    """`quizzer scan --confirm`'s screen on a real scan's queue: the unknown student's ID accepted as read
    (refused until the roster has it), every written answer given as "no answer"; the next scan records
    them."""
    async def scenario() -> None:
        from quizzer.cli.scanning import queue_app
        from quizzer.scan.manifest import load_manifest
        from quizzer.templates.catalog import load_catalog
        from quizzer.tui.screens.scan_queue import ScanQueueScreen
        from quizzer.tui.widgets.scan_crop import CropView

        scan, _ = _first_scan(exam, tmp_path, {"11111111": "A", "33333333": "B"}, "id,name\n11111111,ada\n")
        roster, queue = tmp_path / "class.csv", tmp_path / "exam-queue.csv"
        with bank_session(bundled_bank) as session:
            app = queue_app(queue, load_manifest(tmp_path / "exam-sheets.json"), roster, session, load_catalog())
            async with app.run_test(size=(120, 40)) as pilot:
                for _ in range(len(app.rows)):
                    await app.workers.wait_for_complete()
                    await pilot.pause()
                    screen = app.screen
                    assert isinstance(screen, ScanQueueScreen)
                    row = app.rows[screen.at]
                    assert screen.query_one(CropView).pixels is not None  # every row of this queue has its image
                    if row.question == "student ID":
                        roster.write_text("nonsense\n")  # broken while the screen is open: said there
                        await pilot.press("enter")
                        await app.workers.wait_for_complete()
                        await pilot.pause()
                        assert not row.answer and "the roster's header" in str(screen.query_one("#status").render())
                        roster.write_text("id,name\n11111111,ada\n")
                        await pilot.press("enter")  # 33333333 as read: not on the roster yet
                        await app.workers.wait_for_complete()
                        await pilot.pause()
                        assert not row.answer
                        roster.write_text("id,name\n11111111,ada\n33333333,alan\n")
                        await pilot.press("enter")
                    else:
                        assert row.why == "written answer: marked by hand"
                        await pilot.press("minus", "enter")
                await app.workers.wait_for_complete()
                assert all(row.answer for row in app.rows)
                await pilot.press("escape")
        saved = list(csv.DictReader(queue.open()))
        assert [row["answer"] for row in saved] == [row.answer for row in app.rows]  # saved as it went
        code, out, err = run(*scan)
        assert code == 0, err
        assert "alan" in out, out  # his page, now his: its written answers join the queue
        assert {name for name, _ in _attempts(bundled_bank)} == {"ada", "alan"}

    asyncio.run(scenario())
