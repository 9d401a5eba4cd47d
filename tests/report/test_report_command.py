"""``quizzer report`` end to end, on SQLite and on PostgreSQL: a simulated class of 30 learners
answers through ``record_attempt``, and every number the report prints is checked against one
computed here from what was recorded."""

from __future__ import annotations

import json
import random
import shutil
from collections import Counter
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from quizzer.bank.learners import ensure_learner
from quizzer.bank.store import all_templates, record_attempt
from quizzer.grading.verdict import Verdict
from quizzer.learning.regrade import open_current_bank
from quizzer.reporting.queries import load_class
from quizzer.reporting.report import MIN_LEARNERS
from quizzer.templates.schema import Template
from tests.cli_runner import run
from tests.run_once import once_per_run

LEARNERS = [f"learner{n:02d}" for n in range(30)]  # learner n is right more often as n grows
IDLE = {"learner10", "learner11", "learner20"}  # practised a month ago, nothing since
NEWCOMER = "newcomer"  # a profile that has answered nothing yet
PAPERS = ("2024T3_Q1_NA", "2025T3_Q2_NA")  # the simulated class revises these two papers
PAPER = "2024T3_Q1_NA"


@dataclass(frozen=True)
class Answer:
    learner: str
    key: str
    correct: bool
    misconception: str | None
    at: datetime


@dataclass(frozen=True)
class SimulatedClass:
    answers: list[Answer]
    templates: dict[str, Template]


def simulate(templates: dict[str, Template], now: datetime) -> list[Answer]:
    """Each learner answers 8 questions of the two papers, then each of them again; a wrong answer
    makes one of the question's named misconceptions when it has any."""
    rng = random.Random(2026)
    mistakes = random.Random(7)  # its own stream: editing a template's misconceptions leaves who is right alone
    pool = sorted(key for key, t in templates.items() if t.paper in PAPERS)
    answers = []
    for n, name in enumerate(LEARNERS):
        start = now - timedelta(days=30 if name in IDLE else 3)
        for step, key in enumerate(rng.sample(pool, 8) * 2):
            template = templates[key]
            correct = rng.random() < 0.15 + 0.8 * n / len(LEARNERS) - 0.1 * (template.difficulty - 1)
            mistake = mistakes.choice(template.misconceptions).id if template.misconceptions and not correct else None
            answers.append(Answer(name, key, correct, mistake, start + timedelta(minutes=5 * step)))
    return answers


@pytest.fixture
def simulated_class(bundled_bank_url: str, bundled_bank_file: Path, isolated_bank: Path,
                    tmp_path_factory: pytest.TempPathFactory) -> SimulatedClass:
    """The bank QUIZZER_DB names, with the class's answers recorded as the app records them.  On SQLite
    the class is recorded once per test run (``tests/run_once.py``: 480 commits, seconds a test) and each
    test gets its own copy of that bank; on PostgreSQL it is recorded for each test."""
    if not bundled_bank_url.startswith("sqlite"):
        return record_class(bundled_bank_url)
    recorded = once_per_run(tmp_path_factory, "report-class", lambda folder: _record_once(folder, bundled_bank_file))
    shutil.copyfile(recorded["bank"], isolated_bank)
    engine, session = open_current_bank()
    with session:
        templates = {t.key: t for t in all_templates(session=session)}
    engine.dispose()
    answers = [Answer(a["learner"], a["key"], a["correct"], a["misconception"], datetime.fromisoformat(a["at"]))
               for a in recorded["answers"]]
    return SimulatedClass(answers, templates)


def _record_once(folder: Path, bundled_bank_file: Path) -> dict[str, Any]:
    bank = folder / "bank.sqlite"
    shutil.copyfile(bundled_bank_file, bank)
    answers = record_class(f"sqlite:///{bank}").answers
    return {"bank": str(bank), "answers": [{**asdict(a), "at": a.at.isoformat()} for a in answers]}


def record_class(url: str) -> SimulatedClass:
    """The class's answers recorded in the bank at ``url`` through ``record_attempt``, one commit each."""
    engine, session = open_current_bank(url)
    with session:
        templates = {t.key: t for t in all_templates(session=session)}
        answers = simulate(templates, datetime.now(UTC))
        ids = {name: ensure_learner(session=session, name=name).id for name in [*LEARNERS, NEWCOMER]}
        for step, answer in enumerate(answers):
            verdict = Verdict("correct" if answer.correct else "incorrect", float(answer.correct), "", "",
                              answer.misconception, "typed")
            record_attempt(session=session, learner_id=ids[answer.learner], key=answer.key, seed=step,
                           response="typed", verdict=verdict, seconds=20.0, at=answer.at)
    engine.dispose()  # the last connection closing checkpoints SQLite's write-ahead log into the file
    return SimulatedClass(answers, templates)


