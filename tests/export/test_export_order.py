"""Ordering questions in the exports: the text formats print the steps as lettered options and the
answer sheet gives the order; Moodle XML (whose ordering form is still to be written) says so in one
line, exit 2, and writes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bundled_templates import instance
from tests.cli_runner import run

KEY = "practice/decoder-mask-order"


@pytest.fixture(autouse=True)
def prepared(bundled_bank: Path) -> Path:
    return bundled_bank


def test_markdown_prints_the_steps_and_the_answer_sheet_the_order(tmp_path: Path) -> None:
    code, _, _ = run("export", "-f", "md", "-k", KEY, "--seed", "1", "-o", str(tmp_path / "paper.md"))
    assert code == 0
    paper = (tmp_path / "paper.md").read_text(encoding="utf-8")
    assert all(f"({letter})" in paper for letter in "abcdefgh")
    answers = (tmp_path / "paper-answers.md").read_text(encoding="utf-8")
    assert f"**Answer:** {instance(KEY, 1).answer_text}" in answers


def test_moodle_export_of_an_order_question_is_one_clear_line(tmp_path: Path) -> None:
    code, _, err = run("export", "-f", "moodle", "-k", KEY, "--seed", "1", "-o", str(tmp_path / "q.xml"))
    assert code == 2 and "cannot hold 'order' questions yet" in err and "Traceback" not in err
    assert not (tmp_path / "q.xml").exists()
