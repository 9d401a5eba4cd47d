r"""The planner's model: how likely a right answer on a topic is on a future day, and what one more
question now is expected to add to that on the exam day.

**The objective.**  The expected exam score on the exam day ``E``: the weighted mean over topics of
the predicted chance of a right answer to a fresh question of the topic then,

    score(E) = Σ_t share_t · p_t(E),     p_t(T) = g + (1 − s − g) · K_t · R_t(T)

* ``K_t`` — what the learner can work out of the topic: the mastery model's posterior mean of θ
  (``quizzer.learning.mastery``; ``g`` and ``s`` are its guess and slip, ``g`` of a typed answer as an
  exam asks);
* ``R_t(T)`` — whether they will still remember it at ``T``: the retrievability of the topic's memory
  card (``quizzer.learning.plan.state``), with FSRS's power forgetting curve
  ``R = (1 + F·t/S)^−D`` in *fractional* days since the topic was last practised (``S`` its stability).
  A topic never practised has no card: nothing is counted on (R = 0, p = g), so trying it is worth the
  most.

**The gain of one question** of kind ``k`` on topic ``t`` now (``n``), for the exam at ``E``: the
learner answers right with ``p_now = g_k + (1 − s − g_k)·K·R(n)``; either way the worked solution
teaches, ``K' = K + η·(1 − g_k)·(1 − K)`` (knowledge tracing's learning rate ``η``), and the card is
reviewed Good (right) or Again (wrong; but a wrong answer followed by its worked solution leaves the
memory no weaker than it was, so its recall is never taken below the card's present forecast), so

    gain = w_t · (1 − s − g) · (K'·R'(E) − K·R(E)) / (1 + m),
    R'(E) = R(E) + (1 − g_k) · (p_now·R_good(E) + (1 − p_now)·R_again(E) − R(E))

with diminishing returns for the ``m`` questions already answered on the topic today (massed
practice teaches less than spaced: the third question of a day on a topic is worth a third of the
first), times the question's **exam likeness** ``x_k`` (:data:`EXAM_LIKENESS`: 1 for a value or expression
worked out and typed, as the exam asks; 0.5 for a question answered by recognising — a choice,
select-all, true/false, an order — or a recall card rated by oneself: practice in the form of the
final test transfers best, Kang, McDermott & Roediger 2007), divided by the expected minutes of the
question (``LearnerState.seconds_for`` plus :data:`FEEDBACK_SECONDS` to read the feedback).  The
factor ``1 − g_k`` is how much of a question the learner must work out rather than guess.  Without
both, a plan that divides by minutes would fill the days with the quickest questions (it did: two
thirds select-all questions in a fresh learner's first three days).  FSRS grows the
stability most when the memory has faded (its spacing effect) and hardly at all the same day, so
the gain itself spreads the practice: over topics within a day, over days for a topic.

Why not FSRS alone or the mastery model alone: FSRS knows memory but not skill (a card reviewed Good
at 20 % mastery is not a topic known), and the mastery model knows skill but not forgetting; the
exam needs both, on a given day.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from quizzer.learning.mastery import DEFAULTS, guess_probability
from quizzer.learning.plan.state import LearnerState
from quizzer.learning.review import SCHEDULER, Rating, ReviewState, review

LEARN_RATE = 0.1  # η: knowledge tracing's P(learn) per practice opportunity (Corbett & Anderson 1995 fit 0.1-0.3)
DECAY = -SCHEDULER.parameters[20]  # FSRS-6's forgetting curve: R(t) = (1 + FACTOR·t/S)^DECAY, t and S in days
FACTOR = 0.9 ** (1 / DECAY) - 1
EXAM_GUESS = DEFAULTS.typed_guess  # an exam question is worked out and typed, not picked
FEEDBACK_SECONDS = 20.0  # reading the verdict and the worked solution, whatever the question
RECOGNISED = frozenset({"choice", "multi", "bool", "order", "text"})
EXAM_LIKENESS = {kind: 0.5 for kind in RECOGNISED}  # every other kind (typed): 1
DAY = 86400.0


def recall(card: ReviewState | None, at: datetime) -> float:
    """The topic card's retrievability at ``at`` (fractional days); 0 for a topic never practised."""
    if card is None or card.stability is None or card.last_review is None:
        return 0.0
    days = max((at - card.last_review).total_seconds() / DAY, 0.0)
    return float((1 + FACTOR * days / card.stability) ** DECAY)


