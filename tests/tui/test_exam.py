"""Mock exam: sitting a paper, changing answers, the timer, leaving, and the marked summary."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fsrs import Rating
from sqlmodel import Session, select
from textual.widgets import DataTable, Input, Markdown, Static

from quizzer.bank.db import open_bank
from quizzer.bank.models import Attempt, ReviewCard
from quizzer.learning.review import new_state, review
from quizzer.tui.app import QuizzerApp
from quizzer.tui.screens.exam import MockExamScreen
from tests.tui.conftest import START, FakeClock, loaded, until

SHORT_PAPER = "2025T3_Q2_NA"  # three typed questions: a shape and two vectors
RECALL_PAPER = "2025T3_ET_AN"  # a matrix, a recall card, a number


def attempts(bank: Path) -> list[Attempt]:
    with Session(open_bank(str(bank))) as session:
        return list(session.exec(select(Attempt).order_by(Attempt.id)).all())  # type: ignore[arg-type]


async def open_paper(app: QuizzerApp, pilot: Any, paper: str) -> MockExamScreen:
    """From the dashboard: `e`, highlight the paper, enter."""
    await loaded(app, pilot)
    await pilot.press("e")
    screen = app.screen
    assert isinstance(screen, MockExamScreen)
    papers = screen.query_one("#exam-papers", DataTable)
    papers.move_cursor(row=papers.get_row_index(paper))
    await pilot.press("enter")
    await until(pilot, lambda: screen.phase == "sitting" and bool(screen.query("#exam-answer-slot > *")),
                "the paper's first question")
    return screen


async def type_answer(pilot: Any, text: str) -> None:
    await pilot.press(*text, "enter")
    await pilot.pause()


def status(screen: MockExamScreen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


def test_sitting_a_paper_records_one_attempt_per_answer(new_app: Callable[..., QuizzerApp], clock: FakeClock,
                                                       isolated_bank: Path) -> None:
    app = new_app()

    async def scenario() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await open_paper(app, pilot, SHORT_PAPER)
            first, second, third = (slot.instance for slot in screen.slots)
            assert [i.key for i in (first, second, third)] == [f"{SHORT_PAPER} Q113", f"{SHORT_PAPER} Q127",
                                                               f"{SHORT_PAPER} Q128"]
            assert len({i.seed for i in (first, second, third)}) == 1 and f"seed {first.seed}" in screen.sub_title
            clock.advance(seconds=40)
            await type_answer(pilot, first.answer_text)
            assert screen.index == 1 and "1 answered" in status(screen, "#exam-status")
            clock.advance(seconds=75)
            await type_answer(pilot, "[1, 2, 3, 4]")  # wrong, and no feedback says so…
            assert "Not quite" not in status(screen, "#exam-saved")
            # …but both answers are already in the bank: a killed terminal loses nothing.
            assert [a.verdict for a in attempts(isolated_bank)] == ["correct", "incorrect"]
            clock.advance(seconds=20)
            await type_answer(pilot, third.answer_text)
            assert "Every question is answered" in status(screen, "#exam-saved")
            await pilot.press("ctrl+f")
            await pilot.pause()

            assert screen.phase == "summary"
            score = status(screen, "#exam-score")
            assert "Score 3 / 5 marks (60%)" in score and "2 correct, 1 not quite" in score and "time 2:15" in score
            marks = screen.query_one("#exam-marks", DataTable)
            rows = [[str(cell) for cell in marks.get_row_at(i)] for i in range(marks.row_count)]
            assert [row[1] for row in rows] == [first.title, second.title, third.title]
            assert [row[2] for row in rows] == ["✔ Correct", "✘ Not quite", "✔ Correct"]
            assert [row[3:5] for row in rows] == [["1 / 1", "0:40"], ["0 / 2", "1:15"], ["2 / 2", "0:20"]]
            marks.move_cursor(row=1)
            await pilot.pause()
            detail = screen.query_one("#exam-detail").source  # type: ignore[attr-defined]
            assert second.title in detail and "You answered" in detail and "Worked solution" in detail

            await pilot.press("escape")
            await pilot.pause()
            assert not isinstance(app.screen, MockExamScreen)

    asyncio.run(scenario())
    recorded = attempts(isolated_bank)
    assert [(a.template_key, a.verdict, a.seconds) for a in recorded] == [
        (f"{SHORT_PAPER} Q113", "correct", 40.0), (f"{SHORT_PAPER} Q127", "incorrect", 75.0),
        (f"{SHORT_PAPER} Q128", "correct", 20.0)]
    assert recorded[1].response == "[1, 2, 3, 4]"


def review_card(bank: Path, key: str) -> ReviewCard | None:
    with Session(open_bank(str(bank))) as session:
        return session.exec(select(ReviewCard).where(ReviewCard.template_key == key)).one_or_none()


def test_a_changed_answer_replaces_the_recorded_one(new_app: Callable[..., QuizzerApp],
                                                    isolated_bank: Path) -> None:
    """The clock stands still, so both answers are given at START."""
    app = new_app()
    key = f"{SHORT_PAPER} Q113"

    async def scenario() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await open_paper(app, pilot, SHORT_PAPER)
            first = screen.slots[0].instance
            await type_answer(pilot, "[1, 2, 3]")
            wrong_card = review_card(isolated_bank, key)
            assert [(a.verdict, a.response) for a in attempts(isolated_bank)] == [("incorrect", "[1, 2, 3]")]
            await pilot.press("ctrl+left")
            await pilot.pause()
            assert screen.index == 0 and "[1, 2, 3]" in status(screen, "#exam-saved")
            await type_answer(pilot, first.answer_text)
            # The wrong answer is withdrawn and its review step undone: the card is scheduled as
            # if the right answer had been the only one (a first-time Good, not Again then Good).
            right_card = review_card(isolated_bank, key)
            assert wrong_card is not None and right_card is not None
            only_right = review(new_state(START), Rating.Good, START)
            assert right_card.state_json == only_right.to_json() != wrong_card.state_json
            await pilot.press("ctrl+f")  # two questions unanswered: asks first
            await pilot.pause()
            assert screen.phase == "sitting" and "2 of 3" in status(screen, "#exam-confirm-text")
            await pilot.click("#exam-confirm-yes")
            await pilot.pause()
            assert screen.phase == "summary" and "2 unanswered" in status(screen, "#exam-score")

    asyncio.run(scenario())
    recorded = attempts(isolated_bank)
    assert [(a.template_key, a.verdict) for a in recorded] == [(f"{SHORT_PAPER} Q113", "correct")]


def test_when_time_runs_out_the_exam_ends(new_app: Callable[..., QuizzerApp], clock: FakeClock,
                                          isolated_bank: Path) -> None:
    app = new_app()

    async def scenario() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await open_paper(app, pilot, SHORT_PAPER)  # default timer: 2 min per question
            assert screen.sub_title.endswith("6:00 left")
            await type_answer(pilot, screen.slots[0].instance.answer_text)
            clock.advance(minutes=4, seconds=30)
            screen.update_timer()
            assert screen.sub_title.endswith("1:30 left") and screen.phase == "sitting"
            clock.advance(minutes=2)
            screen.update_timer()
            await pilot.pause()
            assert screen.phase == "summary"
            assert "1 correct, 2 unanswered" in status(screen, "#exam-score")
            assert "time ran out" in status(screen, "#exam-score")

    asyncio.run(scenario())
    assert [a.verdict for a in attempts(isolated_bank)] == ["correct"]


def test_a_paper_counts_its_routed_questions_as_the_dashboard_does(new_app: Callable[..., QuizzerApp]) -> None:
    """2024T3_Q1_NA routes 12 questions; two chains ask two each on one screen, so it is sat in 10
    screens. The list says 12, like the dashboard's 0/12, and the timer allows 2 min for each of the 12."""
    app = new_app()
    paper = "2024T3_Q1_NA"

    async def scenario() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            await loaded(app, pilot)
            assert app.study is not None
            [(done, routed)] = [(row.done, row.routed) for row in app.study.dashboard().papers if row.paper == paper]
            assert (done, routed) == (0, 12)
            await pilot.press("e")
            screen = app.screen
            assert isinstance(screen, MockExamScreen)
            papers = screen.query_one("#exam-papers", DataTable)
            assert papers.get_row(paper)[:4] == ["2024 T3 · Q1/NA", paper, "12", "24 min"]
            papers.move_cursor(row=papers.get_row_index(paper))
            await pilot.press("enter")
            await pilot.pause()
            assert len(screen.slots) == 10 and screen.sub_title.endswith("24:00 left")

    asyncio.run(scenario())


