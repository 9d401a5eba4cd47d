"""What the paper and answer sheet show, format by format: expressions with their stars and as maths,
model answers that are lists, printed commands that run, figures beside a Markdown paper, the PDF's
layout (display maths centred, no heading left alone at a page's foot)."""

from __future__ import annotations

import json
import re
import shlex
import sqlite3
import zipfile
from pathlib import Path

import pytest

from quizzer.export.richtext import to_typst
from tests.bundled_templates import bundled
from tests.cli_runner import run
from tests.export.clients import pdf_text

EXPRESSION = "practice/bahdanau-scorer-params"  # answer 3*n*a + 2*a; a mistake 3*n*a + a
LIST_ANSWER = "2025T3_ET_AN Q25"  # a recall card whose model answer is a numbered list
BOLD_NUMBERS = "practice/bahdanau-context-vector"  # solution steps "**1. Project.** …"
DISPLAY_MATH = "practice/bahdanau-alignment-contexts"  # the prompt shows E = [matrix] as a display formula
FIGURE_IN_PROMPT = "2024T1_ET_FN Q212"
FIGURE_IN_SOLUTION = "practice/warmup-rate"


@pytest.fixture(autouse=True)
def prepared(bundled_bank: Path) -> Path:
    return bundled_bank


def export(tmp_path: Path, name: str, *args: str) -> Path:
    target = tmp_path / name
    code, _, err = run("export", *args, "-o", str(target))
    assert code == 0, err
    return target


# --- 2. expressions keep their stars and are shown as maths too -------------------------------------

def test_expression_answers_keep_their_stars_and_show_as_maths(tmp_path: Path) -> None:
    selection = ("--key", EXPRESSION, "--seed", "1")
    sheet = export(tmp_path, "p.md", *selection, "--format", "md").with_name("p-answers.md").read_text()
    assert "`3*n*a + 2*a` ($3na + 2a$)" in sheet and "`3*n*a + a` ($3na + a$)" in sheet
    html = export(tmp_path, "p.html", *selection, "--format", "html", "--answers-only").read_text()
    assert re.search(r"<code>3\*n\*a \+ 2\*a</code> \((<span[^>]*>)?<math", html)
    assert re.search(r"<code>3\*n\*a \+ a</code> \((<span[^>]*>)?<math", html)
    deck = export(tmp_path, "p.apkg", *selection, "--format", "apkg")
    with zipfile.ZipFile(deck) as package:
        (tmp_path / "deck.db").write_bytes(package.read("collection.anki2"))
    fields = sqlite3.connect(tmp_path / "deck.db").execute("select flds from notes").fetchone()[0]
    assert re.search(r"<code>3\*n\*a \+ 2\*a</code> \((<span[^>]*>)?\\\(3na \+ 2a\\\)", fields)
    text = pdf_text(export(tmp_path, "p.pdf", *selection, "--format", "pdf", "--answers-only"))
    assert "3*n*a + 2*a" in text and "3*n*a + a" in text


# --- 4. model answers that are lists; "**1. …**" stays bold text ------------------------------------------

def test_a_model_answer_that_is_a_list_starts_on_its_own_line(tmp_path: Path) -> None:
    selection = ("--key", LIST_ANSWER, "--seed", "0")
    sheet = export(tmp_path, "p.md", *selection, "--format", "md").with_name("p-answers.md").read_text()
    assert "**Answer:**\n\n1. Autoregressive" in sheet
    text = pdf_text(export(tmp_path, "p.pdf", *selection, "--format", "pdf", "--answers-only"), "-layout")
    lines = [line.strip() for line in text.splitlines()]
    assert "Answer:" in lines and any(line.startswith("1. Autoregressive") for line in lines)
    assert any(re.match(r"^2\.\s+Inputs", line) for line in lines) and "+" not in text.split("Answer:")[1][:40]


def test_bold_numbered_steps_are_not_list_items() -> None:
    assert to_typst("**1. Project.** Each row") == "#strong[1\\. Project.] Each row"


def test_bold_numbered_steps_print_inline(tmp_path: Path) -> None:
    text = pdf_text(export(tmp_path, "p.pdf", "--key", BOLD_NUMBERS, "--seed", "0", "--format", "pdf",
                           "--answers-only"), "-layout")
    assert re.search(r"1\. Project\. +Each annotation", text)


