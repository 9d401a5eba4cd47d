"""Benchmarks of the terminal app, driven headless by Textual's Pilot as a student would use it.

Each figure runs from the key press (or the app's start) until the screen's state shows the
result: the dashboard filled from the bank, the verdict and worked solution in place, the next
question's input mounted and focused.  Textual paints that state on its next frame.  The timed
key is posted to the app as the terminal driver posts it, not through ``pilot.press``, whose
own settling waits (some 60 ms) would otherwise be counted.
"""

from __future__ import annotations

import asyncio
import math
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC
from pathlib import Path
from typing import Any

ITERATIONS = 20
HISTORY = 2000  # past answers in the "months of revision" bank
COLD_STARTS, WARM_STARTS = 3, 5
SIZE = (120, 40)


async def until(condition: Callable[[], bool], timeout: float = 60.0) -> None:
    """Poll (every millisecond, yielding to the app) until ``condition`` holds."""
    deadline = time.perf_counter() + timeout
    while not condition():
        if time.perf_counter() > deadline:
            raise TimeoutError("the app did not reach the expected state")
        await asyncio.sleep(0.001)


async def start_up(db: str) -> tuple[float, float]:
    """Seconds from starting the app to the dashboard on screen, and to it filled from the bank."""
    from textual.widgets import DataTable

    from quizzer.tui.app import make_app
    from quizzer.tui.screens.dashboard import DashboardScreen

    app = make_app(db_url=db, seed=7)
    started = time.perf_counter()
    async with app.run_test(size=SIZE):
        await until(lambda: isinstance(app.screen, DashboardScreen))
        painted = time.perf_counter() - started
        await until(lambda: app.screen.query_one("#topics", DataTable).row_count > 0)
        filled = time.perf_counter() - started
    return painted, filled


def add_history(db: str, answers: int) -> None:
    """Give the app's profile ``answers`` past attempts (right and wrong, over many days), as a
    student has after weeks of revision: the next question must not slow down with them."""
    import random
    from datetime import datetime, timedelta

    from quizzer.bank.learners import ensure_learner
    from quizzer.bank.ready import open_ready_bank
    from quizzer.bank.store import all_templates, record_attempt
    from quizzer.common.profiles import current_profile_name
    from quizzer.grading.verdict import grade
    from quizzer.templates.instance import make_instance

    engine, session = open_ready_bank(db)
    learner_id = ensure_learner(session=session, name=current_profile_name()).id
    templates, rng = [t for t in all_templates(session=session) if t.kind not in ("text", "parts")], random.Random(1)
    start = datetime.now(UTC) - timedelta(days=60)
    for number in range(answers):
        instance = make_instance(rng.choice(templates), rng.randrange(1, 1_000_000))
        verdict = grade(instance.spec, instance.answer_text)
        record_attempt(session=session, learner_id=learner_id, key=instance.key, seed=instance.seed,
                       response=instance.answer_text, verdict=verdict, seconds=30.0,
                       at=start + timedelta(minutes=40 * number))
    session.close()
    engine.dispose()


async def practise(db: str) -> tuple[list[float], list[float], set[str]]:
    """Seconds from submitting to the feedback shown, and from `n` to the next question shown."""
    from textual.widgets import Markdown

    from quizzer.tui.app import make_app
    from quizzer.tui.screens.practice import PracticeScreen

    app = make_app(db_url=db, seed=7)
    submits: list[float] = []
    nexts: list[float] = []
    kinds: set[str] = set()
    async with app.run_test(size=SIZE) as pilot:
        await until(lambda: app.study is not None)
        await pilot.press("enter")
        screen = app.screen
        assert isinstance(screen, PracticeScreen)
        for _ in range(ITERATIONS):
            await until(lambda: answer_ready(screen))
            assert screen.question is not None
            instance = screen.question.instance
            if instance.parts or instance.kind == "order":  # answered over several keys: skipped here
                shown = screen.question
                await pilot.press("ctrl+s")
                await until(lambda shown=shown: screen.question is not shown and answer_ready(screen))
                continue
            kinds.add(instance.kind)
            last_key = await prepare(pilot, screen, instance)
            started = time.perf_counter()
            key(app, last_key)
            await until(lambda: screen.answered and bool(screen.query_one("#feedback", Markdown).children))
            submits.append(time.perf_counter() - started)
            # The app drops a next key typed before the feedback was painted (it would skip unread
            # feedback): let that paint happen, as a reader's pause would, before pressing n.
            await pilot.pause()

            shown = screen.question
            started = time.perf_counter()
            key(app, "n")
            await until(lambda shown=shown: screen.question is not shown and answer_ready(screen))
            nexts.append(time.perf_counter() - started)
    return submits, nexts, kinds