def test_two_timer_presses_before_the_select_reports_are_both_counted(new_app: Callable[..., QuizzerApp],
                                                                      isolated_bank: Path) -> None:
    """A busy machine can deliver the second `t` before the timer's Changed message from the first is
    handled; the cycle must go on from the choice the first press made (it once went back to it)."""
    app = new_app()

    async def scenario() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            await loaded(app, pilot)
            await pilot.press("e")
            screen = app.screen
            assert isinstance(screen, MockExamScreen) and screen.minutes == 2
            screen.action_cycle_timer()
            screen.action_cycle_timer()  # no message handled in between: 2 → 3 → 5
            assert screen.minutes == 5
            papers = screen.query_one("#exam-papers", DataTable)
            await until(pilot, lambda: papers.get_row(RECALL_PAPER)[2:4] == ["3", "15 min"],
                        "the papers' time allowed at 5 min per question")

    asyncio.run(scenario())


def test_seed_and_timer_choices_and_a_self_rated_recall_card(new_app: Callable[..., QuizzerApp],
                                                             isolated_bank: Path) -> None:
    app = new_app()

    async def scenario() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            await loaded(app, pilot)
            await pilot.press("e", "t", "t", "t")  # 2 → 3 → 5 min per question → no timer
            screen = app.screen
            assert isinstance(screen, MockExamScreen) and screen.minutes == 0
            papers = screen.query_one("#exam-papers", DataTable)
            # The table is refilled when the Select's Changed message is handled: wait for that.
            await until(pilot, lambda: papers.get_row(RECALL_PAPER)[2:4] == ["3", "untimed"],
                        "the papers' time allowed shown as untimed")
            seed = screen.query_one("#exam-seed", Input)
            drawn = seed.value
            await pilot.press("r")
            assert seed.value != drawn and seed.value.isdigit()
            seed.value = "12345"  # the seed shown after an earlier sitting regenerates that paper
            papers.move_cursor(row=papers.get_row_index(RECALL_PAPER))
            await pilot.press("enter")
            await until(pilot, lambda: bool(screen.slots), "the paper started")
            assert {slot.instance.seed for slot in screen.slots} == {12345}
            assert "seed 12345" in screen.sub_title and "left" not in screen.sub_title
            await pilot.press("]")  # inside the matrix input `]` is just typed…
            await pilot.pause()
            assert screen.index == 0
            await pilot.press("ctrl+right", "ctrl+left")  # (`[` moves where no input takes it: the choice questions)
            await pilot.pause()
            assert screen.index == 0
            await pilot.press("ctrl+right")
            await pilot.pause()
            assert screen.slots[1].instance.kind == "text" and screen.index == 1
            model = screen.query_one("#exam-model-answer", Markdown)
            await pilot.press("3")  # before the model answer, a digit is part of the answer written, not a rating
            await pilot.pause()
            assert screen.index == 1 and screen.slots[1].response is None and not model.display
            await pilot.press("enter")  # reveal (Anki's order), then rate
            await pilot.pause()
            assert model.display and "Model answer" in model.source
            await pilot.press("3")  # good
            await pilot.pause()
            assert screen.index == 2  # on to the next unanswered question
            assert not model.display  # the next question's answer is not given away
            await pilot.press("ctrl+f")
            await pilot.pause()
            await pilot.click("#exam-confirm-yes")
            await pilot.pause()
            score = status(screen, "#exam-score")
            # The rating is the student's own: not a mark, not "✔ Correct 100%".
            assert "Score 0 / 5 marks" in score and "1 self-rated, 2 unanswered" in score
            marks = screen.query_one("#exam-marks", DataTable)
            assert [str(cell) for cell in marks.get_row_at(1)][2:4] == ["◇ Self-rated good", "not marked"]
            marks.move_cursor(row=1)
            await pilot.pause()
            detail = screen.query_one("#exam-detail", Markdown).source
            assert "Self-rated: good" in detail and "Correct" not in detail

    asyncio.run(scenario())
    assert [(a.template_key, a.response, a.verdict) for a in attempts(isolated_bank)] == [
        (f"{RECALL_PAPER} Q25", "good", "correct")]


