"""``export -f moodle-backup``: a Moodle course backup whose quiz gives every question its points.

The rules are Moodle 4.5's restore (``backup/moodle2/restore_stepslib.php``, ``mod/quiz/backup/moodle2``,
``question/type/multianswer/backup``), checked by hand against a real Moodle 4.5.6 (the README's figures): the
files restore reads, each well-formed; ids unique per table and every link between them resolved; each slot's
``maxmark`` the question's points even where Moodle marks the question itself out of another total (a cloze's
blank weights), the quiz's ``sumgrades`` and grade the paper's total; a cloze as Moodle stores it (its text
with ``{#1}``…, NUMERICAL subquestions in its sequence); with ``--versions``, one random slot per question
drawing from a category of exactly its versions, as ``exam-key.csv`` lists them."""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import json
import re
import tarfile
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pytest

from tests.cli_runner import run
from tests.export.test_qti import made_by

EXAM = ("--paper", "2024T3_Q1_NA", "--seed", "7")
ACTIVITY = "activities/quiz_1"
NEEDED = ("moodle_backup.xml", "questions.xml", "files.xml", "course/course.xml", "course/inforef.xml",
          "sections/section_1/section.xml", f"{ACTIVITY}/module.xml", f"{ACTIVITY}/quiz.xml",
          f"{ACTIVITY}/inforef.xml", f"{ACTIVITY}/grades.xml", "gradebook.xml", "roles.xml", "groups.xml")


@pytest.fixture(autouse=True)
def prepared(bundled_bank: Path) -> Path:
    return bundled_bank


def unpacked(path: Path) -> dict[str, bytes]:
    with tarfile.open(fileobj=io.BytesIO(gzip.decompress(path.read_bytes()))) as tar:
        return {member.name: tar.extractfile(member).read() for member in tar.getmembers()  # type: ignore[union-attr]
                if member.isfile()}


def parsed(files: dict[str, bytes]) -> dict[str, ET.Element]:
    """Every XML file of the backup, parsed (a file that is not well-formed fails here)."""
    return {name: ET.fromstring(content) for name, content in files.items() if name.endswith(".xml")}


def questions(trees: dict[str, ET.Element]) -> dict[int, ET.Element]:
    found = trees["questions.xml"].findall(".//questions/question")
    ids = [int(q.get("id", "0")) for q in found]
    assert len(ids) == len(set(ids)), "question ids repeat"
    return dict(zip(ids, found, strict=True))


def slots(trees: dict[str, ET.Element]) -> list[ET.Element]:
    return trees[f"{ACTIVITY}/quiz.xml"].findall(".//question_instance")


def check_archive(files: dict[str, bytes], trees: dict[str, ET.Element]) -> None:
    """What restore reads is there and consistent: files, index, categories, ids, the pool."""
    assert all(name in files for name in NEEDED)
    index = files[".ARCHIVE_INDEX"].decode().splitlines()
    assert index[0] == f"Moodle archive file index. Count: {len(files) - 1}"
    assert {line.split("\t")[0] for line in index[1:]} == set(files) - {".ARCHIVE_INDEX"}
    information = trees["moodle_backup.xml"].find("information")
    assert information is not None and information.findtext("details/detail/type") == "course"
    settings = {s.findtext("name"): s.findtext("value") for s in information.iter("setting")}
    assert settings["questionbank"] == settings["activities"] == "1" and settings["users"] == "0"
    assert information.findtext("contents/activities/activity/directory") == ACTIVITY
    categories = [int(c.get("id", "0")) for c in trees["questions.xml"].findall("question_category")]
    assert len(categories) == len(set(categories))
    tops = [c for c in trees["questions.xml"].findall("question_category") if c.findtext("parent") == "0"]
    assert [c.findtext("name") for c in tops] == ["top"]
    for inforef in ("course/inforef.xml", f"{ACTIVITY}/inforef.xml"):  # restore takes only the categories named
        named = [int(e.findtext("id", "0")) for e in trees[inforef].iter("question_category")]
        assert sorted(named) == sorted(categories)
    for table in ("answer", "numerical_record", "multichoice", "multianswer", "question_bank_entry"):
        ids = [e.get("id") for e in trees["questions.xml"].iter(table) if e.get("id")]
        assert len(ids) == len(set(ids)), f"{table} ids repeat"
    all_questions = questions(trees)
    # Restore finds a question already in the course (restoring the file twice adds nothing) by a hash of its
    # fields without its creator and modifier, which it leaves in when they are NULL: they must be set.
    people = [q.findtext(field) for q in all_questions.values() for field in ("createdby", "modifiedby")]
    people += [e.findtext("ownerid") for e in trees["questions.xml"].iter("question_bank_entry")]
    assert all(person not in (None, "$@NULL@$") for person in people)
    for entry in trees["files.xml"].iter("file"):  # each figure in the pool, named by its SHA-1
        content = files[f"files/{entry.findtext('contenthash', '')[:2]}/{entry.findtext('contenthash')}"]
        assert hashlib.sha1(content, usedforsecurity=False).hexdigest() == entry.findtext("contenthash")
        assert int(entry.findtext("itemid", "0")) in all_questions
        assert entry.findtext("filename", "") in (all_questions[int(entry.findtext("itemid", "0"))]
                                                  .findtext(entry.findtext("filearea", "")) or "")


