"""Simulated learners whose per-topic skill is known, practising in the app's own study session.

A learner has a skill per topic: the chance that it can work out a question whose primary topic
that is.  On each question it either knows it (then answers right, except for a slip) or does
not, and then it guesses as a student without the knowledge would: a random option, a random
true/false, a random set of boxes or order, a wrong number (one of the question's named mistakes,
or the answer with every number in it increased), a random self-rating on a recall card.  ``always`` sets a
flat chance of a right answer instead, whatever the question ("right 65 % of the time").

Questions are chosen exactly as in the app: :meth:`quizzer.learning.study.Study.next` on a real
bank (the plan, ``quizzer.learning.plan``), optionally within one topic
(the dashboard's ``p``), and every response is graded and recorded by the app's own code, so the
mastery the dashboard would show is the mastery measured here.  Time moves 40–150 s per answer.
"""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from quizzer.grading.verdict import grade
from quizzer.learning.mastery import MasteryTracker, TopicMastery
from quizzer.templates.instance import Instance

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
SLIP = 0.1  # a learner who knows a question still gets it wrong this often
RATINGS = ("again", "hard", "good", "easy")


@dataclass(frozen=True)
class Learner:
    """Who answers: a skill per topic (missing topics at ``default``), or a flat chance ``always``."""

    name: str
    skills: Mapping[str, float] = field(default_factory=dict)
    default: float = 0.0
    always: float | None = None
    # Slips on exactly SLIP of its answers (at random ones), not on each with chance SLIP: "right 9 times
    # in 10" then holds in every run (independent slips leave 7 or more of 40 in one run in seven).
    exact_slips: bool = False

    def knows(self, instance: Instance, rng: random.Random, slips: bool | None = None) -> bool:
        """Whether it answers right from knowledge; ``slips``: this answer is (or is not) one of its slips."""
        if self.always is not None:
            return rng.random() < self.always
        skill = self.skills.get(instance.topics[0], self.default)
        return rng.random() < skill and not (rng.random() < SLIP if slips is None else slips)


def guesser() -> Learner:
    return Learner("guesser")


def steady(chance: float) -> Learner:
    return Learner(f"right {chance:.0%}", always=chance)


def one_topic(topic: str) -> Learner:
    return Learner(f"knows {topic}", skills={topic: 1.0}, exact_slips=True)


@dataclass(frozen=True)
class Outcome:
    """One simulated answer: what the model predicted before it, and whether it was right."""

    key: str
    predicted: float
    right: bool


@dataclass(frozen=True)
class Run:
    learner: Learner
    outcomes: list[Outcome]
    mastery: dict[str, TopicMastery]  # as the dashboard shows it after the run


class FixedClock:
    """The simulated time: it moves only when the learner has answered."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now


def right_response(instance: Instance) -> str:
    return "good" if instance.kind == "text" else instance.answer_text


def guess_response(instance: Instance, rng: random.Random) -> str:
    """What a learner without the knowledge answers (it may still be right, by chance)."""
    if instance.kind in ("choice", "multi", "order"):
        count = len(instance.answer) if instance.kind == "order" else len(instance.choices)
        letters = [chr(97 + i) for i in range(count)]
    if instance.kind == "choice":
        return rng.choice(letters)
    if instance.kind == "multi":
        ticked = [letter for letter in letters if rng.random() < 0.5]
        return ", ".join(ticked) or "none"
    if instance.kind == "order":
        return ", ".join(rng.sample(letters, len(letters)))
    if instance.kind == "bool":
        return rng.choice(("true", "false"))
    if instance.kind == "text":
        return rng.choice(RATINGS)
    return wrong_response(instance, rng)


def wrong_response(instance: Instance, rng: random.Random) -> str:
    """A readable answer that is not right: a named mistake, else the answer with changed digits."""
    if instance.kind == "text":
        return "again"
    if instance.kind in ("choice", "bool", "multi", "order"):
        tries = [guess_response(instance, rng) for _ in range(50)]
    else:
        tries = [m.answer_text for m in instance.mistakes]
        rng.shuffle(tries)
        # Thousands separators out first: shifting "1,776,000" group by group reads as nothing.
        shifted = re.sub(r"\d+", lambda number: str(int(number.group()) + 1), instance.answer_text.replace(",", ""))
        tries += [shifted, shifted + "1"]
    verdicts = {response: grade(instance.spec, response).verdict for response in dict.fromkeys(tries)}
    # Plainly wrong if possible: a partly right answer would be partly a right one.
    for wanted in ("incorrect", "partial"):
        for response, verdict in verdicts.items():
            if verdict == wanted:
                return response
    raise ValueError(f"no wrong answer found for {instance.key} (seed {instance.seed})")


def respond(learner: Learner, instance: Instance, rng: random.Random, luck: random.Random | None = None,
            slips: bool | None = None) -> str:
    """The learner's answer. ``luck`` decides whether it knows (or slips), ``rng`` what it guesses; one
    stream for both (the default) re-deals every later slip whenever a question of another kind is chosen.
    ``slips``: this answer is one of an ``exact_slips`` learner's slips (None: it slips by chance)."""
    luck = luck or rng
    if learner.always is not None:  # a flat chance: right or plainly wrong, never a lucky guess
        return right_response(instance) if luck.random() < learner.always else wrong_response(instance, rng)
    return right_response(instance) if learner.knows(instance, luck, slips) else guess_response(instance, rng)


