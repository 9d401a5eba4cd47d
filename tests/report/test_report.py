"""The teacher's report over a simulated class of 30 learners with a deterministic mix of attempts."""

from __future__ import annotations

import json
import random
from collections import Counter
from datetime import UTC, datetime, timedelta
from html.parser import HTMLParser
from pathlib import Path

import pytest

from quizzer.learning.mastery import DEFAULTS
from quizzer.reporting.classdata import ClassAttempt
from quizzer.reporting.render import RENDERERS
from quizzer.reporting.report import (
    BINS,
    MIN_LEARNERS,
    RECENT_MINIMUM,
    ClassReport,
    build_report,
    quartile_shown,
)
from quizzer.templates.catalog import load_catalog
from quizzer.templates.loader import load_path
from quizzer.templates.schema import Template

REPO = Path(__file__).resolve().parents[2]
NOW = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)
LEARNERS = [f"learner{n:02d}" for n in range(30)]
IDLE = {"learner00", "learner01", "learner02"}  # practised weeks ago, nothing this week
PAPER = "2024T3_Q1_NA"


@pytest.fixture(scope="module")
def templates() -> dict[str, Template]:
    loaded = (load_path(path) for path in sorted((REPO / "questions").rglob("*.yaml")))
    return {t.key: t for t in loaded if t.week == 2}  # week 2 holds the routed exam questions


def simulated_class(templates: dict[str, Template]) -> list[ClassAttempt]:
    """Learner n answers correctly with a chance rising with n and falling with the question's
    difficulty; a wrong answer makes the question's first named misconception when it has one."""
    rng, keys, attempts = random.Random(2026), sorted(templates), []
    for n, name in enumerate(LEARNERS):
        start = NOW - timedelta(days=30 if name in IDLE else 5)
        for step, key in enumerate(rng.sample(keys, 24) * 2):  # each question twice
            template = templates[key]
            right = rng.random() < 0.15 + 0.8 * n / len(LEARNERS) - 0.1 * (template.difficulty - 1)
            mistake = template.misconceptions[0].id if not right and template.misconceptions else None
            attempts.append(ClassAttempt(name, key, step, "correct" if right else "incorrect", float(right),
                                         mistake, 30.0, start + timedelta(minutes=10 * step)))
    return attempts


@pytest.fixture(scope="module")
def attempts(templates: dict[str, Template]) -> list[ClassAttempt]:
    return simulated_class(templates)


@pytest.fixture(scope="module")
def report(attempts: list[ClassAttempt], templates: dict[str, Template]) -> ClassReport:
    return build_report(attempts, LEARNERS + ["newcomer"], templates, load_catalog(), now=NOW)


def test_every_topic_accounts_for_every_learner(report: ClassReport) -> None:
    assert report.learners == 31 and report.attempts == 30 * 48
    assert report.topics
    for topic in report.topics:
        assert topic.learners + topic.not_started == 31 and topic.not_started >= 1  # the newcomer
        assert sum(topic.histogram) == topic.learners
        if topic.quartiles:
            q1, median, q3 = topic.quartiles
            assert 0 <= q1 <= median <= q3 <= 1
        assert topic.mastered <= sum(topic.histogram[int(DEFAULTS.threshold * BINS):])  # mastered: level ≥ threshold


def test_stronger_learners_show_as_higher_mastery(attempts: list[ClassAttempt],
                                                  templates: dict[str, Template]) -> None:
    weak = build_report(attempts, LEARNERS[:10], templates, load_catalog(), now=NOW)
    strong = build_report(attempts, LEARNERS[-10:], templates, load_catalog(), now=NOW)
    medians = [(w.quartiles[1], s.quartiles[1]) for w, s in zip(weak.topics, strong.topics, strict=False)
               if w.quartiles and s.quartiles and w.learners >= 5 and s.learners >= 5]
    assert medians and all(s > w for w, s in medians)


