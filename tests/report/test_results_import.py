"""``quizzer report --results``: a class's results from another system, read and checked
(``quizzer.reporting.results``), and the per-variant comparison (``items.compare_variants``)."""

from __future__ import annotations

import json
import math
import random
from datetime import UTC, datetime
from pathlib import Path

import pytest

from quizzer.reporting.classdata import ClassAttempt
from quizzer.reporting.items import _holm, compare_variants
from tests.cli_runner import run


@pytest.mark.parametrize(("content", "message"), [
    ("learner,question\n", "missing score"),
    ("learner,question,score,extra\n", "unknown column 'extra'"),
    ("learner,question,score\nada,q1,1.5\n", "line 2: score must be a number from 0 to 1"),
    ("learner,question,score\nada,q1,nan\n", "line 2: score must be a number from 0 to 1"),
    ("learner,question,score\n,q1,1\n", "line 2: learner (1–80 characters)"),
    ("learner,question,score,answered_at\nada,q1,1,yesterday\n", "line 2: answered_at must be an ISO"),
    ("learner,question,score\nada,q1\n", "line 2: expected 3 fields"),
    ("learner,question,score\n", "no results in the file"),
])
def test_a_bad_results_file_is_one_line_and_status_2(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "results.csv"
    path.write_text(content)
    code, out, err = run("report", "--results", str(path))
    assert code == 2 and out == "" and message in err and len(err.strip().splitlines()) == 1, err


def test_first_tries_follow_answered_at(tmp_path: Path) -> None:
    """A learner's earliest row is their first try, whatever the file's order."""
    path = tmp_path / "results.csv"
    rows = ["learner,question,score,answered_at"]
    for n in range(6):
        rows += [f"s{n},q1,1,2026-12-02", f"s{n},q1,0,2026-12-01", f"s{n},q2,{n % 2},2026-12-01"]
    path.write_text("\n".join(rows) + "\n")
    code, out, err = run("report", "--results", str(path), "--format", "json")
    assert code == 0, err
    items = {item["key"]: item for item in json.loads(out)["items"]}
    assert items["q1"]["facility"] == 0 and items["q1"]["attempts"] == 12 and items["q2"]["facility"] == 0.5


def test_holm_adjustment() -> None:
    assert _holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert _holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])


def _firsts(rights: dict[str, tuple[int, int]]) -> list[ClassAttempt]:
    at = datetime(2026, 12, 1, tzinfo=UTC)
    return [ClassAttempt(f"{version}{n}", "q", 0, "correct" if n < right else "incorrect", float(n < right), None,
                         None, at, version=version)
            for version, (right, total) in rights.items() for n in range(total)]


def test_a_version_much_easier_than_its_siblings_is_flagged_and_chance_is_not() -> None:
    variants = {v.variant: v for v in compare_variants(_firsts({"A": (38, 40), "B": (20, 40), "C": (19, 40),
                                                                 "D": (21, 40)}))}
    a = variants["A"]
    # Against the other three pooled (60 of 120): the pooled two-proportion z, by hand.
    pooled = 98 / 160
    z = (38 / 40 - 60 / 120) / math.sqrt(pooled * (1 - pooled) * (1 / 40 + 1 / 120))
    assert a.z == pytest.approx(z) and a.flag == "easier" and a.p == pytest.approx(min(1, 4 * math.erfc(z / 2**0.5)))
    assert all(variants[v].flag in ("", "harder") for v in "BCD")
    rng = random.Random(3)  # 30 versions of one question, all alike: Holm keeps chance from flagging any
    alike = {f"V{n}": (sum(rng.random() < 0.6 for _ in range(40)), 40) for n in range(30)}
    assert not any(v.flag for v in compare_variants(_firsts(alike)))


def test_variants_need_enough_learners() -> None:
    assert compare_variants(_firsts({"A": (9, 9), "B": (0, 40)})) == ()
