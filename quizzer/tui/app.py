"""The quizzer terminal app: setup, key bindings and screen pushes — nothing else.

``make_app`` builds it for the CLI and for tests alike; the bank is opened in a worker
after the first paint, so the dashboard appears at once.
"""

from __future__ import annotations

import errno
import os
import random
import signal
import sys
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING, Any

from textual import on, work
from textual.app import SystemCommand
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Input

from quizzer.common.clock import Clock, utcnow
from quizzer.common.errors import UserError
from quizzer.tui.screens.dashboard import DashboardScreen
from quizzer.tui.widgets.key_gate import GatedApp

if TYPE_CHECKING:  # the bank, numpy and the grader load in the worker, after the first paint
    from quizzer.bank.glance import Glance
    from quizzer.learning.dashboard_rows import Dashboard, PlanRow
    from quizzer.learning.study import Study
    from quizzer.tui.screens.browser import BankBrowserScreen

PAINT_WAIT_S = 2.0
HANGUP_CHECK_S = 1.0  # how often the app looks whether its terminal is still there
HELP_SCREEN = "help"  # the name the help screen is installed under


def hung_up(terminal: int) -> bool:
    """Whether the terminal open as ``terminal`` has hung up.  Asking it for its foreground process group
    answers EIO once it has; a terminal that is not this process's controlling terminal (``setsid``, a
    benchmark's pty) answers ENOTTY whatever its state, and is not taken for a hung-up one."""
    try:
        os.tcgetpgrp(terminal)
    except OSError as error:
        return error.errno == errno.EIO
    return False


def end_if_hung_up(terminal: int) -> None:
    """End this process as a hangup ends a program (SIGHUP: status 129 in a shell) if ``terminal`` has hung up."""
    if hung_up(terminal):
        os.kill(os.getpid(), signal.SIGHUP)


@dataclass(frozen=True)
class Snapshot:
    """A dashboard as shown, to keep for the next start (``learning.snapshot``): the bank's glance read before it,
    the dashboard, each question's primary topic, and the plans of the days ahead, computed when called."""

    seen: Glance
    dashboard: Dashboard
    primary: dict[str, str]
    ahead: Callable[[], list[PlanRow]]


@dataclass(frozen=True)
class Filters:
    """What `quizzer practise --topic/--week/--paper` asked for (None: open on the dashboard)."""

    topic: str | None = None
    week: int | None = None
    paper: str | None = None

    def any(self) -> bool:
        return any(value is not None for value in (self.topic, self.week, self.paper))


