"""figure_svg: well-formed, complete, deterministic, self-contained; every bundled figure renders."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import pytest

from quizzer.figures import figure_svg
from quizzer.figures.axes import nice_ticks, tick_labels
from quizzer.figures.heatmap import HeatmapBody
from quizzer.figures.svg import text_width, wrap
from quizzer.templates.figure import cell_text
from quizzer.templates.instance import Instance, make_instance
from quizzer.templates.loader import load_path
from tests.figures.conftest import HEATMAP, LINES

QUESTIONS = Path(__file__).resolve().parents[2] / "questions"
SVG = "{http://www.w3.org/2000/svg}"
BARS = {
    "kind": "bars", "categories": ["Adam", "SGD", "AdamW"], "decimals": 2, "title": "Accuracy", "ylabel": "accuracy",
    "series": [{"y": "[0.8, -0.6, 0.85]", "label": "train"}, {"y": "[0.7, 0.5, 0.78]", "label": "valid"}],
}
BIG_HEATMAP = {"kind": "heatmap", "data": "outer(arange(0, 20), arange(0, 20)) / 7", "title": "Twenty by twenty"}


def parsed(svg: str | None) -> ET.Element:
    assert svg is not None
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    return root


def svg_texts(svg: str | None) -> list[str]:
    return ["".join(node.itertext()).strip() for node in parsed(svg).iter(f"{SVG}text")]


def test_heatmap_svg_has_every_value_label_and_the_caption(instance_with: Callable[..., Instance]) -> None:
    instance = instance_with(HEATMAP)
    texts = svg_texts(figure_svg(instance))
    assert instance.figure is not None
    for row in instance.figure.cells:
        for value in row:
            assert cell_text(value, 0) in texts
    assert texts.count("−∞") == 3  # the three masked cells
    assert {"q1", "k3", "Scores S+M", "key", "query", "Hatched cells are blocked."} <= set(texts)


def test_masked_cells_are_hatched_and_the_rest_coloured(instance_with: Callable[..., Instance]) -> None:
    root = parsed(figure_svg(instance_with(HEATMAP)))
    pattern = next(root.iter(f"{SVG}pattern"))
    cells = [fill for rect in root.findall(f"{SVG}rect") if (fill := rect.get("fill", "")).startswith(("url(#", "#"))]
    assert cells.count(f"url(#{pattern.get('id')})") == 3
    assert len([fill for fill in cells if re.fullmatch(r"#[0-9a-f]{6}", fill)]) == 6  # the visible cells: viridis


def test_lines_svg_has_legend_mark_and_a_dash_per_series(instance_with: Callable[..., Instance]) -> None:
    svg = figure_svg(instance_with(LINES))
    assert {"Two channels", "sin(p/5)", "cos", "p = 10"} <= set(svg_texts(svg))
    curves = [path for path in parsed(svg).iter(f"{SVG}path") if path.get("clip-path")]
    assert len(curves) == 2 and len({(c.get("stroke"), c.get("stroke-dasharray")) for c in curves}) == 2
    assert {c.get("stroke-dasharray") is None for c in curves} == {True, False}  # solid main, dashed second


def test_bars_write_their_values_and_hatch_the_second_series(instance_with: Callable[..., Instance]) -> None:
    svg = figure_svg(instance_with(BARS))
    texts = svg_texts(svg)
    assert {"0.80", "−0.60", "0.78", "Adam", "AdamW", "train", "valid", "accuracy"} <= set(texts)
    assert len(list(parsed(svg).iter(f"{SVG}pattern"))) == 1  # the first series is plain, the second hatched


def test_a_large_heatmap_gets_a_colour_bar_instead_of_values(instance_with: Callable[..., Instance]) -> None:
    svg = figure_svg(instance_with(BIG_HEATMAP))
    root = parsed(svg)
    assert len(list(root.iter(f"{SVG}linearGradient"))) == 1
    assert "54.14" not in svg_texts(svg) and {"0", "50"} <= set(svg_texts(svg))  # the bar's ticks, not the values


def test_output_is_deterministic_and_self_contained(instance_with: Callable[..., Instance]) -> None:
    svg = figure_svg(instance_with(HEATMAP)) or ""
    assert svg == figure_svg(instance_with(HEATMAP))
    assert "<script" not in svg and "href" not in svg and "http://" not in svg.replace(
        'xmlns="http://www.w3.org/2000/svg"', "")


def test_figures_of_different_instances_use_different_ids(instance_with: Callable[..., Instance]) -> None:
    """Two figures inlined in one HTML page must not borrow each other's patterns or clip paths."""
    first, second = figure_svg(instance_with(HEATMAP, seed=1)), figure_svg(instance_with(HEATMAP, seed=2))
    ids = [{element.get("id") for element in parsed(svg).iter() if element.get("id")} for svg in (first, second)]
    assert ids[0] and not ids[0] & ids[1]


