"""The dashboard: filled once the bank is open, fits the terminal, follows the learner's answers."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable

import pytest
from textual.widgets import DataTable, Static

from quizzer.bank.learners import ensure_learner
from quizzer.grading.describe import describe
from quizzer.learning.study import Study
from quizzer.templates.catalog import load_catalog
from quizzer.templates.instance import make_instance
from quizzer.tui.app import QuizzerApp, make_app
from quizzer.tui.screens.dashboard import FIXED, PADDING, DashboardScreen, column_widths
from quizzer.tui.screens.practice import PracticeScreen
from tests.databases import bank_session
from tests.hang import HANG_SECONDS
from tests.tui.conftest import FakeClock, loaded


def misconception_answer(study: Study) -> tuple[str, str, str]:
    """A typed question's key, a response making its first misconception, and that misconception."""
    for key in sorted(study.templates):
        template = study.templates[key]
        if template.kind in ("number", "integer", "vector") and template.misconceptions:
            instance = make_instance(template, 3)
            wrong = instance.spec.wrong_answers[0]
            assert wrong.id is not None
            return key, describe(instance.kind, wrong.value), wrong.id
    raise LookupError("no typed template with a misconception")


def rows(table: DataTable) -> list[list[str]]:
    return [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]


def labels(table: DataTable) -> list[str]:
    return [str(column.label) for column in table.ordered_columns]


@pytest.mark.parametrize("size", [(80, 24), (120, 40), (200, 50)])
def test_the_topic_table_fits_without_scrolling_sideways(new_app: Callable[..., QuizzerApp],
                                                         size: tuple[int, int]) -> None:
    app = new_app()

    async def scenario() -> None:
        async with app.run_test(size=size) as pilot:
            await loaded(app, pilot)
            screen = app.screen
            assert isinstance(screen, DashboardScreen)
            for selector in ("#topics", "#papers"):  # one table shown at a time: tab switches
                table = screen.query_one(selector, DataTable)
                assert table.display and screen.focused is table
                assert table.virtual_size.width <= table.scrollable_content_region.width, selector
                await pilot.press("tab")
                await pilot.pause()
            topics = screen.query_one("#topics", DataTable)
            assert labels(topics)[:6] == ["Wk", "Topic", "Mastery", "Tries", "Acc", "Due"]
            assert "Top mistake" in labels(topics)  # at 80 columns too
            assert topics.row_count == len(load_catalog().topics)
            assert screen.query_one("#papers", DataTable).row_count == len(load_catalog().papers)
            summary = str(screen.query_one("#summary", Static).render())
            assert summary.startswith("0 answers · 0 reviews due")
            assert len(summary) <= size[0] - 2  # one line, even at 80 columns

    asyncio.run(scenario())


def test_long_topic_names_end_in_an_ellipsis(new_app: Callable[..., QuizzerApp]) -> None:
    app = new_app()

    async def scenario() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await loaded(app, pilot)
            names = [row[1] for row in rows(app.screen.query_one("#topics", DataTable))]
            full = [topic.name for topic in load_catalog().topics.values()]
            assert any(name.endswith("…") for name in names)
            assert all(name == whole or (name.endswith("…") and whole.startswith(name[:-1]))
                       for name, whole in zip(names, full, strict=True))

    asyncio.run(scenario())


def test_the_dashboard_follows_answers_reviews_and_mistakes(new_app: Callable[..., QuizzerApp],
                                                            clock: FakeClock) -> None:
    app = new_app()

    async def scenario() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            await loaded(app, pilot)
            study, screen = app.study, app.screen
            assert study is not None and isinstance(screen, DashboardScreen)
            key, response, misconception = misconception_answer(study)
            instance = make_instance(study.templates[key], 3)
            study.submit(instance, response, None)
            study.submit(instance, response, None)
            study.submit(instance, instance.answer_text, None)
            app.refresh_dashboard()
            await pilot.pause()

            assert str(screen.query_one("#summary", Static).render()).startswith("3 answers · 0 reviews due")
            topic = instance.topics[0]
            topics = screen.query_one("#topics", DataTable)
            row = topics.get_row(topic)
            title = load_catalog().misconceptions[misconception].title
            assert str(row[3]) == "3" and str(row[4]) == "33%"
            assert str(row[6]).rstrip("…") in title
            topics.move_cursor(row=topics.get_row_index(topic))
            await pilot.pause()
            detail = str(screen.query_one("#topic-detail", Static).render())
            assert f"{title} ×2" in detail and "3 tries" in detail

            clock.advance(days=2)
            app.refresh_dashboard()
            await pilot.pause()
            assert "1 review due" in str(screen.query_one("#summary", Static).render())
            assert str(topics.get_row(topic)[5]) == "1"

    asyncio.run(scenario())


def test_p_practises_the_highlighted_topic(new_app: Callable[..., QuizzerApp]) -> None:
    app = new_app()

    async def scenario() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await loaded(app, pilot)
            topic = list(load_catalog().topics)[3]
            await pilot.press("down", "down", "down", "p")
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, PracticeScreen) and screen.filters["topic"] == topic
            assert screen.question is not None and topic in screen.question.instance.topics

    asyncio.run(scenario())


