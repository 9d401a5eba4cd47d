"""An exam's versions inside the LMS and the packages against their clients' rules: Moodle XML with one
category per question holding its versions (a random question per student, choices shuffled), QTI with one
group per question selecting one version; the QTI package (figures included) against the QTI 1.2 DTD's
content models (``qti_dtd``)."""

from __future__ import annotations

import csv
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import pytest

from tests.bundled_templates import instance
from tests.cli_runner import run
from tests.export import moodle_cloze
from tests.export.clients import moodle_shortanswer_matches
from tests.export.moodle_ordering import imported_hints
from tests.export.qti_dtd import check

NS = {"q": "http://www.imsglobal.org/xsd/ims_qtiasiv1p2", "m": "http://www.imsglobal.org/xsd/imsccv1p1/imscp_v1p1"}
EXAM = ("--paper", "2024T3_Q1_NA", "--seed", "7")
VERSIONS = 6
# question_bank::fraction_options_full (question/engine/bank.php): the only fractions Moodle's importer takes
# (qformat_default::importprocess, match_grade_options 'error').
_RAW = (0.9, 0.8333333, 0.8, 0.75, 0.7, 0.6666667, 0.6, 0.5, 0.4, 0.3333333, 0.3, 0.25, 0.2, 0.1666667, 0.1428571,
        0.125, 0.1111111, 0.1, 0.05)
FRACTIONS = (0.0, 1.0, -1.0, *_RAW, *(-f for f in _RAW))


@pytest.fixture(autouse=True)
def prepared(bundled_bank: Path) -> Path:
    return bundled_bank


def exported(tmp_path: Path, fmt: str, *selection: str, versions: int = VERSIONS) -> tuple[Path, list[dict[str, str]]]:
    target = tmp_path / f"exam.{'xml' if fmt == 'moodle' else 'zip'}"
    code, _, err = run("export", *selection, "--versions", str(versions), "--secret", str(tmp_path / "secret"),
                       "--format", fmt, "-o", str(target))
    assert code == 0, err
    with (tmp_path / "exam-key.csv").open() as file:
        return target, list(csv.DictReader(file))


def test_moodle_files_each_question_as_a_category_of_its_versions(tmp_path: Path) -> None:
    target, rows = exported(tmp_path, "moodle", *EXAM)
    assert (tmp_path / "exam-grid.md").exists()
    choices = [row["answer"] for row in rows if row["kind"] == "choice"]  # the letter a marker reads
    assert choices and all(len(answer) == 1 and answer.isalpha() for answer in choices)
    root = ET.parse(target).getroot()
    categories: dict[str, list[ET.Element]] = {}
    current = ""
    for question in root:
        if question.get("type") == "category":
            current = question.findtext("category/text") or ""
            categories[current] = []
        else:
            categories[current].append(question)
    questions = {row["question"] for row in rows if row["version"] == "A"}
    assert len(categories) == len(questions)
    for name, members in categories.items():
        label = name.rsplit("/", 1)[1].split(" ")[0]  # Q01a
        expected = [row for row in rows if row["question"] == label[1:].lstrip("0")]
        assert len(members) == VERSIONS and len({m.findtext("idnumber") for m in members}) == VERSIONS
        assert f"({expected[0]['points']} mark" in name
        for member, row in zip(members, expected, strict=True):  # the versions' seeds are the key's
            assert f"@{row['seed']}" in (member.findtext("idnumber") or "")  # a part: its routed ID@seed#label
            assert f"version {row['version']}" in (member.findtext("name/text") or "")
    check_moodle_rules(root)


def check_moodle_rules(root: ET.Element) -> None:
    """Every question as Moodle's importer and engine take it: fractions from Moodle's list, ordering hints,
    shuffled choices, a cloze's right answer scoring 1 and a short answer's right answer matching."""
    kinds = set()
    for question in root:
        qtype = question.get("type")
        kinds.add(qtype)
        if qtype == "category":
            continue
        for answer in question.findall("answer"):
            if qtype != "ordering":
                assert any(abs(float(answer.get("fraction") or 0) / 100 - f) < 1e-5 for f in FRACTIONS)
        if qtype == "multichoice":
            assert question.findtext("shuffleanswers") == "1"
        if qtype == "ordering":
            assert all(row["hintformat"] is not None for row in imported_hints(question))
        if qtype == "cloze":
            text = question.findtext("questiontext/text") or ""
            blanks = moodle_cloze.extract(text)
            right = [next(float(a) for f, a, _ in blank.answers if f == 1.0) for blank in blanks]
            assert moodle_cloze.grade(text, right) == 1.0
        if qtype == "shortanswer":
            key, seed = (question.findtext("idnumber") or "").split("#")[0].rsplit("@", 1)
            made = instance(key, int(seed))
            if made.kind in ("shape", "expression"):
                assert any(moodle_shortanswer_matches(a.findtext("text") or "", made.answer_text.strip(),
                                                      ignore_case=False)
                           for a in question.findall("answer") if a.get("fraction") == "100")
    assert {"cloze", "numerical", "shortanswer", "multianswer"} & kinds


def test_qti_groups_each_question_and_picks_one_version(tmp_path: Path) -> None:
    target, rows = exported(tmp_path, "qti", *EXAM)
    with zipfile.ZipFile(target) as package:
        assessment = ET.fromstring(package.read("quizzer-assessment/quizzer-assessment.xml"))
    assert check(assessment) == []
    groups = assessment.findall("q:assessment/q:section/q:section", NS)
    assert len(groups) == len({row["question"] for row in rows})
    for group in groups:
        assert group.findtext("q:selection_ordering/q:selection/q:selection_number", "", NS) == "1"
        items = group.findall("q:item", NS)
        assert len(items) == VERSIONS
        points = {f.findtext("q:fieldentry", "", NS) for item in items
                  for f in item.iterfind("q:itemmetadata/q:qtimetadata/q:qtimetadatafield", NS)
                  if f.findtext("q:fieldlabel", "", NS) == "points_possible"}
        assert points == {group.findtext("q:selection_ordering/q:selection/q:selection_extension/q:points_per_item",
                                         "", NS)}


def test_the_qti_package_keeps_to_the_dtd_and_carries_its_figures(tmp_path: Path) -> None:
    target = tmp_path / "bank.zip"
    code, _, err = run("export", "--seed", "4", "--format", "qti", "-o", str(target))
    assert code == 0, err
    with zipfile.ZipFile(target) as package:
        names = package.namelist()
        assessment = ET.fromstring(package.read("quizzer-assessment/quizzer-assessment.xml"))
        manifest = ET.fromstring(package.read("imsmanifest.xml"))
        images = assessment.findall(".//q:matimage", NS)
        assert len(images) >= 4
        for image in images:  # each figure is a file of the package, beside the assessment, in the manifest
            path = f"quizzer-assessment/{image.get('uri')}"
            assert path in names and package.read(path).startswith(b"<svg")
            assert manifest.find(f".//m:file[@href='{path}']", NS) is not None
    assert check(assessment) == []
    broken = ET.fromstring('<item xmlns="http://www.imsglobal.org/xsd/ims_qtiasiv1p2" ident="x"><resprocessing>'
                           '<outcomes><decvar/></outcomes></resprocessing></item>')
    assert check(broken) and "resprocessing" in check(broken)[0]  # the essay items' old fault is caught
