"""History: the replayed mastery series, friendly times, the screen's table and plot, and its snapshots."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sqlmodel import Session, col, select
from textual.widgets import DataTable, Select, Static
from textual_plotext import PlotextPlot

from quizzer.bank.db import open_bank
from quizzer.bank.models import Attempt
from quizzer.learning.study import Study
from quizzer.templates.instance import make_instance
from quizzer.tui.app import QuizzerApp
from quizzer.tui.screens.browser import shown_key
from quizzer.tui.screens.history import HistoryScreen, Point, course_mastery, friendly_time, running_mean, topic_series
from tests.bundled_templates import bundled
from tests.tui.conftest import START, FakeClock, loaded

Q277 = "2024T3_Q1_NA Q277"  # integer; seed 0's answer is 18,944,000
SCORE = "practice/bahdanau-score-inputs"  # a choice question
RECALL = "practice/qkv-recall"  # a recall card, rated by the learner
OUTPUT_TOPIC = "decoder_output_params"


@pytest.fixture
def utc_zone() -> Iterator[None]:
    """Local time is UTC, so times on screen are the same on every machine."""
    before = os.environ.get("TZ")
    os.environ["TZ"] = "UTC"
    time.tzset()
    yield
    if before is None:
        del os.environ["TZ"]
    else:
        os.environ["TZ"] = before
    time.tzset()


BRAILLE = {chr(code) for code in range(0x2801, 0x2900)}  # the plotted lines (U+2800 is blank)


def drawn(plot: PlotextPlot) -> str:
    return plot.render().plain  # type: ignore[union-attr]


def legend(screen: HistoryScreen) -> str:
    return str(screen.query_one("#history-legend", Static).render())


def answer(study: Study, clock: FakeClock, key: str, response: str, seconds: float, **later: float) -> None:
    """Answer seed 0 of ``key`` once the clock has moved on by ``later``."""
    clock.advance(**later)
    study.submit(make_instance(study.templates[key], 0), response, seconds)
    # record_attempt stamps the wall clock, not the study's clock: pin the attempt to the fake time.
    attempt = study.session.exec(select(Attempt).order_by(col(Attempt.id).desc())).first()
    assert attempt is not None
    attempt.created_at = clock.now
    study.session.add(attempt)
    study.session.commit()


def practise(study: Study, clock: FakeClock) -> None:
    """Five answers from Wednesday to today (Sunday): wrong then right on Q277, mixed on a choice question."""
    score = make_instance(study.templates[SCORE], 0)
    right = chr(ord("a") + score.answer)
    wrong = next(letter for letter in "abcd" if letter != right)
    answer(study, clock, Q277, "18,981,000", 40.0, days=-4)  # counted a bias the layer does not have
    answer(study, clock, SCORE, wrong, 12.0, hours=3)
    answer(study, clock, Q277, "18,944,000", 65.0, days=1)
    answer(study, clock, SCORE, right, 8.0, days=2)
    answer(study, clock, Q277, "18944000", 30.5, days=1, minutes=5)


def test_series_ends_where_the_study_mastery_does(new_app: Callable[..., QuizzerApp], clock: FakeClock) -> None:
    app = new_app()

    async def scenario() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            await loaded(app, pilot)
            assert app.study is not None
            practise(app.study, clock)
            attempts = app.study.attempts()
            series = topic_series(attempts, app.study.templates)
            final = app.study.mastery(attempts)
            assert set(series) == set(final)
            for topic, points in series.items():
                assert points[-1].mastery == pytest.approx(final[topic].level)
            output = series[OUTPUT_TOPIC]
            assert [p.number for p in output] == [1, 3, 5]
            assert [p.accuracy for p in output] == pytest.approx([0, 0.5, 2 / 3])
            assert output[0].mastery < output[1].mastery < output[2].mastery

    asyncio.run(scenario())


def test_course_mastery_counts_untried_topics_at_the_prior() -> None:
    series = {"a": [Point(1, 0.5, 1.0), Point(3, 0.9, 1.0)], "b": [Point(2, 0.1, 0.0)]}
    assert course_mastery(series, ["a", "b", "c"], 3, p_init=0.2) == pytest.approx(
        [(0.5 + 0.2 + 0.2) / 3, (0.5 + 0.1 + 0.2) / 3, (0.9 + 0.1 + 0.2) / 3])
    assert running_mean([1, 0, 0.5]) == pytest.approx([1, 0.5, 0.5])


def test_a_wrong_answer_to_a_two_topic_question_is_plotted_on_its_primary_topic_only() -> None:
    """Found by a tester: history divided by the second topic's attempts, none after a wrong answer, and the
    app closed with ZeroDivisionError."""
    template = bundled()["practice/w1c-in-proj-slicing"]
    primary, secondary = template.topics[:2]
    attempts = [Attempt(learner_id=1, template_key=template.key, seed=1, response="0, -4", verdict=verdict,
                        score=score, created_at=START + timedelta(minutes=minute))
                for minute, (verdict, score) in enumerate([("partial", 0.5), ("correct", 1.0)])]
    series = topic_series(attempts, {template.key: template})
    assert [point.number for point in series[primary]] == [1, 2]
    assert [point.accuracy for point in series[primary]] == [0.5, 0.75]
    assert [(point.number, point.accuracy) for point in series[secondary]] == [(2, 1.0)]


def test_friendly_time_is_local_and_relative_to_now(utc_zone: None) -> None:
    now = datetime(2026, 11, 29, 18, 0, tzinfo=UTC)  # a Sunday
    assert friendly_time(now - timedelta(hours=2), now) == "today 16:00"
    assert friendly_time(datetime(2026, 11, 28, 23, 59), now) == "yesterday 23:59"  # naive means UTC
    assert friendly_time(now - timedelta(days=4), now) == "Wed 18:00"
    assert friendly_time(now - timedelta(days=20), now) == "9 Nov 18:00"
    assert friendly_time(now - timedelta(days=400), now) == "25 Oct 2025"


def test_table_lists_answers_newest_first_and_the_plot_has_data(new_app: Callable[..., QuizzerApp],
                                                                clock: FakeClock, isolated_bank: Path,
                                                                utc_zone: None) -> None:
    app = new_app()

    async def scenario() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            await loaded(app, pilot)
            assert app.study is not None
            practise(app.study, clock)
            await pilot.press("h")
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, HistoryScreen)
            table = screen.query_one("#history-table", DataTable)
            cells = [[str(value) for value in table.get_row_at(i)] for i in range(table.row_count)]
            assert [row[:5] for row in cells] == [
                ["today 12:05", Q277, "✔ correct", "100%", "30 s"],
                ["yesterday 12:00", "bahdanau-score-inputs", "✔ correct", "100%", "8 s"],
                ["Thu 12:00", Q277, "✔ correct", "100%", "65 s"],
                ["Wed 12:00", "bahdanau-score-inputs", "✘ incorrect", "0%", "12 s"],
                ["Wed 09:00", Q277, "✘ incorrect", "0%", "40 s"],
            ]
            assert cells[-1][5] == app.study.catalog.misconceptions["counted_nonexistent_biases"].title
            table.move_cursor(row=table.row_count - 1)  # the oldest answer, in full under the table
            await pilot.pause()
            detail = str(screen.query_one("#history-detail", Static).render())
            mistake = app.study.catalog.misconceptions["counted_nonexistent_biases"].title
            assert detail == f"{app.study.templates[Q277].title}  {Q277} · mistake: {mistake}"
            assert "2 topics" in str(screen.query_one("#history-summary", Static).render())

            plot = screen.query_one("#history-plot", PlotextPlot)
            assert "all 16 topics" in legend(screen) and BRAILLE & set(drawn(plot))
            course = drawn(plot)

            await pilot.press("t", "down", "enter")  # from "All topics" to the first practised topic
            await pilot.pause()
            first = next(t for t in app.study.catalog.topics.values() if t.id in screen.series)
            assert screen.query_one("#history-topic", Select).value == first.id
            assert "all 16 topics" not in legend(screen) and BRAILLE & set(drawn(plot)) and drawn(plot) != course
            # The list of answers follows the topic: only the answers to questions that list it.
            table = screen.query_one("#history-table", DataTable)
            listing = [a for a in screen.attempts if first.id in app.study.templates[a.template_key].topics]
            assert 0 < table.row_count == len(listing) < len(screen.attempts)
            assert [str(key.value) for key in table.rows] == [str(a.id) for a in reversed(listing)]
            await pilot.press("escape")
            assert app.screen is not screen

    asyncio.run(scenario())
    with Session(open_bank(str(isolated_bank))) as session:
        assert len(session.exec(select(Attempt)).all()) == 5  # looking at history changes nothing


async def history_rows(app: QuizzerApp, pilot: Any) -> list[list[str]]:
    """Open the history (`h`) and read its table: each answer's cells as text, newest first."""
    await pilot.press("h")
    await pilot.pause()
    assert isinstance(app.screen, HistoryScreen)
    table = app.screen.query_one("#history-table", DataTable)
    return [[str(value) for value in table.get_row_at(i)] for i in range(table.row_count)]


