"""figure_svg / figure_png: well-formed, complete, deterministic; every bundled figure renders."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import pytest

from quizzer.figures import figure_png, figure_svg
from quizzer.templates.figure import cell_text
from quizzer.templates.instance import Instance, make_instance
from quizzer.templates.loader import load_path
from tests.figures.conftest import HEATMAP, LINES

QUESTIONS = Path(__file__).resolve().parents[2] / "questions"
SVG = "{http://www.w3.org/2000/svg}"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def svg_texts(svg: str) -> list[str]:
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    return ["".join(node.itertext()).strip() for node in root.iter(f"{SVG}text")]


def test_heatmap_svg_has_every_value_label_and_the_caption(instance_with: Callable[..., Instance]) -> None:
    instance = instance_with(HEATMAP)
    texts = svg_texts(figure_svg(instance) or "")
    assert instance.figure is not None
    for row in instance.figure.cells:
        for value in row:
            assert cell_text(value, 0) in texts
    assert texts.count("−∞") == 3  # the three masked cells
    assert {"q1", "k3", "Scores S+M", "key", "query", "Hatched cells are blocked."} <= set(texts)


def test_lines_svg_has_legend_and_mark(instance_with: Callable[..., Instance]) -> None:
    texts = svg_texts(figure_svg(instance_with(LINES)) or "")
    assert {"Two channels", "sin(p/5)", "cos", "p = 10"} <= set(texts)


def test_output_is_deterministic(instance_with: Callable[..., Instance]) -> None:
    instance = instance_with(HEATMAP)
    assert figure_svg(instance) == figure_svg(instance_with(HEATMAP))
    assert figure_png(instance, dpi=60) == figure_png(instance, dpi=60)
    assert "<dc:date>" not in (figure_svg(instance) or "")


def test_png_bytes_and_resolution(instance_with: Callable[..., Instance]) -> None:
    instance = instance_with(LINES)
    low, high = figure_png(instance, dpi=50), figure_png(instance, dpi=100)
    assert low is not None and high is not None
    assert low.startswith(PNG_MAGIC) and high.startswith(PNG_MAGIC)
    width = int.from_bytes(low[16:20], "big")  # the IHDR chunk's width
    assert int.from_bytes(high[16:20], "big") == pytest.approx(2 * width, abs=2)


def test_no_figure_gives_none(instance_with: Callable[..., Instance]) -> None:
    instance = instance_with(None)
    assert figure_svg(instance) is None and figure_png(instance) is None


def test_importing_quizzer_figures_does_not_import_matplotlib() -> None:
    code = "import sys, quizzer.figures; print('matplotlib' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "False\n"


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
        svg = figure_svg(instance)
        assert svg is not None and len(svg_texts(svg)) > 3, f"seed {seed}"
    assert (figure_png(instance, dpi=40) or b"").startswith(PNG_MAGIC)
