"""Mastery on simulated learners of known skill, practising the real bank through the app's policy (40 answers)."""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.bundled_templates import bundled

SEEDS = range(8)
ANSWERS = 40


def _simulated() -> ModuleType:
    path = Path(__file__).resolve().parents[2] / "bench" / "simulated_learners.py"
    spec = importlib.util.spec_from_file_location("simulated_learners", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("simulated_learners", module)
    spec.loader.exec_module(module)
    return module


sim = _simulated()
ITEMS = sim.items_of(bundled())


@pytest.mark.parametrize("focus", [(), ("training_tricks",), ("residual_normalization", "softmax")])
def test_a_guessing_learner_stays_below_35_percent_on_every_topic(focus: tuple[str, ...]) -> None:
    for seed in SEEDS:
        log, states = sim.practise(sim.Learner(guesser=True), ITEMS, ANSWERS, random.Random(seed), focus=focus)
        assert len(log) == ANSWERS
        assert max(state.level for state in states.values()) < 0.35, (seed, focus)


@pytest.mark.parametrize("focus", [(), ("residual_normalization",), ("causal_self_attention", "softmax")])
def test_a_learner_right_65_percent_of_the_time_masters_no_topic(focus: tuple[str, ...]) -> None:
    learner = sim.Learner(default=0.65)
    for seed in SEEDS:
        log, states = sim.practise(learner, ITEMS, ANSWERS, random.Random(seed), focus=focus)
        accuracy = sum(answer.right for answer in log) / len(log)
        assert 0.4 < accuracy < 0.9  # the learner is what it says (about 65 % on the mix of kinds)
        assert not [topic for topic, state in states.items() if state.mastered], (seed, focus)


@pytest.mark.parametrize("known", ["residual_normalization", "causal_self_attention"])
def test_a_learner_who_knows_one_topic_masters_only_that_one(known: str) -> None:
    # Two answers in three on the known topic (topic practice), the rest on one they do not know.
    learner = sim.Learner(skills={known: 1.0})
    mastered_known = 0
    for seed in SEEDS:
        _, states = sim.practise(learner, ITEMS, ANSWERS, random.Random(seed), focus=(known, known, "teacher_forcing"))
        mastered = {topic for topic, state in states.items() if state.mastered}
        assert mastered <= {known}, seed
        mastered_known += known in mastered
    # Around 27 answers, some repeats of one question within the hour: mastery on most runs, not on a lucky few.
    assert mastered_known >= len(SEEDS) * 3 // 4
