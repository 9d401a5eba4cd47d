"""The bundled templates loaded once per test process, and their instances (no bank involved)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from quizzer.templates.instance import Instance, make_instance
from quizzer.templates.loader import load_path
from quizzer.templates.schema import Template

QUESTIONS = Path(__file__).resolve().parent.parent / "questions"
SEEDS = range(0, 60, 6)  # ten seeds per template for the bank-wide tests; `quizzer validate` checks 200


@cache
def bundled() -> dict[str, Template]:
    templates = (load_path(path) for path in sorted(QUESTIONS.rglob("*.yaml")))
    return {template.key: template for template in templates}


@cache
def instance(key: str, seed: int) -> Instance:
    """Made once per test process: several bank-wide tests grade the same instances over ``SEEDS``
    (an instance is frozen, and no test changes one in place)."""
    return make_instance(bundled()[key], seed)
