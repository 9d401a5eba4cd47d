"""The previous "what next" policy: due reviews, then the weakest unlocked topic, interleaved.

The app now picks with the plan (``quizzer.learning.plan``); this policy is kept as a baseline of the
exam-cohort benchmark (``bench/exam_cohort.py``), the one students used before, so the plan is
measured against it.  Issue 38 saw its two faults: due reviews first made a loop of reviews, and the
prerequisite threshold on a conservative level kept most topics locked.

:func:`next_question` decides in this order:

1. **Interleaving** narrows the candidates first: never the template shown last, and none
   of ``recent_keys`` (the last N shown, oldest first) while any other template remains.
   It applies to every rule below, so a card whose 1-minute learning step is due does not
   come straight back.
2. **Due reviews** (``quizzer.learning.review``) win, most overdue first, except the
   ``settled`` keys: answered right earlier in this sitting, their short-term learning
   step (minutes) waits for the next sitting rather than bringing them straight back.
3. Otherwise the **weakest topic** (lowest mastery level, ``quizzer.learning.mastery``; unseen
   topics sit at the prior's level) among those whose prerequisites are reasonably mastered (level ≥ 0.6, or the
   prerequisite has no template among the candidates and so cannot be practised), and of
   its templates the least recently reviewed (never-seen first), among those whose primary topic
   it is while there are any.  When interleaving leaves
   no unlocked topic, the weakest remaining one is taken rather than nothing.  A student
   who asked for one topic (``focus``) gets that topic's templates, whatever else they
   also cover, and the reason names it.

Ties are broken by the caller's ``random.Random`` after sorting by key, so a seeded
generator gives the same pick whatever order the candidates come in.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol, TypeVar

from quizzer.learning.mastery import DEFAULTS, TopicMastery
from quizzer.learning.review import ReviewState, is_due, overdue, require_utc

PREREQUISITE_THRESHOLD = 0.6
T = TypeVar("T")


class CandidateLike(Protocol):
    """A template as the policy needs it (``quizzer.templates.schema.Template`` fits)."""

    @property
    def key(self) -> str: ...

    @property
    def topics(self) -> Sequence[str]: ...


class TopicLike(Protocol):
    """A topic as the policy needs it (``quizzer.templates.catalog.Topic`` fits)."""

    @property
    def name(self) -> str: ...

    @property
    def prerequisites(self) -> Sequence[str]: ...


@dataclass(frozen=True)
class Candidate:
    """A practisable template: its key and topic ids."""

    key: str
    topics: tuple[str, ...]


@dataclass(frozen=True)
class Pick:
    """The chosen template and a short reason to show the student."""

    key: str
    reason: str
    topic: str | None = None


def _choose(items: Sequence[T], rng: random.Random) -> T:
    """One of ``items``, sorted by the caller so that only ``rng`` decides."""
    # No draw for a single item, so an unambiguous pick leaves the generator's stream alone.
    return items[rng.randrange(len(items))] if len(items) > 1 else items[0]


def interleaved(candidates: Sequence[CandidateLike], recent_keys: Sequence[str]) -> list[CandidateLike]:
    """The candidates left after avoiding recent keys, relaxed only as far as needed."""
    unique = list({c.key: c for c in candidates}.values())
    recent = set(recent_keys)
    fresh = [c for c in unique if c.key not in recent]
    if fresh:
        return fresh
    not_last = [c for c in unique if not recent_keys or c.key != recent_keys[-1]]
    return not_last or unique


def _lowest(scored: Mapping[str, float], rng: random.Random) -> str:
    """The key with the lowest score; ``rng`` among exact ties (sorted first for determinism)."""
    low = min(scored.values())
    return _choose(sorted(k for k, v in scored.items() if v == low), rng)


def _due_pick(pool: Sequence[CandidateLike], review_states: Mapping[str, ReviewState], now: datetime,
              rng: random.Random, settled: Collection[str] = ()) -> Pick | None:
    """The most overdue due review in ``pool`` that is not ``settled``, if any."""
    lateness = {c.key: overdue(review_states[c.key], now) for c in pool
                if c.key in review_states and c.key not in settled and is_due(review_states[c.key], now)}
    if not lateness:
        return None
    worst = max(lateness.values())
    key = _choose(sorted(k for k, v in lateness.items() if v == worst), rng)
    return Pick(key, f"review due{_describe(worst)}")


def _describe(late: timedelta) -> str:
    """A rough human lateness, or nothing under a minute."""
    seconds = late.total_seconds()
    if seconds < 60:
        return ""
    return f" ({_duration(seconds)} overdue)"


def _duration(seconds: float) -> str:
    """Whole days, hours or minutes."""
    if seconds >= 86400:
        return f"{int(seconds // 86400)} d"
    if seconds >= 3600:
        return f"{int(seconds // 3600)} h"
    return f"{int(seconds // 60)} min"


def unlocked(topic: str, level: Mapping[str, float], topics: Mapping[str, TopicLike],
             practisable: set[str]) -> bool:
    """Whether every prerequisite of ``topic`` is reasonably mastered or cannot be practised."""
    info = topics.get(topic)
    prerequisites = info.prerequisites if info is not None else ()
    return all(p not in practisable or level.get(p, 0.0) >= PREREQUISITE_THRESHOLD for p in prerequisites)


def _least_recent(keys: Sequence[str], review_states: Mapping[str, ReviewState], rng: random.Random) -> str:
    """The key reviewed longest ago; never-reviewed keys come first."""
    def seen(key: str) -> float:
        state = review_states.get(key)
        last = state.last_review if state is not None else None
        return last.timestamp() if last is not None else float("-inf")
    return _lowest({key: seen(key) for key in keys}, rng)


def _weakest_pick(pool: Sequence[CandidateLike], candidates: Sequence[CandidateLike],
                  mastery: Mapping[str, TopicMastery], review_states: Mapping[str, ReviewState],
                  topics: Mapping[str, TopicLike], prior: float, rng: random.Random,
                  focus: str | None = None) -> Pick:
    """A least-recently-seen template of the weakest unlocked topic in ``pool`` (of ``focus``, if given)."""
    covered = {t for c in pool for t in c.topics}
    if not covered:  # topic-less templates only: nothing to rank, so spread the practice
        return Pick(_least_recent([c.key for c in pool], review_states, rng), "least recently seen")
    practisable = {t for c in candidates for t in c.topics}
    p_known = {t: mastery[t].level if t in mastery else prior for t in practisable}

    def shown(topic: str) -> str:  # an untried topic ranks at the prior, but "(20%)" would read as a score
        tried = topic in mastery and mastery[topic].attempts > 0
        return f"{p_known[topic]:.0%}" if tried else "not tried yet"

    if focus is not None and focus in covered:
        key = _least_recent([c.key for c in pool if focus in c.topics], review_states, rng)
        fresh = "new question" if key not in review_states else "least recently seen"
        name = topics[focus].name if focus in topics else focus
        return Pick(key, f"topic: {name} ({shown(focus)}) · {fresh}", focus)
    open_topics = {t: p_known[t] for t in covered if unlocked(t, p_known, topics, practisable)}
    # Interleaving may have removed every unlocked topic's templates: then the weakest left.
    topic = _lowest(open_topics or {t: p_known[t] for t in covered}, rng)
    # The questions about it (their primary topic) first: only those can show it mastered, and a wrong
    # answer to one that merely touches it counts against that question's own topic.
    about = [c.key for c in pool if c.topics[0] == topic] or [c.key for c in pool if topic in c.topics]
    key = _least_recent(about, review_states, rng)
    name = topics[topic].name if topic in topics else topic
    gated = "" if open_topics else "; prerequisites not yet mastered"
    return Pick(key, f"weakest topic: {name} ({shown(topic)}){gated}", topic)


def next_question(candidates: Sequence[CandidateLike], mastery: Mapping[str, TopicMastery],
                  review_states: Mapping[str, ReviewState], topics: Mapping[str, TopicLike],
                  recent_keys: Sequence[str], now: datetime, rng: random.Random,
                  prior: float = DEFAULTS.prior_level, *, focus: str | None = None,
                  settled: Collection[str] = ()) -> Pick:
    """The template to practise next, with the reason (see the module docstring for the rules)."""
    if not candidates:
        raise ValueError("no candidate templates to choose from")
    now = require_utc(now)  # checked here too: with nothing due, ``now`` would otherwise go unread
    pool = interleaved(candidates, recent_keys)
    due = _due_pick(pool, review_states, now, rng, settled)
    if due is not None and focus is not None:
        name = topics[focus].name if focus in topics else focus
        due = Pick(due.key, f"topic: {name} · {due.reason}", focus)
    return due or _weakest_pick(pool, candidates, mastery, review_states, topics, prior, rng, focus)
