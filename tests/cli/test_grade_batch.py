"""`quizzer grade --batch`: a class's answers marked in one process, each recorded as the app records it."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from tests.cli_runner import run

Q277, Q282 = "2024T3_Q1_NA Q277", "2024T3_Q1_NA Q282"
CSV = f"""key,seed,answer,learner,seconds
{Q277},0,18944000,ada,30
{Q277},0,"18,981,000",ada,25
{Q277},0,banana,bob,
{Q277}9,0,5,bob,
{Q282},0,"[2, 1]",carol,12
{Q277},x,5,carol,
{Q277},0,18944000,,-3
"""


@pytest.fixture(autouse=True)
def prepared(bundled_bank: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr("quizzer.common.profiles.getpass.getuser", lambda: "marie")
    return bundled_bank


def results(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines()]


def rows(bank: Path, query: str) -> list[tuple]:
    with sqlite3.connect(bank) as db:
        return db.execute(query).fetchall()


def test_a_mixed_csv_is_graded_line_by_line_in_order(tmp_path: Path, bundled_bank: Path) -> None:
    file = tmp_path / "class.csv"
    file.write_text(CSV, encoding="utf-8")
    code, out, err = run("grade", "--batch", str(file))
    assert code == 2 and err == ""  # a bad line makes the exit status 2; each says why on its own line
    got = results(out)
    assert [r["line"] for r in got] == [2, 3, 4, 5, 6, 7, 8]
    assert [(r.get("verdict"), r.get("score"), r.get("misconception")) for r in got[:2]] == [
        ("correct", 1.0, None), ("incorrect", 0.0, "counted_nonexistent_biases")]
    assert "could not read the answer 'banana'" in got[2]["error"]
    assert "unknown question" in got[3]["error"] and "did you mean" in got[3]["error"]
    assert (got[4]["verdict"], got[4]["score"], got[4]["misconception"], got[4]["learner"]) == (
        "partial", 0.5, "unbiased_variance", "carol")
    assert "'seed' must be a whole number" in got[5]["error"]
    assert "'seconds' must be a number of seconds" in got[6]["error"]
    # The graded lines are attempts of their learners, with review cards, as if typed in the app;
    # bob's lines were all bad, so no profile was made for him.
    attempts = rows(bundled_bank, "SELECT l.name, a.template_key, a.verdict, a.misconception, a.seconds "
                                  "FROM attempt a JOIN learner l ON l.id = a.learner_id ORDER BY a.id")
    assert attempts == [("ada", Q277, "correct", None, 30.0),
                        ("ada", Q277, "incorrect", "counted_nonexistent_biases", 25.0),
                        ("carol", Q282, "partial", "unbiased_variance", 12.0)]
    cards = rows(bundled_bank, "SELECT l.name, c.template_key FROM reviewcard c JOIN learner l ON l.id = c.learner_id "
                               "ORDER BY l.name")
    assert cards == [("ada", Q277), ("carol", Q282)]


def test_json_lines_and_the_current_profile(tmp_path: Path, bundled_bank: Path) -> None:
    file = tmp_path / "class.jsonl"
    file.write_text(json.dumps({"key": Q277, "seed": 0, "answer": "18944000", "seconds": 4}) + "\n\n"
                    + json.dumps({"key": Q277, "seed": 0, "answer": 18981000}) + "\n", encoding="utf-8")
    code, out, _ = run("--profile", "dora", "grade", "--batch", str(file))
    assert code == 0
    assert [(r["line"], r["learner"], r["verdict"]) for r in results(out)] == [
        (1, "dora", "correct"), (3, "dora", "incorrect")]
    assert rows(bundled_bank, "SELECT count(*) FROM attempt") == [(2,)]


def test_a_dry_run_records_nothing(tmp_path: Path, bundled_bank: Path) -> None:
    file = tmp_path / "class.csv"
    file.write_text(CSV, encoding="utf-8")
    code, out, _ = run("grade", "--batch", str(file), "--dry-run")
    assert code == 2 and all(r.get("recorded") is False for r in results(out) if "error" not in r)
    assert rows(bundled_bank, "SELECT count(*) FROM attempt") == [(0,)]
    assert rows(bundled_bank, "SELECT name FROM learner") == []


@pytest.mark.parametrize(("content", "message"), [
    ("a,b\n1,2\n",
     "line 1: the CSV header must be key,seed,answer[,learner,seconds,answered_at] (missing key, seed, answer)"),
    ("key,seed,answer,colour\n", "unknown column 'colour'"),
])
def test_a_bad_header_is_one_line_and_changes_nothing(tmp_path: Path, bundled_bank: Path, content: str,
                                                     message: str) -> None:
    file = tmp_path / "class.csv"
    file.write_text(content, encoding="utf-8")
    code, out, err = run("grade", "--batch", str(file))
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and message in err
    assert rows(bundled_bank, "SELECT count(*) FROM attempt") == [(0,)]


def test_batch_refuses_a_key_of_its_own_and_a_missing_file(tmp_path: Path) -> None:
    code, _, err = run("grade", Q277, "--batch", str(tmp_path / "x.csv"))
    assert code == 2 and "--batch takes its keys" in err
    code, _, err = run("grade", "--batch", str(tmp_path / "missing.csv"))
    assert code == 2 and "cannot read the file" in err
    code, _, err = run("grade", Q277, "--seed", "0")
    assert code == 2 and "missing --answer" in err


@pytest.mark.parametrize("rating", ["3", "g", "good", " Good "])
def test_a_recall_card_rated_by_number_or_letter_is_recorded(tmp_path: Path, bundled_bank: Path, rating: str) -> None:
    """The grader reads "3" and "g" as "good"; the review card takes the same rating (it used to crash)."""
    file = tmp_path / "class.csv"
    file.write_text(f'key,seed,answer,learner\n2026T2_ET_AN Q3,0,"{rating}",ada\n', encoding="utf-8")
    code, out, err = run("grade", "--batch", str(file))
    assert code == 0, err
    assert results(out)[0]["verdict"] == "correct"
    assert rows(bundled_bank, "SELECT COUNT(*) FROM reviewcard") == [(1,)]
