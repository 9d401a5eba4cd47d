"""``quizzer export`` to md, json, html and moodle through the command line: content, determinism."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.cli_runner import run

FIGURE_IN_PROMPT = "2024T1_ET_FN Q212"
FIGURE_IN_SOLUTION = "practice/warmup-rate"


@pytest.fixture(autouse=True)
def prepared(bundled_bank: Path) -> Path:
    return bundled_bank


def generated(*selection: str, solutions: bool = True) -> list[dict]:
    code, out, _ = run("generate", *selection, "--format", "json", *(["--solutions"] if solutions else []))
    assert code == 0
    return json.loads(out)


def test_markdown_writes_paper_and_answer_sheet(tmp_path: Path) -> None:
    target = tmp_path / "paper.md"
    code, out, _ = run("export", "--week", "1", "-n", "5", "--seed", "7", "--format", "md", "-o", str(target))
    answers = tmp_path / "paper-answers.md"
    assert code == 0 and out.split() == [str(target), str(answers)]
    paper, sheet = target.read_text(), answers.read_text()
    instances = generated("--week", "1", "-n", "5", "--seed", "7")
    for number, instance in enumerate(instances, 1):
        assert f"## {number}. {instance['title']}" in paper and instance["prompt"].strip() in paper
        assert instance["answer_text"].strip() in sheet and instance["solution"].strip() in sheet
    assert "**Answer:**" not in paper and sheet.count("**Answer:**") == 5
    command = "quizzer export --week 1 -n 5 --seed 7 --format md -o paper.md"
    assert "5 questions, " in paper and f"seed 7 · regenerate with `{command}`" in paper and command in sheet
    assert re.search(r"\$[^$\s][^$]*\$", paper), "math stays in $…$"


def test_markdown_notes_list_the_misconceptions() -> None:
    code, out, _ = run("export", "--key", "2024T3_Q1_NA Q277", "--seed", "0", "--format", "md", "--answers-only")
    assert code == 0 and "**Common wrong answers.**" in out
    assert "18,944,000" in out and "# Answer sheet" in out and "# Practice paper" not in out


def test_same_seed_same_bytes_and_another_seed_another_paper(tmp_path: Path) -> None:
    outputs = []
    for folder, seed in (("a", "3"), ("b", "3"), ("c", "4")):
        (tmp_path / folder).mkdir()
        paper = tmp_path / folder / "paper.md"
        assert run("export", "--topic", "causal_self_attention", "-n", "4", "--seed", seed, "--format", "md",
                   "-o", str(paper))[0] == 0
        outputs.append(paper.read_bytes() + paper.with_name("paper-answers.md").read_bytes())
    assert outputs[0] == outputs[1] and outputs[0] != outputs[2]


def test_json_questions_are_what_generate_prints(tmp_path: Path) -> None:
    selection = ("--paper", "2024T3_Q1_NA", "--seed", "5")
    code, out, _ = run("export", *selection, "--format", "json")
    assert code == 0 and json.loads(out)["questions"] == generated(*selection)
    code, out, _ = run("export", *selection, "--format", "json", "--paper-only")
    assert json.loads(out)["questions"] == generated(*selection, solutions=False)


class _Checker(HTMLParser):
    """Collects tags, ids, every src/href and every ``url(…)`` so the test can prove nothing is fetched."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.references: list[str] = []
        self.ids: set[str] = set()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.references += [value or "" for name, value in attrs if name in ("src", "href", "xlink:href")]
        self.ids |= {value or "" for name, value in attrs if name == "id"}
        self.urls += re.findall(r"url\(([^)]*)\)", " ".join(value or "" for _, value in attrs))


def test_html_is_self_contained_with_mathml_figures_and_a_page_break(tmp_path: Path) -> None:
    target = tmp_path / "paper.html"
    keys = ("--key", FIGURE_IN_PROMPT, "--key", FIGURE_IN_SOLUTION, "--key", "2024T3_Q1_NA Q277")
    code, _, _ = run("export", *keys, "--seed", "2", "--format", "html", "-o", str(target))
    text = target.read_text()
    checker = _Checker()
    checker.feed(text)
    assert code == 0 and all(ref.startswith(("#", "data:")) for ref in checker.references)
    # The figures' hatches and clip paths are their own, defined in the page.
    assert checker.urls and all(url.startswith("#") and url[1:] in checker.ids for url in checker.urls)
    assert "link" not in checker.tags and "script" not in checker.tags and "@import" not in text
    paper, sheet = text.split('<section class="answers">')
    assert paper.count("<article") == 3 and sheet.count("<article") == 3
    assert "<math" in paper and "<math" in sheet and "$" not in re.sub(r"<code>.*?</code>", "", paper)
    assert paper.count("<svg") == 1 and sheet.count("<svg") == 1  # each figure where its template puts it
    assert "break-before: page" in text and "Answer:" in sheet and "Answer:" not in paper
    assert "regenerate with" in paper and "regenerate with" in sheet


