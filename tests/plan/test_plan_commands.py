"""``quizzer plan``, ``quizzer next`` and ``grade --batch`` with ``answered_at``: the plan checked from outside."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from quizzer.learning.review import ReviewState
from tests.cli_runner import run

NOW = "2026-06-01T18:00:00Z"
Q277 = "2024T3_Q1_NA Q277"


@pytest.fixture(autouse=True)
def prepared(bundled_bank: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr("quizzer.common.profiles.getpass.getuser", lambda: "marie")
    return bundled_bank


def as_json(*args: str) -> dict:
    code, out, err = run(*args)
    assert (code, err) == (0, ""), err
    return json.loads(out)


def test_plan_sets_shows_and_clears_the_exam_date() -> None:
    fresh = as_json("plan", "--json", "--now", NOW)
    assert (fresh["exam"], fresh["days_left"], fresh["minutes_per_day"]) == (None, None, 30)
    assert as_json("plan", "--exam", "2026-06-15", "--minutes-per-day", "25", "--json", "--now", NOW)["exam"] == \
        "2026-06-15"
    shown = as_json("plan", "--json", "--now", NOW)
    assert (shown["exam"], shown["days_left"], shown["minutes_per_day"]) == ("2026-06-15", 14, 25)
    today = shown["today"]
    assert today["done_minutes"] == 0 and 0 < today["minutes"] <= 25
    assert sum(t["questions"] for t in today["topics"]) == today["questions"] > 0
    # The predicted score is the weighted mean of the topics' predictions (weights: routed records).
    topics = shown["predicted"]["topics"]
    total = sum(t["weight"] for t in topics)
    assert shown["predicted"]["score"] == pytest.approx(sum(t["weight"] * t["p"] for t in topics) / total, abs=1e-3)
    assert {t["id"]: t["weight"] for t in topics}["residual_normalization"] == 21
    assert shown["predicted"]["low"] <= shown["predicted"]["score"] <= shown["predicted"]["high"]
    # Minutes alone keep the date; --clear forgets both.
    assert as_json("plan", "--minutes-per-day", "40", "--json", "--now", NOW)["exam"] == "2026-06-15"
    code, out, _ = run("plan", "--clear")
    assert code == 0 and "cleared" in out
    assert as_json("plan", "--json", "--now", NOW)["exam"] is None


@pytest.mark.parametrize(("args", "message"), [
    (("--exam", "2026-02-30"), "--exam: '2026-02-30' is not a date written YYYY-MM-DD"),
    (("--exam", "15/06/2026"), "--exam: '15/06/2026' is not a date written YYYY-MM-DD"),
    (("--exam", "2026-05-31"), "--exam: 2026-05-31 is in the past (today is 2026-06-01)"),
    (("--now", "tomorrow"), "--now: 'tomorrow' is not an ISO-8601 instant"),
    (("--clear", "--exam", "2026-06-15"), "--clear forgets the exam date and minutes: give it alone"),
    (("--minutes-per-day", "0"), "--minutes-per-day"),
])
def test_bad_plan_input_is_one_line_and_changes_nothing(args: tuple[str, ...], message: str) -> None:
    before = as_json("plan", "--json", "--now", NOW)
    code, out, err = run("plan", *args, *(() if "--now" in args else ("--now", NOW)))
    assert code == 2 and out == "" and message in err and len(err.strip().splitlines()) == 1, err
    assert as_json("plan", "--json", "--now", NOW) == before


def test_the_exam_may_be_today() -> None:
    assert as_json("plan", "--exam", "2026-06-01", "--json", "--now", NOW)["days_left"] == 0


def test_once_the_exam_is_past_the_plan_is_the_one_without_a_date_and_says_so(tmp_path: Path) -> None:
    """A past exam date no longer drives the plan: aiming at it kept the plan in its last days' mode for
    good (no new question in a topic begun, every score predicted for "now").  Until the next date is
    set the plan is the rolling two weeks, and the student is told the exam was on that date."""
    answers = tmp_path / "answers.csv"
    answers.write_text("key,seed,answer,learner,answered_at\n"
                       f"{Q277},0,18944000,marie,2026-06-02T10:00:00Z\n{Q277},1,1,marie,2026-06-03T10:00:00Z\n",
                       encoding="utf-8")
    assert run("grade", "--batch", str(answers))[0] == 0
    assert run("plan", "--exam", "2026-06-05", "--now", NOW)[0] == 0
    after = "2026-06-09T18:00:00Z"
    past = as_json("plan", "--json", "--now", after)
    assert (past["exam"], past["days_left"]) == ("2026-06-05", -4)
    code, out, _ = run("plan", "--now", after)
    assert code == 0 and "(past: set the next with quizzer plan --exam YYYY-MM-DD)" in out
    before_exam = as_json("plan", "--json", "--now", "2026-06-04T18:00:00Z")
    assert run("plan", "--clear")[0] == 0
    undated = as_json("plan", "--json", "--now", after)
    assert (past["today"], past["predicted"]) == (undated["today"], undated["predicted"])
    # ... and not what the last day before the exam planned: new questions are offered again.
    assert before_exam["days_left"] == 1 and past["today"] != before_exam["today"]


def test_next_is_reproducible_and_answers_with_its_solution() -> None:
    first = as_json("next", "--json", "--now", NOW)
    assert set(first) == {"key", "seed", "topic", "reason"}
    assert first == as_json("next", "--json", "--now", NOW)  # seeded by the profile and the time
    assert "not tried yet" in first["reason"] and "exam weight" in first["reason"]
    full = as_json("next", "--json", "--now", NOW, "--solutions")
    assert {k: full[k] for k in first} == first
    generated = as_json("generate", "-k", first["key"], "--seed", str(first["seed"]), "--format", "json",
                        "--solutions")
    assert full["instance"] == generated[0]
    other = as_json("--profile", "someone else", "next", "--json", "--now", NOW)
    later = as_json("next", "--json", "--now", "2026-06-01T18:00:01Z")
    assert (other["seed"], later["seed"]) != (first["seed"], first["seed"])


def test_next_follows_the_answers_recorded(tmp_path: Path) -> None:
    """After answering wrong, the mistakes queue holds that question; reviews only holds answered ones."""
    code, _, err = run("next", "--json", "--mode", "mistakes", "--now", NOW)
    assert code == 2 and "no mistakes to redo" in err
    assert run("grade", Q277, "--seed", "0", "--answer", "1")[0] == 0  # wrong
    later = "2999-12-31T00:00:00Z"
    redo = as_json("next", "--json", "--mode", "mistakes", "--now", later)
    assert redo["key"] == Q277 and "was wrong" in redo["reason"] and redo["seed"] != 0
    assert as_json("next", "--json", "--mode", "reviews", "--now", later)["key"] == Q277
    assert as_json("next", "--json", "--mode", "new", "--now", later)["key"] != Q277
    assert run("grade", Q277, "--seed", "0", "--answer", "18944000")[0] == 0  # right this time
    assert "no mistakes to redo" in run("next", "--json", "--mode", "mistakes", "--now", later)[2]


def card(bank: Path, learner: str, key: str) -> ReviewState:
    with sqlite3.connect(bank) as db:
        (text,) = db.execute("SELECT r.state_json FROM reviewcard r JOIN learner l ON l.id = r.learner_id "
                             "WHERE l.name = ? AND r.template_key = ?", (learner, key)).fetchone()
    return ReviewState.from_json(text)


def test_answered_at_records_each_answer_at_its_time_and_replays_the_card_in_order(
        tmp_path: Path, bundled_bank: Path) -> None:
    # Given in the wrong order: the later answer (right) first, the earlier (wrong) second.
    file = tmp_path / "paper.csv"
    file.write_text(f"key,seed,answer,learner,answered_at\n{Q277},0,18944000,ada,2026-03-02T10:00:00Z\n"
                    f"{Q277},0,1,ada,2026-03-01T10:00:00\n", encoding="utf-8")
    code, out, err = run("grade", "--batch", str(file))
    assert (code, err) == (0, "")
    with sqlite3.connect(bundled_bank) as db:
        times = db.execute("SELECT created_at, verdict FROM attempt ORDER BY created_at").fetchall()
    assert [(t[:19], v) for t, v in times] == [("2026-03-01 10:00:00", "incorrect"), ("2026-03-02 10:00:00", "correct")]
    # The card is the one two answers in time order make: its last review is the right one, on the 2nd.
    state = card(bundled_bank, "ada", Q277)
    assert state.last_review is not None and state.last_review.isoformat() == "2026-03-02T10:00:00+00:00"
    in_order = tmp_path / "in_order.csv"
    in_order.write_text(f"key,seed,answer,learner,answered_at\n{Q277},0,1,bea,2026-03-01T10:00:00Z\n"
                        f"{Q277},0,18944000,bea,2026-03-02T10:00:00Z\n", encoding="utf-8")
    assert run("grade", "--batch", str(in_order))[0] == 0
    assert card(bundled_bank, "bea", Q277) == state


def test_an_answered_at_in_the_future_or_unreadable_is_the_lines_error(tmp_path: Path, bundled_bank: Path) -> None:
    file = tmp_path / "bad.jsonl"
    file.write_text(json.dumps({"key": Q277, "seed": 0, "answer": "1", "answered_at": "2999-01-01T00:00:00Z"}) + "\n"
                    + json.dumps({"key": Q277, "seed": 0, "answer": "1", "answered_at": "last week"}) + "\n",
                    encoding="utf-8")
    code, out, _ = run("grade", "--batch", str(file))
    assert code == 2
    errors = [json.loads(line)["error"] for line in out.splitlines()]
    assert errors == ["'answered_at' 2999-01-01T00:00:00Z is in the future",
                      "'answered_at' must be an ISO-8601 instant such as 2026-06-01T18:00:00Z, got 'last week'"]
    with sqlite3.connect(bundled_bank) as db:
        assert db.execute("SELECT COUNT(*) FROM attempt").fetchone() == (0,)
