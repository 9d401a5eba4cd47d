r"""Per-topic mastery: a Bayesian estimate of skill with guessing, weighted by how much each answer shows.

**The model.**  Each topic has a skill ``s`` in [0, 1]: the fraction of that topic's questions the
student can do (not guess).  The chance of a right answer on a question of kind ``k`` is the
response function of the three-parameter IRT model with the item parameters fixed per kind::

    P(correct | s) = s (1 - SLIP) + (1 - s) g_k

where ``g_k`` is the chance of a right answer without the skill (:func:`guess_probability`) and
``SLIP`` a careless error.  The estimate is the posterior over ``s`` on a grid of 100 cell midpoints,
starting from a Beta(``prior_a``, ``prior_b``) prior; the mastery shown is the posterior mean
``E[s]`` (``p_known``), and the predicted chance of a right answer on a fresh question is
``E[s] (1 - SLIP) + (1 - E[s]) g_k``, which ``bench/calibration.py`` checks against simulated learners.

**Why not BKT.**  Knowledge tracing (Corbett & Anderson 1995), used before, has a binary
known / not-known state and a learning transition that raises the estimate after *every*
attempt, right or wrong: 40 guessed answers reached 49 %, and a student right 65 % of the time
showed a topic at 100 % after a short lucky run, because a right typed answer is 9 times likelier
from a "knower" and BKT has no state for "knows about two thirds of it".  Here a 65 % student's
skill is estimated near 0.6, and guessed answers (right at the guessing rate) pull the skill
*down* — which is what a teacher means by mastery.

**Weights** (evidence a single answer carries; the likelihood is raised to the weight, a
tempered likelihood):

* a fresh question weighs 1; the same question again within :data:`REPEAT_WINDOW` (the review's
  short-term steps: the worked solution is still in mind) weighs :data:`REPEAT_WEIGHT`;
* a question's first topic is its subject; its other topics get :data:`SECONDARY_WEIGHT`;
* a self-rated recall card (rated after its model answer was shown: the app reveals it first)
  weighs :data:`SELF_RATED_WEIGHT`, since students over-rate vague answers;
* partial credit ``x`` is a soft observation: ``P(correct)^x · P(wrong)^(1-x)``;
* older evidence fades: before each answer the topic's log-posterior is multiplied by
  :data:`FADE` (so the estimate follows a student who learns: about the last 1/(1-FADE) answers
  of a topic count); forgetting over days is the review scheduler's job, not this estimate's.

**Mastered** needs both a posterior mean at least :data:`MASTERY_THRESHOLD` *and* coverage:
right answers on at least :data:`DISTINCT_NEEDED` distinct questions of the topic (all of them
when it has fewer), at least one of them computed (a typed number, vector, matrix, shape or
expression) when the topic has a computed question.  Until it is covered, the level shown is
capped at :data:`UNCOVERED_CAP`, so a topic never looks mastered on one question repeated.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

VERDICTS = ("correct", "incorrect", "partial")
TYPED_KINDS = frozenset({"number", "integer", "vector", "matrix", "shape", "expression"})
TYPED_GUESS = 0.05  # a blind typed value is rarely right; a wrong route can coincide with the answer
TEXT_GUESS = 0.2
SLIP = 0.05
STEP = 0.01
GRID = tuple((i + 0.5) * STEP for i in range(100))  # cell midpoints
LEVEL_QUANTILE = 0.2
MASTERY_THRESHOLD = 0.75
DISTINCT_NEEDED = 3
UNCOVERED_CAP = 0.7  # below MASTERY_THRESHOLD: level >= threshold exactly when mastered
REPEAT_WINDOW = timedelta(days=1)
REPEAT_WEIGHT = 0.25
SECONDARY_WEIGHT = 0.5
SELF_RATED_WEIGHT = 0.5
FADE = 0.98


@dataclass(frozen=True)
class MasteryParams:
    """The prior over a topic's skill: Beta(prior_a, prior_b), mean prior_a / (prior_a + prior_b)."""

    prior_a: float = 0.3
    prior_b: float = 1.2

    def __post_init__(self) -> None:
        for name in ("prior_a", "prior_b"):
            value = getattr(self, name)
            if not value > 0:  # also rejects NaN
                raise ValueError(f"{name} must be positive, got {value!r}")

    @property
    def p_init(self) -> float:
        """The prior mean: a topic's level before any answer."""
        return self.prior_a / (self.prior_a + self.prior_b)

    def log_prior(self) -> tuple[float, ...]:
        """Log prior mass of each grid cell.  Integrated, not sampled at the midpoint: a Beta density with
        ``prior_a`` < 1 is infinite at 0.  With u = s^a the density s^(a-1) (1-s)^(b-1) ds becomes
        (1/a) (1 - u^(1/a))^(b-1) du, smooth enough for a midpoint rule."""
        return _log_cell_masses(self.prior_a, self.prior_b)


