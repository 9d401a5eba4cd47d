"""The ground truth of the exam-cohort benchmark: simulated learners whose memory the plan does not know.

Each simulated learner remembers each topic as one ACT-R chunk with power-law forgetting and a
spacing effect, the model of Pavlik & Anderson (2005, "Practice and forgetting effects on vocabulary
memory: an activation-based model of the spacing effect", Cognitive Science 29), with their fitted
parameters:

    m(T) = β + ln Σ_j w_j · (T − t_j)^(−d_j),      d_j = c · e^{m(t_j)} + α
    P(recall at T) = 1 / (1 + e^{(τ − m(T)) / s})

c = 0.217, α = 0.177, τ = −0.704, s = 0.255; time in seconds, and the time *between* sittings counts
h = 0.025 of its length (their "psychological time": forgetting between sessions is slower than
within one).  A practice trace made when the chunk is already active (high m) decays faster: massed
practice helps less, later.

What is ours, not theirs (stated, not fitted): every question answered (right or wrong, followed by
its worked solution) adds a trace to its primary topic's chunk, of weight 1 for a worked answer
(typed value, expression, recall) and 0.5 for a recognised one (true/false, choice, select-all,
order: recall practice teaches more than recognition, Kang, McDermott & Roediger 2007); a learner
attended the lectures, one trace per topic 7 days before practice starts; β = 0.2 + ability
(N(0, 0.3) per learner) + topic ease (N(0, 0.2) per topic, the same for every learner) + N(0, 0.2),
so that a fresh learner recalls a topic about 5 % of the time, and 30 % just after one practice
(a topic is harder to learn than a word pair: about ten spaced practices bring it to 70 %); a question
is right if recalled, except for a slip (5 %), or by a guess (the format's guess chance, as in
``quizzer.learning.mastery.guess_probability``); it takes the kind's typical time
(``quizzer.learning.review.TYPICAL_SECONDS``) × a learner's pace (log-normal, σ 0.2) × log-normal
noise (σ 0.3), and then reading the feedback: 10 s after a right answer, 30 s after a wrong one.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

C, ALPHA, TAU, S, H = 0.217, 0.177, -0.704, 0.255, 0.025  # Pavlik & Anderson (2005)
SITTING_GAP = 1800.0  # seconds without an answer that start a new sitting (between-session time: × H)
LECTURE_DAYS = 7
BASE_BETA, ABILITY_SD, EASE_SD, NOISE_SD = 0.2, 0.3, 0.2, 0.2
SLIP = 0.05
PACE_SD, TIME_SD = 0.2, 0.3
FEEDBACK_RIGHT, FEEDBACK_WRONG = 10.0, 30.0
RECOGNITION_WEIGHT = 0.5
RECOGNITION_KINDS = frozenset({"bool", "choice", "multi", "order"})


@dataclass
class Chunk:
    """One topic's memory: its traces as (psychological time, weight, decay)."""

    beta: float
    traces: list[tuple[float, float, float]] = field(default_factory=list)

    def activation(self, at: float) -> float:
        total = sum(w * (at - t) ** -d for t, w, d in self.traces if at > t)
        return self.beta + math.log(total) if total > 0 else -math.inf

    def recall(self, at: float) -> float:
        m = self.activation(at)
        if m == -math.inf:
            return 0.0
        return 1 / (1 + math.exp(min((TAU - m) / S, 700)))

    def practise(self, at: float, weight: float) -> None:
        m = self.activation(at)
        decay = ALPHA + (C * math.exp(m) if m > -math.inf else 0.0)
        self.traces.append((at, weight, decay))


class ActrLearner:
    """A simulated learner: a chunk per topic, a pace, and a psychological clock."""

    def __init__(self, topics: list[str], ease: dict[str, float], seed: int, start: float) -> None:
        self.rng = random.Random(seed)
        ability = self.rng.gauss(0, ABILITY_SD)
        self.pace = math.exp(self.rng.gauss(0, PACE_SD))
        self.chunks = {t: Chunk(BASE_BETA + ability + ease[t] + self.rng.gauss(0, NOISE_SD)) for t in topics}
        lecture = start - LECTURE_DAYS * 86400
        self._real, self._psych = lecture, 0.0  # real seconds ↔ psychological seconds, at the last event
        for chunk in self.chunks.values():
            chunk.practise(0.0, 1.0)

    def psych(self, real: float) -> float:
        """Psychological time at real time ``real`` (not before the last event)."""
        gap = real - self._real
        return self._psych + (gap * H if gap > SITTING_GAP else gap)

    def _advance(self, real: float) -> float:
        self._psych, self._real = self.psych(real), real
        return self._psych

    def seconds(self, typical: float) -> float:
        """The time to answer a question of this typical time (the feedback comes after: :meth:`feedback`)."""
        return typical * self.pace * math.exp(self.rng.gauss(0, TIME_SD))

    @staticmethod
    def feedback(right: bool) -> float:
        return FEEDBACK_RIGHT if right else FEEDBACK_WRONG

    def answer(self, topic: str | None, kind: str, guess: float, real: float) -> bool:
        """Answer a question on ``topic`` at real time ``real``: right or not; learns from it."""
        at = self._advance(real)
        if topic is None or topic not in self.chunks:
            return self.rng.random() < guess
        chunk = self.chunks[topic]
        known = self.rng.random() < chunk.recall(at)
        right = (known and self.rng.random() >= SLIP) or (not known and self.rng.random() < guess)
        chunk.practise(at, RECOGNITION_WEIGHT if kind in RECOGNITION_KINDS else 1.0)
        return right

    def exam_chance(self, topic: str, real: float, guess: float) -> float:
        """P(right) on a fresh exam question of ``topic`` at real time ``real`` (a typed answer)."""
        p = self.chunks[topic].recall(self.psych(real))
        return p * (1 - SLIP) + (1 - p) * guess
