"""The plan from the command line: ``plan`` (set the exam date and daily minutes, or show the plan) and
``next`` (what the app would ask this profile now), for students and for checking the plan from outside.

Both take ``--now`` (an ISO-8601 instant; one without a zone is UTC) so a script can ask about any
moment; ``next`` is seeded by the profile and that instant, so the same question comes back.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from quizzer.cli.parsing import arg, between, takes
from quizzer.cli.shared import JSON, bank_session, check_filters
from quizzer.common.errors import UserError

if TYPE_CHECKING:
    from quizzer.learning.study import Study
    from quizzer.learning.study_plan import PlanView

NOW = arg("--now", metavar="ISO-8601", help="Plan as at this instant (e.g. 2026-06-01T18:00:00Z; no zone: UTC). "
                                           "Default: now.")
MODES = ("plan", "new", "reviews", "mistakes")


def parse_now(text: str | None) -> datetime:
    """``--now`` as an aware UTC instant (a naive one is UTC), or a one-line error."""
    if text is None:
        return datetime.now(UTC)
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise UserError(f"{text[:40]!r} is not an ISO-8601 instant such as 2026-06-01T18:00:00Z",
                        where="--now") from None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


@contextmanager
def _study(profile: str, now: datetime, *, rng: random.Random | None = None) -> Iterator[Study]:
    """A study session for ``profile`` at ``now``; a profile not yet in the bank is planned as a fresh one
    and not created (nothing is committed unless the command commits)."""
    from quizzer.bank.learners import ensure_learner
    from quizzer.learning.study import Study
    from quizzer.templates.catalog import load_catalog

    with bank_session() as session:
        learner = ensure_learner(session=session, name=profile, commit=False)
        yield Study(session, load_catalog(), learner, clock=lambda: now, rng=rng or random.Random(0))


@takes(
    arg("--exam", metavar="YYYY-MM-DD", help="Set the exam date (today or later)."),
    arg("--minutes-per-day", type=between(1, 600), metavar="M", help="Set the minutes a day you can practise "
                                                                    "(default 30)."),
    arg("--clear", action="store_true", help="Forget the exam date and minutes (the plan then looks two weeks "
                                             "ahead)."),
    JSON,
    NOW,
    learner=True,
)
def plan(exam: str | None, minutes_per_day: int | None, clear: bool, as_json: bool, now: str | None,
         profile: str) -> None:
    """Set your exam date and daily minutes, or show your plan.

    The plan spends your minutes where the exam's marks are: today's questions, the days left and the
    predicted exam score, per topic.  Without an exam date it plans two weeks ahead."""
    from quizzer.learning.plan.schedule import local_date, parse_exam_date

    instant = parse_now(now)
    if clear and (exam is not None or minutes_per_day is not None):
        raise UserError("--clear forgets the exam date and minutes: give it alone", where="--clear")
    with _study(profile, instant) as study:
        if clear:
            had = study.clear_plan()
            study.session.commit()
            print(f"{profile}: exam date and daily minutes cleared" if had else f"{profile}: no exam date was set")
            return
        if exam is not None or minutes_per_day is not None:
            day = parse_exam_date(exam, local_date(instant, study.tz)) if exam is not None else None
            study.set_plan(day, minutes_per_day)
        view = study.plan_view()
        if as_json:
            print(json.dumps(plan_json(study, view, instant), indent=2, ensure_ascii=False))
        else:
            print(plan_text(study, view))


def plan_json(study: Study, view: PlanView, now: datetime) -> dict[str, Any]:
    topics, weights = study.catalog.topics, study.weights
    return {
        "profile": study.learner.name,
        "now": now.isoformat(),
        "exam": view.settings.exam.isoformat() if view.settings.exam else None,
        "days_left": view.days_left,
        "minutes_per_day": view.settings.minutes_per_day,
        "today": {"questions": view.today.questions, "minutes": round(view.today.minutes, 1),
                  "done_minutes": round(view.today.done_minutes, 1),
                  "topics": [{"id": t, "name": topics[t].name if t in topics else t, "questions": n}
                             for t, n in view.today.topics.items()]},
        "predicted": {"score": round(view.prediction.score, 4), "low": round(view.prediction.low, 4),
                      "high": round(view.prediction.high, 4), "interval": 0.8,
                      "topics_tried": view.prediction.tried,
                      "topics": [{"id": t, "name": topics[t].name if t in topics else t,
                                  "weight": weights.weights.get(t, 0.0), "weight_source": weights.source.get(t),
                                  "p": round(p, 4)} for t, p in view.prediction.topics.items()]},
    }


def plan_text(study: Study, view: PlanView) -> str:
    topics = study.catalog.topics
    settings, today, predicted = view.settings, view.today, view.prediction
    if settings.exam is None:
        head = (f"No exam date set (quizzer plan --exam YYYY-MM-DD): planning two weeks ahead, "
                f"{settings.minutes_per_day} minutes a day.")
    else:
        days = view.days_left or 0
        left = ("today" if days == 0 else f"in {days} day{'s' * (days != 1)}" if days > 0 else
                "past: set the next with quizzer plan --exam YYYY-MM-DD")
        head = f"Exam {settings.exam.isoformat()} ({left}) · {settings.minutes_per_day} minutes a day."
    lines = [head,
             "Predicted exam score: none yet (nothing answered)." if predicted.tried == 0 else
             f"Predicted exam score: {predicted.score:.0%} (80 % interval {predicted.low:.0%}–{predicted.high:.0%}; "
             f"{predicted.tried} of {len(predicted.topics)} topics tried).",
             f"Today: {today.done_minutes:.0f} of {today.goal_minutes} minutes done"]
    if today.questions:
        lines[-1] += f"; next, about {today.questions} questions in {today.minutes:.0f} minutes:"
        lines += [f"  {topics[t].name if t in topics else t}: {n}" for t, n in today.topics.items()]
    else:
        lines[-1] += ": today's goal is reached."
    lines.append("Predicted on the exam day, per topic (exam weight):")
    names = {topic: topics[topic].name if topic in topics else topic for topic in predicted.topics}
    width = max(map(len, names.values()), default=0)
    for topic, p in sorted(predicted.topics.items(), key=lambda item: item[1]):
        lines.append(f"  {names[topic]:<{width}} {p:>4.0%}  ({study.weights.weights.get(topic, 0.0):g})")
    return "\n".join(lines)


@takes(
    JSON,
    NOW,
    arg("--solutions", action="store_true", help="Also print the question itself, with its answer and worked "
                                                 "solution (as generate --format json --solutions)."),
    arg("--mode", choices=MODES, default="plan", help="plan (default), new questions only, reviews only, or "
                                                      "mistakes (questions whose last answer was wrong)."),
    arg("--topic", help="Within this topic id."),
    arg("--week", type=int, help="Within this week."),
    learner=True,
)
def next_question(as_json: bool, now: str | None, solutions: bool, mode: str, topic: str | None, week: int | None,
                  profile: str) -> None:
    """What the practice app would ask you now, and why.

    Seeded by the profile and the time (--now), so the same call gives the same question."""
    check_filters(topic=topic, paper=None)
    instant = parse_now(now)
    with _study(profile, instant, rng=random.Random(f"{profile}@{instant.isoformat()}")) as study:
        try:
            question = study.next(topic=topic, week=week, mode=mode)
        except LookupError as exc:
            raise UserError(str(exc).strip("'\""), where="next") from None
        instance = question.instance
        result: dict[str, Any] = {"key": instance.key, "seed": instance.seed,
                                  "topic": instance.topics[0] if instance.topics else None, "reason": question.reason}
        if solutions:
            result["instance"] = instance.to_json(solutions=True)
    if as_json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
        return
    print(f"{result['key']} --seed {result['seed']}\n  why: {result['reason']}")
    if solutions:
        from quizzer.templates.render import render_instance

        print(render_instance(instance, fmt="text", solutions=True))