def test_column_widths_share_what_is_left() -> None:
    fixed = sum(FIXED) + PADDING * (len(FIXED) + 1)
    topic, mistake = column_widths(fixed + 16, longest_topic=60)
    assert (topic, mistake) == (16, 0)  # too narrow for a mistake column
    topic, mistake = column_widths(94, longest_topic=60)
    assert mistake >= 16 and fixed + topic + PADDING + mistake == 94
    topic, mistake = column_widths(78, longest_topic=60)  # 80 columns: the mistake column kept, narrower
    assert mistake == 16 and topic == 23
    topic, mistake = column_widths(200, longest_topic=30)
    assert topic == 30 and fixed + topic + PADDING + mistake == 200


def test_an_unreachable_bank_closes_the_app_with_one_reason(clock: FakeClock) -> None:
    app = make_app(db_url="postgresql://teacher:s3cret@127.0.0.1:1/course", clock=clock, seed=7)

    async def scenario() -> None:
        async with app.run_test(size=(100, 30)) as pilot:
            for _ in range(3000):  # the connection is refused at once; allow a slow machine 30 s
                if app.return_code is not None:
                    break
                await pilot.pause(0.01)

    asyncio.run(scenario())
    assert app.return_code == 2 and app.study is None
    assert str(app.failure).startswith("postgresql+psycopg://teacher:***@127.0.0.1:1/course: cannot open the bank:")


def test_the_dashboard_saved_last_time_is_shown_before_the_bank_opens(
        new_app: Callable[..., QuizzerApp], monkeypatch: pytest.MonkeyPatch) -> None:
    """The first frame holds the learner's dashboard (``make bench`` times it): the one the last session
    saved, while the bank is still opening; without one (or a stale one), "Loading your bank…"."""
    first = new_app()

    async def answer_and_quit() -> None:
        async with first.run_test(size=(80, 24)) as pilot:
            await loaded(first, pilot)
            assert first.study is not None
            key, response, _ = misconception_answer(first.study)
            first.study.submit(make_instance(first.study.templates[key], 3), response, None)
            first.refresh_dashboard()  # as on leaving practice: shown, and saved (by a worker)
            await first.workers.wait_for_complete()

    asyncio.run(answer_and_quit())

    import quizzer.learning.regrade as regrade

    opening = threading.Event()
    really_open = regrade.open_current_bank

    def held_open(*args: object, **kwargs: object) -> object:
        opening.wait(timeout=HANG_SECONDS)
        return really_open(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(regrade, "open_current_bank", held_open)
    second = new_app()

    async def start_again() -> None:
        async with second.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            screen = second.screen
            assert isinstance(screen, DashboardScreen) and second.study is None  # the bank is not open yet
            assert str(screen.query_one("#summary", Static).render()).startswith("1 answer · 0 reviews due")
            topics = screen.query_one("#topics", DataTable)
            assert topics.row_count == len(load_catalog().topics) and "Top mistake" in labels(topics)
            assert any(row[3] == "1" for row in rows(topics))
            opening.set()
            await loaded(second, pilot)
            assert str(screen.query_one("#summary", Static).render()).startswith("1 answer · 0 reviews due")

    asyncio.run(start_again())

    # An answer recorded elsewhere (another window, `quizzer grade`): the saved dashboard is not shown.
    with bank_session(str(second.db_url)) as session:
        study = Study(session=session, catalog=load_catalog(), learner=ensure_learner(session=session, name="ada"))
        instance = make_instance(study.templates[sorted(study.templates)[0]], 5)
        study.submit(instance, instance.answer_text, None)
    opening.clear()
    third = new_app()

    async def start_after_an_answer_elsewhere() -> None:
        async with third.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            assert str(third.screen.query_one("#summary", Static).render()) == "Loading your bank…"
            opening.set()
            await loaded(third, pilot)
            assert str(third.screen.query_one("#summary", Static).render()).startswith("2 answers")

    asyncio.run(start_after_an_answer_elsewhere())


def test_an_answer_recorded_elsewhere_while_the_dashboard_is_computed_leaves_the_saved_one_stale(
        new_app: Callable[..., QuizzerApp], monkeypatch: pytest.MonkeyPatch) -> None:
    """Another window records an answer between the app's reading of its dashboard and its saving of it: the
    saved dashboard (without that answer) must not be vouched for by a fingerprint of the bank with it, or the
    next start would show it as current ("0 answers" while the bank holds one)."""
    from quizzer.learning import snapshot

    app = new_app()

    def answer_elsewhere() -> None:
        with bank_session(str(app.db_url)) as session:
            study = Study(session=session, catalog=load_catalog(), learner=ensure_learner(session=session, name="ada"))
            instance = make_instance(study.templates[sorted(study.templates)[0]], 5)
            study.submit(instance, instance.answer_text, None)

    async def refresh_while_another_window_answers() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await loaded(app, pilot)
            assert app.study is not None
            computed = app.study.dashboard

            def dashboard_then_an_answer_elsewhere() -> object:
                data = computed()
                answer_elsewhere()
                return data

            monkeypatch.setattr(app.study, "dashboard", dashboard_then_an_answer_elsewhere)
            app.refresh_dashboard()
            await app.workers.wait_for_complete()
            assert str(app.screen.query_one("#summary", Static).render()).startswith("0 answers")

    asyncio.run(refresh_while_another_window_answers())
    assert snapshot.load(app.db_url, "ada", app.clock()) is None
