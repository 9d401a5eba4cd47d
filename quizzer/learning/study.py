"""A student's study session: what to practise next (the plan), grading with memory, and the dashboard
(the plan's settings, today's plan and the prediction are :mod:`quizzer.learning.study_plan`'s).

This is the layer the terminal app drives; it never imports textual.  It takes the
session it is given, a clock and a random generator, so tests fix all three.  Every
graded attempt and its review state are committed the moment the answer is graded.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, tzinfo
from typing import Any

from sqlmodel import Session, col, func, select

from quizzer.bank.db import begin_write
from quizzer.bank.models import Attempt, Learner, Retry, ReviewCard
from quizzer.bank.store import all_templates, attempt_row, insert_attempts, record_attempt
from quizzer.common.clock import Clock, utcnow
from quizzer.grading.parts import PartVerdict, whole_outcome
from quizzer.grading.verdict import Verdict, grade
from quizzer.learning.dashboard import build_dashboard
from quizzer.learning.dashboard_rows import Dashboard
from quizzer.learning.mastery import GradedAttempt, MasteryTracker, TopicMastery, as_utc
from quizzer.learning.plan.picker import Choice, GainCache, Offer, pick
from quizzer.learning.plan.schedule import moment
from quizzer.learning.plan.state import LearnerState
from quizzer.learning.regrade import as_answers, replayed_card
from quizzer.learning.review import ReviewState, after_answer, is_due
from quizzer.learning.study_plan import StudyPlan
from quizzer.templates.catalog import Catalog
from quizzer.templates.instance import Instance, make_instance
from quizzer.templates.parts import grade_instance
from quizzer.templates.schema import Template

# A sitting, for the dashboard's count of reviews due: a question answered right is not counted due
# for its minutes-long learning steps this long.
SITTING = timedelta(hours=2)


def local_zone() -> tzinfo:
    """This machine's time zone: a student's day ends at their midnight."""
    zone = datetime.now().astimezone().tzinfo
    assert zone is not None, "astimezone() always sets one"
    return zone


@dataclass(frozen=True)
class Question:
    instance: Instance
    reason: str


@dataclass
class RunningMastery:
    """A learner's state for the plan (mastery among it) and how much of the history it reflects."""

    state: LearnerState
    count: int
    last_id: int | None

    @property
    def tracker(self) -> MasteryTracker:
        return self.state.tracker


def graded(attempt: Attempt) -> GradedAttempt:
    """An attempt as the mastery model reads it."""
    return GradedAttempt(attempt.template_key, attempt.seed, attempt.verdict, attempt.score, attempt.seconds,
                         attempt.created_at)


@dataclass(frozen=True)
class Recorded:
    """An answer already committed to the bank, and the review card it replaced (to revise it)."""

    attempt_id: int
    card_before: str | None  # the card's state before this answer; None when it had no card
    also: tuple[int, ...] = ()  # a multi-part answer's other parts' attempts, withdrawn with it