def test_a_self_rated_recall_card_is_shown_as_rated_not_marked(new_app: Callable[..., QuizzerApp],
                                                              clock: FakeClock, utc_zone: None) -> None:
    """As the mock exam counts it: a recall card's rating is the learner's own, never "✔ correct"."""
    app = new_app()

    async def scenario() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            await loaded(app, pilot)
            assert app.study is not None
            answer(app.study, clock, RECALL, "good", 20.0, minutes=1)
            answer(app.study, clock, Q277, "18944000", 30.0, minutes=1)
            rows = [row[1:4] for row in await history_rows(app, pilot)]
            assert rows == [[Q277, "✔ correct", "100%"], [shown_key(RECALL), "◇ good", "–"]]
            summary = str(app.screen.query_one("#history-summary", Static).render())
            assert summary.startswith("2 answers · 1 correct · 1 self-rated · ")

    asyncio.run(scenario())


def test_the_parts_of_a_multi_part_answer_are_labelled_and_follow_through_shown(new_app: Callable[..., QuizzerApp],
                                                                              utc_zone: None) -> None:
    app = new_app()

    async def scenario() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            await loaded(app, pilot)
            assert app.study is not None
            chain = make_instance(app.study.templates["2024T3_Q1_NA Q275"], 0)
            p_in = chain.values["p_in"]  # (a) read at the input token; (b) right on that value
            mine = [" ".join(f"{p:.2f}" for p in p_in), f"{-sum(float(np.log(round(p, 2))) for p in p_in):.4f}"]
            app.study.answer_parts(chain, mine, 30.0)
            rows = [row[1:3] for row in await history_rows(app, pilot)]
            assert rows == [["2024T3_Q1_NA Q275 (b)", "✔ your value"], ["2024T3_Q1_NA Q275 (a)", "✘ incorrect"]]

    asyncio.run(scenario())