def key(app: Any, name: str) -> None:
    """Press one key as the terminal driver reports it (a single character is its own name)."""
    from textual import events

    app.post_message(events.Key(name, name if len(name) == 1 else {"enter": "\r"}.get(name)))


def answer_ready(screen: Any) -> bool:
    """The question's input is mounted, has the focus and is on screen, so the student can answer: options and
    recall cards drop a key read before their first frame (their key gate), as the app does for a student."""
    from quizzer.tui.widgets.key_gate import KeyGate

    slot = screen.query_one("#answer-slot")
    if screen.focused is None or slot not in screen.focused.ancestors:
        return False
    gates = (getattr(widget, "gate", None) for widget in slot.walk_children())
    return all(gate.drawn_at < math.inf for gate in gates if isinstance(gate, KeyGate))


async def prepare(pilot: Any, screen: Any, instance: Any) -> str:
    """Do everything before the submitting key (typing is the student's time, not the app's); return it."""
    from textual.widgets import Input

    if instance.kind == "text":
        from quizzer.tui.widgets.recall_box import RecallBox

        await pilot.press("enter")  # show the model answer; rating is the submission
        # Revealing re-arms the card's key gate: wait for the frame that shows the ratings (answer_ready), not
        # for a pause that a busy machine can outlast.
        box = screen.query_one(RecallBox)
        await until(lambda: box.revealed and answer_ready(screen))
        return "3"
    if instance.kind in ("choice", "multi"):
        picked = [instance.answer] if instance.kind == "choice" else sorted(instance.answer)
        await pilot.press(*(chr(97 + i) for i in picked))  # a letter picks an option, enter submits
        return "enter"
    screen.query_one(Input).value = instance.answer_text
    await pilot.pause()
    return "enter"


def row(label: str, seconds: list[float]) -> str:
    ms = [s * 1000 for s in seconds]
    return f"{label:<42} {statistics.median(ms):>9.1f} {min(ms):>9.1f} {max(ms):>9.1f} {len(ms):>4}"


def from_the_command_line(db: str) -> tuple[float, float]:
    """Seconds from running `quizzer` in a terminal (a pty, 120x40) until the dashboard is painted
    (its title is on the terminal) and until it is filled from the bank (the answer count shows)."""
    from bench_ratios import APP_TITLE, until_on_terminal

    command = [str(Path(sys.executable).with_name("quizzer"))]
    painted, filled = until_on_terminal(command, [APP_TITLE, b"reviews due"], dict(os.environ, QUIZZER_DB=db))
    return painted, filled


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        cold = [asyncio.run(start_up(str(Path(folder) / f"cold{i}.sqlite"))) for i in range(COLD_STARTS)]
        warm_db = str(Path(folder) / "warm.sqlite")
        asyncio.run(start_up(warm_db))  # import once; the runs below open an up-to-date bank
        warm = [asyncio.run(start_up(warm_db)) for _ in range(WARM_STARTS)]
        submits, nexts, kinds = asyncio.run(practise(warm_db))
        command_line = [from_the_command_line(warm_db) for _ in range(WARM_STARTS)]
        add_history(warm_db, HISTORY)
        _, nexts_with_history, _ = asyncio.run(practise(warm_db))
    print(f"{'terminal app (Pilot, headless, 120x40)':<42} {'median ms':>9} {'min':>9} {'max':>9} {'n':>4}")
    print(row("start → dashboard on screen", [p for p, _ in warm]))
    print(row("start → dashboard filled (new bank)", [f for _, f in cold]))
    print(row("start → dashboard filled (existing bank)", [f for _, f in warm]))
    print(row("`quizzer` in a terminal → dashboard painted", [p for p, _ in command_line]))
    print(row("`quizzer` in a terminal → dashboard filled", [f for _, f in command_line]))
    print(row("submit → feedback shown", submits))
    print(row("next → new question shown", nexts))
    print(row(f"next → new question ({HISTORY:,} past answers)", nexts_with_history))
    print(f"question kinds answered: {', '.join(sorted(kinds))}")


if __name__ == "__main__":
    main()