def knowledge(state: LearnerState, topic: str) -> float:
    """K_t: the mastery model's posterior mean of θ for the topic."""
    mean = state.tracker.topic(topic).mean
    assert mean is not None, "computed by the tracker"
    return mean


def p_right(state: LearnerState, topic: str, at: datetime, guess: float = EXAM_GUESS) -> float:
    """p_t(at): the predicted chance of a right answer to a fresh question of ``topic`` at ``at``."""
    slip = DEFAULTS.slip
    return guess + (1 - slip - guess) * knowledge(state, topic) * recall(state.topic_cards.get(topic), at)


@dataclass(frozen=True)
class Outlook:
    """A topic's figures that the gain of any question on it needs (its kind aside)."""

    knowledge: float  # K now
    recall_now: float  # R(n)
    recall_exam: float  # R(E) if not practised again
    recall_if_right: float  # R(E) after a review Good now
    recall_if_wrong: float  # R(E) after a review Again now (never below recall_exam: see above)


def outlook(state: LearnerState, topic: str, now: datetime, exam: datetime) -> Outlook:
    card = state.topic_cards.get(topic)
    r_exam = recall(card, exam)
    start = card if card is not None else ReviewState(due=now)
    return Outlook(knowledge(state, topic), recall(card, now), r_exam, recall(review(start, Rating.Good, now), exam),
                   max(recall(review(start, Rating.Again, now), exam), r_exam))


def gain(view: Outlook, kind: str, option_count: int | None, weight: float, today: int = 0) -> float:
    """The expected rise of the objective from one question of ``kind`` on a topic seen as ``view`` now,
    the topic having been answered ``today`` times already today (see above)."""
    slip, g_k, k_now = DEFAULTS.slip, guess_probability(kind, option_count), view.knowledge
    right_now = g_k + (1 - slip - g_k) * k_now * view.recall_now
    k_next = k_now + LEARN_RATE * (1 - g_k) * (1 - k_now)
    reviewed = right_now * view.recall_if_right + (1 - right_now) * view.recall_if_wrong
    r_next = view.recall_exam + (1 - g_k) * (reviewed - view.recall_exam)
    likeness = EXAM_LIKENESS.get(kind, 1.0)
    return likeness * weight * (1 - slip - EXAM_GUESS) * (k_next * r_next - k_now * view.recall_exam) / (1 + today)


@dataclass(frozen=True)
class Prediction:
    """The predicted exam score (0–1) with an 80 % interval, and each topic's predicted chance."""

    score: float
    low: float
    high: float
    topics: Mapping[str, float]
    tried: int  # topics practised at least once: the others are predicted at the guess rate


Z80 = 1.2816  # the normal quantile of an 80 % two-sided interval


def predicted_score(state: LearnerState, shares: Mapping[str, float], exam: datetime) -> Prediction:
    """score(E) and an 80 % interval from the mastery posteriors' spread (topics independent; the
    forgetting curve taken as predicted)."""
    slip, per_topic, score, variance = DEFAULTS.slip, {}, 0.0, 0.0
    for topic, share in shares.items():
        p = p_right(state, topic, exam)
        per_topic[topic] = p
        score += share * p
        sd = state.tracker.topic(topic).sd or 0.0
        spread = (1 - slip - EXAM_GUESS) * recall(state.topic_cards.get(topic), exam) * sd
        variance += (share * spread) ** 2
    half = Z80 * math.sqrt(variance)
    tried = sum(1 for topic in shares if topic in state.topic_cards)
    return Prediction(score, max(score - half, 0.0), min(score + half, 1.0), per_topic, tried)
