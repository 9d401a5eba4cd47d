"""A multi-part question in the practice app: parts asked one after another with the earlier answers in
view, graded together with follow-through, recorded one attempt per part."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import numpy as np
from textual.widgets import Input, Markdown

from quizzer.tui.app import QuizzerApp
from quizzer.tui.screens.browser import preview_markdown
from quizzer.tui.widgets.parts_box import PartsBox
from tests.bundled_templates import instance
from tests.tui.conftest import loaded
from tests.tui.test_exam import open_paper, status
from tests.tui.test_practice import attempts, feedback, skip_to, text_of


def test_parts_one_after_another_with_follow_through(new_app: Callable[..., QuizzerApp],
                                                     isolated_bank: Path) -> None:
    app = new_app(topic="decoder_output_params")  # its one multi-part question: the decoder parameter chain

    async def scenario() -> None:
        async with app.run_test(size=(100, 40)) as pilot:
            await loaded(app, pilot)
            instance = await skip_to(pilot, app, ("parts",))
            values = instance.values
            layer = values["layer"] + 1000                       # a wrong (a)
            stack = values["n_layers"] * layer                   # (b) and (c) computed by hand from it
            total = values["embedding"] + stack + values["output"]
            box = app.screen.query_one(PartsBox)
            await pilot.press(*str(layer), "enter")
            await pilot.pause()
            asked = box.query_one("#parts-asked", Markdown).source
            assert f"Your answer: `{layer}`" in asked and "**(b)**" in asked and "part 2 of 3" in asked
            # (a)'s question is not asked again: at 80×24 it pushed the stem's values out of view.
            assert instance.parts[0].question.prompt.split()[0] not in asked.split("**(b)**")[0]
            await pilot.press(*str(stack), "enter")
            await pilot.pause()
            await pilot.press(*str(total), "enter")
            await pilot.pause()
            assert "2 parts right on your value" in text_of(app, "#verdict")
            assert "Right on your value" in feedback(app) and "Worked solution" in feedback(app)
            records = attempts(isolated_bank)
            assert [(a.part, a.verdict, a.carried_forward) for a in records] == \
                [("a", "incorrect", False), ("b", "correct", True), ("c", "correct", True)]

    asyncio.run(scenario())


def test_an_unreadable_part_stays_and_ctrl_b_goes_back(new_app: Callable[..., QuizzerApp],
                                                        isolated_bank: Path) -> None:
    app = new_app(topic="decoder_output_params")

    async def scenario() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await loaded(app, pilot)
            await skip_to(pilot, app, ("parts",))
            box = app.screen.query_one(PartsBox)
            await pilot.press("x", "enter")
            await pilot.pause()
            assert box.answers == [] and text_of(app, "#answer-preview").startswith("✘ not read: ")
            await pilot.press("backspace", "1", "2", "enter")
            await pilot.pause()
            assert box.answers == ["12"]
            await pilot.press("ctrl+b")
            await pilot.pause()
            assert box.answers == [] and attempts(isolated_bank) == []
            # Back at (a), its answer is in the box to change, not gone (a student retyped a whole matrix).
            assert box.query_one(Input).value == "12"
            await pilot.press("3", "enter")
            await pilot.pause()
            assert box.answers == ["123"]

    asyncio.run(scenario())


def test_a_chain_in_the_mock_exam_is_graded_with_follow_through_and_can_be_revised(
        new_app: Callable[..., QuizzerApp], isolated_bank: Path) -> None:
    app = new_app()

    async def scenario() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await open_paper(app, pilot, "2024T3_Q1_NA")
            chain = screen.slots[0].instance
            assert chain.key == "2024T3_Q1_NA Q275" and [p.label for p in chain.parts] == ["a", "b"]
            p_in = chain.values["p_in"]  # the table read at the input token: the no-shift mistake
            read = " ".join(f"{p:.2f}" for p in p_in)
            loss = -sum(float(np.log(round(p, 2))) for p in p_in)  # its loss, by hand
            for typed in (read, f"{loss:.4f}"):
                await pilot.press(*typed, "enter")
                await pilot.pause()
            assert screen.index == 1 and screen.slots[0].parts[1].carried_forward
            assert [(a.part, a.misconception, a.carried_forward) for a in attempts(isolated_bank)] == \
                [("a", "teacher_forcing_no_shift", False), ("b", None, True)]
            await pilot.press("ctrl+left")
            await pilot.pause()
            for part in chain.parts:  # answered again, right: the first answer is withdrawn
                await pilot.press(*part.question.answer_text, "enter")
                await pilot.pause()
            assert [(a.part, a.verdict) for a in attempts(isolated_bank)] == [("a", "correct"), ("b", "correct")]
            await pilot.press("ctrl+f")
            await pilot.pause()
            await pilot.click("#exam-confirm-yes")
            await pilot.pause()
            assert screen.phase == "summary" and "1 correct" in status(screen, "#exam-score")

    asyncio.run(scenario())


def test_a_chain_left_part_way_in_the_mock_exam_keeps_the_parts_given(
        new_app: Callable[..., QuizzerApp], isolated_bank: Path) -> None:
    """Each answer is saved as it is given, a chain's parts included: leaving Q279 after (a) keeps (a),
    recorded and marked; coming back goes on at (b). They were thrown away, the question 'unanswered'."""
    app = new_app()

    async def scenario() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await open_paper(app, pilot, "2024T3_Q1_NA")
            index = next(i for i, slot in enumerate(screen.slots) if slot.instance.key == "2024T3_Q1_NA Q279")
            while screen.index != index:
                await pilot.press("ctrl+right")
                await pilot.pause()
            chain = screen.slots[index].instance
            await pilot.press(*chain.parts[0].question.answer_text, "enter")
            await pilot.pause()
            assert [(a.part, a.verdict) for a in attempts(isolated_bank)] == [("a", "correct")]
            await pilot.press("ctrl+left", "ctrl+right")  # away and back: on at part (b)
            await pilot.pause()
            assert screen.index == index and screen.query_one(PartsBox).answers == [chain.parts[0].question.answer_text]
            await pilot.press("ctrl+f")
            await pilot.pause()
            await pilot.click("#exam-confirm-yes")
            await pilot.pause()
            marks = chain.parts[0].question.points
            assert screen.phase == "summary" and f"Score {marks:g} / " in status(screen, "#exam-score")
            assert "1 partly right" in status(screen, "#exam-score")

    asyncio.run(scenario())

def test_the_browser_preview_lists_every_part() -> None:
    shown = preview_markdown(instance("2024T3_Q1_NA Q279", 0))
    assert all(f"**({label})**" in shown for label in "abc") and "44,168,192" in shown


def test_a_chains_stem_stays_in_view_above_its_parts(new_app: Callable[..., QuizzerApp]) -> None:
    """At 80x24 the question (the table the parts refer to) has its own scrolling rows above the part
    being asked: a PartsBox 1fr tall had squeezed it to nothing, in the exam and in practice."""
    app = new_app()

    async def scenario() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await open_paper(app, pilot, "2024T3_Q1_NA")
            await pilot.pause()
            assert screen.slots[screen.index].instance.parts  # the paper opens on a chain (Q275)
            question = screen.query_one("#exam-scroll")
            box = screen.query_one(PartsBox)
            assert question.size.height >= 6 and box.size.height < 12, (question.size, box.size)

    asyncio.run(scenario())