@contextmanager
def study_bank(path: Path) -> Iterator[Any]:
    """A session on a bank at ``path`` with every bundled template (created if missing)."""
    from quizzer.learning.regrade import open_current_bank

    engine, session = open_current_bank(str(path))
    try:
        with session:
            yield session
    finally:
        engine.dispose()


def practise(session: Any, learner: Learner, *, answers: int = 40, focus: str | None = None,
             focus_share: float = 0.0, seed: int = 0, profile: str | None = None) -> Run:
    """``learner`` answers ``answers`` questions in a new profile; a ``focus_share`` of them (every
    other one at 0.5) are chosen within topic ``focus``, the rest by "practise what I need most"."""
    from quizzer.bank.learners import ensure_learner
    from quizzer.learning.study import Study, graded
    from quizzer.templates.catalog import load_catalog

    rng = random.Random(seed)
    clock = FixedClock(START)
    name = profile or f"{learner.name} #{seed} {focus or 'mixed'} {focus_share:g}"
    study = Study(session=session, catalog=load_catalog(), learner=ensure_learner(session=session, name=name),
                  clock=clock, rng=random.Random(seed + 1))
    tracker = MasteryTracker(study.templates)
    focused = itertools.cycle([True, False]) if focus_share == 0.5 else None
    outcomes = []
    slipped = set(random.Random(f"{name}:slips").sample(range(answers), round(SLIP * answers)))
    for number in range(answers):
        # The n-th answer's luck (knows it, or slips) is drawn on its own: whatever the policy chose before
        # (a guessed choice takes one draw, a select-all several), the learner's slips fall on the same answers.
        luck = random.Random(f"{name}:{number}")
        slips = (number in slipped) if learner.exact_slips else None
        use_focus = focus is not None and (next(focused) if focused else rng.random() < focus_share)
        instance = study.next(topic=focus if use_focus else None).instance
        predicted = tracker.predict(instance.key)
        seconds = rng.uniform(40, 150)
        if instance.parts:  # a multi-part question: each part answered as its own question, graded together
            parts, recorded = study.answer_parts(instance, [respond(learner, part.question, rng, luck, slips)
                                                            for part in instance.parts], seconds)
            right = all(part.verdict.verdict == "correct" for part in parts)
            added = len(parts)
        else:
            verdict, recorded = study.answer(instance, respond(learner, instance, rng, luck, slips), seconds)
            right, added = verdict.verdict == "correct", 1
        assert recorded is not None, f"{instance.key}: the simulated response was not readable"
        outcomes.append(Outcome(instance.key, predicted, right))
        for attempt in study.attempts()[-added:]:
            tracker.fold(graded(attempt))
        clock.now += timedelta(seconds=seconds)
    return Run(learner, outcomes, study.mastery())


def max_level(runs: Sequence[Run]) -> float:
    return max((state.level for run in runs for state in run.mastery.values()), default=0.0)


def mastered_topics(run: Run) -> set[str]:
    return {topic for topic, state in run.mastery.items() if state.mastered}


__all__ = ["Learner", "Outcome", "Run", "guesser", "max_level", "mastered_topics", "one_topic",
           "practise", "steady", "study_bank"]