def test_empty_history_says_how_to_start(first_start_app: Callable[..., QuizzerApp]) -> None:
    app = first_start_app()  # a learner's very first start: the app sets the new bank up

    async def scenario() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await loaded(app, pilot)
            await pilot.press("h")
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, HistoryScreen)
            assert "No answers yet" in str(screen.query_one("#history-empty", Static).render())
            assert not screen.query(PlotextPlot)
            await pilot.press("t")  # nothing to choose: no error, nothing opens
            assert app.screen is screen

    asyncio.run(scenario())


async def open_history(pilot: Any, clock: FakeClock) -> None:
    await loaded(pilot.app, pilot)
    practise(pilot.app.study, clock)
    await pilot.press("h")
    await pilot.pause()


def test_snapshot_80x24(new_app: Callable[..., QuizzerApp], clock: FakeClock, snap_compare: Any,
                        utc_zone: None) -> None:
    assert snap_compare(new_app(), terminal_size=(80, 24), run_before=lambda pilot: open_history(pilot, clock))


def test_snapshot_120x40(new_app: Callable[..., QuizzerApp], clock: FakeClock, snap_compare: Any,
                         utc_zone: None) -> None:
    assert snap_compare(new_app(), terminal_size=(120, 40), run_before=lambda pilot: open_history(pilot, clock))


def test_a_damaged_banks_text_reaches_the_terminal_without_its_escapes(new_app: Callable[..., QuizzerApp],
                                                                       clock: FakeClock, isolated_bank: Path,
                                                                       utc_zone: None) -> None:
    """Textual writes an escape in a cell to the terminal as it is (an OSC 2 retitles the window, tried in
    tmux): a mistake's id the catalogue lacks, edited into the bank, is shown without it."""
    app = new_app()

    async def scenario() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            await loaded(app, pilot)
            assert app.study is not None
            answer(app.study, clock, Q277, "18,981,000", 40.0)
            with Session(open_bank(str(isolated_bank))) as session:
                attempt = session.exec(select(Attempt)).one()
                attempt.misconception = "evil\x1b]2;PWNED\x07\x9b2J_id"
                session.add(attempt)
                session.commit()
            app.study.session.expire_all()
            [row] = await history_rows(app, pilot)
            assert row[-1] == "evil id"

    asyncio.run(scenario())