def test_leaving_mid_exam_asks_and_keeps_what_was_answered(new_app: Callable[..., QuizzerApp],
                                                            isolated_bank: Path) -> None:
    app = new_app()

    async def scenario() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await open_paper(app, pilot, SHORT_PAPER)
            await type_answer(pilot, screen.slots[0].instance.answer_text)
            await pilot.press("escape")
            await pilot.pause()
            assert screen.pending == "leave" and app.screen is screen
            assert "1 answer(s) so far stay in your history" in status(screen, "#exam-confirm-text")
            await pilot.press("escape")  # changed my mind
            await pilot.pause()
            assert screen.pending is None and screen.phase == "sitting"
            await pilot.press("escape", "tab")  # focus stays within the bar: "Keep going" → "Leave"
            await pilot.pause()
            assert app.focused is not None and app.focused.id == "exam-confirm-yes"
            await pilot.press("right")  # and the arrows move between the two, as the bar says
            await pilot.pause()
            assert app.focused.id == "exam-confirm-no" and "←/→ enter choose" in status(screen, "#exam-confirm-text")
            await pilot.press("left")
            await pilot.pause()
            assert app.focused.id == "exam-confirm-yes"
            await pilot.press("enter")
            await pilot.pause()
            assert app.screen is not screen

    asyncio.run(scenario())
    assert [a.verdict for a in attempts(isolated_bank)] == ["correct"]


