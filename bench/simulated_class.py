"""A simulated class whose truth is known: learners with abilities, questions with difficulties.

Each learner ``n`` has an ability θₙ and each question ``i`` a difficulty bᵢ, and a learner answers
right with the Rasch (1PL) probability

    P(right) = 1 / (1 + exp(−(θₙ − bᵢ)))

so an item analysis run on the recorded attempts can be checked against the numbers that made
them (the tests' recovery check, and ``make bench-load``'s closing line).  A wrong answer is one of
the question's named mistakes (each question favours its first), or an unrecognised "don't know".

``broken`` simulates a wrong key: the author swapped the answer with the question's first named
mistake.  Then every learner who is truly right is marked wrong *with that mistake*, and every
learner who makes that mistake is marked right, so the strongest "make the mistake" most: the
item analysis must flag it as negatively discriminating.

Abilities are drawn N(0, 1); difficulties are spread evenly over [−2, 2] in a seeded order
unrelated to the authors' own 1–3 difficulty, so nothing but the answers carries them.

``record_class`` writes a simulated class into a bank in two statements (learners, attempts):
fast enough for a test suite, where recording ten thousand answers one commit at a time is not.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from quizzer.reporting.classdata import ClassAttempt
from quizzer.templates.schema import Template

UNRECOGNISED = 0.25  # share of wrong answers that match no named mistake
DONT_KNOW = "don't know"
SPREAD = 2.0  # difficulties lie evenly in [-SPREAD, SPREAD]


def p_right(ability: float, difficulty: float) -> float:
    """The Rasch model's chance that a learner of ``ability`` answers a question of ``difficulty`` right."""
    return 1.0 / (1.0 + math.exp(difficulty - ability))


def true_abilities(count: int, seed: int) -> list[float]:
    """θ for ``count`` learners, drawn N(0, 1)."""
    rng = random.Random(seed)
    return [rng.gauss(0.0, 1.0) for _ in range(count)]


def true_difficulties(keys: Sequence[str], seed: int) -> dict[str, float]:
    """b for each key, evenly over [−SPREAD, SPREAD] in a seeded shuffle of ``keys``."""
    order = sorted(keys)
    random.Random(seed).shuffle(order)
    step = 2 * SPREAD / max(len(order) - 1, 1)
    return {key: -SPREAD + i * step for i, key in enumerate(order)}


@dataclass(frozen=True)
class SimulatedClass:
    abilities: dict[str, float]
    difficulties: dict[str, float]
    broken: str | None  # the key whose answer was swapped with its first mistake
    answers: list[ClassAttempt]  # as the report reads them from a bank


@dataclass(frozen=True)
class _Question:
    """What a learner types on one question: the answer, and each named mistake's answer."""

    key: str
    right: str
    mistakes: tuple[tuple[str, str], ...]  # (misconception id, typed answer), the favoured first


def simulatable(templates: Sequence[Template]) -> list[Template]:
    """Questions a simulated learner can answer and get wrong in a named way (typed or chosen, one mistake at least)."""
    return [t for t in templates if t.misconceptions and t.kind not in ("multi", "expression", "text", "parts")]


def _question(template: Template) -> _Question:
    from quizzer.templates.instance import make_instance

    instance = make_instance(template, 1)
    right = chr(97 + instance.answer) if instance.kind == "choice" else instance.answer_text
    mistakes = tuple((m.id, m.answer_text) for m in instance.mistakes if m.id)
    return _Question(template.key, right, mistakes)


