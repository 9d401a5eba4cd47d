"""The next question: the rules a student expects first, then the largest expected gain per minute.

:func:`pick` narrows the candidates (the questions of the student's selection) by these rules, in
this order; a rule that would leave nothing is relaxed (skipped), so there is always a question:

1. **the mode**: ``plan`` (everything), ``new`` (questions never answered), ``reviews`` (answered
   before), ``mistakes`` (questions whose latest answer was wrong; fresh numbers each time).  These
   are the student's own choice and never relaxed: an empty one raises ``LookupError``;
2. **no question more than twice a day** (:data:`PER_DAY`): a wrong answer comes back once, later
   (first among its topic's questions when the topic is next chosen); one answered right today
   does not come back today;
3. **interleaving**: none of the last :data:`RECENT` questions asked in this sitting;
4. **every topic tried before any gets its third question of the day**: while a topic of the
   selection has never been tried, a topic answered twice today waits;
5. **near the exam, no new question that could not be reviewed once before it**: with fewer than
   :data:`NEW_NEEDS_DAYS` days left, a question never seen is asked only on a topic never tried;
6. **untried topics first**: while a topic of what is left has never been tried, it is asked before
   any other (however small its exam weight: no topic is left untried on the exam day);
7. **prerequisites order the topics softly**: a topic waits until each of its prerequisites that
   the selection has questions about has been answered right at least once (tried with some
   success) — among the untried topics too, so they come in the course's order; when every
   remaining topic waits, the rule is relaxed like the others, so nothing is ever locked.

Of what is left, the question with the largest expected gain in the exam-day objective per
expected minute (``quizzer.learning.plan.forecast``); among equal gains the one seen least
recently (never seen first), then the caller's ``random.Random`` (after sorting by key).  The
reason says, in one line, why this topic: its exam weight, where the learner is, when last seen.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import Protocol

from quizzer.learning.mastery import TemplateLike
from quizzer.learning.plan.forecast import FEEDBACK_SECONDS, Outlook, gain, outlook
from quizzer.learning.plan.state import LearnerState
from quizzer.learning.plan.weights import ExamWeights

MODES = ("plan", "new", "reviews", "mistakes")
PER_DAY = 2
RECENT = 5
TOPIC_DAY_BEFORE_ALL_TRIED = 2
NEW_NEEDS_DAYS = 2


class Question(TemplateLike, Protocol):
    """A candidate question as the picker reads it (``quizzer.templates.schema.Template`` fits)."""

    @property
    def key(self) -> str: ...


class TopicInfo(Protocol):
    """A topic as the picker reads it (``quizzer.templates.catalog.Topic`` fits)."""

    @property
    def name(self) -> str: ...

    @property
    def prerequisites(self) -> Sequence[str]: ...


@dataclass(frozen=True)
class Choice:
    """The question to ask, its primary topic, why, and its expected gain per minute."""

    key: str
    topic: str | None
    reason: str
    gain_per_minute: float


@dataclass(frozen=True)
class Moment:
    """When the pick is made: now, the start of the learner's day, the exam (or horizon), days left."""

    now: datetime
    day_start: datetime
    exam: datetime
    days_left: int | None  # None: no exam date (an open-ended horizon)


Stamp = tuple[int, int, datetime]  # a topic's answers, its mastery evidence, and the day: what a gain depends on
Group = tuple[str, str, int | None]  # questions alike to the plan: (primary topic, kind, options)


class GainCache:
    """Each topic's :class:`~quizzer.learning.plan.forecast.Outlook` and each group's gain, kept until the
    topic's evidence or the day changes: most picks recompute only the topic answered last."""

    def __init__(self) -> None:
        self._outlooks: dict[str, tuple[Stamp, Outlook]] = {}
        self._gains: dict[Group, tuple[Stamp, int, float]] = {}

    def outlook(self, topic: str, stamp: Stamp, compute: Callable[[], Outlook]) -> Outlook:
        held = self._outlooks.get(topic)
        if held is None or held[0] != stamp:
            held = self._outlooks[topic] = (stamp, compute())
        return held[1]

    def held_gain(self, group: Group, stamp: Stamp, today: int) -> float | None:
        """The group's gain if kept for this evidence and today's count, else None."""
        held = self._gains.get(group)
        return held[2] if held is not None and held[1] == today and held[0] == stamp else None

    def keep_gain(self, group: Group, stamp: Stamp, today: int, value: float) -> float:
        self._gains[group] = (stamp, today, value)
        return value


