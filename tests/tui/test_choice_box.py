"""Choice input: a letter picks, enter submits; keys read before the box was drawn do nothing."""

from __future__ import annotations

import asyncio

from textual import events
from textual.app import ComposeResult
from textual.widgets import OptionList

from quizzer.tui.widgets.choice_box import ChoiceBox, inline_markdown
from quizzer.tui.widgets.key_gate import GatedApp

OPTIONS = ("queries", "keys", "values", "scores")


class Harness(GatedApp):
    def __init__(self, multi: bool = False) -> None:
        super().__init__()
        self.multi = multi
        self.submitted: list[str] = []

    def compose(self) -> ComposeResult:
        yield ChoiceBox(OPTIONS, multi=self.multi)

    def on_choice_box_submitted(self, message: ChoiceBox.Submitted) -> None:
        self.submitted.append(message.text)


def test_a_letter_selects_and_enter_submits_it() -> None:
    app = Harness()

    async def scenario() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            options = app.query_one(OptionList)
            await pilot.press("c")
            await pilot.pause()
            assert options.highlighted == 2 and app.submitted == []  # picked, not submitted
            await pilot.press("b")  # a change of mind costs nothing
            await pilot.pause()
            assert options.highlighted == 1 and app.submitted == []
            await pilot.press("enter")
            await pilot.pause()
            assert app.submitted == ["b"]

    asyncio.run(scenario())


def test_nothing_is_picked_until_the_student_picks_and_enter_alone_says_so() -> None:
    """A student's first enter on a single-choice question graded option (a), which the list highlighted
    from the start: one slip, a wrong answer recorded and a review due."""
    app = Harness()

    async def scenario() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            options, hint = app.query_one(OptionList), app.query_one("#choice-hint")
            assert options.highlighted is None
            await pilot.press("enter")
            await pilot.pause()
            assert app.submitted == [] and hint.has_class("refused")
            assert str(hint.render()).startswith("✘ nothing picked")
            await pilot.press("down")  # a pick answers the warning
            await pilot.pause()
            assert options.highlighted == 0 and not hint.has_class("refused")
            await pilot.press("enter")
            await pilot.pause()
            assert app.submitted == ["a"]

    asyncio.run(scenario())


def test_keys_read_before_the_box_was_drawn_are_dropped() -> None:
    """An enter typed ahead (say, the second of a double press that submitted the previous
    question) must not submit this question's highlighted option unseen."""
    app = Harness()

    async def scenario() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            box = app.query_one(ChoiceBox)
            box.query_one(OptionList).highlighted = 0  # picked: an enter that counts submits it
            early, late = events.Key("enter", None), events.Key("enter", None)
            early.time = box.gate.drawn_at - 0.001  # read just before the box's first paint
            app.post_message(early)
            await pilot.pause()
            assert app.submitted == []
            box.gate.arm(box)  # drawn again: a key read after this paint counts
            await pilot.pause()
            late.time = box.gate.drawn_at + 0.001
            app.post_message(late)
            await pilot.pause()
            assert app.submitted == ["a"]

    asyncio.run(scenario())


def test_keys_typed_the_moment_the_box_is_on_screen_count() -> None:
    """The gate is stamped with the moment the frame that draws the box began to be written, not by
    a callback that runs some time after it, nor by a clock read once the frame is out: on a busy
    machine the student saw the options and typed a letter and enter before either ran, and the
    keys were dropped (seen in the browser test, and on the class server, under load).  Here the
    keys are read the moment the first frame that shows the box has been written, before the app
    has done anything else, even before Textual's own after-display hook."""
    typed: list[events.Key] = []

    class TypesAtOnce(Harness):
        def post_display_hook(self) -> None:
            boxes = self.query(ChoiceBox)
            if not typed and boxes and boxes.first().region.area:
                typed.extend([events.Key("a", "a"), events.Key("enter", None)])  # stamped now
                for key in typed:
                    key.set_sender(self)  # read by the app's driver, as pilot.press has it
                    self.post_message(key)
            super().post_display_hook()

    app = TypesAtOnce()

    async def scenario() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            while not typed:
                await pilot.pause()
            await pilot.pause()  # the keys' turn
            assert app.submitted == ["a"]

    asyncio.run(scenario())


def test_multi_choice_letters_toggle_and_enter_submits_the_set() -> None:
    app = Harness(multi=True)

    async def scenario() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await pilot.press("a", "c", "d", "d", "enter")
            await pilot.pause()

    asyncio.run(scenario())
    assert app.submitted == ["a, c"]


def test_an_option_shows_its_bold_and_code_without_the_markup() -> None:
    """As the fp16 question's options are written: `float('-inf')` is code, **all** is bold."""
    text = inline_markdown("`float('-inf')`: exact zeros, unless **all** keys are blocked")
    assert text.plain == "float('-inf'): exact zeros, unless all keys are blocked"
    styled = {text.plain[span.start:span.end]: str(span.style) for span in text.spans}
    assert styled == {"float('-inf')": "reverse", "all": "bold"}


def test_options_hidden_below_the_list_are_announced_until_the_list_is_scrolled_to_them() -> None:
    """A student submitted a select-all with its (g) never seen, and (g) came back "missed"."""
    class Short(Harness):
        CSS = "ChoiceBox OptionList { max-height: 4; }"

        def compose(self) -> ComposeResult:
            yield ChoiceBox(tuple(f"statement {n}" for n in range(7)), multi=True)

    app = Short()

    async def scenario() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            options, hint = app.query_one(OptionList), app.query_one("#choice-hint")
            for _ in range(100):  # until the list is laid out (a busy machine may take more than one frame)
                await pilot.pause()
                if options.virtual_size.height:
                    break
            assert str(hint.render()).startswith("↓ more below · a–g:")
            await pilot.press("g")  # picks (g), which scrolls it into view: nothing is hidden below now
            await pilot.pause()
            assert str(hint.render()).startswith("a–g:")

    asyncio.run(scenario())
