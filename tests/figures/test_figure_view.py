"""The terminal figure: a coloured grid with values, a plot for curves, shown where it belongs."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from rich.console import Console
from textual.app import App, ComposeResult

from quizzer.templates.figure import viridis
from quizzer.templates.instance import Instance
from quizzer.tui.widgets.figure_view import FigureView, figure_renderable
from tests.figures.conftest import HEATMAP, LINES


class FigureApp(App[None]):
    def compose(self) -> ComposeResult:
        yield FigureView("prompt", id="prompt-figure")
        yield FigureView("solution", id="solution-figure")


def rendered(instance: Instance) -> str:
    console = Console(width=100, record=True, color_system="truecolor")
    assert instance.figure is not None
    console.print(figure_renderable(instance.figure))
    return console.export_text()


def test_heatmap_grid_shows_labels_values_and_blocked_cells(instance_with: Callable[..., Instance]) -> None:
    instance = instance_with(HEATMAP)
    text = rendered(instance)
    assert "Scores S+M" in text and "k3" in text and "q2" in text and text.count("−∞") == 3
    assert f" {int(instance.values['S'][2, 2])} ".replace("-", "−") in text
    assert "Hatched cells are blocked." in text


def test_lines_become_a_terminal_plot(instance_with: Callable[..., Instance]) -> None:
    text = rendered(instance_with(LINES))
    assert "Two channels" in text and "sin(p/5)" in text and max(text) >= "⡀"  # braille dots drawn


def test_viridis_endpoints() -> None:
    assert viridis(0.0) == (68, 1, 84) and viridis(1.0) == (253, 231, 37) and viridis(2.0) == (253, 231, 37)


def test_prompt_figure_shows_at_once_solution_figure_after_answering(
        instance_with: Callable[..., Instance]) -> None:
    asyncio.run(show_in_app(instance_with(HEATMAP), instance_with({**HEATMAP, "where": "solution"})))


async def show_in_app(prompt_instance: Instance, solution_instance: Instance) -> None:
    app = FigureApp()
    async with app.run_test() as pilot:
        prompt_view = app.query_one("#prompt-figure", FigureView)
        solution_view = app.query_one("#solution-figure", FigureView)
        for view in (prompt_view, solution_view):
            view.show(prompt_instance, answered=False)
        await pilot.pause()
        assert prompt_view.display and prompt_view.size.height >= 4
        assert not solution_view.display
        for view in (prompt_view, solution_view):
            view.show(solution_instance, answered=False)
        await pilot.pause()
        assert not prompt_view.display and not solution_view.display  # not before the answer
        solution_view.show(solution_instance, answered=True)
        await pilot.pause()
        assert solution_view.display and solution_view.size.height >= 4
