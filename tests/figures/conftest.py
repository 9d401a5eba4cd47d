"""A small template with a figure, written the way an author would, to build test instances from."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import yaml

from quizzer.templates.instance import Instance, make_instance
from quizzer.templates.loader import load_text
from quizzer.templates.schema import Template

BASE: dict[str, Any] = {
    "key": "practice/figure-test",
    "title": "Attention weights of three queries",
    "week": 1,
    "topics": ["scaled_dot_product_attention"],
    "difficulty": 1,
    "source": "tests",
    "kind": "matrix",
    "params": {"S": {"matrix": [3, 3], "dist": "integers", "low": -3, "high": 3, "decimals": 0}},
    "derived": {"mask": "causal_mask(3)"},
    "prompt": "Scores $S = {{ tex(S) }}$; give the causal weights.",
    "answer": "softmax(S, mask=mask)",
    "solution": "Mask, then softmax each row.",
}

HEATMAP: dict[str, Any] = {
    "kind": "heatmap", "where": "prompt", "data": "where(mask, -inf, S)", "decimals": 0,
    "title": "Scores $S + M$", "row_labels": ["q1", "q2", "q3"], "col_labels": "['k1', 'k2', 'k3']",
    "xlabel": "key", "ylabel": "query", "caption": "Hatched cells are **blocked**.",
}

LINES: dict[str, Any] = {
    "kind": "lines", "x": "arange(0, 50)",
    "series": [{"y": "sin(x / 5)", "label": "$\\sin(p/5)$"}, {"y": "cos(x / 5)", "label": "cos"}],
    "marks": [{"x": 10, "label": "$p = 10$"}], "ylim": [-1.2, 1.2], "title": "Two channels",
}


def template_with(figure: dict[str, Any] | None, **changes: Any) -> Template:
    data = {**BASE, **changes}
    if figure is not None:
        data["figure"] = figure
    return load_text(yaml.safe_dump(data, allow_unicode=True), where="t.yaml")


@pytest.fixture
def instance_with() -> Callable[..., Instance]:
    def build(figure: dict[str, Any] | None, seed: int = 1, **changes: Any) -> Instance:
        return make_instance(template_with(figure, **changes), seed)
    return build
