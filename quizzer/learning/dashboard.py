"""The dashboard's figures for one learner: a row per topic (mastery, tries, accuracy, reviews due,
commonest mistakes) and per routed paper (questions done of those routed), from their attempts.

Plain functions of the attempts, the mastery already computed and the catalogue; ``Study.dashboard``
gathers those from the bank and calls them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import date, datetime

from quizzer.bank.models import Attempt
from quizzer.learning.dashboard_rows import Dashboard, PaperRow, PlanRow, TopicRow, due_by_topic
from quizzer.learning.mastery import TopicMastery
from quizzer.learning.plan.forecast import Prediction
from quizzer.learning.plan.schedule import DayPlan, PlanSettings
from quizzer.templates.catalog import Catalog
from quizzer.templates.parts import LABELS
from quizzer.templates.schema import Template


def paper_progress(attempts: Sequence[Attempt], questions: Sequence[tuple[str, str]],
                   part_ids: Mapping[tuple[str, str], str] | None = None) -> dict[str, tuple[int, int]]:
    """Per paper (sorted), (questions done, questions routed) for ``questions`` as (key, paper).

    A question is done when this learner's latest answer to it, on whatever numbers they were
    given, was right: evidence of that question itself, never inferred from topic mastery.  So a
    paper never answered shows 0/N, and right after a mock exam the dashboard shows the exam's count
    of right answers (a question left unanswered in it keeps its earlier answer's result).
    ``attempts`` are oldest first.  A multi-part question records one attempt per part: a part that
    carries its own routed ID (``part_ids``: (question key, part label) -> ID) answers that ID, any
    other part its question's key, which is then done when all those parts of the latest answer are."""
    part_ids = part_ids or {}
    latest: dict[str, bool] = {}
    last_part: dict[str, tuple[str, datetime, str]] = {}  # each ID's latest attempt: question, when, part
    for attempt in attempts:
        routed = part_ids.get((attempt.template_key, attempt.part or ""), attempt.template_key)
        # Right on the numbers given: a part right only on the learner's own wrong earlier value earned its
        # follow-through credit, but that paper question is not done.
        right = attempt.verdict == "correct" and not attempt.carried_forward
        # The parts of one answer that answer the same ID (Q275's, which carry none) are right together:
        # one answer's parts share its time and come in label order (a, b, c), so a repeated label is
        # the next answer.
        before = last_part.get(routed)
        same_answer = before is not None and before[:2] == (attempt.template_key, attempt.created_at) and \
            attempt.part is not None and attempt.part > before[2]
        latest[routed] = right and latest[routed] if same_answer else right
        last_part[routed] = (attempt.template_key, attempt.created_at, attempt.part or "")
    counts: dict[str, list[int]] = {}
    for key, paper in questions:
        done_total = counts.setdefault(paper, [0, 0])
        done_total[0] += latest.get(key, False)
        done_total[1] += 1
    return {paper: (done, total) for paper, (done, total) in sorted(counts.items())}


def topic_rows(attempts: Sequence[Attempt], mastery: Mapping[str, TopicMastery], due_keys: set[str],
               templates: Mapping[str, Template], catalog: Catalog) -> list[TopicRow]:
    """One row per catalogue topic.  A topic's tries, accuracy and mistakes are every answer to a question
    that lists it, right or wrong, as a student counts them ("I got a Bahdanau question wrong"); its mastery
    bar weighs them as ``learning.mastery`` does (a wrong answer is blamed on its question's primary topic
    alone; the help says so).  A review due counts once, in its question's primary topic (where every
    answer to it counts): the column adds up to the dashboard's "reviews due", and no untried topic shows one."""
    due = due_by_topic(due_keys, primary_topics(templates))
    answered: dict[str, list[Attempt]] = {}
    for attempt in attempts:
        template = templates.get(attempt.template_key)
        for topic_id in template.topics if template else ():
            answered.setdefault(topic_id, []).append(attempt)
    rows = []
    for topic in catalog.topics.values():
        keys = {k for k, t in templates.items() if topic.id in t.topics}
        mine = answered.get(topic.id, [])
        state = mastery.get(topic.id)
        errors = Counter(a.misconception for a in mine if a.misconception)
        rows.append(TopicRow(topic.id, topic.name, topic.week, state.level if state else 0.0,
                             state.mastered if state else False, len(mine),
                             sum(a.score for a in mine) / len(mine) if mine else None,
                             due[topic.id], len(keys), tuple(errors.most_common(3))))
    return rows


def paper_rows(attempts: Sequence[Attempt], templates: Mapping[str, Template], catalog: Catalog) -> list[PaperRow]:
    """Per routed paper, how many of its questions this learner's latest answer got right (see
    :func:`paper_progress`)."""
    # A part with no ID of its own (or with its question's key) answers the question's key anyway.
    part_ids = {(key, LABELS[i]): part_id for key, template in templates.items()
                for part_id, i in template.routed_parts.items()}
    examined = paper_topics(catalog)
    return [PaperRow(paper, done, total, paper_title(catalog, paper), examined[paper])
            for paper, (done, total) in paper_progress(
                attempts, [(record.id, record.paper) for record in catalog.records.values()], part_ids).items()]


def paper_title(catalog: Catalog, paper: str) -> str:
    """`2025 T2 · ET/FN` (the code itself for a paper the routing table does not describe)."""
    info = catalog.paper_info.get(paper)
    return info.title if info else paper


def paper_topics(catalog: Catalog) -> dict[str, tuple[str, ...]]:
    """Per paper, the names of the topics its routed questions examine, the most examined first."""
    examined: dict[str, Counter[str]] = {}
    for record in catalog.records.values():
        examined.setdefault(record.paper, Counter()).update(record.topics)
    return {paper: tuple(catalog.topics[t].name if t in catalog.topics else t for t, _ in counts.most_common())
            for paper, counts in examined.items()}


def primary_topics(templates: Mapping[str, Template]) -> dict[str, str]:
    """Each question's primary topic (the first it lists), by key."""
    return {key: template.topics[0] for key, template in templates.items()}


def plan_row(day: date, settings: PlanSettings, days_left: int | None, today: DayPlan, predicted: Prediction,
             catalog: Catalog) -> PlanRow:
    """The plan of ``day`` (``Study.plan_view``'s parts) as the dashboard shows it, topics by name."""
    names = {t: catalog.topics[t].name if t in catalog.topics else t for t in today.topics}
    return PlanRow(day.isoformat(), settings.exam.isoformat() if settings.exam else None, days_left,
                   predicted.score, predicted.low, predicted.high, predicted.tried, len(predicted.topics),
                   today.questions, today.minutes, tuple((names[t], n) for t, n in today.topics.items()),
                   today.done_minutes, today.goal_minutes)


def build_dashboard(attempts: Sequence[Attempt], mastery: Mapping[str, TopicMastery], due_keys: set[str],
                    templates: Mapping[str, Template], catalog: Catalog, plan: PlanRow | None = None) -> Dashboard:
    """The whole dashboard, with the catalogue's title of each misconception its rows name."""
    topics = topic_rows(attempts, mastery, due_keys, templates, catalog)
    named = {m for row in topics for m, _ in row.misconceptions}
    titles = {m: catalog.misconceptions[m].title if m in catalog.misconceptions else m.replace("_", " ")
              for m in named}
    return Dashboard(topics, paper_rows(attempts, templates, catalog), len(attempts), len(due_keys), titles, plan)