@functools.cache
def _log_cell_masses(a: float, b: float, steps: int = 40) -> tuple[float, ...]:
    masses = []
    for s in GRID:
        low, high = (s - STEP / 2) ** a, (s + STEP / 2) ** a
        width = (high - low) / steps
        masses.append(sum((1 - (low + (j + 0.5) * width) ** (1 / a)) ** (b - 1) for j in range(steps)) * width / a)
    return tuple(math.log(m) for m in masses)


@dataclass(frozen=True)
class TopicMastery:
    """One topic's estimate: posterior mean skill, counts, and the coverage mastery needs."""

    p_known: float
    lower: float = 0.0
    attempts: int = 0
    correct: int = 0
    last_seen: datetime | None = None
    right_keys: frozenset[str] = frozenset()
    computed_right: bool = False
    covered: bool = False
    log_posterior: tuple[float, ...] = field(default=(), repr=False, compare=False)

    @property
    def mastered(self) -> bool:
        return self.covered and self.lower >= MASTERY_THRESHOLD

    @property
    def level(self) -> float:
        """The level to show: the skill the evidence vouches for, capped below mastery until covered."""
        return self.lower if self.covered else min(self.lower, UNCOVERED_CAP)


@dataclass(frozen=True)
class GradedAttempt:
    """One graded attempt as the bank records it (``at`` is UTC)."""

    key: str
    seed: int
    verdict: str
    score: float
    seconds: float | None
    at: datetime


def guess_probability(kind: str, n_options: int | None = None) -> float:
    """P(correct | skill 0) for a question kind (``n_options`` for choice and multi)."""
    if kind in TYPED_KINDS:
        return TYPED_GUESS
    if kind == "text":
        return TEXT_GUESS
    if kind == "bool":
        return 0.5
    if kind in ("choice", "multi", "order"):
        minimum = 1 if kind == "multi" else 2
        if n_options is None or n_options < minimum:
            raise ValueError(f"kind {kind!r} needs at least {minimum} options, got {n_options!r}")
        chance = {"choice": 1 / n_options, "multi": 0.5 ** n_options, "order": 1 / math.factorial(n_options)}[kind]
        return max(chance, TYPED_GUESS)
    raise ValueError(f"unknown question kind {kind!r}")


def p_correct(skill: float, guess: float) -> float:
    """The response function: P(right answer) for a student of ``skill`` on a question with ``guess``."""
    return skill * (1 - SLIP) + (1 - skill) * guess


def predicted(state: TopicMastery | None, guess: float, params: MasteryParams = MasteryParams()) -> float:
    """P(right answer) on a fresh question of this topic, before answering it."""
    return p_correct(state.p_known if state is not None else params.p_init, guess)


