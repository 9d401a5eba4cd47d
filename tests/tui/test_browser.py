"""Bank browser: searching, filtering, previewing a template at any seed, and its snapshots."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlmodel import Session, select
from textual.widgets import DataTable, Input, Markdown, Select, Static

from quizzer.bank.db import open_bank
from quizzer.bank.models import Attempt
from quizzer.templates.schema import Template
from quizzer.tui.app import QuizzerApp
from quizzer.tui.screens.browser import BankBrowserScreen, BankQuery, column_widths, natural_order, shown_key
from quizzer.tui.screens.practice import PracticeScreen
from tests.tui.conftest import loaded, until

Q277 = "2024T3_Q1_NA Q277"  # the notes' output layer: V = 37,000, d = 512, 18,944,000 parameters


async def open_browser(app: QuizzerApp, pilot: Any) -> BankBrowserScreen:
    await loaded(app, pilot)
    await pilot.press("b")
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, BankBrowserScreen)
    return screen


def rows(screen: BankBrowserScreen) -> list[str]:
    return [str(row.value) for row in screen.query_one("#browser-table", DataTable).rows]


def preview(screen: BankBrowserScreen) -> str:
    return screen.query_one("#browser-preview", Markdown).source


def template(**fields: Any) -> Template:
    base: dict[str, Any] = {"key": "practice/softmax-row", "title": "A softmax row", "week": 1,
                            "topics": ["softmax"], "difficulty": 1, "source": "Week 1 notes", "kind": "number",
                            "prompt": "Compute it.", "answer": "1", "solution": "It is one."}
    return Template(**(base | fields))


def test_query_matches_every_word_in_key_title_or_topic_name() -> None:
    names = {"softmax": "Softmax", "multi_head_attention": "Multi-Head Attention"}
    row = template(topics=["softmax", "multi_head_attention"])
    assert BankQuery("SOFTMAX row").matches(row, names)
    assert BankQuery("multi-head").matches(row, names)  # a topic's name, not only its id
    assert not BankQuery("softmax decoder").matches(row, names)
    assert BankQuery(topic="multi_head_attention", week=1, kind="number").matches(row, names)
    assert not BankQuery(week=2).matches(row, names)
    assert BankQuery(paper="practice").matches(row, names)
    routed = template(key=Q277)
    assert BankQuery(paper="2024T3_Q1_NA").matches(routed, names)
    assert not BankQuery(paper="practice").matches(routed, names)


def test_routed_questions_sort_by_number_and_practice_keys_lose_their_prefix() -> None:
    keys = [template(key=f"2024T3_Q1_NA Q{n}") for n in (100, 9, 27)]
    assert [t.key for t in sorted(keys, key=natural_order)] == ["2024T3_Q1_NA Q9", "2024T3_Q1_NA Q27",
                                                              "2024T3_Q1_NA Q100"]
    assert shown_key("practice/softmax-row") == "softmax-row"
    assert shown_key(Q277) == Q277


def test_columns_fill_the_width_and_never_go_below_a_usable_minimum() -> None:
    for width in (60, 80, 120, 200):
        key, topics, title = column_widths(width, longest_key=35)
        assert key <= 35 and topics <= 24 and title > 0
        assert key + topics + title == max(width - 24, 40)


def test_search_filter_and_preview_any_seed(new_app: Callable[..., QuizzerApp], isolated_bank: Path) -> None:
    app = new_app()

    async def scenario() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await open_browser(app, pilot)
            everything = rows(screen)
            assert len(everything) == len(app.study.templates)  # type: ignore[union-attr]
            assert str(screen.query_one("#browser-count", Static).render()) == f"{len(everything)} templates"

            await pilot.press("slash", *"q277")  # filters as you type, case-insensitively
            await pilot.pause()
            assert rows(screen) == [Q277]
            assert str(screen.query_one("#browser-count", Static).render()) == f"1 of {len(everything)} templates"
            canonical = preview(screen)
            assert "37,000" in canonical and "18,944,000" in canonical  # seed 0: the notes' own numbers
            assert "Worked solution" in canonical

            await pilot.press("enter", "plus")  # enter leaves the search box; + steps the seed
            await pilot.pause()
            assert screen.query_one("#seed", Input).value == "1"
            assert preview(screen) != canonical and "18,944,000" not in preview(screen)
            await pilot.press("minus", "minus")  # never below seed 0
            await pilot.pause()
            assert screen.seed == 0 and preview(screen) == canonical

            screen.query_one("#seed", Input).focus()
            await pilot.press("backspace", *"42")
            await until(pilot, lambda: screen.seed == 42, "the typed seed taken")  # when the box's Changed is handled
            await pilot.pause()
            assert "Q277" in preview(screen) and preview(screen) != canonical

            box = screen.query_one("#seed", Input)
            box.value = "41"  # typed, and `+` pressed before the box's Changed message is handled
            screen.action_step_seed(1)
            await until(pilot, lambda: box.value == "42" and screen.seed == 42, "seed 41 stepped to 42")
            for _ in range(5):  # and it stays there once every message is handled
                await pilot.pause()
                assert box.value == "42" and screen.seed == 42

            await pilot.press("escape", "slash", *["backspace"] * 4)  # escape leaves the seed box, not the screen
            await pilot.pause()
            assert app.screen is screen and rows(screen) == everything

            screen.query_one("#filter-kind", Select).value = "bool"
            await pilot.pause()
            kinds = {app.study.templates[key].kind for key in rows(screen)}  # type: ignore[union-attr]
            assert kinds == {"bool"} and len(rows(screen)) > 1

            await pilot.press("escape")  # out of the search box
            await pilot.press("down")  # the second row is previewed at the seed still chosen
            await pilot.pause()
            second = app.study.templates[rows(screen)[1]]  # type: ignore[union-attr]
            assert second.title in preview(screen) and second.key in preview(screen) and screen.seed == 42

            await pilot.press("escape")
            assert app.screen is not screen

    asyncio.run(scenario())
    with Session(open_bank(str(isolated_bank))) as session:
        assert session.exec(select(Attempt)).all() == []  # browsing never records anything


def test_no_match_says_so(new_app: Callable[..., QuizzerApp]) -> None:
    app = new_app()

    async def scenario() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await open_browser(app, pilot)
            await pilot.press("slash", *"zzzz")
            await pilot.pause()
            assert rows(screen) == [] and "No template matches" in preview(screen)

    asyncio.run(scenario())


def test_p_practises_the_highlighted_question_with_fresh_numbers(new_app: Callable[..., QuizzerApp],
                                                                   isolated_bank: Path) -> None:
    """A student found a question in the bank and had to guess which topic to practise to meet it."""
    app = new_app()

    async def scenario() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await open_browser(app, pilot)
            await pilot.press("slash", *"q277", "enter", "p")  # "p" in the search box is a letter; out of it, practise
            await pilot.pause()
            practice = app.screen
            assert isinstance(practice, PracticeScreen) and practice.question is not None
            first = practice.question.instance
            assert first.key == Q277 and "chose in the bank" in str(practice.query_one("#reason", Static).render())
            await pilot.press(*first.answer_text, "enter")
            await pilot.pause()
            await pilot.press("n")
            await pilot.pause()
            again = practice.question.instance
            assert again.key == Q277 and again.seed != first.seed  # the same question, fresh numbers
            await pilot.press("escape")
            await pilot.pause()
            assert app.screen is screen

    asyncio.run(scenario())
    with Session(open_bank(str(isolated_bank))) as session:
        assert [(a.template_key, a.verdict) for a in session.exec(select(Attempt)).all()] == [(Q277, "correct")]


def run_before_browsing(*keys: str) -> Callable[[Any], Any]:
    async def run_before(pilot: Any) -> None:
        await open_browser(pilot.app, pilot)
        await pilot.press(*keys)
        await pilot.pause()
    return run_before


def test_snapshot_80x24(new_app: Callable[..., QuizzerApp], snap_compare: Any) -> None:
    assert snap_compare(new_app(), terminal_size=(80, 24), run_before=run_before_browsing())


def test_snapshot_120x40_search_and_seed(new_app: Callable[..., QuizzerApp], snap_compare: Any) -> None:
    keys = ("slash", *"output layer", "enter", "plus", "plus")
    assert snap_compare(new_app(), terminal_size=(120, 40), run_before=run_before_browsing(*keys))