def check_clozes(trees: dict[str, ET.Element]) -> int:
    """Each cloze as Moodle stores one: ``{#k}`` in its text for the k-th id of its sequence, a NUMERICAL
    subquestion with that parent and the blank's weight; its default mark the sum of the weights."""
    by_id = questions(trees)
    clozes = [q for q in by_id.values() if q.findtext("qtype") == "multianswer"]
    for cloze in clozes:
        sequence = [int(i) for i in (cloze.findtext(".//sequence") or "").split(",")]
        text = cloze.findtext("questiontext") or ""
        assert re.findall(r"\{#(\d+)\}", text) == [str(k) for k in range(1, len(sequence) + 1)]
        assert "NUMERICAL" not in text
        subs = [by_id[i] for i in sequence]
        assert all(s.findtext("parent") == cloze.get("id") and s.findtext("qtype") == "numerical" for s in subs)
        assert all(re.fullmatch(r"\{\d+:NUMERICAL:=.*\}", s.findtext("questiontext") or "") for s in subs)
        assert float(cloze.findtext("defaultmark", "0")) == sum(float(s.findtext("defaultmark", "0")) for s in subs)
    return len(clozes)


def test_the_bank_quiz_gives_every_question_its_points(tmp_path: Path) -> None:
    target = tmp_path / "quiz.mbz"
    code, _, err = run("export", *EXAM, "--format", "moodle-backup", "-o", str(target))
    assert code == 0, err
    files = unpacked(target)
    trees = parsed(files)
    check_archive(files, trees)
    assert check_clozes(trees) > 0
    by_id = questions(trees)
    entries = {int(e.get("id", "0")): e for e in trees["questions.xml"].iter("question_bank_entry")}
    tops = [q for q in by_id.values() if q.findtext("parent") == "0"]
    assert len(slots(trees)) == len(tops)
    total = 0.0
    cloze_marks_differ = 0
    for slot in slots(trees):
        entry = entries[int(slot.findtext("question_reference/questionbankentryid", "0"))]
        question = entry.find(".//questions/question")
        assert question is not None
        points = made_by(entry.findtext("idnumber") or "").points
        assert float(slot.findtext("maxmark", "0")) == points
        cloze_marks_differ += float(question.findtext("defaultmark", "0")) != points  # Moodle XML's mark there
        total += points
    assert cloze_marks_differ > 0  # the questions no Moodle XML file can give their points
    quiz = trees[f"{ACTIVITY}/quiz.xml"].find("quiz")
    assert quiz is not None
    assert float(quiz.findtext("sumgrades", "0")) == float(quiz.findtext("grade", "0")) == total
    assert float(trees[f"{ACTIVITY}/grades.xml"].findtext(".//grademax", "0")) == total