@dataclass(frozen=True)
class Entry:
    """What the picker reads of one question, read once per selection."""

    key: str
    topic: str | None  # its primary topic
    kind: str
    options: int | None
    group: Group | None  # (topic, kind, options): what its gain depends on; None without a topic


class Offer:
    """The questions of a selection (a week, a topic, a paper or everything), indexed once."""

    def __init__(self, questions: Sequence[Question]) -> None:
        self.entries = [Entry(q.key, q.topics[0] if q.topics else None, q.answered_kind, q.option_count,
                              (q.topics[0], q.answered_kind, q.option_count) if q.topics else None)
                        for q in questions]
        # The primary topics: a prerequisite counts as tried when a question about it was answered right.
        self.topics = {e.topic for e in self.entries if e.topic is not None}
        if not self.entries:
            raise LookupError("no questions match this selection")


def _answers_since(times: Sequence[datetime] | None, since: datetime) -> int:
    count = 0
    for at in reversed(times or ()):
        if at < since:
            break
        count += 1
    return count


# Each rule names what it excludes, as a set of keys or of topics, rather than testing every question: most
# sets are empty or hold a few questions answered today, and the plan of a day (``schedule.today_plan``)
# picks some thirty times over a few hundred questions for each of the eight days the dashboard keeps.

def _narrow(pool: list[Entry], keep: Callable[[Entry], bool]) -> list[Entry]:
    """The pool without what a rule excludes, unless that leaves nothing (the rule is relaxed)."""
    return [e for e in pool if keep(e)] or pool


def _without_keys(pool: list[Entry], excluded: Collection[str]) -> list[Entry]:
    """The pool without the questions ``excluded`` (relaxed as :func:`_narrow` is)."""
    return _narrow(pool, lambda e: e.key not in excluded) if excluded else pool


def _without_topics(pool: list[Entry], excluded: Collection[str]) -> list[Entry]:
    """The pool without the questions whose primary topic is ``excluded`` (those without a topic stay)."""
    return _narrow(pool, lambda e: e.topic not in excluded) if excluded else pool


def candidates_for(mode: str, offer: Offer, state: LearnerState) -> list[Entry]:
    """The questions of ``mode`` (rule 1); ``LookupError`` says why when there are none."""
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; expected one of {MODES}")
    if mode == "new":
        chosen = [e for e in offer.entries if e.key not in state.answered]
        empty = "every question here has been answered at least once: try reviews"
    elif mode == "reviews":
        chosen = [e for e in offer.entries if e.key in state.answered]
        empty = "nothing to review yet: no question here has been answered"
    elif mode == "mistakes":
        wrong = set(state.mistakes())
        chosen = [e for e in offer.entries if e.key in wrong]
        empty = "no mistakes to redo: the latest answer to every question here was right"
    else:
        chosen, empty = list(offer.entries), "no questions match this selection"
    if not chosen:
        raise LookupError(empty)
    return chosen


