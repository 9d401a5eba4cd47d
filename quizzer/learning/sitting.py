"""The end of a sitting: what was done since it began, and what tomorrow holds.

``sitting_summary`` reads the learner's answers since the sitting began (``Study.attempts``), the
mastery before and after them (the same model the dashboard shows), the mistakes made, and the
plan for tomorrow morning (``Study.plan_row`` at that moment, as the dashboard words a plan).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime, time, timedelta

from quizzer.learning.dashboard_rows import PlanRow
from quizzer.learning.mastery import as_utc
from quizzer.learning.study import Study


@dataclass(frozen=True)
class TopicChange:
    topic: str
    name: str
    answers: int
    before: float  # the level shown, before the sitting (the prior's for a topic not tried before)
    after: float


@dataclass(frozen=True)
class SittingSummary:
    answers: int
    right: int
    minutes: float
    topics: list[TopicChange]
    mistakes: list[tuple[str, int]]  # (misconception title, times), most frequent first
    wrong_questions: list[str]  # questions answered in the sitting whose latest answer is wrong (the "redo" queue)
    tomorrow: PlanRow


def sitting_summary(study: Study, since: datetime) -> SittingSummary:
    """The sitting that began at ``since``."""
    attempts = study.attempts()
    since = as_utc(since)
    before = [a for a in attempts if as_utc(a.created_at) < since]
    during = [a for a in attempts if as_utc(a.created_at) >= since]
    prior, now = study.tracker(before), study.tracker(attempts)
    answered = Counter(study.templates[a.template_key].topics[0] for a in during
                       if a.template_key in study.templates and study.templates[a.template_key].topics)
    topics = study.catalog.topics
    changes = [TopicChange(t, topics[t].name if t in topics else t, n, prior.topic(t).level, now.topic(t).level)
               for t, n in answered.most_common()]
    catalogue = study.catalog.misconceptions
    mistakes = Counter(catalogue[a.misconception].title if a.misconception in catalogue else a.misconception
                       for a in during if a.misconception)
    # The "redo my mistakes" queue as it stands now: answered wrong in the sitting and not put right since.
    latest = {a.template_key: a.verdict for a in attempts}
    wrong = [key for key in dict.fromkeys(a.template_key for a in during) if latest[key] != "correct"]
    local_now = study.clock().astimezone(study.tz)
    morning = datetime.combine(local_now.date() + timedelta(days=1), time(9), tzinfo=study.tz)
    return SittingSummary(len(during), sum(a.verdict == "correct" for a in during),
                          sum(a.seconds or 0.0 for a in during) / 60, changes, mistakes.most_common(), wrong,
                          study.plan_row(at=morning))