def test_versions_are_one_random_slot_per_question_worth_its_points(tmp_path: Path) -> None:
    target = tmp_path / "exam.mbz"
    args = ("export", *EXAM, "--versions", "3", "--secret", str(tmp_path / "secret"), "--format", "moodle-backup",
            "-o", str(target))
    code, _, err = run(*args)
    assert code == 0, err
    with (tmp_path / "exam-key.csv").open() as file:
        rows = list(csv.DictReader(file))
    files = unpacked(target)
    trees = parsed(files)
    check_archive(files, trees)
    check_clozes(trees)
    # Each question (each part) of the key: its versions (seed and part) and its points.  (A part's idnumber
    # names the part's own routed ID, the key its question's.)
    wanted: dict[str, tuple[set[str], float]] = {}
    for row in rows:
        label = row["key"].partition(" (")[2].rstrip(")")
        ids, _ = wanted.setdefault(row["question"], (set(), float(row["points"])))
        ids.add(f"{row['seed']}#{label}")
    categories = {c.get("id"): c for c in trees["questions.xml"].findall("question_category")}
    drawn = []
    for slot in slots(trees):
        reference = slot.find("question_set_reference")
        assert reference is not None and slot.find("question_reference") is None
        condition = json.loads(reference.findtext("filtercondition") or "")["filter"]["category"]
        assert condition["filteroptions"] == {"includesubcategories": False}
        category = categories[condition["values"][0]]
        names = {(e.findtext("idnumber") or "").rpartition("@")[2] for e in category.iter("question_bank_entry")
                 if e.findtext("idnumber") != "$@NULL@$"}  # not a cloze's blanks
        names = {name if "#" in name else name + "#" for name in names}
        drawn.append((names, float(slot.findtext("maxmark", "0"))))
    assert sorted((sorted(names), points) for names, points in drawn) == \
        sorted((sorted(ids), points) for ids, points in wanted.values())
    assert all(len(names) == 3 for names, _ in drawn)
    quiz = trees[f"{ACTIVITY}/quiz.xml"].find("quiz")
    assert quiz is not None and float(quiz.findtext("sumgrades", "0")) == sum(p for _, p in wanted.values())
    first = target.read_bytes()
    assert run(*args, "--force")[0] == 0 and target.read_bytes() == first  # the same secret, the same bytes
    # Restore merges a category into the course's of the same stamp: another exam of the same paper and title
    # must not share a question's category (its slots would draw both exams' versions); the topics above may.
    other = tmp_path / "other.mbz"
    assert run("export", "--paper", "2024T3_Q1_NA", "--seed", "8", "--versions", "3", "--secret",
               str(tmp_path / "secret"), "--format", "moodle-backup", "-o", str(other))[0] == 0
    stamps = [{c.findtext("stamp") for c in parsed(unpacked(path))["questions.xml"].findall("question_category")
               if c.find("question_bank_entries/question_bank_entry") is not None} for path in (target, other)]
    assert len(stamps[0]) == len(drawn) and not stamps[0] & stamps[1]


@pytest.mark.parametrize("extra", [(), ("--paper-only",)])
def test_bad_requests_are_one_line_and_exit_2(tmp_path: Path, extra: tuple[str, ...]) -> None:
    output = () if not extra else ("-o", str(tmp_path / "q.mbz"))
    code, out, err = run("export", *EXAM, "--format", "moodle-backup", *output, *extra)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "q.mbz").exists()


def test_every_question_kind_is_in_the_bank_backup(tmp_path: Path) -> None:
    """The bank at one seed: every question type quizzer writes restores as its Moodle type."""
    target = tmp_path / "bank.mbz"
    assert run("export", "--seed", "2", "--format", "moodle-backup", "-o", str(target))[0] == 0
    trees = parsed(unpacked(target))
    kinds = Counter(q.findtext("qtype") for q in questions(trees).values() if q.findtext("parent") == "0")
    assert set(kinds) == {"numerical", "multianswer", "multichoice", "truefalse", "shortanswer", "essay", "ordering"}
    assert len(slots(trees)) == sum(kinds.values())
