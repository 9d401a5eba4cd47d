"""The teacher's report on a class: what it has mastered, which mistakes it makes, what is hard,
and who is behind.  Pure functions over plain data; rendering is in ``quizzer.reporting.render``.

**Scope.**  ``paper`` keeps the routed questions of one paper, ``topic`` the questions carrying
one topic; only attempts on questions in scope count, and only their topics are reported.

**Mastery distribution.**  Each learner's per-topic mastery is the level the learner's dashboard
shows (``quizzer.learning.mastery.replay``), over that learner's attempts in scope.  Per topic the
report gives the quartiles over the learners who attempted it, a histogram in fifths of [0, 1], how
many the model counts as mastered, and how many have not started it.

**Hardest questions.**  First-try accuracy: per question, the share of learners whose first
attempt was correct (a first try is not yet helped by the worked solution), over at least
``MIN_LEARNERS`` learners, lowest first.

**Item analysis.**  Per question and per routed paper: facility, discrimination, frequent wrong
answers and mistakes, flags and (with enough learners) Rasch estimates; see ``items``.

**Behind.**  A learner is behind when their mean mastery over the topics in scope (a topic not
started counts at the prior's level) is below the class's lower quartile of that mean, or when they
answered fewer than ``RECENT_MINIMUM`` questions in the last ``RECENT_DAYS`` days.
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from quizzer.common.errors import UserError
from quizzer.learning.mastery import DEFAULTS, GradedAttempt, MasteryParams, TopicMastery, as_utc, replay
from quizzer.reporting.classdata import ClassAttempt, ClassData
from quizzer.reporting.items import ItemAnalysis, analyse_items
from quizzer.templates.catalog import Catalog
from quizzer.templates.schema import Template

BINS = 5  # histogram of mastery in fifths: [0, .2), [.2, .4), …, [.8, 1]
MIN_LEARNERS = 3
HARDEST = 10
TOP_MISCONCEPTIONS = 3
RECENT_DAYS = 7
RECENT_MINIMUM = 5


@dataclass(frozen=True)
class TopicDistribution:
    topic: str
    name: str
    week: int
    learners: int  # learners who attempted the topic
    not_started: int
    quartiles: tuple[float, float, float] | None  # q1, median, q3; None when nobody attempted it
    histogram: tuple[int, ...]
    mastered: int


@dataclass(frozen=True)
class MisconceptionCount:
    id: str
    title: str
    attempts: int
    learners: int


@dataclass(frozen=True)
class HardQuestion:
    key: str
    title: str
    first_try_accuracy: float
    learners: int


@dataclass(frozen=True)
class LearnerBehind:
    name: str
    mean_mastery: float
    recent_attempts: int
    reasons: tuple[str, ...]


@dataclass(frozen=True)
class ClassReport:
    generated_at: datetime
    paper: str | None
    topic: str | None
    learners: int
    attempts: int
    topics: list[TopicDistribution]
    misconceptions: dict[str, list[MisconceptionCount]]  # by topic id, most frequent first
    hardest: list[HardQuestion]
    behind: list[LearnerBehind]
    lower_quartile: float | None  # of the learners' mean mastery: the "behind" line
    items: ItemAnalysis


def describe_scope(*, paper: str | None, topic: str | None) -> str:
    """``paper P, topic T``, or ``the whole bank``: what the report covers, in words."""
    parts = [f"paper {paper}" if paper else "", f"topic {topic}" if topic else ""]
    return ", ".join(part for part in parts if part) or "the whole bank"


def require_answers(data: ClassData, *, paper: str | None, topic: str | None) -> None:
    """A class that has answered nothing in scope has no report: say so rather than print empty tables."""
    if not data.attempts:
        where = "in this bank" if paper is None and topic is None else f"on {describe_scope(paper=paper, topic=topic)}"
        profiles = f"{len(data.learners)} profile{'' if len(data.learners) == 1 else 's'}"
        raise UserError(f"nothing to report: no answers recorded {where} yet ({profiles})")


def in_scope(templates: Mapping[str, Template], *, paper: str | None, topic: str | None) -> dict[str, Template]:
    return {key: t for key, t in templates.items()
            if (paper is None or t.paper == paper) and (topic is None or topic in t.topics)}


def build_report(attempts: Iterable[ClassAttempt], learners: Sequence[str], templates: Mapping[str, Template],
                 catalog: Catalog, *, now: datetime, paper: str | None = None, topic: str | None = None,
                 params: MasteryParams = DEFAULTS) -> ClassReport:
    """The whole report for ``learners`` (every profile, including those with no attempts yet)."""
    scoped = in_scope(templates, paper=paper, topic=topic)
    mine: dict[str, list[ClassAttempt]] = {name: [] for name in learners}
    for attempt in attempts:
        if attempt.key in scoped and attempt.learner in mine:
            mine[attempt.learner].append(attempt)
    topic_ids = [t for t in catalog.topics if any(t in template.topics for template in scoped.values())
                 and (topic is None or t == topic)]
    mastery = {name: _mastery(history, scoped, params) for name, history in mine.items()}
    prior = params.prior_level
    means = {name: statistics.fmean([m[t].level if t in m else prior for t in topic_ids]) if topic_ids else prior
             for name, m in mastery.items()}
    lower = _quartiles(list(means.values()))[0] if len(means) >= 2 else None
    return ClassReport(
        generated_at=as_utc(now), paper=paper, topic=topic, learners=len(learners),
        attempts=sum(len(history) for history in mine.values()),
        topics=[_distribution(t, catalog, [m[t] for m in mastery.values() if t in m], len(learners))
                for t in topic_ids],
        misconceptions=_misconceptions(mine, scoped, topic_ids, catalog),
        hardest=_hardest(mine, scoped),
        behind=_behind(mine, means, lower, as_utc(now)),
        lower_quartile=lower,
        items=analyse_items([a for history in mine.values() for a in history], scoped))


def _mastery(history: list[ClassAttempt], scoped: Mapping[str, Template],
             params: MasteryParams) -> dict[str, TopicMastery]:
    graded = [GradedAttempt(a.key, a.seed, a.verdict, a.score, a.seconds, a.at) for a in history]
    return replay(graded, scoped, params)


def _quartiles(values: list[float]) -> tuple[float, float, float]:
    if len(values) == 1:
        return (values[0],) * 3
    q1, q2, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return q1, q2, q3


def _distribution(topic: str, catalog: Catalog, states: list[TopicMastery], learners: int) -> TopicDistribution:
    values = [state.level for state in states]
    histogram = [0] * BINS
    for value in values:
        histogram[min(int(value * BINS), BINS - 1)] += 1
    info = catalog.topics[topic]
    return TopicDistribution(topic, info.name, info.week, len(values), learners - len(values),
                             _quartiles(values) if values else None, tuple(histogram),
                             sum(state.mastered for state in states))


def _misconceptions(mine: Mapping[str, list[ClassAttempt]], scoped: Mapping[str, Template],
                    topic_ids: Sequence[str], catalog: Catalog) -> dict[str, list[MisconceptionCount]]:
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    who: dict[tuple[str, str], set[str]] = defaultdict(set)
    for name, history in mine.items():
        for attempt in history:
            if attempt.misconception is None:
                continue
            for topic in set(scoped[attempt.key].topics) & set(topic_ids):
                counts[topic][attempt.misconception] += 1
                who[topic, attempt.misconception].add(name)
    def most_frequent(topic: str) -> list[tuple[str, int]]:
        return sorted(counts[topic].items(), key=lambda item: (-item[1], item[0]))[:TOP_MISCONCEPTIONS]

    return {topic: [MisconceptionCount(mid, _title(mid, catalog), n, len(who[topic, mid]))
                    for mid, n in most_frequent(topic)]
            for topic in topic_ids if counts[topic]}


def _title(misconception: str, catalog: Catalog) -> str:
    info = catalog.misconceptions.get(misconception)
    return info.title if info else misconception  # a template's own id not in the catalogue


def _hardest(mine: Mapping[str, list[ClassAttempt]], scoped: Mapping[str, Template]) -> list[HardQuestion]:
    first_tries: dict[str, list[bool]] = defaultdict(list)
    titles: dict[str, str] = {}
    for history in mine.values():
        seen: set[str] = set()
        for attempt in sorted(history, key=lambda a: as_utc(a.at)):
            if attempt.question not in seen:
                seen.add(attempt.question)
                first_tries[attempt.question].append(attempt.verdict == "correct")
                titles[attempt.question] = attempt.title(scoped[attempt.key])
    rows = [HardQuestion(question, titles[question], sum(tries) / len(tries), len(tries))
            for question, tries in first_tries.items() if len(tries) >= MIN_LEARNERS]
    return sorted(rows, key=lambda row: (row.first_try_accuracy, -row.learners, row.key))[:HARDEST]


def quartile_shown(quartile: float, mine: float) -> str:
    """The quartile as a percentage, with a decimal or two when whole percents would show the learner's own
    mastery equal to it ("eve 20% … below the lower quartile (20%)": 19.7% against 20.2%)."""
    decimals = next((d for d in (0, 1) if f"{quartile:.{d}%}" != f"{mine:.{d}%}"), 2)
    return f"{quartile:.{decimals}%}" + (f"; {mine:.{decimals}%} here" if decimals else "")


def _behind(mine: Mapping[str, list[ClassAttempt]], means: Mapping[str, float], lower: float | None,
            now: datetime) -> list[LearnerBehind]:
    since = now - timedelta(days=RECENT_DAYS)
    rows = []
    for name, history in mine.items():
        recent = sum(as_utc(a.at) >= since for a in history)
        reasons = []
        if lower is not None and means[name] < lower:
            reasons.append(f"mastery below the lower quartile ({quartile_shown(lower, means[name])})")
        if recent < RECENT_MINIMUM:
            reasons.append(f"{recent} answer{'s' if recent != 1 else ''} in {RECENT_DAYS} days")
        if reasons:
            rows.append(LearnerBehind(name, means[name], recent, tuple(reasons)))
    return sorted(rows, key=lambda row: (row.mean_mastery, row.recent_attempts, row.name))
