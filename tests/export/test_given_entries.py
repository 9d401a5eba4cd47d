"""Entries a vector or matrix question gives away (``given_entries``: a blocked key's weight 0, the first causal
row's 1) are printed as given in every face: with the prompt (the app, a paper, Moodle, QTI, an Anki card, JSON,
an exam's papers that go with its answer sheets), in Moodle's table in place of a blank, and in every answer key
written exactly (``0``, never ``0.0000`` among the four-decimal entries), as issue 44's check (e) asks."""

from __future__ import annotations

import json
import re
import sqlite3
import zipfile
from pathlib import Path

import numpy as np
import pytest

from quizzer.grading.verdict import expected_text, grade
from tests.bundled_templates import instance
from tests.cli_runner import run
from tests.export.clients import pdf_text

KEYS = ("practice/softmax-masked-entries", "2024T1_ET_FN Q212")  # a vector with blocked keys, a causal matrix
SEED = "3"


@pytest.fixture(autouse=True)
def prepared(bundled_bank: Path) -> Path:
    return bundled_bank


def export(tmp_path: Path, name: str, *args: str) -> Path:
    target = tmp_path / name
    selection = [a for key in KEYS for a in ("--key", key)]
    code, _, err = run("export", *selection, "--seed", SEED, *args, "-o", str(target))
    assert code == 0, err
    return target


def given_of(prompt: str) -> dict[tuple[int, ...], float]:
    """The entries a prompt says are given, read back from its printed note: position → value."""
    note = re.search(r"Given \(no marks\):\**\s*(.*?)\.\s*$", prompt, re.S)
    assert note, prompt
    given: dict[tuple[int, ...], float] = {}
    for clause in note[1].split("; "):
        places, value = re.fullmatch(r"entr(?:y|ies) (.*) (?:is|are) (-?[\d.]+)", clause.strip()).groups()
        for place in re.findall(r"\(\d+, \d+\)|\d+", places):
            given[tuple(int(i) for i in re.findall(r"\d+", place))] = float(value)
    return given


def printed_entries(answer: str) -> list[str]:
    return re.findall(r"-?\d+(?:\.\d+)?", answer)


def questions(tmp_path: Path) -> list[dict[str, object]]:
    return json.loads(export(tmp_path, "p.json", "--format", "json").read_text())["questions"]


def test_the_note_names_every_given_entry_with_its_exact_value(tmp_path: Path) -> None:
    """Recomputed from the answer: every entry the template gives away, and no other, at its value; in the
    answer each given entry is written as given (0, 1), every other to the 4 decimals the prompt asks."""
    for question in questions(tmp_path):
        item = instance(str(question["key"]), int(question["seed"]))  # type: ignore[call-overload]
        answer = np.asarray(item.answer, dtype=float)
        places = [tuple(int(i) + 1 for i in index) for index in np.ndindex(answer.shape)]  # (2,) or (1, 3)
        expected = {place: float(answer[tuple(i - 1 for i in place)]) for place in places
                    if item.spec.given[tuple(i - 1 for i in place)]}
        assert expected and given_of(str(question["prompt"])) == expected
        entries = printed_entries(str(question["answer_text"]))
        assert len(entries) == len(places)
        for place, entry in zip(places, entries, strict=True):
            assert entry == f"{expected[place]:g}" if place in expected else re.fullmatch(r"-?\d\.\d{4}", entry)
        assert expected_text(item.spec) == question["answer_text"]
        assert grade(item.spec, str(question["answer_text"])).score == 1.0


def test_markdown_html_and_pdf_papers_print_the_given_entries_and_their_keys_the_exact_values(tmp_path: Path) -> None:
    exported = questions(tmp_path)
    notes = [str(q["prompt"]).rsplit("\n\n", 1)[-1].strip().replace("**", "") for q in exported]
    answers = [str(q["answer_text"]) for q in exported]
    paper = export(tmp_path, "p.md", "--format", "md")
    for note, answer in zip(notes, answers, strict=True):
        assert note in paper.read_text().replace("**", "")
        assert f"**Answer:** {answer} (accepted" in paper.with_name("p-answers.md").read_text()
    html = export(tmp_path, "p.html", "--format", "html").read_text()
    for note, answer in zip(notes, answers, strict=True):
        assert note.replace("Given (no marks):", "Given (no marks):</strong>") in html
        assert f"Answer:</strong> {answer} <span" in html
    text = " ".join(pdf_text(export(tmp_path, "p.pdf", "--format", "pdf")).split())
    for note, answer in zip(notes, answers, strict=True):
        assert note in text and f"Answer: {answer}" in text


def test_moodle_prints_each_given_entry_in_its_cell_and_asks_only_the_others(tmp_path: Path) -> None:
    xml = export(tmp_path, "p.xml", "--format", "moodle").read_text()
    for question in questions(tmp_path):
        item = instance(str(question["key"]), int(question["seed"]))  # type: ignore[call-overload]
        answer = np.ravel(np.asarray(item.answer, dtype=float))
        given = np.ravel(item.spec.given)
        assert str(question["prompt"]).rsplit("Given (no marks):", 1)[1].split(".")[0].strip("* ") in xml
        table = re.search(r'<table class="quizzer-answer">(.*?)</table>', xml[xml.index(item.title):], re.S)
        assert table
        cells = re.findall(r"<td>(.*?)</td>", table[1])
        assert len(cells) == answer.size
        for cell, value, printed in zip(cells, answer, given, strict=True):
            assert cell == (f"{value:g}" if printed else cell) and printed != cell.startswith("{")


def test_qti_anki_and_an_exams_papers_print_them_too(tmp_path: Path) -> None:
    exported = questions(tmp_path)
    notes = [str(q["prompt"]).rsplit("\n\n", 1)[-1].strip().replace("**", "") for q in exported]
    answers = [str(q["answer_text"]) for q in exported]
    with zipfile.ZipFile(export(tmp_path, "p.zip", "--format", "qti")) as package:
        qti = next(package.read(name).decode() for name in package.namelist() if name.endswith("assessment.xml"))
    deck = export(tmp_path, "p.apkg", "--format", "apkg")
    with zipfile.ZipFile(deck) as package:
        (tmp_path / "deck.db").write_bytes(package.read("collection.anki2"))
    cards = " ".join(row[0] for row in sqlite3.connect(tmp_path / "deck.db").execute("select flds from notes"))
    for note, answer in zip(notes, answers, strict=True):
        assert note.split(":", 1)[1].strip() in qti and answer in qti
        assert note.split(":", 1)[1].strip() in cards and answer in cards
    code, _, err = run("export", *(a for key in KEYS for a in ("--key", key)), "--seed", SEED, "--format", "pdf",
                       "--versions", "2", "--answer-sheets", "--secret", str(tmp_path / "course.secret"),
                       "-o", str(tmp_path / "exam.pdf"))
    assert code == 0, err
    for version in "AB":
        text = " ".join(pdf_text(tmp_path / f"exam-{version}.pdf").split())
        assert text.count("Given (no marks):") == 2
    key = (tmp_path / "exam-key.csv").read_text()
    # the masked entries as given (0), the first row's weight worked out at the precision asked (Q212's
    # (1, 1) is the student's to work out: masking after the softmax gets it wrong)
    assert len(re.findall(r'"\[\[1\.0000, 0, 0, 0\], \[0\.\d{4}, 0\.\d{4}, 0, 0\]', key)) == 2