@dataclass
class Study(StudyPlan):
    """Everything the app asks of the bank for one learner: attempts, reviews, mastery and the
    next question are this learner's alone."""

    session: Session
    catalog: Catalog
    learner: Learner
    clock: Clock = utcnow
    rng: random.Random = field(default_factory=random.Random)
    recent: list[str] = field(default_factory=list)
    # Questions answered right in this sitting, and when: the dashboard does not count their
    # minutes-long learning step as due within SITTING. A wrong answer takes a key out again.
    settled: dict[str, datetime] = field(default_factory=dict)
    tz: tzinfo = field(default_factory=local_zone)  # where the learner's days begin and end
    # The app commits every answer the moment it is graded; `grade --batch` stages its whole file and
    # commits it at once (it holds the write lock meanwhile).
    commit_each: bool = True

    def __post_init__(self) -> None:
        # This learner's mastery, kept up to date as answers are recorded, so choosing the next
        # question does not replay the whole history (hours of revision are thousands of attempts).
        self._running: RunningMastery | None = None
        # Without commit_each (a batch holding the write lock): this learner's cards by question.
        self._batch_cards: dict[str, ReviewCard] | None = None
        self._staged: list[dict[str, Any]] = []  # and its answers, inserted together by stage_for_commit
        self._gains = GainCache()  # the plan's per-topic outlooks, recomputed as the topics change

    # --- reading ---------------------------------------------------------------------------

    @functools.cached_property
    def templates(self) -> dict[str, Template]:
        """Every question in the bank by key, read on first use: recording an answer needs none. A bank
        from before a chain was made one question keeps the old single questions its parts replace (their
        attempts refer to them); they are not offered any more."""
        templates = all_templates(session=self.session)
        replaced = {key for t in templates for key in t.part_ids}
        return {t.key: t for t in templates if t.key not in replaced}

    def attempts(self) -> list[Attempt]:
        query = select(Attempt).where(Attempt.learner_id == self.learner_id)
        return list(self.session.exec(query.order_by(col(Attempt.created_at), col(Attempt.id))).all())

    def review_states(self) -> dict[str, ReviewState]:
        cards = self.session.exec(select(ReviewCard).where(ReviewCard.learner_id == self.learner_id)).all()
        return {card.template_key: ReviewState.from_json(card.state_json) for card in cards}

    @property
    def learner_id(self) -> int:
        assert self.learner.id is not None, "a stored learner"
        return self.learner.id

    def mastery(self, attempts: Sequence[Attempt] | None = None) -> dict[str, TopicMastery]:
        """Per-topic mastery after ``attempts`` (default: this learner's whole history)."""
        if attempts is None:
            return self._current_mastery().tracker.summary()
        return self.tracker(attempts).summary()

    def tracker(self, attempts: Sequence[Attempt]) -> MasteryTracker:
        """The mastery model after ``attempts``, given oldest first (as :meth:`attempts` reads them)."""
        tracker = MasteryTracker(self.templates)
        for attempt in attempts:
            tracker.fold(graded(attempt))
        return tracker

    def plan_state(self) -> LearnerState:
        """Everything the plan reads of this learner, kept up to date as answers are recorded."""
        return self._current_mastery().state

    def _current_mastery(self) -> RunningMastery:
        """The running mastery, replayed afresh when the bank holds answers it has not seen (another
        window, an imported progress file) or when one was withdrawn."""
        seen = select(func.count(col(Attempt.id)), func.max(col(Attempt.id)))
        count, last_id = self.session.exec(seen.where(Attempt.learner_id == self.learner_id)).one()
        if self._running is None or (self._running.count, self._running.last_id) != (count, last_id):
            attempts = self.attempts()
            self._running = RunningMastery(LearnerState.of(self.templates, map(graded, attempts)), len(attempts),
                                           last_id)
        return self._running

    def _learn_from(self, attempt: Attempt) -> None:
        """Fold a just-recorded attempt into the running mastery (if it is the latest, as it is
        unless the clock went back: then the next read replays)."""
        running = self._running
        if running is None:
            return  # nothing folded yet: the next read replays the history
        latest = running.tracker.latest
        if latest is not None and as_utc(attempt.created_at) < latest:
            self._running = None
            return
        running.state.fold(graded(attempt))
        running.count, running.last_id = running.count + 1, attempt.id

    def dashboard(self) -> Dashboard:
        attempts = self.attempts()
        mastery, states, now = self.mastery(), self.review_states(), self._now()
        # A question answered right in this sitting is not offered again within it (next()), so it
        # is not counted as due either: "17 reviews due" that practice then never asks misleads.
        due_keys = {key for key, state in states.items() if is_due(state, now)} - self._settled_now()
        return build_dashboard(attempts, mastery, due_keys, self.templates, self.catalog, self.plan_row())

    # --- practising ------------------------------------------------------------------------

    def next(self, *, topic: str | None = None, week: int | None = None, paper: str | None = None,
             key: str | None = None, mode: str = "plan") -> Question:
        """The next question for this learner within the filters, with a fresh seed; ``key``: that question
        again and again with fresh numbers (a student chose it in the bank).  ``mode``: ``plan``, ``new``,
        ``reviews`` or ``mistakes`` (``quizzer.learning.plan.picker``)."""
        if key is not None:
            if key not in self.templates:
                raise LookupError(f"no question {key!r} in this bank")
            self.recent.append(key)
            return Question(make_instance(self.templates[key], self.rng.randrange(1, 1_000_000)),
                            "the question you chose in the bank, with fresh numbers each time")
        choice = self.choose(topic=topic, week=week, paper=paper, mode=mode)
        self.recent.append(choice.key)
        return Question(make_instance(self.templates[choice.key], self.rng.randrange(1, 1_000_000)), choice.reason)

    def choose(self, *, topic: str | None = None, week: int | None = None, paper: str | None = None,
               mode: str = "plan") -> Choice:
        """The plan's pick within the filters (nothing recorded, no instance made)."""
        candidates = [t for t in self.templates.values()
                      if (topic is None or topic in t.topics) and (week is None or t.week == week)
                      and (paper is None or t.paper == paper)]
        # Practising a topic asks the questions *about* it (their primary topic) while there are any:
        # only those can show it mastered.
        about = [t for t in candidates if topic is not None and t.topics[0] == topic]
        offer = Offer(about or candidates)
        now = self._now()
        return pick(self.plan_state(), offer, self.catalog.topics, self.weights,
                    moment(self.plan_settings(), now, self.tz), self.rng, mode=mode, recent=self.recent,
                    cache=self._gains)

    def _settled_now(self) -> set[str]:
        now = self._now()
        return {key for key, when in self.settled.items() if now - when < SITTING}

    def submit(self, instance: Instance, response: str, seconds: float | None) -> Verdict:
        """Grade a typed answer, or a recall card's self-rating (again / hard / good / easy); a
        readable one is recorded and scheduled at once."""
        verdict, _ = self.answer(instance, response, seconds)
        return verdict

    def answer(self, instance: Instance, response: str, seconds: float | None, *,
               replacing: Recorded | None = None) -> tuple[Verdict, Recorded | None]:
        """Grade ``response`` (a rating for recall cards) and record it at once if readable.

        ``replacing`` is an earlier answer to the same question that this one revises (a mock
        exam lets the student change an answer): it is withdrawn, and its review step undone,
        in the same commit that records the new one, so the bank never holds both or neither."""
        if instance.parts:
            raise TypeError(f"{instance.key} has parts: answer them with answer_parts")
        verdict = grade(instance.spec, response)
        if verdict.verdict == "invalid":
            return verdict, None
        recorded = self.record(instance, response, verdict, seconds, replacing=replacing)
        if verdict.verdict == "correct":
            self.settled[instance.key] = self._now()
        else:
            self.settled.pop(instance.key, None)
        return verdict, recorded

    def record(self, instance: Instance, response: str, verdict: Verdict, seconds: float | None, *,
               replacing: Recorded | None = None, at: datetime | None = None) -> Recorded | None:
        """Record a response already graded by :func:`~quizzer.grading.verdict.grade` (readable), with its review step,
        now or ``at`` (an answer given earlier, elsewhere).
        None when ``commit_each`` is off: the attempt is staged (see :meth:`stage_for_commit`)."""
        if replacing is not None:
            self._withdraw(instance.key, replacing)
        return self._record(instance, response, verdict, seconds, at)

    def retry(self, instance: Instance, first: Recorded, response: str, seconds: float | None) -> Verdict:
        """Grade a second try on the same numbers (after a wrong or partial first answer, before its solution)
        and keep it beside the first answer, ``first``, for the history.  It is not an attempt: mastery,
        review and the reports count the first answer alone.  An unreadable try is not kept."""
        verdict = grade(instance.spec, response)
        if verdict.verdict != "invalid" and self.commit_each:
            self.session.add(Retry(attempt_id=first.attempt_id, response=response, verdict=verdict.verdict,
                                   score=verdict.score, misconception=verdict.misconception, seconds=seconds,
                                   created_at=self._now()))
            self.session.commit()
        return verdict

    def retries(self) -> dict[int, list[Retry]]:
        """This learner's second tries by the attempt each follows, oldest first."""
        query = select(Retry).join(Attempt, col(Retry.attempt_id) == col(Attempt.id)).where(
            Attempt.learner_id == self.learner_id).order_by(col(Retry.id))
        tries: dict[int, list[Retry]] = {}
        for retry in self.session.exec(query).all():
            tries.setdefault(retry.attempt_id, []).append(retry)
        return tries

    def answer_parts(self, instance: Instance, responses: Sequence[str], seconds: float | None, *,
                     replacing: Recorded | None = None) -> tuple[tuple[PartVerdict, ...], Recorded | None]:
        """Grade one response per part of a multi-part question (with follow-through) and record the
        readable ones together; an unanswered or unreadable part records nothing. ``replacing``: an
        earlier answer to the question that this one revises (withdrawn in the same commit, as in
        :meth:`answer`)."""
        verdicts = grade_instance(instance, list(responses))
        answered = [(v, r) for v, r in zip(verdicts, responses, strict=True) if v.verdict.verdict != "invalid"]
        if not answered:
            return verdicts, None
        if replacing is not None:
            self._withdraw(instance.key, replacing)
        return verdicts, self.record_parts(instance, answered, seconds)

    def record_parts(self, instance: Instance, answered: Sequence[tuple[PartVerdict, str]],
                     seconds: float | None, *, at: datetime | None = None) -> Recorded | None:
        """Record graded parts of one multi-part answer (readable ones): one attempt per part, all at the
        same moment, each with its label and ``carried_forward``; the question's review card takes one
        step, scored by the marks the answered parts earned out of theirs. None when ``commit_each`` is
        off (staged, as :meth:`record`)."""
        now = as_utc(at) if at is not None else self._now()
        marks = {part.label: part.question.points for part in instance.parts}
        outcome, earned = whole_outcome([(v.verdict.score, marks[v.label]) for v, _ in answered])
        whole = Verdict(outcome, earned, instance.answer_text, "")
        before = self._review(instance, " | ".join(r for _, r in answered), whole, seconds, now)
        rows = [attempt_row(learner_id=self.learner_id, key=instance.key, seed=instance.seed, response=response,
                            verdict=v.verdict, seconds=seconds, at=now, part=v.label,
                            carried_forward=v.carried_forward) for v, response in answered]
        if not self.commit_each:
            self._staged += rows
            self._running = None
            return None
        attempts = [Attempt(**row) for row in rows]
        self.session.add_all(attempts)
        self.session.commit()  # the parts and the review step land together
        ids = []
        for attempt in attempts:
            self.session.refresh(attempt)
            self._learn_from(attempt)
            assert attempt.id is not None
            ids.append(attempt.id)
        return Recorded(ids[0], before, tuple(ids[1:]))

    def _withdraw(self, key: str, earlier: Recorded) -> None:
        """Stage the removal of an attempt and the restoring of the review card it replaced."""
        self._running = None  # mastery is replayed without the withdrawn answer
        for attempt_id in (earlier.attempt_id, *earlier.also):
            attempt = self.session.get(Attempt, attempt_id)
            if attempt is not None:
                self.session.delete(attempt)
        card = self.session.get(ReviewCard, (self.learner_id, key))
        if card is not None and earlier.card_before is None:
            self.session.delete(card)
        elif card is not None and earlier.card_before is not None:
            card.state_json = earlier.card_before
            card.due = ReviewState.from_json(earlier.card_before).due
        self.session.flush()

    def _record(self, instance: Instance, response: str, verdict: Verdict, seconds: float | None,
                at: datetime | None = None) -> Recorded | None:
        now = as_utc(at) if at is not None else self._now()
        before = self._review(instance, response, verdict, seconds, now)
        if not self.commit_each:
            self._staged.append(attempt_row(learner_id=self.learner_id, key=instance.key, seed=instance.seed,
                                            response=response, verdict=verdict, seconds=seconds, at=now))
            self._running = None  # replayed from the bank after the caller's commit
            return None
        # record_attempt commits: the attempt and its review state land together.
        attempt = record_attempt(session=self.session, learner_id=self.learner_id, key=instance.key,
                                 seed=instance.seed, response=response, verdict=verdict, seconds=seconds, at=now)
        assert attempt.id is not None
        self._learn_from(attempt)
        return Recorded(attempt.id, before)

    def _review(self, instance: Instance, response: str, verdict: Verdict, seconds: float | None,
                now: datetime) -> str | None:
        """Step the question's review card for this answer (in the session, not committed); returns the
        card's state before it (None: it had no card)."""
        begin_write(self.session)  # another window may be reviewing this card: read it under the lock
        card = self._card(instance.key)
        before = card.state_json if card else None
        state = after_answer(ReviewState.from_json(card.state_json) if card else None, verdict=verdict.verdict,
                             score=verdict.score, seconds=seconds, kind=instance.kind, response=response, at=now)
        card = card or ReviewCard(learner_id=self.learner_id, template_key=instance.key, state_json="", due=now)
        card.state_json, card.due, card.updated_at = state.to_json(), state.due, now
        self.session.add(card)
        if not self.commit_each:
            assert self._batch_cards is not None, "read by _card"
            self._batch_cards[instance.key] = card  # pending until the commit: the next answer must find it
        return before

    def replay_card(self, template: Template) -> None:
        """Rebuild this learner's review card of ``template`` from every answer to it, in time order (answers
        recorded with an earlier ``at`` than the card's last review are then counted where they belong)."""
        query = select(Attempt).where(Attempt.learner_id == self.learner_id, Attempt.template_key == template.key)
        attempts = list(self.session.exec(query.order_by(col(Attempt.created_at), col(Attempt.id))).all())
        card = self._card(template.key)
        if not attempts or card is None:
            return
        last = as_utc(attempts[-1].created_at)
        state = replayed_card(as_answers(attempts), template)
        card.state_json, card.due, card.updated_at = state.to_json(), state.due, last
        self.session.add(card)
        self._running = None  # mastery and the plan replay the attempts in time order

    def stage_for_commit(self) -> None:
        """Without ``commit_each``: put the staged answers in the session, for the caller's commit."""
        insert_attempts(session=self.session, rows=self._staged)
        self._staged.clear()

    def _card(self, key: str) -> ReviewCard | None:
        """This learner's review card of ``key``, read under the write lock.  A batch (no ``commit_each``)
        reads all of them once and keeps them: it holds the lock until its commit, and its staged
        answers are inserted together then, not flushed by a read for every new question."""
        if self.commit_each:
            return self.session.get(ReviewCard, (self.learner_id, key))
        if self._batch_cards is None:
            with self.session.no_autoflush:
                cards = self.session.exec(select(ReviewCard).where(ReviewCard.learner_id == self.learner_id)).all()
            self._batch_cards = {card.template_key: card for card in cards}
        return self._batch_cards.get(key)

    def paper_instances(self, paper: str, seed: int) -> list[Instance]:
        """A mock exam: every routed question of ``paper``, in question order, with fresh numbers."""
        keys = sorted((k for k, t in self.templates.items() if t.paper == paper),
                      key=lambda k: question_number(self.templates[k]))
        if not keys:
            raise LookupError(f"no routed questions for paper {paper!r}")
        return [make_instance(self.templates[k], seed) for k in keys]

    def _now(self) -> datetime:
        return as_utc(self.clock())



def question_number(template: Template) -> int:
    """Where a routed question stands in its paper: its number, or its first routed part's (a chain)."""
    routed = template.key if template.is_routed else template.part_ids[0]
    return int(routed.rsplit("Q", 1)[1])
