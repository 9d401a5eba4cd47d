"""A shape question's prompt names its sizes (``V = 35,000``, ``[B, T, d] = [16, 28, 1024]``); a learner
may type those names (``[B, T, d/h]``), so each must be one of the sizes the grader knows, equal to
the value shown. ``[B, T, d/h]`` was once marked wrong because the template called d ``d_model``."""

from __future__ import annotations

import re

import pytest

from quizzer.grading.verdict import grade
from tests.bundled_templates import bundled, instance

NAME = r"[A-Za-z](?:_\{?(?:\\rm\s*)?[A-Za-z]+\}?)?"  # B, d, d_k, d_{\rm model}
ASSIGNED = re.compile(rf"(?<![\\\w])({NAME})\s*=\s*(?:\{{\{{|\d)")  # V = {{ vocab }}, T = 12
BRACKETED = re.compile(rf"\[((?:{NAME}\s*,\s*)+{NAME})\]\s*=\s*\[")  # [B, T, d] = [...]
SHAPES = sorted(key for key, template in bundled().items()
                if "shape" in (template.kind, *(part.kind for part in template.parts or ())))


def prompt_names(prompt: str) -> set[str]:
    names = set(ASSIGNED.findall(prompt))
    names |= {name.strip() for group in BRACKETED.findall(prompt) for name in group.split(",")}
    return {re.sub(r"[{}]|\\rm\s*", "", name) for name in names}


def test_the_names_are_found_as_an_author_writes_them() -> None:
    assert prompt_names(r"[B, T, d] = [{{ B }}, {{ T }}, {{ d }}], $V = {{ vocab }}$, $d_{\rm model} = 512$") == {
        "B", "T", "d", "V", "d_model"}


@pytest.mark.parametrize("key", SHAPES)
def test_every_size_a_shape_prompt_names_can_be_typed(key: str) -> None:
    template = bundled()[key]
    for seed in (0, 1, 2):
        whole = instance(key, seed)
        asked = [(whole, template.prompt)] + [(part.question, template.prompt + source.prompt)
                                              for part, source in zip(whole.parts, template.parts or (), strict=True)]
        for question, prompt in asked:
            if question.kind != "shape":
                continue
            missing = prompt_names(prompt) - set(question.spec.sizes)
            assert not missing, f"{key} seed {seed}: the prompt names {sorted(missing)}, unknown to the grader"


@pytest.mark.parametrize(("key", "seed", "typed"), [
    ("2024T1_Q1_NA Q190", 521338, "[B, T, d/h]"), ("2024T1_Q1_NA Q190", 521338, "[B, T, d_v]"),
    ("practice/decoder-logits-shape", 5, "[50, T, V]"), ("2025T3_Q1_NA Q184", 1, "[B, T, V]"),
    ("2025T3_Q1_NA Q184", 4, "[B, T, d]"),
])
def test_a_shape_typed_with_the_prompts_names_is_right(key: str, seed: int, typed: str) -> None:
    question = instance(key, seed)
    assert grade(question.spec, typed).verdict == "correct", (key, seed, typed, question.answer)