def report_json(*args: str) -> dict:  # type: ignore[type-arg]
    code, out, err = run("report", "--format", "json", *args)
    assert code == 0, err
    return json.loads(out)  # type: ignore[no-any-return]


def first_try_accuracy(answers: list[Answer], key: str) -> tuple[float, int]:
    firsts: dict[str, bool] = {}
    for answer in sorted(answers, key=lambda a: a.at):
        if answer.key == key:
            firsts.setdefault(answer.learner, answer.correct)
    return sum(firsts.values()) / len(firsts), len(firsts)


def test_the_data_layer_returns_every_attempt_with_its_learner(simulated_class: SimulatedClass) -> None:
    engine, session = open_current_bank()
    with session:
        everything = load_class(session=session)
        on_paper = load_class(session=session, paper=PAPER)
    engine.dispose()
    assert everything.learners == sorted([*LEARNERS, NEWCOMER])
    assert len(everything.templates) > len(on_paper.templates) > 0
    assert all(t.paper == PAPER for t in on_paper.templates.values())
    recorded = Counter((a.learner, a.key, a.at, a.misconception) for a in everything.attempts)
    assert recorded == Counter((a.learner, a.key, a.at, a.misconception) for a in simulated_class.answers)
    assert [a.at for a in everything.attempts] == sorted(a.at for a in everything.attempts)
    assert {a.key for a in on_paper.attempts} == {a.key for a in simulated_class.answers
                                                  if simulated_class.templates[a.key].paper == PAPER}


def test_the_report_counts_what_the_class_recorded(simulated_class: SimulatedClass) -> None:
    answers, templates = simulated_class.answers, simulated_class.templates
    data = report_json()
    assert data["learners"] == 31 and data["attempts"] == len(answers) == 30 * 16
    assert data["hardest"], "30 learners on two papers leave questions tried by at least 3"
    for row in data["hardest"]:
        assert (row["first_try_accuracy"], row["learners"]) == pytest.approx(first_try_accuracy(answers, row["key"]))
        assert row["learners"] >= MIN_LEARNERS
    accuracies = [row["first_try_accuracy"] for row in data["hardest"]]
    assert accuracies == sorted(accuracies)
    for topic, rows in data["misconceptions"].items():
        made = Counter(a.misconception for a in answers if a.misconception and topic in templates[a.key].topics)
        assert [(r["id"], r["attempts"]) for r in rows] == sorted(made.items(), key=lambda i: (-i[1], i[0]))[:len(rows)]
        for row in rows:
            assert row["learners"] == len({a.learner for a in answers if a.misconception == row["id"]
                                           and topic in templates[a.key].topics})


def test_the_report_names_who_is_behind(simulated_class: SimulatedClass) -> None:
    data = report_json()
    behind = {row["name"]: row for row in data["behind"]}
    assert IDLE | {NEWCOMER} <= set(behind)
    assert all("0 answers in 7 days" in behind[name]["reasons"] for name in IDLE | {NEWCOMER})
    below = {name for name, row in behind.items() if row["mean_mastery"] < data["lower_quartile"]}
    assert below and all(any("lower quartile" in reason for reason in behind[name]["reasons"]) for name in below)
    assert below - {NEWCOMER} <= set(LEARNERS[:15])  # the weaker half of the simulated class
    active = set(LEARNERS) - IDLE
    assert all(row["recent_attempts"] == 16 for name, row in behind.items() if name in active)
    assert set(LEARNERS[-5:]).isdisjoint(behind)  # strong and active
    for topic in data["topics"]:
        assert topic["learners"] + topic["not_started"] == 31


def test_a_paper_or_a_topic_narrows_the_report(simulated_class: SimulatedClass) -> None:
    answers, templates = simulated_class.answers, simulated_class.templates
    data = report_json("--paper", PAPER)
    assert data["paper"] == PAPER and data["attempts"] == sum(templates[a.key].paper == PAPER for a in answers)
    assert all(row["key"].startswith(f"{PAPER} ") for row in data["hardest"])
    topic = "causal_self_attention"
    data = report_json("--topic", topic)
    assert [t["topic"] for t in data["topics"]] == [topic] and list(data["misconceptions"]) in ([], [topic])
    assert data["attempts"] == sum(topic in templates[a.key].topics for a in answers)
    assert data["topics"][0]["learners"] == len({a.learner for a in answers if topic in templates[a.key].topics})