def test_moodle_xml_has_every_answer_with_the_right_fractions(tmp_path: Path) -> None:
    target = tmp_path / "bank.xml"
    assert run("export", "--week", "1", "--seed", "1", "--format", "moodle", "-o", str(target))[0] == 0
    root = ET.parse(target).getroot()
    instances = {f"{i['key']}@{i['seed']}": i for i in generated("--week", "1", "--seed", "1")}
    categories = [q.findtext("category/text") for q in root if q.get("type") == "category"]
    assert sorted(categories) == sorted({f"$course$/quizzer/{i['topics'][0]}" for i in instances.values()})
    questions = [q for q in root if q.get("type") != "category"]
    assert len(questions) == len(instances)
    for question in questions:
        instance = instances[question.findtext("idnumber")]
        assert question.findtext("generalfeedback/text").strip()
        _check_answers(question, instance)


def _check_answers(question: ET.Element, instance: dict) -> None:
    answers = question.findall("answer")
    fractions = [float(a.get("fraction")) for a in answers]
    kind = question.get("type")
    if kind == "numerical":
        tolerance = float(answers[0].findtext("tolerance"))
        # within 1/100 of the tolerance, or (a precision asked) the answer rounded to it: half its unit away
        assert float(answers[0].findtext("text")) == pytest.approx(instance["answer"], abs=tolerance / 2 + 1e-12)
        # then, where the prompt asks a precision, half for the answer rounded to one place fewer (its cell)
        half = 1 if fractions[1:2] == [50] else 0
        assert fractions[0] == 100 and all(f == 0 for f in fractions[1 + half:])
        if half:
            assert float(answers[1].findtext("text")) == pytest.approx(
                instance["answer"], abs=float(answers[1].findtext("tolerance")) * 1.000001)
    elif kind == "multichoice":
        correct = [instance["answer"]] if isinstance(instance["answer"], int) else instance["answer"]
        assert len(answers) == len(instance["choices"])
        assert sum(f for f in fractions if f > 0) == pytest.approx(100)
        assert [i for i, f in enumerate(fractions) if f > 0] == sorted(correct)
    elif kind == "truefalse":
        expected = "true" if instance["answer"] else "false"
        assert [a.findtext("text") for a in answers if a.get("fraction") == "100"] == [expected]
    elif kind == "cloze":
        # A cell is a blank, or an entry the question gives away (given_entries), printed.
        # A blank shows its answer rounded within 1/100 of its tolerance, or, where the prompt asks a precision,
        # rounded to it, half a unit (the tolerance) away at most (test_moodle_rules checks the rounding).
        cells = re.findall(r"<td>(?:\{1:NUMERICAL:=([^:]+):([^}~]*)(?:~[^}]*)?\}|([^<{]+))</td>",
                           question.findtext("questiontext/text"))
        flat = [x for row in instance["answer"] for x in (row if isinstance(row, list) else [row])]
        assert len(cells) == len(flat)
        for (blank, tolerance, printed), x in zip(cells, flat, strict=True):
            assert float(blank or printed) == pytest.approx(x, abs=float(tolerance or 0) / 2 + 1e-9)
        assert any(blank for blank, _, _ in cells)
    elif kind == "shortanswer":
        assert fractions and fractions[0] == 100 and answers[0].findtext("text")
    elif kind == "ordering":  # the steps in their right order, numbered 1…n (test_export_order checks the texts)
        assert fractions == list(range(1, len(instance["choices"]) + 1)) and len(instance["answer"]) == len(answers)
        assert question.findtext("gradingtype") == "ALL_OR_NOTHING"
    else:
        assert kind == "essay" and question.findtext("graderinfo/text").strip()