# --- snapshots ------------------------------------------------------------------------------

async def show_picker(pilot: Any) -> None:
    await loaded(pilot.app, pilot)
    await pilot.press("e")
    await pilot.pause()


def sit_short_paper(clock: FakeClock) -> Callable[[Any], Any]:
    """Answer one question right, one wrong, leave one unanswered, finish."""
    async def run_before(pilot: Any) -> None:
        screen = await open_paper(pilot.app, pilot, SHORT_PAPER)
        clock.advance(seconds=50)
        await type_answer(pilot, screen.slots[0].instance.answer_text)
        clock.advance(seconds=95)
        await type_answer(pilot, "[0, 0, 0, 0]")
        await pilot.press("ctrl+f")
        await pilot.pause()
        await pilot.click("#exam-confirm-yes")
        await pilot.pause()
    return run_before


def test_snapshot_picker_80x24(snap_compare: Any, new_app: Callable[..., QuizzerApp]) -> None:
    assert snap_compare(new_app(), terminal_size=(80, 24), run_before=show_picker)


def test_snapshot_picker_120x40(snap_compare: Any, new_app: Callable[..., QuizzerApp]) -> None:
    assert snap_compare(new_app(), terminal_size=(120, 40), run_before=show_picker)


def test_snapshot_summary_80x24(snap_compare: Any, new_app: Callable[..., QuizzerApp], clock: FakeClock) -> None:
    assert snap_compare(new_app(), terminal_size=(80, 24), run_before=sit_short_paper(clock))


def test_snapshot_summary_120x40(snap_compare: Any, new_app: Callable[..., QuizzerApp], clock: FakeClock) -> None:
    assert snap_compare(new_app(), terminal_size=(120, 40), run_before=sit_short_paper(clock))


LONG_OPTIONS_PAPER = "2026T2_Q2_NA"  # its first question's four options are long formulas


async def sit_long_options(pilot: Any) -> None:
    """Sitting: the first question with every option visible, the scrollbar beside (not over) them."""
    screen = await open_paper(pilot.app, pilot, LONG_OPTIONS_PAPER)
    assert screen.slots[0].instance.kind == "choice"


def test_snapshot_sitting_80x24(snap_compare: Any, new_app: Callable[..., QuizzerApp]) -> None:
    assert snap_compare(new_app(), terminal_size=(80, 24), run_before=sit_long_options)


def test_snapshot_sitting_120x40(snap_compare: Any, new_app: Callable[..., QuizzerApp]) -> None:
    assert snap_compare(new_app(), terminal_size=(120, 40), run_before=sit_long_options)


LONG_QUESTION_PAPER = "2026T1_ET_AN"  # its first question's sentence was below the fold at 80×24, only options showed


async def sit_long_question(pilot: Any) -> None:
    """Sitting: the whole question sentence above the options, at 80×24."""
    screen = await open_paper(pilot.app, pilot, LONG_QUESTION_PAPER)
    assert screen.slots[0].instance.kind == "choice"


async def sit_long_question_alone(pilot: Any) -> None:
    """ctrl+o: the question over the whole screen (the answer slot hidden, kept as it was)."""
    screen = await open_paper(pilot.app, pilot, LONG_QUESTION_PAPER)
    await pilot.press("ctrl+o")
    await pilot.pause()
    assert not screen.query_one("#exam-answer-slot").display


def test_snapshot_long_question_80x24(snap_compare: Any, new_app: Callable[..., QuizzerApp]) -> None:
    assert snap_compare(new_app(), terminal_size=(80, 24), run_before=sit_long_question)


def test_snapshot_long_question_alone_80x24(snap_compare: Any, new_app: Callable[..., QuizzerApp]) -> None:
    assert snap_compare(new_app(), terminal_size=(80, 24), run_before=sit_long_question_alone)


def test_the_saved_answer_names_options_by_letter(new_app: Callable[..., QuizzerApp]) -> None:
    """A ticked option's whole text filled the saved-answer line three times over at 80 columns."""
    app = new_app()

    async def scenario() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await open_paper(app, pilot, LONG_QUESTION_PAPER)
            await type_answer(pilot, "b")
            await pilot.press("ctrl+left")
            await pilot.pause()
            assert status(screen, "#exam-saved").startswith("Saved answer: b — answer again to change it")

    asyncio.run(scenario())
