"""Layering: the engine never imports the application; grading and the bank never import the UI."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
RULES = {
    "engine": {"quizzer", "textual", "sqlmodel", "sqlalchemy"},
    "quizzer/grading/expr.py": {"textual", "sqlmodel", "sqlalchemy", "torch"},
    "quizzer/grading/answers.py": {"textual", "sqlmodel", "sqlalchemy", "torch"},
    "quizzer/grading/verdict.py": {"textual", "sqlmodel", "sqlalchemy", "torch"},
    # Templates compute a figure's values; drawing them as SVG belongs to quizzer/figures, which works on
    # plain numbers and strings (no NumPy) and never needs the bank or the UI.
    "quizzer/templates": {"textual", "sqlmodel", "sqlalchemy", "torch"},
    "quizzer/figures": {"textual", "sqlmodel", "sqlalchemy", "torch", "numpy"},
    "quizzer/bank": {"textual", "torch"},
    # The learning model is pure logic: it neither stores nor draws anything.
    "quizzer/learning/mastery.py": {"textual", "sqlmodel", "sqlalchemy", "torch"},
    "quizzer/learning/review.py": {"textual", "sqlmodel", "sqlalchemy", "torch"},
    "quizzer/learning/policy.py": {"textual", "sqlmodel", "sqlalchemy", "torch"},
    # Exports render instances they are given: no bank, no UI.
    "quizzer/export": {"textual", "sqlmodel", "sqlalchemy", "torch"},
    # The teacher's report is computed and rendered from plain data, never from the UI.
    "quizzer/reporting/report.py": {"textual", "sqlmodel", "sqlalchemy", "torch"},
    "quizzer/reporting/render.py": {"textual", "sqlmodel", "sqlalchemy", "torch"},
    # Writing a user's file is plain I/O, shared by export, report and progress.
    "quizzer/common/files.py": {"textual", "sqlmodel", "sqlalchemy", "torch"},
    # Resolving the profile name runs before every command: no database, no UI.
    "quizzer/common/profiles.py": {"textual", "sqlmodel", "sqlalchemy", "torch"},
    # Progress files are a data-layer service: the app draws them, they draw nothing.
    "quizzer/learning/progress.py": {"textual", "torch"},
}


def imported_roots(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    roots = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


@pytest.mark.parametrize("layer", sorted(RULES))
def test_layer_imports(layer: str) -> None:
    target = REPO / layer
    files = [target] if target.is_file() else sorted(target.rglob("*.py"))
    assert files, f"{layer} has no Python files"
    for path in files:
        forbidden = imported_roots(path) & RULES[layer]
        assert not forbidden, f"{path.relative_to(REPO)} imports {sorted(forbidden)}"