class QuizzerApp(GatedApp):
    CSS_PATH = "styles/app.tcss"
    TITLE = "quizzer"
    SUB_TITLE = "Transformers exam revision"
    BINDINGS = [
        Binding("question_mark", "help", "Help"),
        Binding("ctrl+t", "toggle_theme", "Theme", show=False),  # listed in help: 80 columns keep ? and quit
        Binding("ctrl+q", "quit", "Quit"),
        # In a browser (quizzer serve) ctrl+a selects a text box's text, as on every web page, so typing
        # replaces it; in a terminal it stays the box's own binding (start of the line, as in a shell).
        Binding("ctrl+a", "select_all", "Select all", show=False, priority=True),
    ]

    class Loaded(Message):
        def __init__(self, study: Study) -> None:
            self.study = study
            super().__init__()

    class LoadFailed(Message):
        """The bank could not be opened (e.g. the class's server is unreachable)."""

        def __init__(self, error: UserError) -> None:
            self.error = error
            super().__init__()

    def __init__(self, *, db_url: str | None, profile: str, filters: Filters, clock: Clock, seed: int | None) -> None:
        super().__init__()
        self.db_url, self.profile, self.filters, self.clock, self.seed = db_url, profile, filters, clock, seed
        self.study: Study | None = None
        self.failure: UserError | None = None  # why the bank could not be opened
        self._snapshots = 0  # dashboards shown so far: a snapshot worker saves only the latest

    def on_mount(self) -> None:
        from quizzer.learning import snapshot  # the standard library only: the dashboard saved last time

        self.theme = "textual-dark"
        saved = snapshot.load(self.db_url, self.profile, self.clock())
        dashboard = DashboardScreen(saved)
        if saved is not None:
            dashboard.sub_title = self.whose()
        self.push_screen(dashboard)
        painted = threading.Event()
        self.call_after_refresh(painted.set)
        self.load(painted)
        terminal = sys.__stdin__
        if not self.is_headless and terminal is not None and terminal.isatty():
            # Closing the window of ``make run`` hangs up make alone (its session's leader), and the app lived on:
            # Textual's input loop reads the closed terminal's end of file again and again, a processor at 100 %
            # and the bank held open for good.  So the app looks for itself.
            self.set_interval(HANGUP_CHECK_S, partial(end_if_hung_up, terminal.fileno()))

    @work(thread=True, exclusive=True)
    def load(self, painted: threading.Event) -> None:
        """Open the bank (importing changed bundled questions, regrading under new rules) off the UI thread,
        once the dashboard is painted: its imports (SQLAlchemy, NumPy) hold the GIL for a good part of a
        second and would delay the first frame.  (The wait is bounded should no frame ever come.)"""
        painted.wait(timeout=PAINT_WAIT_S)
        from quizzer.bank.learners import ensure_learner
        from quizzer.learning.regrade import open_current_bank
        from quizzer.learning.study import Study
        from quizzer.templates.catalog import load_catalog
        from quizzer.tui.screens import practice  # noqa: F401  (imported here, off the UI thread)

        try:
            _, session = open_current_bank(self.db_url, cross_thread=True, quiet=True)  # lives as long as the app
        except UserError as exc:
            self.post_message(self.LoadFailed(exc))  # the UI thread closes the app; the CLI reports it
            return
        learner = ensure_learner(session=session, name=self.profile)
        study = Study(session=session, catalog=load_catalog(), learner=learner, clock=self.clock,
                      rng=random.Random(self.seed))
        study.plan_state()  # every question parsed and the history replayed here too, not on the UI thread
        self.post_message(self.Loaded(study))

    @on(LoadFailed)
    def load_failed(self, event: LoadFailed) -> None:
        self.failure = event.error
        self.exit(return_code=event.error.exit_code)

    @on(Loaded)
    def loaded(self, event: Loaded) -> None:
        self.study = event.study
        self.refresh_dashboard()
        if self.filters.any():
            self.push_practice(topic=self.filters.topic, week=self.filters.week, paper=self.filters.paper)

    def whose(self) -> str:
        """The dashboard's subtitle: whose session this is."""
        return f"{self.SUB_TITLE} · profile {self.profile}"

    def refresh_dashboard(self) -> None:
        """Show the learner's dashboard as it is now, and keep it for the next start's first frame: at once
        for a start today, and with the plans of the days ahead (a good part of what refreshing costs) from
        a worker, so the student is back on the dashboard without waiting for them."""
        from quizzer.learning import snapshot
        from quizzer.learning.dashboard import primary_topics

        dashboard = next((s for s in self.screen_stack if isinstance(s, DashboardScreen)), None)
        if dashboard is not None and self.study is not None:
            dashboard.sub_title = self.whose()
            # The bank's glance is read *before* the dashboard: an answer another window records in between
            # then leaves the snapshot stale, where read after it would vouch for a dashboard without it.
            seen = snapshot.bank_now(self.db_url, self.profile, self.clock())
            data = self.study.dashboard()
            dashboard.show(data)
            if seen is not None:
                primary = primary_topics(self.study.templates)
                snapshot.save(self.db_url, self.profile, data, primary, seen=seen)
                self._snapshots += 1
                self.keep_snapshot(self._snapshots, Snapshot(seen, data, primary,
                                                             self.study.plans_ahead_later(snapshot.DAYS_AHEAD)))

    @work(thread=True, group="snapshot")
    def keep_snapshot(self, number: int, kept: Snapshot) -> None:
        """Save the dashboard ``kept`` again with the plans of the days ahead, unless a newer one was shown
        meanwhile (its own worker saves that).  Not stopped when the app ends: quitting keeps them too."""
        from quizzer.learning import snapshot

        ahead = kept.ahead()
        if number == self._snapshots:
            snapshot.save(self.db_url, self.profile, kept.dashboard, kept.primary, ahead, seen=kept.seen)

    @on(DashboardScreen.PractiseRequested)
    def practise(self, event: DashboardScreen.PractiseRequested) -> None:
        self.push_practice(topic=event.topic, mode=event.mode)

    def on_bank_browser_screen_practise_requested(self, event: BankBrowserScreen.PractiseRequested) -> None:
        """``p`` in the bank browser: that question (a handler by name: the browser is imported when opened)."""
        self.push_practice(key=event.key)

    def push_practice(self, *, topic: str | None = None, week: int | None = None, paper: str | None = None,
                      key: str | None = None, mode: str = "plan") -> None:
        from quizzer.tui.screens.practice import PracticeScreen

        if self.study is not None:
            began = self.study.clock()
            # A question chosen in the bank is practised there and back; a sitting ends with its summary.
            self.push_screen(PracticeScreen(self.study, topic=topic, week=week, paper=paper, key=key, mode=mode),
                             callback=lambda _: self.sitting_ended(began, summary=key is None))

    def sitting_ended(self, began: datetime, *, summary: bool) -> None:
        """Back on the dashboard: its figures again, and the sitting's summary if anything was answered."""
        from quizzer.learning.sitting import sitting_summary
        from quizzer.tui.screens.sitting_summary import SittingSummaryScreen

        self.refresh_dashboard()
        if self.study is not None and summary:
            done = sitting_summary(self.study, began)
            if done.answers:
                self.push_screen(SittingSummaryScreen(done))

    def action_help(self) -> None:
        """The key map, built once and kept: its Markdown is some fifty widgets, about a second of processor time
        on a busy machine, and it never changes."""
        from quizzer.tui.screens.help import HelpScreen  # Textual's Markdown widget: not before the first paint

        if not self.is_screen_installed(HELP_SCREEN):
            self.install_screen(HelpScreen(), HELP_SCREEN)
        self.push_screen(HELP_SCREEN)

    def action_exam(self) -> None:
        from quizzer.tui.screens.exam import MockExamScreen

        if self.study is not None:
            self.push_screen(MockExamScreen(self.study), callback=lambda _: self.refresh_dashboard())

    def action_browse(self) -> None:
        from quizzer.tui.screens.browser import BankBrowserScreen

        if self.study is not None:
            self.push_screen(BankBrowserScreen(self.study))

    def action_history(self) -> None:
        from quizzer.tui.screens.history import HistoryScreen

        if self.study is not None:
            self.push_screen(HistoryScreen(self.study))

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """Command-palette entries for the main actions, beside Textual's own."""
        yield from super().get_system_commands(screen)
        yield SystemCommand("Practise the plan", "Next question chosen for your exam date",
                            lambda: self.post_message(DashboardScreen.PractiseRequested(None)))
        yield SystemCommand("Redo my mistakes", "Questions whose last answer was wrong, with fresh numbers",
                            lambda: self.post_message(DashboardScreen.PractiseRequested(None, "mistakes")))
        yield SystemCommand("Mock exam", "Sit a routed paper with fresh numbers", self.action_exam)
        yield SystemCommand("Bank browser", "Search templates and preview any seed", self.action_browse)
        yield SystemCommand("History", "Accuracy and mastery over time", self.action_history)
        yield SystemCommand("Toggle light/dark theme", "Switch between the light and dark theme",
                            self.action_toggle_theme)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "select_all":
            return self.is_web and isinstance(self.focused, Input)
        return super().check_action(action, parameters)

    def action_select_all(self) -> None:
        if isinstance(self.focused, Input):
            self.focused.select_all()

    def action_toggle_theme(self) -> None:
        self.theme = "textual-light" if self.theme == "textual-dark" else "textual-dark"


def make_app(*, db_url: str | None = None, profile: str | None = None, filters: Filters = Filters(),
             clock: Clock = utcnow, seed: int | None = None) -> QuizzerApp:
    """The app as the CLI runs it (``profile`` None: the current profile); tests pass a fixed
    clock, seed, bank and profile."""
    from quizzer.common.profiles import current_profile_name

    return QuizzerApp(db_url=db_url, profile=profile or current_profile_name(), filters=filters, clock=clock,
                      seed=seed)


__all__ = ["Filters", "QuizzerApp", "make_app"]