# --- 5. every printed command runs as printed ------------------------------------------------------------

@pytest.mark.parametrize("fmt", ["md", "html", "pdf"])
def test_the_printed_command_runs_as_printed(tmp_path: Path, fmt: str, monkeypatch: pytest.MonkeyPatch) -> None:
    first = tmp_path / "first"
    first.mkdir()
    target = export(first, f"paper.{fmt}", "--key", FIGURE_IN_SOLUTION, "--seed", "9", "--format", fmt)
    printed = pdf_text(target) if fmt == "pdf" else target.read_text()
    commands = set(re.findall(r"quizzer export [^<`\n\"\x00-\x1f]*?--format \w+(?: -o [\w.-]+)?", printed))
    assert commands, "no regenerate command printed"
    again = tmp_path / "again"
    again.mkdir()
    monkeypatch.chdir(again)
    for command in commands:
        code, _, err = run(*shlex.split(command)[1:])
        assert code == 0, (command, err)
    assert (again / target.name).read_bytes() == target.read_bytes()


# --- 8. the PDF's layout ---------------------------------------------------------------------------------

def _words(pdf: Path, tmp_path: Path) -> list[tuple[int, float, float, float, float, str]]:
    """(page, xMin, yMin, xMax, yMax, word) for every word, from pdftotext's bounding boxes."""
    html = tmp_path / "words.html"
    pdf_text(pdf, "-bbox")  # the tool is there (or the test skipped)
    import subprocess

    subprocess.run(["pdftotext", "-bbox", str(pdf), str(html)], check=True)
    words = []
    for page, body in enumerate(html.read_text().split("<page")[1:], 1):
        for match in re.finditer(r'xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<', body):
            words.append((page, *map(float, match.groups()[:4]), match[5]))
    return words


def test_display_formulas_are_centred(tmp_path: Path) -> None:
    pdf = export(tmp_path, "p.pdf", "--key", DISPLAY_MATH, "--seed", "0", "--format", "pdf", "--paper-only")
    words = _words(pdf, tmp_path)
    page_width = 595.0  # A4 in points
    line_of_e = [w for w in words if w[5] in ("E", "H", "\U0001d438", "\U0001d43b")]  # maths italic E, H
    assert line_of_e
    for _, x_min, y_min, _, _, _ in line_of_e:
        row = [w for w in words if abs(w[2] - y_min) < 14 and w[1] >= x_min - 1]
        right = max(w[3] for w in row)
        assert abs((x_min + right) / 2 - page_width / 2) < 40, (x_min, right)


TITLES = {template.title for template in bundled().values()}


def test_no_question_heading_is_left_alone_at_the_foot_of_a_page(tmp_path: Path) -> None:
    pdf = export(tmp_path, "p.pdf", "--week", "1", "--seed", "3", "--format", "pdf", "--answers-only")
    pages = pdf_text(pdf).split("\f")
    for number, page in enumerate(pages[:-1], 1):
        lines = [line.strip() for line in page.splitlines() if line.strip()]
        # The page's last line above the footer ("Practice paper: … · seed 3  N / M").
        last = [line for line in lines if not re.search(r"\d+ / \d+$", line) and "Practice paper" not in line][-1]
        assert not re.search(r"· seed 3$", last), (number, last)  # a question's key line: its heading is above it
        # A heading, "6. <a question's title>" with "[2 marks]" on a line of its own in the text (not a numbered
        # step of a worked solution, such as "6. rW2 + b2 …;"), never ends a page either.
        heading = re.match(r"^\d+\. (.+)$", last)
        assert not re.fullmatch(r"\[[\d.]+ marks?\]", last), (number, last)
        assert not (heading and any(title.startswith(heading[1]) for title in TITLES)), (number, last)


# --- 9. figures beside a Markdown paper ----------------------------------------------------------------

def test_markdown_links_figures_written_beside_it(tmp_path: Path) -> None:
    paper = export(tmp_path, "p.md", "--key", FIGURE_IN_PROMPT, "--key", FIGURE_IN_SOLUTION, "--seed", "2",
                   "--format", "md")
    for text in (paper.read_text(), paper.with_name("p-answers.md").read_text()):
        links = re.findall(r"!\[[^\]]*\]\(([^)]+\.svg)\)", text)
        assert len(links) == 1 and "<svg" in (tmp_path / links[0]).read_text()


