"""`quizzer grade --batch` reports each answer's marks: the question's points and what the answer earned."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from quizzer.templates.schema import DEFAULT_POINTS
from tests.bundled_templates import bundled, instance
from tests.cli_runner import run

Q277 = "2024T3_Q1_NA Q277"  # a number question
SELECT_ALL = "practice/bahdanau-alignment-statements"  # select-all: partial credit scales the points


@pytest.fixture(autouse=True)
def prepared(bundled_bank: Path) -> Path:
    return bundled_bank


def test_each_result_has_points_and_the_marks_earned(tmp_path: Path) -> None:
    file = tmp_path / "class.jsonl"
    one_right = chr(97 + sorted(instance(SELECT_ALL, 0).answer)[0])  # one of several right options
    lines = [{"key": Q277, "seed": 0, "answer": "18944000"}, {"key": Q277, "seed": 0, "answer": "5"},
             {"key": SELECT_ALL, "seed": 0, "answer": one_right}]
    file.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    code, out, err = run("grade", "--batch", str(file), "--dry-run")
    assert code == 0, err
    right, wrong, partial = (json.loads(line) for line in out.splitlines())
    assert right["points"] == bundled()[Q277].marks == DEFAULT_POINTS["number"] and right["earned"] == right["points"]
    assert wrong["earned"] == 0
    assert partial["points"] == bundled()[SELECT_ALL].marks
    assert partial["earned"] == pytest.approx(partial["score"] * partial["points"]) and 0 < partial["score"] < 1