class Page(HTMLParser):
    """The tags of a page, checking that every one that opens in the body also closes."""

    VOID = {"meta", "br", "img", "hr", "input", "link"}

    def __init__(self) -> None:
        super().__init__()
        self.tags: Counter[str] = Counter()
        self.open: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags[tag] += 1
        if tag not in self.VOID:
            self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        assert self.open and self.open.pop() == tag, f"</{tag}> closes {self.open[-1:]}"


def test_every_format_renders_the_same_report(simulated_class: SimulatedClass) -> None:
    data = report_json()
    hardest, first_behind = data["hardest"][0]["key"], data["behind"][0]["name"]
    outputs = {fmt: run("report", "--format", fmt) for fmt in ("text", "md", "html")}
    for fmt, (code, out, err) in outputs.items():
        assert code == 0 and err == "", fmt
        assert hardest in out and first_behind in out and "31 learners, 480 answers" in out, fmt
    page = Page()
    page.feed(outputs["html"][1])
    page.close()
    flags = sum(len(item["flags"]) for item in data["items"]["items"])
    # mastery, misconceptions, hardest, behind; items, wrong answers, flags (when any), by paper, learners' ability
    assert data["items"]["rasch"] is not None and len(data["items"]["papers"]) == 2
    assert page.open == [] and page.tags["table"] == 8 + bool(flags)
    # a bar per topic and per question, and a chart per flag
    assert page.tags["svg"] == len(data["topics"]) + len(data["hardest"]) + flags
    assert "| question | title | first try | learners |" in outputs["md"][1]
    assert max(len(line) for line in outputs["text"][1].splitlines()) <= 80


def test_the_report_is_written_to_a_file_only_with_force_over_an_existing_one(simulated_class: SimulatedClass,
                                                                               tmp_path: Path) -> None:
    target = tmp_path / "reports" / "class.html"
    target.parent.mkdir()
    code, out, _ = run("report", "--format", "html", "-o", str(target))
    assert code == 0 and f"to {target}." in out and target.read_text().startswith("<!doctype html>")
    target.write_text("last week's report")
    code, _, err = run("report", "-o", str(target))
    assert code == 2 and err == f"quizzer: {target}: already exists; add --force to overwrite it\n"
    assert target.read_text() == "last week's report"
    code, _, _ = run("report", "--format", "md", "-o", str(target), "--force")
    assert code == 0 and target.read_text().startswith("# Class report: the whole bank\n\n31 learners, 480 answers")
    assert sorted(p.name for p in target.parent.iterdir()) == ["class.html"]  # no temporary left behind


@pytest.mark.parametrize(("args", "message"), [
    (("--paper", "2024T3_Q1_N"), "--paper: unknown paper '2024T3_Q1_N' (did you mean '2024T3_Q1_NA'?)"),
    (("--topic", "causal_self_atention"),
     "--topic: unknown topic 'causal_self_atention' (did you mean 'causal_self_attention'?)"),
    (("--topic", "zzz"), "--topic: unknown topic 'zzz'; see 'quizzer topics'"),
    (("-o", "/nonexistent-dir/r.txt"), "/nonexistent-dir/r.txt: cannot write: no directory '/nonexistent-dir'"),
    ((), "nothing to report: no answers recorded in this bank yet (0 profiles)"),
])
def test_bad_requests_are_one_line(bundled_bank_url: str, args: tuple[str, ...], message: str) -> None:
    code, out, err = run("report", *args)
    assert (code, out, err) == (2, "", f"quizzer: {message}\n")


def test_a_scope_nobody_has_answered_says_so(simulated_class: SimulatedClass) -> None:
    code, out, err = run("report", "--topic", "softmax")
    assert (code, out) == (2, "")
    assert err == "quizzer: nothing to report: no answers recorded on topic softmax yet (31 profiles)\n"


def test_an_unknown_format_is_a_usage_error(bundled_bank_url: str) -> None:
    assert run("report", "--format", "pdf") == (2, "", "quizzer: argument -f/--format: invalid choice: 'pdf' (choose "
                                                   "from 'text', 'md', 'html', 'json') (see 'quizzer report --help')\n")
