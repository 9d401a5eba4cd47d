r"""Per-topic mastery: a guessing-aware Bayesian estimate of how much of a topic the learner can do.

The one model behind every mastery figure quizzer shows (dashboard, history, teacher's report,
practice policy, ``make bench``).  Pure functions and a small tracker over plain data.

**What is estimated.**  For each topic, θ ∈ [0, 1]: the share of the topic's questions the learner
can work out.  On a question of that topic, with guess probability ``g`` (from its answer format)
and slip ``s``, the chance of a right answer is the knowledge-tracing mixture

    P(right | θ) = θ (1 − s) + (1 − θ) g

(known: right unless a slip; not known: right only by a guess, as in Corbett & Anderson 1995).
The belief about θ is a distribution on a grid of :data:`GRID_SIZE` cells, exact Bayes'
rule on each answer, starting from a Beta(``prior_a``, ``prior_b``) prior.  A distribution rather
than one probability, so the figure shown can say how *sure* quizzer is, not just its best guess.

**Guess by kind** (:func:`guess_probability`): ``choice`` of k options 1/k; ``bool`` 1/2; ``multi``
1/2^k (each of k boxes ticked or not); ``order`` of n items 1/n!; typed values and expressions
``typed_guess`` (a right number by a wrong route or a coincidence is rare but not impossible);
self-rated recall ``recall_guess`` (students over-rate vague answers).  So a right choice among
four moves θ far less than a right computed matrix: a guesser cannot climb by luck.

**Evidence weights.**  Each answer's likelihood is raised to a weight w ≤ 1 (a tempered update,
``log belief += w · log P(answer | θ)``), the product of:

* ``secondary_weight`` for a topic the question lists after its first (primary) one.  Only a right
  answer updates such a secondary topic: a wrong one does not say which of the question's topics
  failed, and is blamed on the primary topic, the one the question is about (otherwise a learner
  who knows a topic would lose it on every question that pairs it with one they do not know);
* ``repeat_weight`` for a right answer to a question this learner answered less than ``short_term``
  before (fsrs's same-day window, ``quizzer.learning.review``): it may be remembered from the worked
  solution just seen, not worked out.  A wrong answer counts in full: failing again right after
  the solution is no weaker evidence (and failed questions are the ones the review brings back);
* ``recall_weight`` for a self-rated recall card.  The bank records a rating without saying whether
  the model answer was shown first; the app asks for the rating only after showing it, so every
  recorded rating is taken as rated after a reveal, and weighted low because it is self-assessed.

Older evidence fades: before each new answer on a topic its accumulated log-likelihood is
multiplied by ``decay``, so a learner who has since learned is not held to early mistakes for ever
(and the estimate never becomes certain: about 1/(1 − decay) answers' worth of evidence at most).

**What is shown.**  ``level``: the ``quantile`` (20th percentile) of the belief about θ — "with 80 %
confidence you can do at least this share of the topic" — not the mean, which one lucky answer
can inflate.  ``mean`` (the posterior mean) gives the *predicted* P(right) that ``make bench``
calibrates against simulated learners.

**Mastered** needs both the level at ``threshold`` or above *and* evidence that covers the topic:
right answers on at least ``min_templates`` distinct questions whose primary topic it is, at least
one of them computed (a typed value or expression, not a choice or a recall card).  Until the
evidence rule holds, the level is shown at most one point below the threshold.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Protocol

VERDICTS = ("correct", "incorrect", "partial")
COMPUTED_KINDS = frozenset({"number", "integer", "vector", "matrix", "shape", "expression"})
RECALL_KIND = "text"
GRID_SIZE = 100
GRID = tuple((i + 0.5) / GRID_SIZE for i in range(GRID_SIZE))  # cell midpoints: θ = 0 and 1 are never exact


@dataclass(frozen=True)
class MasteryParams:
    """The model's parameters (see the module docstring; the reasons for the values are in README)."""

    prior_a: float = 1.0
    prior_b: float = 1.0
    slip: float = 0.1
    typed_guess: float = 0.05
    recall_guess: float = 0.5
    secondary_weight: float = 0.5
    repeat_weight: float = 0.5
    recall_weight: float = 0.5
    short_term: timedelta = timedelta(days=1)
    decay: float = 0.99
    quantile: float = 0.2
    threshold: float = 0.8
    min_templates: int = 3

    def __post_init__(self) -> None:
        if not (self.prior_a > 0 and self.prior_b > 0):
            raise ValueError("the Beta prior needs positive prior_a and prior_b")
        for name in ("slip", "typed_guess", "recall_guess", "quantile", "threshold"):
            value = getattr(self, name)
            if not 0 < value < 1:  # also rejects NaN
                raise ValueError(f"{name} must lie strictly between 0 and 1, got {value!r}")
        for name in ("secondary_weight", "repeat_weight", "recall_weight", "decay"):
            value = getattr(self, name)
            if not 0 < value <= 1:
                raise ValueError(f"{name} must lie in (0, 1], got {value!r}")
        if self.slip + max(self.typed_guess, self.recall_guess) >= 1:
            raise ValueError("degenerate model: a learner who knows must be likelier right than one who guesses")

    @property
    def prior_level(self) -> float:
        """The level shown for a topic with no evidence yet."""
        return _summarise([0.0] * GRID_SIZE, self)[0]


