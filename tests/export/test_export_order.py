"""Ordering questions in the exports: the text formats print the steps as lettered options and the
answer sheet gives the order; Moodle XML holds a qtype_ordering question graded all or nothing
(never more than quizzer's pair score for a wrong order, unlike every partial-credit grading type of
Moodle's, ported in ``moodle_ordering``); the QTI package holds a short answer that accepts the
right order's letters and no wrong order; the whole bank exports to both."""

from __future__ import annotations

import html
import itertools
import random
import re
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import msgspec
import pytest

from quizzer.export import moodle
from quizzer.export.document import Selection, build_paper
from quizzer.grading.ordering import order_score
from quizzer.grading.verdict import grade
from tests.bundled_templates import bundled, instance
from tests.cli_runner import run
from tests.export.moodle_ordering import GRADING_TYPES
from tests.export.test_qti import NS, score

KEY = "practice/decoder-mask-order"
ORDER_KEYS = sorted(key for key, template in bundled().items() if template.kind == "order")


@pytest.fixture(autouse=True)
def prepared(bundled_bank: Path) -> Path:
    return bundled_bank


def test_markdown_prints_the_steps_and_the_answer_sheet_the_order(tmp_path: Path) -> None:
    code, _, _ = run("export", "-f", "md", "-k", KEY, "--seed", "1", "-o", str(tmp_path / "paper.md"))
    assert code == 0
    paper = (tmp_path / "paper.md").read_text(encoding="utf-8")
    assert all(f"({letter})" in paper for letter in "abcdefgh")
    answers = (tmp_path / "paper-answers.md").read_text(encoding="utf-8")
    # The letters, then the steps in that order with their letters: the worked solution numbers the steps.
    item = instance(KEY, 1)
    steps = "\n".join(f"{place}. ({chr(97 + step)}) {item.choices[step]}" for place, step in enumerate(item.answer, 1))
    assert f"**Answer:** (accepted this order only, all or nothing)\n\n{item.answer_text}\n\n{steps}\n" in answers


def _plain(answer_html: str) -> str:
    """An answer's HTML read back as the template wrote it: tags dropped, entities decoded, \\(…\\) as $…$."""
    text = html.unescape(re.sub(r"<[^>]+>", "", answer_html))
    return text.replace("\\(", "$").replace("\\)", "$")


def test_moodle_ordering_question_holds_the_steps_in_the_right_order_all_or_nothing(tmp_path: Path) -> None:
    target = tmp_path / "q.xml"
    keys = [arg for key in ORDER_KEYS for arg in ("-k", key)]
    assert run("export", "-f", "moodle", *keys, "--seed", "1", "-o", str(target))[0] == 0
    questions = [q for q in ET.parse(target).getroot() if q.get("type") != "category"]
    assert len(questions) == len(ORDER_KEYS) and all(q.get("type") == "ordering" for q in questions)
    for question in questions:
        key, seed = question.findtext("idnumber", "").rsplit("@", 1)
        made, template = instance(key, int(seed)), bundled()[key]
        assert float(question.findtext("defaultgrade", "nan")) == made.points
        assert question.findtext("gradingtype") == "ALL_OR_NOTHING"
        assert question.findtext("selecttype") == "ALL"  # Moodle's default shows a random 6 of the steps
        assert question.findtext("selectcount") == str(len(made.choices))
        answers = question.findall("answer")
        assert [a.get("fraction") for a in answers] == [str(place) for place in range(1, len(made.choices) + 1)]
        # The template lists its items in the right order: Moodle must get exactly those (numbers filled in).
        steps = [_plain(a.findtext("text", "")) for a in answers]
        assert steps == [made.choices[place].replace("**", "") for place in made.answer]
        assert all(step == item.replace("**", "") for step, item in zip(steps, template.items or [], strict=True)
                   if "{{" not in item)
        feedback = question.findtext("generalfeedback/text", "")
        assert "only the exact order earns the marks" in feedback and "partial credit by pairs" in feedback


def test_moodle_escapes_each_step_text() -> None:
    made = instance(KEY, 1)
    awkward = ("if a < b & c > d", "a ]]> b", *made.choices[2:])
    paper = build_paper([msgspec.structs.replace(made, choices=awkward)], Selection(seed=1, keys=(KEY,)), "moodle")
    question = ET.fromstring(moodle.render(paper, ())).find("question[@type='ordering']")
    assert question is not None
    texts = [_plain(answer.findtext("text", "")) for answer in question.findall("answer")]
    assert texts == [awkward[place].replace("**", "") for place in made.answer]
    assert "if a < b & c > d" in texts and "a ]]> b" in texts


