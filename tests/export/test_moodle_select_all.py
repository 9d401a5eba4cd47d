"""A select-all question scores the same in Moodle as in quizzer, for every selection a student can make.

Moodle adds the fractions of the options picked and floors the sum at 0; quizzer scores
max(0, (right picks − wrong picks) / right options).  Checked on the Moodle XML quizzer writes.
"""

from __future__ import annotations

import itertools
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from quizzer.grading.verdict import grade
from tests.bundled_templates import bundled, instance
from tests.cli_runner import run

MULTI = sorted(key for key, t in bundled().items() if t.kind == "multi")[:4]


@pytest.fixture(autouse=True)
def prepared(bundled_bank: Path) -> Path:
    return bundled_bank


def test_every_selection_scores_the_same_in_moodle(tmp_path: Path) -> None:
    target = tmp_path / "bank.xml"
    keys = [arg for key in MULTI for arg in ("--key", key)]
    assert run("export", *keys, "--seed", "5", "--format", "moodle", "-o", str(target))[0] == 0
    questions = [q for q in ET.parse(target).getroot() if q.get("type") == "multichoice"]
    assert len(questions) == len(MULTI)
    compared = 0
    for question in questions:
        key, seed = question.findtext("idnumber", "").rsplit("@", 1)
        item = instance(key, int(seed))
        fractions = [float(answer.get("fraction", "nan")) / 100 for answer in question.findall("answer")]
        letters = "abcdefghijkl"[:len(fractions)]
        for size in range(len(fractions) + 1):
            for picked in itertools.combinations(range(len(fractions)), size):
                moodle = max(0.0, sum(fractions[i] for i in picked))
                typed = ", ".join(letters[i] for i in picked) or "none"
                assert grade(item.spec, typed).score == pytest.approx(moodle, abs=1e-4), (key, typed)
                compared += 1
    assert compared > 100
