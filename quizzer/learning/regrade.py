"""Stored attempts regraded when the scoring rules change, with every learner's review cards replayed.

An attempt keeps what the learner typed, so a bank never has to show a score graded under rules
quizzer no longer holds.  The bank remembers which rules its attempts were graded under (``Meta``
key ``grading_rules``); when it differs from :data:`quizzer.grading.verdict.RULES_VERSION`, the
first process to open the bank — under the write lock, after a backup of a SQLite file, in one
transaction — regrades every attempt with the current templates, rebuilds the review card of every
(learner, question) that has attempts by replaying them in order, exactly as :class:`Study` built
it, and records the new rules.  Mastery needs nothing: it is always replayed from the attempts.

Every entry point opens the bank through :func:`open_current_bank`; the usual start reads one row.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy.engine import Engine
from sqlmodel import Session, col, delete, select

from quizzer.bank import RULES_KEY
from quizzer.bank.db import backup_sqlite, database_errors, lock_setup
from quizzer.bank.location import database_url
from quizzer.bank.models import Attempt, Meta, ReviewCard
from quizzer.bank.ready import open_ready_bank
from quizzer.bank.store import all_templates
from quizzer.common.errors import TemplateError
from quizzer.grading.parts import whole_outcome
from quizzer.grading.verdict import RULES_VERSION, Verdict, grade
from quizzer.learning.mastery import as_utc
from quizzer.learning.review import ReviewState, after_answer
from quizzer.templates.instance import Instance, make_instance
from quizzer.templates.parts import LABELS, grade_instance
from quizzer.templates.schema import Template


@dataclass(frozen=True)
class Regraded:
    attempts: int   # attempts graded again
    changed: int    # of which the verdict, score or misconception changed
    cards: int      # review cards rebuilt


def open_current_bank(url: str | None = None, *, cross_thread: bool = False,
                      quiet: bool = False) -> tuple[Engine, Session]:
    """:func:`open_ready_bank`, then the attempts regraded if the scoring rules changed since (said on
    stderr unless ``quiet``: the terminal app's screen is not the place)."""
    engine, session = open_ready_bank(url, cross_thread=cross_thread)
    try:
        with database_errors(database_url(url)):
            regrade_if_rules_changed(session, database_url(url), quiet=quiet)
    except BaseException:
        session.close()
        engine.dispose()
        raise
    return engine, session


def regrade_if_rules_changed(session: Session, url: str, *, quiet: bool = True) -> Regraded | None:
    """Regrade (and commit) when the bank's attempts were graded under other rules; None otherwise."""
    if _stored_rules(session) == RULES_VERSION:
        return None
    lock_setup(session.connection())  # another process may be regrading: look again under the lock
    stored = _stored_rules(session)
    if stored == RULES_VERSION:
        session.rollback()
        return None
    has_attempts = session.exec(select(Attempt.id).limit(1)).first() is not None
    backup = backup_sqlite(url, f"rules{stored}") if has_attempts else None
    report = regrade(session) if has_attempts else Regraded(0, 0, 0)  # a new bank: nothing to read
    session.merge(Meta(key=RULES_KEY, value=str(RULES_VERSION)))
    session.commit()
    if has_attempts and not quiet:
        saved = f"; the previous bank is saved as {backup}" if backup else ""
        print(f"quizzer: regraded {report.attempts} answers under the current scoring rules "
              f"({report.changed} changed){saved}", file=sys.stderr)
    return report


def regrade(session: Session) -> Regraded:
    """Grade every stored attempt again and rebuild the review cards they made (the caller commits)."""
    templates = {t.key: t for t in all_templates(session=session)}
    attempts = list(session.exec(select(Attempt).order_by(col(Attempt.created_at), col(Attempt.id))).all())
    instances: dict[tuple[str, int], Instance | None] = {}
    changed = 0
    for answer in as_answers(attempts):
        for attempt, graded in zip(answer, _regraded(answer, templates, instances), strict=True):
            if graded is None:
                continue  # its question no longer renders, or the answer no longer reads: the old grade stands
            verdict, carried = graded
            new = (verdict.verdict, verdict.score, verdict.misconception, carried)
            if new != (attempt.verdict, attempt.score, attempt.misconception, attempt.carried_forward):
                attempt.verdict, attempt.score, attempt.misconception, attempt.carried_forward = new
                session.add(attempt)
                changed += 1
    cards = _replay_reviews(session, attempts, templates)
    return Regraded(len(attempts), changed, cards)


def as_answers(attempts: list[Attempt]) -> list[list[Attempt]]:
    """The attempts as answers: one attempt, or the parts of one multi-part answer (recorded together:
    same learner, question, seed and moment)."""
    answers: list[list[Attempt]] = []
    for attempt in attempts:
        last = answers[-1][-1] if answers else None
        if (attempt.part is not None and last is not None and last.part is not None
                and (last.learner_id, last.template_key, last.seed, last.created_at)
                == (attempt.learner_id, attempt.template_key, attempt.seed, attempt.created_at)):
            answers[-1].append(attempt)
        else:
            answers.append([attempt])
    return answers


def _regraded(answer: list[Attempt], templates: dict[str, Template],
              instances: dict[tuple[str, int], Instance | None]) -> list[tuple[Verdict, bool] | None]:
    """Each attempt's new (verdict, carried forward), None where the old grade stands."""
    first = answer[0]
    template = templates.get(first.template_key)
    key = (first.template_key, first.seed)
    if template is not None and key not in instances:
        try:
            instances[key] = make_instance(template, first.seed)
        except TemplateError:
            instances[key] = None
    instance = instances.get(key)
    if instance is None or bool(instance.parts) != (first.part is not None):
        # A single question since made a chain (or back): its old answers keep their grades.
        return [None] * len(answer)
    if not instance.parts:
        verdict = grade(instance.spec, first.response)
        return [None if verdict.verdict == "invalid" else (verdict, False)]
    typed = {attempt.part: attempt.response for attempt in answer}
    by_label = {v.label: v for v in grade_instance(instance, [typed.get(p.label, "") for p in instance.parts])}
    return [None if (v := by_label.get(a.part or "")) is None or v.verdict.verdict == "invalid"
            else (v.verdict, v.carried_forward) for a in answer]


def _replay_reviews(session: Session, attempts: list[Attempt], templates: dict[str, Template]) -> int:
    """Each (learner, question) card rebuilt from its answers in order, as Study records them (a
    multi-part answer is one review step, scored by the marks its parts earned)."""
    history: dict[tuple[int, str], list[list[Attempt]]] = defaultdict(list)
    for answer in as_answers(attempts):
        history[(answer[0].learner_id, answer[0].template_key)].append(answer)
    for learner_id, key in history:
        session.exec(delete(ReviewCard).where(col(ReviewCard.learner_id) == learner_id,
                                              col(ReviewCard.template_key) == key))
    for (learner_id, key), answers in history.items():
        state = replayed_card(answers, templates[key])
        session.add(ReviewCard(learner_id=learner_id, template_key=key, state_json=state.to_json(), due=state.due,
                               updated_at=answers[-1][0].created_at))
    return len(history)


def replayed_card(answers: Sequence[Sequence[Attempt]], template: Template) -> ReviewState:
    """A question's review card rebuilt from its answers (oldest first), as Study records them."""
    state: ReviewState | None = None
    for answer in answers:
        verdict, score = _review_outcome(answer, template)
        state = after_answer(state, verdict=verdict, score=score, seconds=answer[0].seconds, kind=template.kind,
                             response=" | ".join(a.response for a in answer), at=as_utc(answer[0].created_at))
    if state is None:
        raise ValueError(f"no answers to replay for {template.key}")
    return state


def _review_outcome(answer: Sequence[Attempt], template: Template) -> tuple[str, float]:
    if answer[0].part is None:
        return answer[0].verdict, answer[0].score
    marks = {label: part.marks for label, part in zip(LABELS, template.parts or (), strict=False)}
    return whole_outcome([(a.score, marks.get(a.part or "", 1.0)) for a in answer])


def _stored_rules(session: Session) -> int:
    """The rules the bank's attempts were graded under: 1 for a bank from before they were recorded."""
    stored = session.get(Meta, RULES_KEY)
    return int(stored.value) if stored is not None and stored.value.isdigit() else 1