def test_no_figure_gives_none(instance_with: Callable[..., Instance]) -> None:
    assert figure_svg(instance_with(None)) is None


@pytest.mark.parametrize(("low", "high", "ticks", "labels"), [
    (0.0, 1.0, [0.0, 0.2, 0.4, 0.6, 0.8, 1.0], ["0.0", "0.2", "0.4", "0.6", "0.8", "1.0"]),
    (-1.15, 1.35, [-1.0, -0.5, 0.0, 0.5, 1.0], ["−1.0", "−0.5", "0.0", "0.5", "1.0"]),
    (1.0, 29999.0, [5000.0, 10000.0, 15000.0, 20000.0, 25000.0], ["5000", "10000", "15000", "20000", "25000"]),
    (0.0, 0.0013, [0.0, 0.0002, 0.0004, 0.0006, 0.0008, 0.001, 0.0012],
     ["0.0000", "0.0002", "0.0004", "0.0006", "0.0008", "0.0010", "0.0012"]),
    (0.0, 1.5, [0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5], ["0.00", "0.25", "0.50", "0.75", "1.00", "1.25", "1.50"]),
])
def test_nice_ticks(low: float, high: float, ticks: list[float], labels: list[str]) -> None:
    assert nice_ticks(low, high, most=7) == ticks and tick_labels(ticks) == labels


def test_text_measure_and_wrap() -> None:
    assert text_width("WWW", 10) > text_width("iii", 10) * 2
    assert text_width("ab", 10, bold=True) > text_width("ab", 10)
    lines = wrap("one two three four five six seven", text_width("one two three", 9), 9)
    assert lines == ["one two three", "four five six", "seven"]


def bundled_with_figures() -> list[Path]:
    return sorted(path for path in QUESTIONS.rglob("*.yaml") if "\nfigure:\n" in path.read_text(encoding="utf-8"))


def test_the_required_templates_have_figures() -> None:
    keys = {load_path(path).key for path in bundled_with_figures()}
    assert {"practice/w1b-sdpa-weights-matrix", "2024T1_ET_FN Q212", "2024T1_ET_AN Q157",
            "2024T1_Q1_NA Q184", "practice/warmup-rate"} <= keys


@pytest.mark.parametrize("path", bundled_with_figures(), ids=lambda path: path.stem)
def test_every_bundled_figure_renders(path: Path) -> None:
    template = load_path(path)
    for seed in (0, 1, 17):
        instance = make_instance(template, seed)
        assert instance.figure is not None
        root = parsed(figure_svg(instance))
        width, height = (float(root.get(side, "0").removesuffix("pt")) for side in ("width", "height"))
        assert 250 < width <= 600 and 100 < height <= 700, f"seed {seed}"
        texts = svg_texts(figure_svg(instance))
        if instance.figure.kind == "heatmap":
            assert len(texts) >= len(instance.figure.cells) * len(instance.figure.cells[0]), f"seed {seed}"
        else:
            assert {label for label in texts if "." in label or label.isdigit()}, f"seed {seed}: no tick labels"


def test_a_one_row_heatmap_is_tall_enough_for_its_side_label(instance_with: Callable[..., Instance]) -> None:
    instance = instance_with({**HEATMAP, "data": "S[0]", "row_labels": ["q1"], "ylabel": "query position"})
    assert instance.figure is not None
    body = HeatmapBody(instance.figure)
    assert body.rows * body.cell_height >= text_width("query position", 10)


def test_axes_of_values_near_1e_17_are_drawn() -> None:
    """Ticks were rounded to 12 decimals: values around 1e-17 all became 0, a zero step and a math domain
    error in every export that draws the figure.  Now they are rounded a few digits below their step."""
    from quizzer.figures.axes import nice_ticks, tick_labels

    ticks = nice_ticks(7e-17, 1.1e-16, most=8)
    assert len(ticks) >= 3 and len(set(ticks)) == len(ticks)
    assert all(7e-17 <= tick <= 1.1e-16 * (1 + 1e-9) for tick in ticks)
    labels = tick_labels(ticks)
    assert len(set(labels)) == len(labels) and labels[0] == "0.00000000000000007"
