"""Mastery calibration on simulated learners: predicted P(right) against what the learner did.

Two classes of simulated learners (``bench/simulated_learners.py``), each learner with a true
skill per topic drawn from the model's own prior (the machinery's check: calibrated by
construction if the code is right) and from Beta(1, 1) (a class stronger than the prior
assumes: the cost of a wrong prior), practises the bundled bank through the app's policy.  Before every
answer, mastery predicts the chance of a right answer (``quizzer.learning.mastery.predicted``);
the answer is then drawn from the learner's true skill.  Printed: the Brier score (mean squared
error of the prediction; 0.25 is a coin's), the expected calibration error (ECE: over ten bins
of the prediction, the answer-weighted gap between mean prediction and the share answered right),
the reliability table, and how often "mastered" was right (true skill ≥ 0.75) after the sitting.
Figures only, never assertions: ``make bench`` runs it.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from simulated_learners import Item, Learner, items_of, practise  # noqa: E402

from quizzer.learning.mastery import MASTERY_THRESHOLD, MasteryParams  # noqa: E402
from quizzer.templates.loader import load_path  # noqa: E402

QUESTIONS = Path(__file__).resolve().parent.parent / "questions"
LEARNERS, ANSWERS, BINS = 60, 120, 10


def main(learners: int = LEARNERS, answers: int = ANSWERS) -> None:
    templates = {t.key: t for t in (load_path(p) for p in sorted(QUESTIONS.rglob("*.yaml")))}
    prior = MasteryParams()
    for name, shape in ((f"the model's prior Beta({prior.prior_a:g}, {prior.prior_b:g})",
                         (prior.prior_a, prior.prior_b)), ("Beta(1, 1)", (1.0, 1.0))):
        print(f"-- skill per topic ~ {name}")
        simulate_class(items_of(templates), shape, learners, answers)


def simulate_class(items: list[Item], shape: tuple[float, float], learners: int, answers: int) -> None:
    topics = sorted({t for item in items for t in item.topics})
    rng = random.Random(2026)
    pairs: list[tuple[float, bool]] = []
    mastered = truly = 0
    for _ in range(learners):
        learner = Learner(skills={t: rng.betavariate(*shape) for t in topics})
        log, states = practise(learner, items, answers, random.Random(rng.random()))
        pairs += [(answer.predicted, answer.right) for answer in log]
        for topic, state in states.items():
            if state.mastered:
                mastered += 1
                truly += learner.skills[topic] >= MASTERY_THRESHOLD
    brier = sum((p - right) ** 2 for p, right in pairs) / len(pairs)
    base = sum(right for _, right in pairs) / len(pairs)
    print(f"{learners} simulated learners × {answers} answers = {len(pairs)} predictions")
    print(f"Brier score {brier:.4f}  (always predicting the base rate {base:.2f}: "
          f"{base * (1 - base):.4f})")
    table, ece = [], 0.0
    for b in range(BINS):
        inside = [(p, r) for p, r in pairs if b / BINS <= p < (b + 1) / BINS or (b == BINS - 1 and p == 1)]
        if inside:
            mean_p = sum(p for p, _ in inside) / len(inside)
            share = sum(r for _, r in inside) / len(inside)
            ece += len(inside) / len(pairs) * abs(mean_p - share)
            table.append(f"  {b / BINS:.1f}–{(b + 1) / BINS:.1f}  n={len(inside):5}  predicted {mean_p:.2f}  "
                         f"right {share:.2f}")
    print(f"expected calibration error (ECE, {BINS} bins) {ece:.4f}")
    print("\n".join(table))
    if mastered:
        print(f"topics shown mastered: {mastered}; true skill ≥ {MASTERY_THRESHOLD:.0%} in {truly} "
              f"({truly / mastered:.0%})")
    else:
        print("no topic shown mastered")


if __name__ == "__main__":
    main()
