"""The figure: field: validated at load with errors naming the field, evaluated into plain data."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest
import yaml

from quizzer.common.errors import TemplateError
from quizzer.templates.instance import Instance
from quizzer.templates.schema import FigureSpec
from tests.figures.conftest import HEATMAP, LINES, template_with


def test_heatmap_values_masked_cells_and_labels(instance_with: Callable[..., Instance]) -> None:
    instance = instance_with(HEATMAP)
    figure = instance.figure
    assert figure is not None and figure.kind == "heatmap" and figure.where == "prompt"
    scores = instance.values["S"]
    assert figure.blocked == ((False, True, True), (False, False, True), (False, False, False))
    assert figure.cells[2] == tuple(float(v) for v in scores[2])
    assert figure.cells[0][1] is None  # -inf, a masked score
    assert figure.row_labels == ("q1", "q2", "q3") and figure.col_labels == ("k1", "k2", "k3")
    assert figure.title == "Scores $S + M$"


def test_mask_field_blocks_cells_and_default_labels_count_from_one(instance_with: Callable[..., Instance]) -> None:
    figure = instance_with({"kind": "heatmap", "data": "answer", "mask": "mask"}).figure
    assert figure is not None and figure.where == "solution"  # the safe default: never gives the answer away
    assert figure.blocked[0] == (False, True, True)
    assert figure.cells[0] == (1.0, 0.0, 0.0)  # a blocked weight keeps its value
    assert figure.row_labels == ("1", "2", "3")


def test_lines_evaluate_series_over_x(instance_with: Callable[..., Instance]) -> None:
    figure = instance_with(LINES).figure
    assert figure is not None and len(figure.x) == 50
    assert figure.series[0].y[5] == pytest.approx(0.8414709848)
    assert figure.series[0].label == "$\\sin(p/5)$" and figure.marks[0].x == 10.0
    assert figure.ylim == (-1.2, 1.2)


def test_bars_and_a_constant_series(instance_with: Callable[..., Instance]) -> None:
    figure = instance_with({"kind": "bars", "categories": ["a", "b", "c"],
                            "series": [{"y": "answer[2]"}, {"y": "1 / 3", "label": "uniform"}]}).figure
    assert figure is not None and figure.categories == ("a", "b", "c")
    assert figure.series[1].y == (pytest.approx(1 / 3),) * 3


def test_json_carries_prompt_figures_always_and_solution_figures_with_solutions(
        instance_with: Callable[..., Instance]) -> None:
    prompt = instance_with(HEATMAP)
    assert json.loads(json.dumps(prompt.to_json(solutions=False)))["figure"]["cells"][0][1] is None
    solution = instance_with({**HEATMAP, "where": "solution"})
    assert "figure" not in solution.to_json(solutions=False)
    assert solution.to_json()["figure"]["blocked"][0] == [False, True, True]
    assert "figure" not in instance_with(None).to_json()


@pytest.mark.parametrize(("figure", "message"), [
    ({**HEATMAP, "kidn": "x"}, "field 'figure.kidn': unknown field 'kidn' (did you mean 'kind'?)"),
    ({**HEATMAP, "kind": "pie"}, "field 'figure.kind'"),
    ({**HEATMAP, "where": "answer"}, "field 'figure.where'"),
    ({"kind": "heatmap"}, "field 'figure': a 'heatmap' figure needs 'data'"),
    ({**HEATMAP, "x": "arange(3)"}, "field 'figure': 'x' cannot be used in a 'heatmap' figure"),
    ({"kind": "lines", "x": "arange(3)"}, "a 'lines' figure needs 'series'"),
    ({**LINES, "series": [{"y": f"x + {i}"} for i in range(9)]}, "field 'figure.series'"),
    ({**LINES, "series": [{"y": "x", "lable": "a"}]},
     "field 'figure.series.0.lable': unknown field 'lable' (did you mean 'label'?)"),
    ({**HEATMAP, "decimals": 9}, "field 'figure.decimals'"),
])
def test_bad_specs_are_refused_at_load_naming_the_field(figure: dict[str, Any], message: str) -> None:
    with pytest.raises(TemplateError) as error:
        template_with(figure)
    assert message in str(error.value) and "t.yaml: template 'practice/figure-test'" in str(error.value)


@pytest.mark.parametrize(("figure", "message"), [
    ({**HEATMAP, "data": "zeros(65, 2)"}, "field 'figure.data': must be a matrix of at most 64×64"),
    ({**HEATMAP, "data": "S + inf"}, "field 'figure.data': has NaN or +inf"),
    ({**HEATMAP, "data": "'text'"}, "field 'figure.data': must be numbers"),
    ({**HEATMAP, "mask": "S"}, "field 'figure.mask': must be a true/false matrix"),
    ({**HEATMAP, "row_labels": ["a"]}, "field 'figure.row_labels': has 1 labels for 3 entries"),
    ({**HEATMAP, "col_labels": "3"}, "field 'figure.col_labels': must give a list of labels"),
    ({**LINES, "x": "arange(0, 2001)"}, "field 'figure.x': must be a list of 1 to 2000 numbers"),
    ({**LINES, "series": [{"y": "arange(0, 3)"}]}, "field 'figure.series.0.y': has 3 values but there are 50"),
    ({**LINES, "series": [{"y": "x - inf"}]}, "field 'figure.series.0.y': has entries that are not finite"),
    ({**LINES, "marks": [{"x": "S"}]}, "field 'figure.marks.0.x': must be one finite number"),
    ({**LINES, "ylim": [1, 0]}, "field 'figure.ylim': the low end (1) must be below the high end (0)"),
    ({**LINES, "title": "{{ nope }}"}, "field 'figure.title': unknown name 'nope'"),
    ({**LINES, "x": "__import__('os')"}, "field 'figure.x'"),
])
def test_bad_values_fail_when_rendered_naming_the_field(instance_with: Callable[..., Instance],
                                                        figure: dict[str, Any], message: str) -> None:
    with pytest.raises(TemplateError) as error:
        instance_with(figure)
    assert message in str(error.value) and "template 'practice/figure-test'" in str(error.value)


def test_the_figure_examples_in_questions_readme_are_valid() -> None:
    readme = (Path(__file__).resolve().parents[2] / "questions" / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Figures", 1)[1].split("\n## ", 1)[0]
    examples = re.findall(r"```yaml\n(figure:.*?)```", section, re.DOTALL)
    assert len(examples) == 2
    for example in examples:
        msgspec.convert(yaml.safe_load(example)["figure"], FigureSpec)
