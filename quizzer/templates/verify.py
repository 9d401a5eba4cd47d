"""Recompute every template with both engine backends and report any disagreement.

The NumPy backend computes what students are graded against; the PyTorch backend
recomputes the same instance with PyTorch's own modules (or independent tensor
code). An answer or misconception value that differs between the two is a bug in
one of them, so ``quizzer verify`` fails on the first one it finds.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

import engine
from quizzer.common.errors import TemplateError
from quizzer.grading.budget import Budget
from quizzer.templates.draw import template_where
from quizzer.templates.instance import Instance, make_instance
from quizzer.templates.schema import Template

RELATIVE = 1e-5  # float32-level agreement; counts and shapes must be identical
ABSOLUTE = 1e-6


@dataclass(frozen=True)
class VerifyReport:
    templates: int
    instances: int
    values: int


def verify_templates(templates: Iterable[Template], *, seeds: int) -> VerifyReport:
    """Every template over ``seeds`` seeds: NumPy and PyTorch must agree on every computed value."""
    counts = [0, 0, 0]
    for template in templates:
        counts[0] += 1
        for seed in range(seeds):
            with engine.use_backend("numpy"):
                reference = make_instance(template, seed)
            with engine.use_backend("torch"):
                # PyTorch's first calls and module constructors take seconds on a busy machine; the same
                # seed has just run within the whole budget on NumPy, so only the wall clock is lifted.
                recomputed = make_instance(template, seed, Budget(deadline=math.inf))
            counts[2] += _compare(template, seed, reference, recomputed)
            counts[1] += 1
    return VerifyReport(*counts)


def _compare(template: Template, seed: int, a: Instance, b: Instance) -> int:
    if a.parts:  # each part is a question of its own, with its answer and mistakes
        return sum(_compare(template, seed, x.question, y.question) for x, y in zip(a.parts, b.parts, strict=True))
    pairs = [("answer", a.answer, b.answer)]
    pairs += [(f"misconception {x.id}", x.value, y.value)
              for x, y in zip(a.spec.wrong_answers, b.spec.wrong_answers, strict=True)]
    pairs += [(f"derived {name}", a.values[name], b.values[name]) for name in template.derived]
    for label, x, y in pairs:
        if not _agree(x, y):
            raise TemplateError(f"seed {seed}: {label} differs between backends: NumPy {x!r} vs PyTorch {y!r}",
                                where=template_where(template))
    if a.prompt != b.prompt and a.kind != "text":
        _check_text(template, seed, a.prompt, b.prompt)
    return len(pairs)


def _agree(x: Any, y: Any) -> bool:
    if isinstance(x, (str, bool, frozenset)) or x is None:
        return bool(x == y)
    if isinstance(x, (tuple, list)) and any(isinstance(item, str) for item in x):
        return list(x) == list(y)
    if isinstance(x, dict):
        return x.keys() == y.keys() and all(_agree(x[k], y[k]) for k in x)
    try:
        a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    except (TypeError, ValueError):
        return bool(x == y)
    if a.shape != b.shape:
        return False
    if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
        return bool(x == y)  # counts are exact
    return bool(np.allclose(a, b, rtol=RELATIVE, atol=ABSOLUTE))


def _check_text(template: Template, seed: int, a: str, b: str) -> None:
    """Prompts may differ only in the last printed digit of a float (both backends round)."""
    if len(a) != len(b) or sum(ca != cb for ca, cb in zip(a, b, strict=True)) > 2:
        raise TemplateError(f"seed {seed}: the prompt renders differently with the PyTorch backend",
                            where=template_where(template))
