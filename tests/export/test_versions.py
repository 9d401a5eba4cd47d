"""``quizzer export --versions N``: N papers of the same questions with their own numbers, the code on
every page, one answer key for all, a CSV of version → seed; the same command writes the same bytes."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from quizzer.export.versions import version_code
from tests.cli_runner import run
from tests.export.clients import pdf_text

SELECTION = ("--week", "1", "-n", "6", "--seed", "21")


@pytest.fixture(autouse=True)
def prepared(bundled_bank: Path) -> Path:
    return bundled_bank


def versions(folder: Path, fmt: str, count: int = 3) -> list[Path]:
    folder.mkdir(exist_ok=True)
    code, out, err = run("export", *SELECTION, "--versions", str(count), "--format", fmt,
                         "-o", str(folder / f"exam.{fmt}"))
    assert code == 0, err
    return [Path(line) for line in out.split("\n") if line]


def test_markdown_versions_share_questions_differ_in_numbers_and_share_one_key(tmp_path: Path) -> None:
    written = versions(tmp_path / "one", "md")
    names = {path.name for path in written}
    assert {"exam-A.md", "exam-B.md", "exam-C.md", "exam-key.md", "exam-versions.csv"} <= names
    papers = [(tmp_path / "one" / f"exam-{code}.md").read_text() for code in "ABC"]
    keys_of = [re.findall(r"^`([^`]+)` · seed (\d+)", paper, re.M) for paper in papers]
    assert [key for key, _ in keys_of[0]] == [key for key, _ in keys_of[1]] == [key for key, _ in keys_of[2]]
    assert len({tuple(seed for _, seed in keys) for keys in keys_of}) == 3 and len(set(papers)) == 3
    key = (tmp_path / "one" / "exam-key.md").read_text()
    for code, paper in zip("ABC", papers, strict=True):
        assert f"version {code}" in paper and "**Answer:**" not in paper
        assert f"# Answer sheet — Practice paper: week 1 · version {code}" in key
    assert key.count("**Answer:**") == 18 and key.count("marks]") + key.count("mark]") == 18
    with (tmp_path / "one" / "exam-versions.csv").open() as file:
        rows = list(csv.DictReader(file))
    assert [row["version"] for row in rows] == ["A", "B", "C"] and rows[0]["seed"] == "21"
    assert [row["seed"] for row in rows] == [keys[0][1] for keys in keys_of]
    again = versions(tmp_path / "two", "md")
    assert [path.read_bytes() for path in written] == [path.read_bytes() for path in again]


def test_pdf_versions_carry_their_code_on_every_page(tmp_path: Path) -> None:
    versions(tmp_path, "pdf", 2)
    for code in "AB":
        pages = [page for page in pdf_text(tmp_path / f"exam-{code}.pdf").split("\f") if page.strip()]
        assert len(pages) > 1 and all(f"version {code}" in page for page in pages)
    key = pdf_text(tmp_path / "exam-key.pdf")
    assert "version A" in key and "version B" in key and key.count("Answer:") == 12


def test_versions_need_a_document_format_and_a_file(tmp_path: Path) -> None:
    code, _, err = run("export", *SELECTION, "--versions", "2", "--format", "moodle", "-o", str(tmp_path / "b.xml"))
    assert code == 2 and "--versions: it applies to md, html, pdf" in err
    code, _, err = run("export", *SELECTION, "--versions", "2", "--format", "md")
    assert code == 2 and "give -o PATH" in err and not list(tmp_path.glob("exam*"))


def test_version_codes() -> None:
    assert [version_code(i) for i in (0, 1, 25, 26, 27)] == ["A", "B", "Z", "AA", "AB"]