def test_all_or_nothing_is_the_only_moodle_grading_type_never_above_quizzer_for_a_wrong_order() -> None:
    """Each of Moodle's grading types against quizzer's score, over every order of 3 to 7 steps."""
    above: dict[str, tuple[float, float, tuple[int, ...]]] = {}
    for size in range(3, 8):
        right = tuple(range(size))
        for order in itertools.permutations(right):
            quizzer = order_score(order, right)
            for name, moodle_grade in GRADING_TYPES.items():
                if moodle_grade(order) > quizzer + 1e-12 and name not in above:
                    above[name] = (moodle_grade(order), quizzer, order)
    assert set(above) == set(GRADING_TYPES) - {"ALL_OR_NOTHING"}, above
    # The examples the Moodle exporter's docstring gives, six steps each scoring 0 in quizzer:
    halves, ends, reversed_ = (3, 4, 5, 0, 1, 2), (5, 1, 2, 3, 4, 0), (5, 4, 3, 2, 1, 0)
    assert [order_score(order, range(6)) for order in (halves, ends, reversed_)] == [0, 0, 0]
    assert GRADING_TYPES["RELATIVE_NEXT_EXCLUDE_LAST"](halves) == pytest.approx(4 / 5)
    assert GRADING_TYPES["LONGEST_ORDERED_SUBSET"](halves) == GRADING_TYPES["LONGEST_CONTIGUOUS_SUBSET"](halves) == 0.5
    assert GRADING_TYPES["ABSOLUTE_POSITION"](ends) == pytest.approx(2 / 3)
    assert GRADING_TYPES["RELATIVE_TO_CORRECT"](reversed_) == pytest.approx(2 / 5)


def _qti_items(package_path: Path) -> list[ET.Element]:
    with zipfile.ZipFile(package_path) as package:
        assessment = ET.fromstring(package.read("quizzer-assessment/quizzer-assessment.xml"))
    return assessment.findall("q:assessment/q:section/q:item", NS)


def test_qti_order_item_accepts_the_right_order_and_no_wrong_one(tmp_path: Path) -> None:
    target = tmp_path / "quiz.zip"
    keys = [arg for key in ORDER_KEYS for arg in ("-k", key)]
    assert run("export", "-f", "qti", *keys, "--seed", "2", "-o", str(target))[0] == 0
    items = _qti_items(target)
    assert len(items) == len(ORDER_KEYS)
    pick = random.Random(0)
    for item in items:
        fields = {f.findtext("q:fieldlabel", "", NS): f.findtext("q:fieldentry", "", NS)
                  for f in item.iterfind("q:itemmetadata/q:qtimetadata/q:qtimetadatafield", NS)}
        key, seed = fields["quizzer_instance"].rsplit("@", 1)
        made = instance(key, int(seed))
        assert fields["question_type"] == "short_answer_question" and float(fields["points_possible"]) == made.points
        prompt = item.findtext("q:presentation/q:material/q:mattext", "", NS)
        assert all(f"({letter})" in prompt for letter in "abcdefghijkl"[:len(made.choices)])
        accepted = [v.text or "" for v in item.iterfind(".//q:varequal", NS)]
        assert {"".join(x for x in form if x.isalpha()) for form in accepted} == {
            "".join("abcdefghijkl"[p] for p in made.answer)}
        for typed in accepted:  # every accepted form is the right order as quizzer reads it
            assert score(item, typed) == 100 and grade(made.spec, typed).score == 1
        size = len(made.choices)
        orders = list(itertools.permutations(range(size))) if size <= 7 else \
            [tuple(pick.sample(range(size), size)) for _ in range(3000)]
        for order in orders:
            if list(order) == list(made.answer):
                continue
            letters = ["abcdefghijkl"[p] for p in order]
            for typed in (" ".join(letters), "".join(letters), ", ".join(letters)):
                assert score(item, typed) == 0, (key, typed)
        feedback = item.findtext("q:itemfeedback/q:flow_mat/q:material/q:mattext", "", NS)
        assert "only the exact order" in feedback


@pytest.mark.parametrize("fmt", ["moodle", "qti"])
def test_the_whole_bank_exports_with_its_order_questions(tmp_path: Path, fmt: str) -> None:
    target = tmp_path / f"bank.{fmt}"
    code, _, err = run("export", "--seed", "4", "-f", fmt, "-o", str(target))
    assert code == 0, err
    if fmt == "moodle":
        kinds = [q.get("type") for q in ET.parse(target).getroot()]
        assert kinds.count("ordering") == len(ORDER_KEYS)
    else:
        held = [item for item in _qti_items(target)
                if any(f.findtext("q:fieldentry", "", NS).split("@")[0] in ORDER_KEYS
                       for f in item.iterfind("q:itemmetadata/q:qtimetadata/q:qtimetadatafield", NS))]
        assert len(held) == len(ORDER_KEYS)