@dataclass(frozen=True)
class TopicMastery:
    """One topic's estimate: the level shown, the posterior mean, and the evidence behind it."""

    level: float  # conservative: the belief's ``quantile``, capped below the threshold until covered
    attempts: int = 0
    correct: int = 0
    last_seen: datetime | None = None
    mean: float | None = None  # posterior mean of θ (None: not computed, e.g. a hand-made state)
    templates_right: int = 0  # distinct primary-topic questions answered right
    computed_right: bool = False  # one of them a computed (typed) answer
    mastered: bool = False
    sd: float | None = None  # posterior standard deviation of θ: how sure the estimate is


def answered_topics(topics: Sequence[str], right: bool) -> tuple[str, ...]:
    """The topics an answer to a question on ``topics`` tells about: all of them when it is right, the
    primary (first) one alone when it is not (see the module docstring); a topic listed twice is one."""
    distinct = tuple(dict.fromkeys(topics))
    return distinct if right else distinct[:1]


@dataclass(frozen=True)
class GradedAttempt:
    """One graded attempt as the bank records it (``at`` is UTC)."""

    key: str
    seed: int
    verdict: str
    score: float
    seconds: float | None
    at: datetime


class TemplateLike(Protocol):
    """What the model reads of a question (``quizzer.templates.schema.Template`` fits)."""

    @property
    def topics(self) -> Sequence[str]: ...

    @property
    def answered_kind(self) -> str: ...  # what each attempt answers: a multi-part question's parts' kind

    @property
    def option_count(self) -> int | None: ...