def test_misconceptions_are_counted_per_topic_with_their_titles(report: ClassReport, attempts: list[ClassAttempt],
                                                                templates: dict[str, Template]) -> None:
    catalog = load_catalog()
    topic = next(iter(report.misconceptions))
    expected = Counter(a.misconception for a in attempts if a.misconception and topic in templates[a.key].topics)
    rows = report.misconceptions[topic]
    assert [(m.id, m.attempts) for m in rows] == sorted(expected.items(), key=lambda i: (-i[1], i[0]))[:len(rows)]
    for m in rows:
        assert m.title == (catalog.misconceptions[m.id].title if m.id in catalog.misconceptions else m.id)
        assert 1 <= m.learners <= m.attempts


def test_the_hardest_questions_by_first_try_accuracy(report: ClassReport, attempts: list[ClassAttempt]) -> None:
    assert report.hardest
    accuracies = [q.first_try_accuracy for q in report.hardest]
    assert accuracies == sorted(accuracies) and all(q.learners >= MIN_LEARNERS for q in report.hardest)
    hardest = report.hardest[0]
    firsts = {}
    for a in sorted(attempts, key=lambda a: a.at):
        if a.key == hardest.key:
            firsts.setdefault(a.learner, a.verdict == "correct")
    assert hardest.learners == len(firsts)
    assert hardest.first_try_accuracy == pytest.approx(sum(firsts.values()) / len(firsts))


def test_who_is_behind_and_why(report: ClassReport) -> None:
    behind = {b.name: b for b in report.behind}
    assert IDLE | {"newcomer"} <= set(behind)
    assert all("0 answers in 7 days" in behind[name].reasons for name in IDLE)
    weakest = [b for b in report.behind if any("lower quartile" in r for r in b.reasons)]
    assert weakest and all(b.mean_mastery < report.lower_quartile for b in weakest)  # type: ignore[operator]
    assert "learner29" not in behind  # the strongest, active learner
    assert all(b.recent_attempts < RECENT_MINIMUM or b.mean_mastery < report.lower_quartile  # type: ignore[operator]
               for b in report.behind)


def test_a_learner_just_below_the_quartile_is_shown_with_the_decimal_that_tells_them_apart() -> None:
    """A teacher read "eve 20% … mastery below the lower quartile (20%)": 19.7% against 20.2%."""
    assert quartile_shown(0.2015, 0.197) == "20.2%; 19.7% here" and quartile_shown(0.35, 0.2) == "35%"


def test_a_paper_narrows_questions_and_topics(attempts: list[ClassAttempt], templates: dict[str, Template]) -> None:
    narrowed = build_report(attempts, LEARNERS, templates, load_catalog(), now=NOW, paper=PAPER)
    on_paper = {k for k, t in templates.items() if t.paper == PAPER}
    assert narrowed.attempts == sum(a.key in on_paper for a in attempts) > 0
    assert {q.key for q in narrowed.hardest} <= on_paper
    assert {t.topic for t in narrowed.topics} == {topic for k in on_paper for topic in templates[k].topics}


class _Strict(HTMLParser):
    """Collects tags and every URL an element would fetch."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: Counter[str] = Counter()
        self.fetches: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags[tag] += 1
        self.fetches += [v or "" for k, v in attrs if k in ("src", "href")]


def test_every_format_carries_every_section(report: ClassReport) -> None:
    hard = report.hardest[0]
    for fmt, render in RENDERERS.items():
        out = render(report)
        assert hard.key in out and report.behind[0].name in out, fmt
        assert all(t.name in out for t in report.topics), fmt
    data = json.loads(RENDERERS["json"](report))
    assert data["learners"] == 31 and len(data["topics"]) == len(report.topics)
    assert data["generated_at"] == NOW.isoformat()


def test_the_html_report_is_self_contained_with_charts(report: ClassReport) -> None:
    parser = _Strict()
    parser.feed(RENDERERS["html"](report))
    assert parser.fetches == []  # no network, no external files
    flags = sum(len(item.flags) for item in report.items.items)
    assert parser.tags["svg"] >= len([t for t in report.topics if t.learners]) + len(report.hardest) + flags
    # mastery, misconceptions, hardest, behind; items, wrong answers, flags, papers, abilities
    assert report.items.rasch is not None and report.items.papers and flags
    assert parser.tags["table"] == 9