# --- 12. JSON: a versioned envelope, valid against the schema in the repository ---------------------------

def test_json_export_is_a_versioned_paper_valid_against_its_schema(tmp_path: Path) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((Path(__file__).resolve().parents[2] / "quizzer/export/paper.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    for only in ((), ("--paper-only",)):
        document = json.loads(export(tmp_path, "p.json", "--week", "2", "--seed", "5", "--format", "json", *only,
                                     "--force").read_text())
        jsonschema.validate(document, schema)
        assert document["format"] == "quizzer-paper" and document["version"] == 2 and document["seed"] == 5
        assert document["questions"] and all(("answer" in q) == (not only) for q in document["questions"])
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"format": "quizzer-paper", "version": 2, "seed": 5, "questions": [{"key": 1}]}, schema)


# --- marks: each question's points and the paper's total ------------------------------------------------

def test_papers_show_each_questions_marks_and_the_total(tmp_path: Path) -> None:
    selection = ("--week", "1", "-n", "6", "--seed", "2")
    code, out, _ = run("generate", *selection, "--format", "json")
    points = [question["points"] for question in json.loads(out)]
    total = f"6 questions, {sum(points):g} marks"
    paper = export(tmp_path, "p.md", *selection, "--format", "md").read_text()
    assert total in paper and len(re.findall(r"^## \d+\. .* \[\d+ marks?\]$", paper, re.M)) == 6
    assert re.findall(r"\[(\d+) marks?\]$", paper, re.M) == [f"{p:g}" for p in points]
    html = export(tmp_path, "p.html", *selection, "--format", "html").read_text()
    assert total in html and html.count('<span class="marks">') == 12  # paper and answer sheet
    text = pdf_text(export(tmp_path, "p.pdf", *selection, "--format", "pdf", "--paper-only"))
    assert total in " ".join(text.split()) and len(re.findall(r"\[\d+ marks?\]", text)) == 6


# --- how close, and how a vector's or matrix's marks are shared ---------------------------------------

def test_the_answer_sheet_says_how_select_all_ordering_and_chained_parts_are_marked(tmp_path: Path) -> None:
    """A teacher marking by hand from the sheet marks as `quizzer grade` does: a select-all question right
    ticks minus wrong ones, an ordering question whose every step's place is examined all or nothing, and
    a later part of a chain also when right on the learner's own earlier answers."""
    keys = ["practice/qkv-compatible-widths", "practice/w1c-mha-order", "2024T3_Q1_NA Q279"]
    export(tmp_path, "p.md", *(a for key in keys for a in ("--key", key)), "--seed", "3", "--format", "md")
    accepted = re.findall(r"^\*\*Answer:\*\* .*?\(accepted (.*)\)$", (tmp_path / "p-answers.md").read_text(), re.M)
    assert sorted(accepted) == sorted([
        "in part: right ticks minus wrong ticks, over the 2 right options, never below 0",
        "this order only, all or nothing",
        "(b) also when right on the learner's own (a), full marks; "
        "(c) also when right on the learner's own (a) and (b), full marks"])


def test_the_answer_sheet_says_how_each_array_answer_is_graded(tmp_path: Path) -> None:
    """As `quizzer grade` grades it: whole numbers exactly (never "to 1 significant figure", which the
    mask's tolerance only sets for display), a mask all or nothing, the entries a prompt gives away named."""
    keys = ["2024T1_ET_AN Q157", "2026T2_Q1_NA Q9", "practice/softmax-masked-entries"]
    export(tmp_path, "p.md", *(a for key in keys for a in ("--key", key)), "--seed", "3", "--format", "md")
    accepted = re.findall(r"^\*\*Answer:\*\* .*? \(accepted (.*)\)$", (tmp_path / "p-answers.md").read_text(), re.M)
    assert sorted(accepted) == sorted(["exactly; all or nothing", "exactly",
                                       "to 4 decimals, give or take 1 in the last place; entries 2 and 4 are given "
                                       "away and earn nothing"])
