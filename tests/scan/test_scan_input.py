"""What ``quizzer scan`` does with files it cannot use, and how a field's boxes become an answer
(``quizzer.scan.readings``, pure: checked box pattern by box pattern)."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest

from quizzer.scan.manifest import FieldSpec
from quizzer.scan.readings import read_field, read_student_id
from tests.cli_runner import run

MARKED, EMPTY, FILLED, FAINT = (0.4, 0.05), (0.02, 0.0), (0.95, 0.9), (0.11, 0.0)


def _grid(columns: int, x0: float = 0.0) -> tuple[tuple[tuple[float, float], ...], ...]:
    return tuple(tuple((x0 + c, float(d)) for d in range(10)) for c in range(columns))


def _number(kind: str, columns: int) -> FieldSpec:
    return FieldSpec(name="7", key="k", seed=0, kind=kind, type=kind, points=2, page=1, rect=(0, 0, 1, 1),
                     sign=(-1.0, 0.0), digits=_grid(columns), exponent_sign=(-2.0, 0.0) if kind == "number" else None,
                     exponent=_grid(2, 100.0) if kind == "number" else ())


def _ink(marks: dict[tuple[float, float], tuple[float, float]]):  # type: ignore[no-untyped-def]
    return lambda box: marks.get(box, EMPTY)


@pytest.mark.parametrize(("marks", "answer", "doubt"), [
    ({(0.0, 3.0): MARKED, (1.0, 4.0): MARKED, (2.0, 7.0): MARKED}, "3.47", ""),
    ({(-1.0, 0.0): MARKED, (0.0, 3.0): MARKED, (1.0, 4.0): MARKED, (-2.0, 0.0): MARKED, (101.0, 2.0): MARKED},
     "-3.4e-2", ""),
    ({(0.0, 5.0): MARKED, (100.0, 1.0): MARKED, (101.0, 2.0): MARKED}, "5e12", ""),
    ({(0.0, 5.0): MARKED, (0.0, 6.0): FILLED}, "5", ""),  # a mark taken back by filling the box
    ({}, None, ""),  # left blank
    ({(0.0, 5.0): MARKED, (2.0, 1.0): MARKED}, None, "a blank digit between two marked ones"),
    ({(0.0, 5.0): MARKED, (0.0, 6.0): MARKED}, None, "digit 1: 5 and 6 both marked"),
    ({(0.0, 5.0): FAINT}, None, "digit 1: box 5 neither clearly marked nor clearly empty"),
    ({(1.0, 5.0): MARKED}, None, "digits marked without the first one"),
    ({(-2.0, 0.0): MARKED, (0.0, 1.0): MARKED}, None, "the exponent's minus marked without digits"),
])
def test_a_number_grid_reads_as_typed(marks: dict, answer: str | None, doubt: str) -> None:
    reading = read_field(_number("number", 4), _ink(marks))
    assert (reading.answer, reading.doubt) == (answer, doubt)


def test_an_integer_grid_may_be_written_left_or_right() -> None:
    spec = _number("integer", 4)
    assert read_field(spec, _ink({(0.0, 4.0): MARKED, (1.0, 2.0): MARKED})).answer == "42"
    assert read_field(spec, _ink({(2.0, 4.0): MARKED, (3.0, 2.0): MARKED, (-1.0, 0.0): MARKED})).answer == "-42"
    assert read_field(spec, _ink({(-1.0, 0.0): MARKED})).doubt == "the minus marked without digits"


def test_options_and_the_student_id() -> None:
    boxes = ((0.0, 0.0), (1.0, 0.0), (2.0, 0.0))
    choice = FieldSpec("1", "k", 0, "choice", "choice", 1, 1, (0, 0, 1, 1), ("a", "b", "c"), boxes)
    multi = FieldSpec("2", "k", 0, "multi", "multi", 2, 1, (0, 0, 1, 1), ("a", "b", "c"), boxes)
    two = _ink({(0.0, 0.0): MARKED, (2.0, 0.0): MARKED})
    assert read_field(multi, two).answer == "a, c"
    assert read_field(choice, two).doubt == "a and c both marked on a one-answer question"
    assert read_field(choice, _ink({(1.0, 0.0): MARKED, (2.0, 0.0): FILLED})).answer == "b"
    ids = _grid(4)
    assert read_student_id(ids, _ink({(0.0, 1.0): MARKED, (1.0, 2.0): MARKED})).answer == "12"
    assert read_student_id(ids, _ink({})).doubt == "no student ID marked"


@pytest.mark.skipif(shutil.which("pdftoppm") is None, reason="needs pdftoppm")
def test_files_it_cannot_use_wait_in_the_queue_and_bad_input_is_one_line(bundled_bank: Path, tmp_path: Path) -> None:
    code, _, err = run("export", "--week", "2", "-n", "3", "--seed", "5", "--format", "pdf", "--answer-sheets",
                       "-o", str(tmp_path / "exam.pdf"))
    assert code == 0, err
    roster = tmp_path / "class.csv"
    roster.write_text("id,name\n12345678,ada\n")
    junk = tmp_path / "junk.jpg"
    junk.write_bytes(b"not an image at all")
    blank = tmp_path / "exam-sheet-A.pdf"  # the unfilled sheet itself, as a PDF: read through pypdfium2
    scan = ("scan", "--sheets", str(tmp_path / "exam-sheets.json"), "--roster", str(roster), "--date", "2026-12-10")
    code, out, err = run(*scan, str(junk), str(blank), str(tmp_path / "exam-A.pdf"))
    assert code == 0, err
    rows = list(csv.DictReader((tmp_path / "exam-queue.csv").open()))
    why = {row["sheet"]: row["why"] for row in rows}
    assert why[str(junk)].startswith("neither a PDF nor an image OpenCV reads")
    assert why[f"{blank} p1"] == "no student ID marked"
    assert "corner markers" in why[f"{tmp_path / 'exam-A.pdf'} p1"]  # the question paper, not a sheet
    assert "0 answer(s) recorded" in out
    given = {"--sheets": str(tmp_path / "exam-sheets.json"), "--roster": str(roster), "--date": "2026-12-10"}
    for flag, value, message in [("--date", "10/12/2026", "expected a date such as 2026-12-10"),
                                 ("--sheets", str(junk), "not a JSON file"),
                                 ("--roster", str(junk), "the roster's header must be id[,name]")]:
        options = {**given, flag: value}
        code, out, err = run("scan", *(part for pair in options.items() for part in pair), str(blank))
        assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err
    # The queue's screen needs a terminal (here output is captured), and records: not with --dry-run.
    for extra, message in [(("--confirm",), "--confirm: --confirm opens a screen and needs a terminal"),
                           (("--confirm", "--dry-run"), "--dry-run records nothing: give one of them")]:
        code, out, err = run("scan", *(part for pair in given.items() for part in pair), *extra, str(blank))
        assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err