def as_utc(moment: datetime) -> datetime:
    """An aware UTC datetime; a naive one is read as UTC (the bank stores UTC, SQLite drops the zone)."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def guess_probability(kind: str, n_options: int | None = None, params: MasteryParams | None = None) -> float:
    """P(right | not known) for a question kind (``n_options`` for choice, multi and order)."""
    params = params or DEFAULTS
    if kind in COMPUTED_KINDS:
        return params.typed_guess
    if kind == RECALL_KIND:
        return params.recall_guess
    if kind == "bool":
        return 0.5
    if kind == "order":
        return params.typed_guess if not n_options else max(1 / math.factorial(min(n_options, 20)), 1e-6)
    if kind in ("choice", "multi"):
        minimum = 2 if kind == "choice" else 1
        if n_options is None or n_options < minimum:
            raise ValueError(f"kind {kind!r} needs at least {minimum} options, got {n_options!r}")
        return 1 / n_options if kind == "choice" else 0.5 ** n_options
    raise ValueError(f"unknown question kind {kind!r}")


def p_right(theta: float, guess: float, params: MasteryParams) -> float:
    """P(right | θ) for a question whose guess probability is ``guess``."""
    return theta * (1 - params.slip) + (1 - theta) * guess


# The prior and an answer's likelihood on the grid are the same for every topic and every answer alike, and a
# day's plan summarises and folds a few hundred times (``plan.schedule.today_plan``): each is computed once.

@functools.lru_cache(maxsize=16)
def _log_prior(params: MasteryParams) -> tuple[float, ...]:
    """log Beta(θ; a, b) on the grid, up to its constant."""
    return tuple((params.prior_a - 1) * math.log(t) + (params.prior_b - 1) * math.log1p(-t) for t in GRID)


@functools.lru_cache(maxsize=1024)
def _log_likelihood(score: float, guess: float, params: MasteryParams) -> tuple[float, ...]:
    """log P(answer | θ) on the grid for an answer scoring ``score`` to a question whose guess probability is
    ``guess``; a partial score s is a soft observation, s of "right" and 1 − s of "wrong"."""
    return tuple(math.log(score * p + (1 - score) * (1 - p)) for p in (p_right(t, guess, params) for t in GRID))


def _summarise(evidence: Sequence[float], params: MasteryParams) -> tuple[float, float, float]:
    """(the belief's ``quantile``, its mean, its standard deviation) for accumulated log-likelihoods on the grid."""
    log_post = [prior + e for prior, e in zip(_log_prior(params), evidence, strict=True)]
    top = max(log_post)
    mass = [math.exp(v - top) for v in log_post]
    total = sum(mass)
    mean = sum(t * m for t, m in zip(GRID, mass, strict=True)) / total
    sd = math.sqrt(max(sum((t - mean) ** 2 * m for t, m in zip(GRID, mass, strict=True)) / total, 0.0))
    target, cumulative = params.quantile * total, 0.0
    for i, m in enumerate(mass):
        if cumulative + m >= target:  # the quantile lies in cell i: interpolate within it
            return (i + (target - cumulative) / m) / GRID_SIZE, mean, sd
        cumulative += m
    return 1.0, mean, sd


@dataclass
class _Evidence:
    """A topic's accumulated evidence (mutable; :meth:`MasteryTracker.topic` summarises it)."""

    log_likelihood: list[float] = field(default_factory=lambda: [0.0] * GRID_SIZE)
    attempts: int = 0
    correct: int = 0
    last_seen: datetime | None = None
    right: set[str] = field(default_factory=set)
    computed: set[str] = field(default_factory=set)


class MasteryTracker:
    """Folds one learner's attempts, oldest first, into per-topic mastery."""

    def __init__(self, templates: Mapping[str, TemplateLike], params: MasteryParams | None = None) -> None:
        self.templates = templates
        self.params = params or DEFAULTS
        self.latest: datetime | None = None
        self._evidence: dict[str, _Evidence] = {}
        self._last_answer: dict[str, datetime] = {}  # per question: for the short-term repeat rule
        self._summaries: dict[str, TopicMastery] = {}

    def fold(self, attempt: GradedAttempt) -> tuple[str, ...]:
        """Add one attempt, the latest so far; the topics it updated (none for a question since removed)."""
        if attempt.verdict not in VERDICTS:
            raise ValueError(f"attempt on {attempt.key!r} has verdict {attempt.verdict!r}; expected one of {VERDICTS}")
        at = as_utc(attempt.at)
        self.latest = at
        template = self.templates.get(attempt.key)
        if template is None or not template.topics:  # its topics are unknown: it tells nothing
            return ()
        params, right = self.params, attempt.verdict == "correct"
        topics = answered_topics(template.topics, right)
        weight = params.recall_weight if template.answered_kind == RECALL_KIND else 1.0
        previous = self._last_answer.get(attempt.key)
        if previous is not None and at - previous < params.short_term:
            weight *= params.repeat_weight
        self._last_answer[attempt.key] = at
        likelihood = _log_likelihood(attempt.score, guess_probability(template.answered_kind, template.option_count,
                                                                      params), params)
        for position, topic in enumerate(topics):
            evidence = self._evidence.setdefault(topic, _Evidence())
            w = weight * (1.0 if position == 0 else params.secondary_weight)
            evidence.log_likelihood = [params.decay * e + w * ll
                                       for e, ll in zip(evidence.log_likelihood, likelihood, strict=True)]
            evidence.attempts += 1
            evidence.correct += right
            evidence.last_seen = at
            if right and position == 0 and template.answered_kind != RECALL_KIND:
                evidence.right.add(attempt.key)
                if template.answered_kind in COMPUTED_KINDS:
                    evidence.computed.add(attempt.key)
            self._summaries.pop(topic, None)
        return topics

    def topic(self, topic: str) -> TopicMastery:
        """The topic's mastery now (the prior's for a topic never answered)."""
        summary = self._summaries.get(topic)
        if summary is None:
            summary = self._summaries[topic] = _summary(self._evidence.get(topic, _Evidence()), self.params)
        return summary

    def copy(self) -> MasteryTracker:
        """An independent tracker in the same state (a plan's dry run folds answers it will not keep)."""
        twin = MasteryTracker(self.templates, self.params)
        twin.latest, twin._last_answer, twin._summaries = self.latest, dict(self._last_answer), dict(self._summaries)
        twin._evidence = {topic: _Evidence(list(e.log_likelihood), e.attempts, e.correct, e.last_seen, set(e.right),
                                           set(e.computed)) for topic, e in self._evidence.items()}
        return twin

    def summary(self) -> dict[str, TopicMastery]:
        """Every answered topic's mastery (topics never answered are at :attr:`MasteryParams.prior_level`)."""
        return {topic: self.topic(topic) for topic in self._evidence}

    def predict(self, key: str) -> float:
        """The predicted P(right) on question ``key`` now, from its primary topic's posterior mean."""
        template = self.templates[key]
        mean = self.topic(template.topics[0]).mean
        assert mean is not None, "computed by _summary"
        return p_right(mean, guess_probability(template.answered_kind, template.option_count, self.params), self.params)


def _summary(evidence: _Evidence, params: MasteryParams) -> TopicMastery:
    level, mean, sd = _summarise(evidence.log_likelihood, params)
    covered = len(evidence.right) >= params.min_templates and bool(evidence.computed)
    if not covered:
        level = min(level, params.threshold - 0.01)
    return TopicMastery(level=level, attempts=evidence.attempts, correct=evidence.correct,
                        last_seen=evidence.last_seen, mean=mean, templates_right=len(evidence.right),
                        computed_right=bool(evidence.computed), mastered=covered and level >= params.threshold, sd=sd)


def replay(attempts: Iterable[GradedAttempt], templates: Mapping[str, TemplateLike],
           params: MasteryParams | None = None) -> dict[str, TopicMastery]:
    """Per-topic mastery after an attempt history; only attempted topics appear."""
    tracker = MasteryTracker(templates, params)
    # A stable sort keeps same-instant attempts in the order given.
    for attempt in sorted(attempts, key=lambda attempt: as_utc(attempt.at)):
        tracker.fold(attempt)
    return tracker.summary()


DEFAULTS = MasteryParams()
