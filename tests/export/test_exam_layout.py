"""The exam-ready paper: page size, its own title, instructions from a file, a name/ID box with the
score out of the total, marks by each question; a missing instructions file is one clear line."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from tests.cli_runner import run
from tests.export.clients import pdf_text

SELECTION = ("--week", "1", "-n", "4", "--seed", "8")
INSTRUCTIONS = "**Time allowed:** 50 minutes. Answer *all* questions.\n"


@pytest.fixture(autouse=True)
def prepared(bundled_bank: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "rules.md").write_text(INSTRUCTIONS, encoding="utf-8")
    return bundled_bank


def exam(fmt: str, *extra: str) -> Path:
    code, _, err = run("export", *SELECTION, "--format", fmt, "--title", "Mid-term: Transformers",
                       "--instructions", "rules.md", *extra, "-o", f"exam.{fmt}")
    assert code == 0, err
    return Path(f"exam.{fmt}")


def test_pdf_exam_on_letter_paper_with_title_instructions_and_candidate_box() -> None:
    pdf = exam("pdf", "--paper-size", "letter")
    assert re.search(rb"/MediaBox\s*\[\s*0 0 612 792\s*\]", pdf.read_bytes())  # US letter, in points
    text = " ".join(pdf_text(pdf).split())
    total = re.search(r"4 questions, (\d+) marks", text)
    assert total and text.startswith("Mid-term: Transformers")
    assert "Time allowed: 50 minutes. Answer all questions." in text
    assert "Name:" in text and "Student ID:" in text and f"/ {total[1]}" in text
    a4 = exam("pdf", "--force")
    assert re.search(rb"/MediaBox\s*\[\s*0 0 595\.\d+ 841\.\d+\s*\]", a4.read_bytes())


def test_html_exam_and_its_printed_command_runs(tmp_path: Path) -> None:
    html = exam("html", "--paper-size", "letter").read_text()
    assert "@page { size: letter; }" in html and "<title>Mid-term: Transformers</title>" in html
    assert "<strong>Time allowed:</strong> 50 minutes. Answer <em>all</em> questions." in html
    assert "Student ID:" in html and '<span class="out-of">/ ' in html
    command = re.search(r"<code>(quizzer export [^<]*)</code>", html)
    assert command and "--instructions rules.md" in command[1] and "--paper-size letter" in command[1]
    first = Path("exam.html").read_bytes()
    Path("exam.html").unlink()
    code, _, err = run(*shlex.split(command[1].replace("&#x27;", "'"))[1:])
    assert code == 0, err
    assert Path("exam.html").read_bytes() == first


def test_a_missing_instructions_file_is_one_line_and_writes_nothing() -> None:
    code, _, err = run("export", *SELECTION, "--format", "pdf", "--instructions", "missing.md", "-o", "x.pdf")
    assert code == 2 and err.strip() == "quizzer: missing.md: cannot read the instructions: No such file or directory"
    assert not Path("x.pdf").exists()


def test_no_page_of_the_answer_sheet_ends_on_the_common_wrong_answers_heading() -> None:
    code, _, err = run("export", "--paper", "2024T3_Q1_NA", "--seed", "5", "--format", "pdf", "-o", "key.pdf")
    assert code == 0, err
    pages = [page for page in pdf_text(Path("key.pdf"), "-layout").split("\f") if page.strip()]
    headings = 0
    for page in pages:
        lines = [line.strip() for line in page.splitlines() if line.strip()]
        body = [line for line in lines if not re.search(r"\d+ / \d+$", line)]  # without the footer
        headings += sum(line == "Common wrong answers" for line in body)
        assert body and body[-1] != "Common wrong answers"
    assert headings >= 5
