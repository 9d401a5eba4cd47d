r"""Per-topic mastery by Bayesian Knowledge Tracing (BKT), as pure functions over plain data.

The model (Corbett & Anderson 1995, "Knowledge tracing: Modeling the acquisition of
procedural knowledge", *User Modeling and User-Adapted Interaction* 4:253–278) treats each
topic as a skill the student either knows or does not, with four parameters:

* ``p_init``  P(L0): known before the first attempt;
* ``p_learn`` P(T):  learned at an attempt (the chance to learn from practice and feedback);
* ``p_slip``  P(S):  answered wrongly although known;
* ``p_guess`` P(G):  answered correctly although not known.

With ``p = P(L_n)`` before an attempt, Bayes' rule gives the posterior after observing it::

    P(L | correct)   = p (1 - S) / (p (1 - S) + (1 - p) G)
    P(L | incorrect) = p S       / (p S       + (1 - p) (1 - G))

and the learning transition then gives the estimate before the next attempt::

    P(L_{n+1}) = P(L | obs) + (1 - P(L | obs)) T

As in Corbett & Anderson's model there is no forgetting term: forgetting is the review
scheduler's job (``quizzer.learning.review``), not this estimate's.

**Defaults.**  ``p_init=0.1, p_learn=0.1, p_slip=0.1`` are conventional starting values
rather than fitted ones (a student bank is too small to fit per-topic parameters): a low
prior because the tool is for revision of material not yet secure, a modest learning
rate (every attempt shows a worked solution, but one question is one step), and the slip
and guess ceilings the
BKT literature keeps since Corbett & Anderson (slip ≤ 0.1, guess ≤ 0.3) so the model is
not *degenerate* — a student who knows the topic must be likelier to answer correctly
than one who does not (``1 - S > G``; :class:`BKTParams` enforces it).  ``p_guess=0.2``
is only the fallback: :func:`replay` sets the guess from the question's kind.

**Guess by kind** (:func:`guess_probability`).  A guess is the chance of a right answer
without the knowledge, so it follows the answer format: ``choice`` with k options 1/k;
``bool`` 1/2; ``multi`` 1/2^k (all-or-nothing guessing of k independent ticks); typed
answers (``number integer vector matrix shape expression``) 0.1 — a typed value is hard
to hit blindly, but a right number is often reached by a wrong route that happens to
coincide (a transposed product of a symmetric matrix, a formula remembered from another
question), so the guess is not near zero; ``text`` (self-rated against the model answer)
0.2, as students over-rate vague answers.  No kind goes below 0.1 (:data:`GUESS_FLOOR`).
With these values a topic starts at 10 %, one right typed answer takes it to 55 %, two
in a row to 92.5 % and three to 99 %: mastery (95 %) takes three right answers in a row,
never one lucky one.  (An earlier version used a 0.02 typed guess and ``p_init=0.2``:
one right answer already showed 93 %, which students rightly found unbelievable.)

**Partial credit.**  A score ``s`` in [0, 1] is a *soft* observation: the posterior is the
mix ``s · P(L | correct) + (1 - s) · P(L | incorrect)`` before the learning transition,
so ``s = 1`` and ``s = 0`` are exactly the binary updates.

**Multi-topic templates** update every topic they carry with the same observation (each
topic's tracker is independent), the usual simplification when a question tests several
skills at once.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

VERDICTS = ("correct", "incorrect", "partial")
TYPED_KINDS = frozenset({"number", "integer", "vector", "matrix", "shape", "expression"})
TYPED_GUESS = 0.1
TEXT_GUESS = 0.2
GUESS_FLOOR = TYPED_GUESS
MASTERY_THRESHOLD = 0.95  # Corbett & Anderson's mastery criterion for the Cognitive Tutors


@dataclass(frozen=True)
class BKTParams:
    """The four BKT probabilities (see the module docstring for the equations and defaults)."""

    p_init: float = 0.1
    p_learn: float = 0.1
    p_slip: float = 0.1
    p_guess: float = 0.2

    def __post_init__(self) -> None:
        for name in ("p_init", "p_learn"):
            _check_probability(getattr(self, name), name)
        # Strictly positive slip and guess keep both posterior denominators above zero.
        for name in ("p_slip", "p_guess"):
            value = getattr(self, name)
            if not 0 < value < 1:
                raise ValueError(f"{name} must lie strictly between 0 and 1, got {value!r}")
        if self.p_slip + self.p_guess >= 1:
            raise ValueError(f"degenerate BKT: p_slip + p_guess = {self.p_slip + self.p_guess:g} must be below 1")


@dataclass(frozen=True)
class TopicMastery:
    """One topic's BKT estimate and attempt counts."""

    p_known: float
    attempts: int = 0
    correct: int = 0
    last_seen: datetime | None = None