def simulate_class(templates: Sequence[Template], *, now: datetime, learners: int = 60, items: int = 20,
                   again: float = 0.3, broken: bool = False, seed: int = 2026) -> SimulatedClass:
    """Every learner answers each of ``items`` questions once (a ``again`` share of them twice, the
    second time after the worked solution, so a little likelier right); ``broken``: the question
    of middle difficulty gets a wrong key.  Deterministic for a ``seed``."""
    rng = random.Random(seed)
    chosen = [q for q in map(_question, rng.sample(simulatable(templates), items * 2)) if q.mistakes][:items]
    if len(chosen) < items:
        raise ValueError(f"only {len(chosen)} questions have a named mistake to simulate")
    difficulties = true_difficulties([q.key for q in chosen], seed)
    names = [f"learner{n:02d}" for n in range(learners)]
    abilities = dict(zip(names, true_abilities(learners, seed), strict=True))
    wrong_key = min(chosen, key=lambda q: abs(difficulties[q.key])).key if broken else None
    answers = []
    for name in names:
        start = now - timedelta(days=rng.uniform(1, 6))
        for step, question in enumerate(rng.sample(chosen, len(chosen))):
            tries = 2 if rng.random() < again else 1
            for attempt in range(tries):
                chance = p_right(abilities[name] + 0.5 * attempt, difficulties[question.key])
                response, verdict, mistake = _answer(question, rng.random() < chance, rng, question.key == wrong_key)
                seconds = round(30 * math.exp(0.3 * difficulties[question.key] + rng.gauss(0, 0.3)), 1)
                at = start + timedelta(minutes=3 * (step * 2 + attempt))
                answers.append(ClassAttempt(name, question.key, step * 2 + attempt, verdict,
                                            float(verdict == "correct"), mistake, seconds, at, response))
    return SimulatedClass(abilities, difficulties, wrong_key, answers)


def _answer(question: _Question, right: bool, rng: random.Random, broken: bool) -> tuple[str, str, str | None]:
    """(typed response, recorded verdict, recorded misconception) for a truly right or wrong answer."""
    swapped_id, swapped_text = question.mistakes[0]
    if right:
        return (question.right, "incorrect", swapped_id) if broken else (question.right, "correct", None)
    if rng.random() < UNRECOGNISED:
        return DONT_KNOW, "incorrect", None
    # The first named mistake is made twice as often as each other one.
    weights = [2.0] + [1.0] * (len(question.mistakes) - 1)
    mistake, text = rng.choices(question.mistakes, weights)[0]
    if broken and mistake == swapped_id:
        return swapped_text, "correct", None
    return text, "incorrect", mistake


def record_class(simulated: SimulatedClass, *, session: Any) -> None:
    """Write the class's learners and attempts into the bank of ``session`` in one transaction."""
    from quizzer.bank.learners import ensure_learner
    from quizzer.bank.store import insert_attempts

    ids = {name: ensure_learner(session=session, name=name).id for name in simulated.abilities}
    rows = [{"learner_id": ids[a.learner], "template_key": a.key, "seed": a.seed, "response": a.response,
             "verdict": a.verdict, "score": a.score, "misconception": a.misconception, "seconds": a.seconds,
             "created_at": a.at} for a in simulated.answers]
    insert_attempts(session=session, rows=rows)
    session.commit()


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman's rank correlation (no ties expected: the values are continuous estimates)."""
    def ranks(values: Sequence[float]) -> list[float]:
        order = sorted(range(len(values)), key=values.__getitem__)
        rank = [0.0] * len(values)
        for position, index in enumerate(order):
            rank[index] = float(position)
        return rank

    rx, ry = ranks(x), ranks(y)
    mean = (len(x) - 1) / 2
    covariance = sum((a - mean) * (b - mean) for a, b in zip(rx, ry, strict=True))
    variance = sum((a - mean) ** 2 for a in rx)
    return covariance / variance


def main(argv: list[str] | None = None) -> None:
    """Record a simulated class into the bank QUIZZER_DB names (for trying ``quizzer report`` on it)."""
    import argparse
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from quizzer.bank.store import all_templates
    from quizzer.common.clock import utcnow
    from quizzer.learning.regrade import open_current_bank

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--learners", type=int, default=60)
    parser.add_argument("--items", type=int, default=20)
    parser.add_argument("--broken", action="store_true", help="give one question a wrong key")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args(argv)
    engine, session = open_current_bank()
    with session:
        simulated = simulate_class(all_templates(session=session), now=utcnow(), learners=args.learners,
                                   items=args.items, broken=args.broken, seed=args.seed)
        record_class(simulated, session=session)
    engine.dispose()
    print(f"recorded {len(simulated.answers)} answers of {args.learners} learners on {args.items} questions"
          + (f"; wrong key: {simulated.broken}" if simulated.broken else ""))


if __name__ == "__main__":
    main()
