"""Contrast in both themes, measured as a 256-colour terminal shows it (WCAG ratios): the verdict banner's
text at least 4.5:1 on its tint, the mastery bar's colours at least 3:1 on the table (graphics)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from rich.color import Color as RichColor
from rich.color import ColorSystem
from textual.color import Color
from textual.widgets import Static

from quizzer.tui.app import QuizzerApp
from quizzer.tui.widgets.mastery_bar import COLOURS
from tests.tui.conftest import loaded
from tests.tui.test_practice import TYPED, skip_to


def in_256_colours(color: Color) -> tuple[int, int, int]:
    shown = RichColor.from_rgb(color.r, color.g, color.b).downgrade(ColorSystem.EIGHT_BIT).get_truecolor()
    return shown.red, shown.green, shown.blue


def luminance(rgb: tuple[int, int, int]) -> float:
    def channel(value: int) -> float:
        v = value / 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4
    red, green, blue = map(channel, rgb)
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def contrast(one: tuple[int, int, int], other: tuple[int, int, int]) -> float:
    light, dark = sorted((luminance(one), luminance(other)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


@pytest.mark.parametrize("theme", ["textual-dark", "textual-light"])
def test_the_verdict_and_the_mastery_bars_are_readable(new_app: Callable[..., QuizzerApp], theme: str) -> None:
    app = new_app(topic="softmax")

    async def scenario() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await loaded(app, pilot)
            app.theme = theme
            await pilot.pause()
            background = in_256_colours(Color.parse(app.get_css_variables()["background"]))
            for name in COLOURS[theme == "textual-light"]:
                bar = RichColor.parse(name).get_truecolor()
                assert contrast((bar.red, bar.green, bar.blue), background) >= 3, name
            shown = await skip_to(pilot, app, TYPED)
            await pilot.press(*shown.answer_text, "enter")
            await pilot.pause()
            banner = app.screen.query_one("#verdict", Static)
            assert banner.has_class("-correct")
            text, tint = banner.styles.color, banner.styles.background
            under = app.screen.styles.background + tint
            assert contrast(in_256_colours(under + text), in_256_colours(under)) >= 4.5

    asyncio.run(scenario())