@dataclass(frozen=True)
class GradedAttempt:
    """One graded attempt as the bank records it (``at`` is UTC)."""

    key: str
    seed: int
    verdict: str
    score: float
    seconds: float | None
    at: datetime


def _check_probability(value: float, name: str) -> None:
    # "not 0 <= value <= 1" also rejects NaN.
    if not 0 <= value <= 1:
        raise ValueError(f"{name} must lie in [0, 1], got {value!r}")


def guess_probability(kind: str, n_options: int | None = None) -> float:
    """P(correct | not known) for a question kind (``n_options`` for choice and multi)."""
    if kind in TYPED_KINDS:
        return TYPED_GUESS
    if kind == "text":
        return TEXT_GUESS
    if kind == "bool":
        return 0.5
    if kind == "order":  # the exact order among n! arrangements; without n, as unlikely as a typed answer
        return TYPED_GUESS if not n_options else max(1 / math.factorial(n_options), GUESS_FLOOR)
    if kind in ("choice", "multi"):
        minimum = 2 if kind == "choice" else 1
        if n_options is None or n_options < minimum:
            raise ValueError(f"kind {kind!r} needs at least {minimum} options, got {n_options!r}")
        chance = 1 / n_options if kind == "choice" else 0.5 ** n_options
        return max(chance, GUESS_FLOOR)
    raise ValueError(f"unknown question kind {kind!r}")


def posterior(p_known: float, correct: bool, params: BKTParams) -> float:
    """P(known | one binary observation), before the learning transition."""
    slip, guess = params.p_slip, params.p_guess
    if correct:
        known, unknown = p_known * (1 - slip), (1 - p_known) * guess
    else:
        known, unknown = p_known * slip, (1 - p_known) * (1 - guess)
    return known / (known + unknown)


def update(p_known: float, correct_score: float, params: BKTParams = BKTParams()) -> float:
    """P(known) before the next attempt, after one attempt scored ``correct_score`` in [0, 1]."""
    _check_probability(p_known, "p_known")
    _check_probability(correct_score, "correct_score")
    observed = (correct_score * posterior(p_known, True, params)
                + (1 - correct_score) * posterior(p_known, False, params))
    learned = observed + (1 - observed) * params.p_learn
    # Rounding can overshoot by an ulp; the estimate is a probability.
    return min(max(learned, 0.0), 1.0)


def mastered(p_known: float, threshold: float = MASTERY_THRESHOLD) -> bool:
    """Whether a topic counts as mastered."""
    return p_known >= threshold


def as_utc(moment: datetime) -> datetime:
    """An aware UTC datetime; a naive one is read as UTC (the bank stores UTC, SQLite drops the zone)."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def observe(state: TopicMastery, attempt: GradedAttempt, params: BKTParams) -> TopicMastery:
    """A topic's state after one attempt on a template that carries it."""
    if attempt.verdict not in VERDICTS:
        raise ValueError(f"attempt on {attempt.key!r} has verdict {attempt.verdict!r}; expected one of {VERDICTS}")
    return TopicMastery(p_known=update(state.p_known, attempt.score, params),
                        attempts=state.attempts + 1,
                        correct=state.correct + (attempt.verdict == "correct"),
                        last_seen=as_utc(attempt.at))


def replay(attempts: Iterable[GradedAttempt], template_topics: Mapping[str, Sequence[str]],
           template_kinds: Mapping[str, str], options_count: Mapping[str, int],
           params: BKTParams = BKTParams()) -> dict[str, TopicMastery]:
    """Per-topic mastery after an attempt history; only attempted topics appear (others are at ``p_init``)."""
    # A stable sort keeps same-instant attempts in the order given.
    ordered = sorted(attempts, key=lambda attempt: as_utc(attempt.at))
    states: dict[str, TopicMastery] = {}
    for attempt in ordered:
        topics = template_topics.get(attempt.key)
        if topics:  # otherwise a template since removed from the bank: its topics are unknown
            fold_attempt(states, attempt, topics, template_kinds[attempt.key], options_count.get(attempt.key), params)
    return states


def fold_attempt(states: dict[str, TopicMastery], attempt: GradedAttempt, topics: Sequence[str], kind: str,
           n_options: int | None, params: BKTParams = BKTParams()) -> None:
    """Update ``states`` in place with one attempt, the latest so far, on a template carrying ``topics``."""
    guessed = dataclasses.replace(params, p_guess=guess_probability(kind, n_options))
    for topic in dict.fromkeys(topics):  # a topic listed twice is still one observation
        before = states.get(topic, TopicMastery(p_known=params.p_init))
        states[topic] = observe(before, attempt, guessed)
