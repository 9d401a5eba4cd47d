"""Mastery calibrated against simulated learners whose per-topic skill is known (``make bench``).

Each learner draws a skill per topic, uniform on [0, 1], and practises 40 questions in the app's
study session (``simulated_learners``): every other one in a topic it picked, the rest chosen by
"practise what I need most".  Before each answer the mastery model predicts P(right) (from the
question's primary topic and answer format); the figures compare the predictions with what the
learners then did:

* **calibration error** (expected calibration error): predictions in ten bins of width 0.1, the
  mean |predicted − observed rate| over the bins, weighted by how many answers fell in each;
* **Brier score**: the mean squared difference between prediction and outcome (0 or 1), beside
  that of a constant forecast of the overall rate, which knows nothing of the learner.
"""

from __future__ import annotations

import random
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.simulated_learners import Learner, Outcome, practise, study_bank  # noqa: E402

BINS = 10


def calibration_error(outcomes: Sequence[Outcome], bins: int = BINS) -> float:
    grouped: list[list[Outcome]] = [[] for _ in range(bins)]
    for outcome in outcomes:
        grouped[min(int(outcome.predicted * bins), bins - 1)].append(outcome)
    return sum(abs(sum(o.predicted for o in group) / len(group) - sum(o.right for o in group) / len(group))
               * len(group) for group in grouped if group) / len(outcomes)


def brier(outcomes: Sequence[Outcome], constant: float | None = None) -> float:
    return sum(((o.predicted if constant is None else constant) - o.right) ** 2 for o in outcomes) / len(outcomes)


def simulate(learners: int = 30, answers: int = 40, seed: int = 2026) -> list[Outcome]:
    from quizzer.templates.catalog import load_catalog

    topics = list(load_catalog().topics)
    rng = random.Random(seed)
    outcomes: list[Outcome] = []
    with tempfile.TemporaryDirectory() as folder, study_bank(Path(folder) / "bank.sqlite") as session:
        for n in range(learners):
            learner = Learner(f"learner{n:02d}", skills={topic: rng.random() for topic in topics})
            run = practise(session, learner, answers=answers, focus=rng.choice(topics), focus_share=0.5, seed=n)
            outcomes += run.outcomes
    return outcomes


def main() -> None:
    outcomes = simulate()
    rate = sum(o.right for o in outcomes) / len(outcomes)
    print(f"{len(outcomes)} answers of 30 simulated learners (skill per topic uniform on [0, 1]), 40 each")
    print(f"  calibration error (10 bins)  {calibration_error(outcomes):.3f}")
    print(f"  Brier score                  {brier(outcomes):.3f}   (constant {rate:.2f}: {brier(outcomes, rate):.3f})")


if __name__ == "__main__":
    main()