def pick(state: LearnerState, offer: Offer, topics: Mapping[str, TopicInfo], weights: ExamWeights,
         moment: Moment, rng: random.Random, *, mode: str = "plan", recent: Sequence[str] = (),
         cache: GainCache | None = None) -> Choice:
    """The next question for this learner (see the module docstring for the rules)."""
    pool = candidates_for(mode, offer, state)
    since = moment.day_start
    answered = state.answered  # read with `in` and []: never-answered keys (most) cost one lookup
    # Answers today by question, for the questions answered today (every other question: none).
    today = {e.key: n for e in pool if e.key in answered and (n := _answers_since(answered[e.key], since))}
    fewest = 0 if any(e.key not in today for e in pool) else min(today.values())
    limit = max(PER_DAY, fewest + 1)  # relaxed: the least asked today
    pool = _without_keys(pool, {key for key, n in today.items() if n >= limit})
    pool = _without_keys(pool, {key for key in today if state.last_right.get(key)})
    last = recent[-1:]
    pool = _without_keys(_without_keys(pool, last), set(recent[-RECENT:]))
    topic_today = {t: _answers_since(state.topic_times.get(t), since) for t in offer.topics}
    untried = {t for t in offer.topics if state.topic_answers[t] == 0}
    if untried:
        pool = _without_topics(pool, {t for t, n in topic_today.items() if n >= TOPIC_DAY_BEFORE_ALL_TRIED})
    if moment.days_left is not None and moment.days_left < NEW_NEEDS_DAYS:
        pool = _narrow(pool, lambda e: e.key in answered or e.topic is None or e.topic in untried)
    pool = _narrow(pool, lambda e: e.topic in untried)
    pool = _without_topics(pool, {t for t in offer.topics
                                  if not all(p not in offer.topics or state.topic_right[p] > 0
                                             for p in (topics[t].prerequisites if t in topics else ()))})
    cache = cache or GainCache()
    # Questions alike to the plan (topic, kind, options) are scored once; a question without a topic scores 0.
    scores: dict[Group | None, float] = {None: 0.0}
    minutes: dict[str, float] = {}
    stamps: dict[str, Stamp] = {}
    for group in {e.group for e in pool if e.group is not None}:
        t, kind, options = group
        if kind not in minutes:
            minutes[kind] = (state.seconds_for(kind) + FEEDBACK_SECONDS) / 60
        stamp = stamps.get(t)
        if stamp is None:
            stamp = stamps[t] = (state.topic_answers[t], state.tracker.topic(t).attempts, since)
        held = cache.held_gain(group, stamp, topic_today[t])
        if held is None:
            view = cache.outlook(t, stamp, partial(outlook, state, t, moment.now, moment.exam))
            held = cache.keep_gain(group, stamp, topic_today[t],
                                   gain(view, kind, options, weights.weights.get(t, 0.0), topic_today[t]))
        scores[group] = held / minutes[kind]
    best = max((score for group, score in scores.items() if group is not None), default=0.0)
    top = [e for e in pool if scores[e.group] >= best - 1e-12]

    def seen(e: Entry) -> float:
        at = state.last_seen(e.key)
        return at.timestamp() if at is not None else float("-inf")

    # A question answered wrong today comes back (once, by the rule above) before its topic's others;
    # then the one seen least recently.
    redo = [e for e in top if state.last_right.get(e.key) is False and today.get(e.key) == 1]
    top = redo or top
    oldest = min(seen(e) for e in top)
    tied = sorted((e for e in top if seen(e) == oldest), key=lambda e: e.key)
    chosen = tied[rng.randrange(len(tied))] if len(tied) > 1 else tied[0]
    return Choice(chosen.key, chosen.topic, reason(state, chosen, topics, weights, moment.now, mode), best)


def _ago(then: datetime, now: datetime) -> str:
    seconds = (now - then).total_seconds()
    if seconds >= 2 * 86400:
        return f"{int(seconds // 86400)} days"
    if seconds >= 7200:
        return f"{int(seconds // 3600)} h"
    return f"{max(int(seconds // 60), 1)} min"


def reason(state: LearnerState, question: Entry, topics: Mapping[str, TopicInfo], weights: ExamWeights,
           now: datetime, mode: str) -> str:
    """One line: the topic, its exam weight, where the learner is, and when it was last seen."""
    topic = question.topic
    if topic is None:
        return "least recently seen"
    info = topics.get(topic)
    name = info.name if info is not None else topic
    weight = weights.weights.get(topic, 0.0)
    default = " (Week 1 default)" if weights.source.get(topic) == "default" else ""
    parts = [name, f"exam weight: {weight:g} records{default}"]
    if state.topic_answers[topic] == 0:
        parts.append("not tried yet")
    else:
        parts.append(f"you are at {state.tracker.topic(topic).level:.0%}")
        last = state.topic_times[topic][-1]
        parts.append(f"not seen for {_ago(last, now)}")
    if mode == "mistakes" or state.last_right.get(question.key) is False:
        parts.append("your last answer to this question was wrong")
    elif question.key not in state.answered:
        parts.append("new question")
    return " · ".join(parts)
