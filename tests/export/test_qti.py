"""The QTI package for Canvas: its manifest, every item's type and points, and every item's response
processing evaluated here — right answers score full marks, numeric tolerances are quizzer's own,
and every select-all selection scores what quizzer scores."""

from __future__ import annotations

import itertools
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import pytest

from quizzer.grading.verdict import grade
from quizzer.templates.instance import Instance
from tests.bundled_templates import bundled, instance
from tests.cli_runner import run

NS = {"q": "http://www.imsglobal.org/xsd/ims_qtiasiv1p2", "m": "http://www.imsglobal.org/xsd/imsccv1p1/imscp_v1p1"}
TYPES = {"number": "numerical_question", "integer": "numerical_question", "choice": "multiple_choice_question",
         "bool": "true_false_question", "multi": "multiple_answers_question", "shape": "short_answer_question",
         "expression": "short_answer_question", "vector": "essay_question", "matrix": "essay_question",
         "text": "essay_question", "order": "short_answer_question"}


@pytest.fixture(autouse=True)
def prepared(bundled_bank: Path) -> Path:
    return bundled_bank


def score(item: ET.Element, response: str | list[str]) -> float:
    """What a QTI 1.2 processor scores ``response`` (a typed text, or the chosen idents): the
    conditions in order, Set / Add to SCORE, stopping after a matching condition with continue="No"."""
    total = 0.0
    for condition in item.iterfind("q:resprocessing/q:respcondition", NS):
        tests = list(condition.find("q:conditionvar", NS) or [])
        if any(_holds(test, response) for test in tests):  # sibling tests are alternatives, as Canvas reads them
            setvar = condition.find("q:setvar", NS)
            assert setvar is not None
            value = float(setvar.text or "nan")
            total = value if setvar.get("action") == "Set" else total + value
            if condition.get("continue") == "No":
                break
    return max(0.0, min(100.0, total))


def _holds(test: ET.Element, response: str | list[str]) -> bool:
    tag, text = test.tag.split("}")[1], test.text or ""
    if tag in ("or", "and"):
        results = [_holds(child, response) for child in test]
        return any(results) if tag == "or" else all(results)
    if tag == "not":
        return not _holds(test[0], response)
    if tag == "varequal":
        if isinstance(response, list):
            return text in response
        try:
            return float(response) == float(text)
        except ValueError:
            return response.strip() == text
    number = float(response) if isinstance(response, str) else float("nan")
    return number >= float(text) if tag == "vargte" else number <= float(text)


def made_by(name: str) -> Instance:
    """The instance an item was made from: ``key@seed``, or ``key@seed#label`` for a part of a chain
    (keyed by the part's routed ID or its question's key)."""
    key, _, rest = name.rpartition("@")
    seed, _, label = rest.partition("#")
    if not label:
        return instance(key, int(seed))
    chain = next(t for t in bundled().values() if key == t.key or key in t.part_ids)
    return next(p.question for p in instance(chain.key, int(seed)).parts if p.label == label)


def test_the_package_imports_and_every_item_grades_as_quizzer(tmp_path: Path) -> None:
    target = tmp_path / "quiz.zip"
    code, _, err = run("export", "--seed", "3", "--format", "qti", "-o", str(target))
    assert code == 0, err
    with zipfile.ZipFile(target) as package:
        manifest = ET.fromstring(package.read("imsmanifest.xml"))
        resource = manifest.find("m:resources/m:resource", NS)
        assert resource is not None and resource.get("type") == "imsqti_xmlv1p2"
        href = resource.find("m:file", NS).get("href")  # type: ignore[union-attr]
        assessment = ET.fromstring(package.read(href))
    items = assessment.findall("q:assessment/q:section/q:item", NS)
    assert len(items) > 100
    checked: dict[str, int] = {}
    for item in items:
        fields = {f.findtext("q:fieldlabel", "", NS): f.findtext("q:fieldentry", "", NS)
                  for f in item.iterfind("q:itemmetadata/q:qtimetadata/q:qtimetadatafield", NS)}
        made = made_by(fields["quizzer_instance"])
        assert fields["question_type"] == TYPES[made.kind] and float(fields["points_possible"]) == made.points
        checked[made.kind] = checked.get(made.kind, 0) + 1
        labels = [label.get("ident", "") for label in item.iterfind(".//q:response_label", NS)]
        if made.kind in ("number", "integer"):
            _check_numeric(item, made)
        elif made.kind in ("choice", "bool"):
            right = labels[int(made.answer)] if made.kind == "choice" else labels[0 if made.answer else 1]
            assert [score(item, [label]) for label in labels] == [100.0 if label == right else 0.0 for label in labels]
        elif made.kind == "multi":
            for size in range(len(labels) + 1):
                for picked in itertools.combinations(range(len(labels)), size):
                    typed = ", ".join("abcdefghijkl"[i] for i in picked) or "none"
                    assert score(item, [labels[i] for i in picked]) / 100 == pytest.approx(
                        grade(made.spec, typed).score, abs=1e-4), (made.key, typed)
        elif made.kind in ("shape", "expression"):
            assert score(item, made.answer_text.strip()) == 100 and score(item, "banana") == 0
        elif made.kind == "order":  # every wrong order is checked in test_export_order
            letters = ["abcdefghijkl"[place] for place in made.answer]
            assert score(item, " ".join(letters)) == 100 and score(item, " ".join(reversed(letters))) == 0
        else:
            conditions = item.findall("q:resprocessing/q:respcondition", NS)  # essays: graded by hand
            assert conditions and all(c.find("q:setvar", NS) is None for c in conditions)
    assert {"number", "choice", "multi", "bool", "expression", "shape", "order"} <= checked.keys()


def _check_numeric(item: ET.Element, made) -> None:  # type: ignore[no-untyped-def]
    answer = float(made.answer)
    assert score(item, repr(answer)) == 100
    bounds = [float(v.text or "nan") for v in item.iterfind(".//q:vargte", NS)] + \
        [float(v.text or "nan") for v in item.iterfind(".//q:varlte", NS)]
    low, high = bounds
    for edge in (low, high):  # at the edges of the interval, quizzer and the package agree
        for nudge in (0.999, 1.001):
            value = answer + (edge - answer) * nudge
            assert (score(item, repr(value)) == 100) == made.spec.tolerance.accepts(value, answer) or \
                made.kind == "integer", (made.key, value)
    if made.kind == "integer":
        assert low == high == answer