def as_utc(moment: datetime) -> datetime:
    """An aware UTC datetime; a naive one is read as UTC (the bank stores UTC, SQLite drops the zone)."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def summarise(log_posterior: Sequence[float]) -> tuple[float, float]:
    """The posterior mean of the skill and its :data:`LEVEL_QUANTILE` quantile (the level shown)."""
    top = max(log_posterior)
    weights = [math.exp(v - top) for v in log_posterior]
    total = sum(weights)
    mean = sum(s * w for s, w in zip(GRID, weights, strict=True)) / total
    below = 0.0
    for s, w in zip(GRID, weights, strict=True):
        below += w / total
        if below >= LEVEL_QUANTILE:
            return mean, s
    return mean, GRID[-1]


def _updated(log_posterior: Sequence[float], score: float, guess: float, weight: float,
             log_prior: Sequence[float]) -> tuple[float, ...]:
    """The log-posterior after one observation of ``score`` weighed ``weight``; old evidence fades."""
    out = []
    for s, before, prior in zip(GRID, log_posterior, log_prior, strict=True):
        right = p_correct(s, guess)
        evidence = score * math.log(right) + (1 - score) * math.log(1 - right)
        out.append(prior + FADE * (before - prior) + weight * evidence)
    return tuple(out)


@dataclass
class Tracker:
    """Per-topic mastery, folded one attempt at a time (in time order)."""

    template_counts: Mapping[str, tuple[int, bool]] = field(default_factory=dict)  # topic: (templates, any computed)
    params: MasteryParams = MasteryParams()
    states: dict[str, TopicMastery] = field(default_factory=dict)
    last_answered: dict[str, datetime] = field(default_factory=dict)  # per question

    def weight(self, attempt: GradedAttempt, kind: str, rank: int) -> float:
        """How much this attempt tells about its ``rank``-th topic (0: the question's subject)."""
        previous = self.last_answered.get(attempt.key)
        repeat = previous is not None and as_utc(attempt.at) - previous < REPEAT_WINDOW
        return ((REPEAT_WEIGHT if repeat else 1.0) * (SECONDARY_WEIGHT if rank else 1.0)
                * (SELF_RATED_WEIGHT if kind == "text" else 1.0))

    def fold(self, attempt: GradedAttempt, topics: Sequence[str], kind: str, n_options: int | None) -> None:
        """Update every topic ``attempt`` carries (a topic listed twice is one observation)."""
        if attempt.verdict not in VERDICTS:
            raise ValueError(f"attempt on {attempt.key!r} has verdict {attempt.verdict!r}; expected one of {VERDICTS}")
        if not 0 <= attempt.score <= 1:  # also rejects NaN
            raise ValueError(f"attempt on {attempt.key!r} has score {attempt.score!r}; expected one in [0, 1]")
        guess, at = guess_probability(kind, n_options), as_utc(attempt.at)
        log_prior = self.params.log_prior()
        right = attempt.verdict == "correct"
        for rank, topic in enumerate(dict.fromkeys(topics)):
            before = self.states.get(topic)
            log_posterior = before.log_posterior if before is not None else log_prior
            log_posterior = _updated(log_posterior, attempt.score, guess, self.weight(attempt, kind, rank), log_prior)
            right_keys = (before.right_keys if before else frozenset()) | ({attempt.key} if right else set())
            computed = (before.computed_right if before else False) or (right and kind in TYPED_KINDS)
            mean, lower = summarise(log_posterior)
            self.states[topic] = TopicMastery(
                p_known=mean, lower=lower, attempts=(before.attempts if before else 0) + 1,
                correct=(before.correct if before else 0) + right, last_seen=at, right_keys=right_keys,
                computed_right=computed, covered=self._covered(topic, right_keys, computed),
                log_posterior=log_posterior)
        self.last_answered[attempt.key] = at

    def _covered(self, topic: str, right_keys: frozenset[str], computed_right: bool) -> bool:
        available, has_computed = self.template_counts.get(topic, (DISTINCT_NEEDED, True))
        return len(right_keys) >= min(DISTINCT_NEEDED, available) and (computed_right or not has_computed)


def template_counts(template_topics: Mapping[str, Sequence[str]],
                    template_kinds: Mapping[str, str]) -> dict[str, tuple[int, bool]]:
    """Per topic: how many questions carry it, and whether any of them is computed."""
    counts: dict[str, tuple[int, bool]] = {}
    for key, topics in template_topics.items():
        for topic in dict.fromkeys(topics):
            count, computed = counts.get(topic, (0, False))
            counts[topic] = (count + 1, computed or template_kinds.get(key) in TYPED_KINDS)
    return counts


def replay(attempts: Iterable[GradedAttempt], template_topics: Mapping[str, Sequence[str]],
           template_kinds: Mapping[str, str], options_count: Mapping[str, int],
           params: MasteryParams = MasteryParams()) -> dict[str, TopicMastery]:
    """Per-topic mastery after an attempt history; only attempted topics appear (others are at ``p_init``)."""
    tracker = Tracker(template_counts(template_topics, template_kinds), params)
    # A stable sort keeps same-instant attempts in the order given.
    for attempt in sorted(attempts, key=lambda attempt: as_utc(attempt.at)):
        topics = template_topics.get(attempt.key)
        if topics:  # otherwise a template since removed from the bank: its topics are unknown
            tracker.fold(attempt, topics, template_kinds[attempt.key], options_count.get(attempt.key))
    return tracker.states
