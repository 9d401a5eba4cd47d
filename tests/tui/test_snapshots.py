"""Snapshots of the dashboard, practice and help at 80×24 and 120×40 (fixed clock, seed and fresh bank).

Update after an intended change of the screens with ``pytest --snapshot-update``, then look at the SVGs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from textual.widgets import DataTable, Input

from quizzer.grading.describe import describe
from quizzer.templates.instance import Instance
from quizzer.tui.app import QuizzerApp
from quizzer.tui.screens.practice import PracticeScreen
from tests.tui.conftest import loaded

SIZES = pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
Snap = Callable[..., bool]


def instance(app: QuizzerApp) -> Instance:
    screen = app.screen
    assert isinstance(screen, PracticeScreen) and screen.question is not None
    return screen.question.instance


async def question(pilot: Any, kinds: tuple[str, ...], *, misconception: bool = False) -> Instance:
    """From the open practice screen, skip to the first question of ``kinds`` (one that names a
    misconception, if asked)."""
    app = pilot.app
    await loaded(app, pilot)
    await pilot.pause()
    for _ in range(60):
        shown = instance(app)
        if shown.kind in kinds and (not misconception or any(w.id for w in shown.spec.wrong_answers)):
            # A steady cursor: a blinking one would make the picture depend on the moment it is taken.
            for field in app.screen.query(Input):
                field.cursor_blink = False
            return shown
        await pilot.press("ctrl+s")
        await pilot.pause()
    raise AssertionError(f"no {kinds} question within 60 skips")


@SIZES
def test_dashboard_fresh(snap_compare: Snap, first_start_app: Callable[..., QuizzerApp], size: tuple[int, int]) -> None:
    async def run_before(pilot: Any) -> None:
        await loaded(pilot.app, pilot)

    # On a bank that does not exist yet: the dashboard's first layout differs when the bank opens in
    # milliseconds (tables filled during the first layout), which these pictures do not show yet.
    assert snap_compare(first_start_app(), terminal_size=size, run_before=run_before)


@SIZES
def test_dashboard_after_answers(snap_compare: Snap, new_app: Callable[..., QuizzerApp],
                                 size: tuple[int, int]) -> None:
    async def run_before(pilot: Any) -> None:
        app = pilot.app
        await loaded(app, pilot)
        study = app.study
        mistaken = None
        for correct in (True, False, True, True, False, True):
            shown = study.next().instance
            named = next((w for w in shown.spec.wrong_answers if w.id), None)
            if shown.kind == "text":
                study.submit(shown, "good" if correct else "again", 30.0)
            elif correct:
                study.submit(shown, shown.answer_text, 30.0)
            elif shown.kind in ("choice", "multi") or named is None:
                study.submit(shown, "a" if shown.kind in ("choice", "multi") else "0", 30.0)
            else:
                study.submit(shown, describe(shown.kind, named.value), 30.0)
                mistaken = mistaken or shown.topics[0]
        app.refresh_dashboard()
        if mistaken is not None:  # show the detail line of a topic with a recorded mistake
            topics = app.screen.query_one("#topics", DataTable)
            topics.move_cursor(row=topics.get_row_index(mistaken))
        await pilot.pause()

    assert snap_compare(new_app(), terminal_size=size, run_before=run_before)


@SIZES
def test_dashboard_past_papers(snap_compare: Snap, new_app: Callable[..., QuizzerApp], size: tuple[int, int]) -> None:
    """Past papers on a tab of their own, each by year, term and codes, with the topics it examines."""
    async def run_before(pilot: Any) -> None:
        await loaded(pilot.app, pilot)
        await pilot.press("tab", "down", "down")
        await pilot.pause()

    assert snap_compare(new_app(), terminal_size=size, run_before=run_before)


@SIZES
def test_practice_typed_answer_with_live_preview(snap_compare: Snap, new_app: Callable[..., QuizzerApp],
                                                 size: tuple[int, int]) -> None:
    async def run_before(pilot: Any) -> None:
        shown = await question(pilot, ("vector", "matrix"))
        await pilot.press(*shown.answer_text[:-1])  # nearly typed: the line below shows how it is read

    assert snap_compare(new_app(topic="softmax"), terminal_size=size, run_before=run_before)


@SIZES
def test_practice_choice_question(snap_compare: Snap, new_app: Callable[..., QuizzerApp],
                                  size: tuple[int, int]) -> None:
    async def run_before(pilot: Any) -> None:
        await question(pilot, ("choice",))

    assert snap_compare(new_app(topic="seq2seq_bottleneck"), terminal_size=size, run_before=run_before)


@SIZES
def test_practice_feedback_on_a_misconception(snap_compare: Snap, new_app: Callable[..., QuizzerApp],
                                              size: tuple[int, int]) -> None:
    async def run_before(pilot: Any) -> None:
        shown = await question(pilot, ("number", "integer", "vector"), misconception=True)
        wrong = next(w for w in shown.spec.wrong_answers if w.id)
        await pilot.press(*describe(shown.kind, wrong.value), "enter")
        await pilot.pause()
        await pilot.press("enter")  # no second try: the solution
        await pilot.pause()

    assert snap_compare(new_app(topic="multi_head_attention"), terminal_size=size, run_before=run_before)


@SIZES
def test_practice_second_try_offered(snap_compare: Snap, new_app: Callable[..., QuizzerApp],
                                     size: tuple[int, int]) -> None:
    """After a wrong answer: what went wrong, and t for a second try on the same numbers before the solution."""
    async def run_before(pilot: Any) -> None:
        shown = await question(pilot, ("number", "integer", "vector"), misconception=True)
        wrong = next(w for w in shown.spec.wrong_answers if w.id)
        await pilot.press(*describe(shown.kind, wrong.value), "enter")
        await pilot.pause()

    assert snap_compare(new_app(topic="multi_head_attention"), terminal_size=size, run_before=run_before)


@SIZES
def test_help(snap_compare: Snap, first_start_app: Callable[..., QuizzerApp], size: tuple[int, int]) -> None:
    async def run_before(pilot: Any) -> None:
        await loaded(pilot.app, pilot)
        await pilot.press("question_mark")

    assert snap_compare(first_start_app(), terminal_size=size, run_before=run_before)  # over the dashboard above


KINDS = pytest.mark.parametrize("kind", ["number", "expression", "multi", "bool", "order"])
# A selection where each kind comes up within a few skips (practice opens on it straight away).
SELECTION = {"number": {"topic": "softmax"}, "expression": {"topic": "bahdanau_attention"},
             "multi": {"topic": "softmax"}, "bool": {"paper": "2025T3_Q1_NA"},
             "order": {"topic": "transformer_data_flow"}, "text": {"paper": "2025T3_ET_AN"}}


@SIZES
@KINDS
def test_practice_input_of_each_kind(snap_compare: Snap, new_app: Callable[..., QuizzerApp], size: tuple[int, int],
                                     kind: str) -> None:
    """The question and its whole input (options, hint, keys) on screen at once."""
    async def run_before(pilot: Any) -> None:
        await question(pilot, (kind,))

    assert snap_compare(new_app(**SELECTION[kind]), terminal_size=size, run_before=run_before)


@SIZES
def test_practice_recall_card_revealed(snap_compare: Snap, new_app: Callable[..., QuizzerApp],
                                       size: tuple[int, int]) -> None:
    """After the reveal: what was written, the model answer where the question scrolls, the rating keys below."""
    async def run_before(pilot: Any) -> None:
        await question(pilot, ("text",))
        await pilot.press(*"shifted right", "enter")
        await pilot.pause()

    assert snap_compare(new_app(**SELECTION["text"]), terminal_size=size, run_before=run_before)
