"""The bank browser: search and filter every template, and preview it at any seed."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypeVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.events import Resize
from textual.message import Message
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import DataTable, Header, Input, Markdown, Select, Static

from quizzer.common.errors import TemplateError
from quizzer.common.untrusted import terminal_safe
from quizzer.learning.study import Study
from quizzer.templates.draw import CANONICAL_SEED
from quizzer.templates.instance import Instance, make_instance
from quizzer.templates.schema import Template
from quizzer.text.mathtext import render_math
from quizzer.tui.widgets.choice_box import letter
from quizzer.tui.widgets.parts_box import parts_markdown
from quizzer.tui.widgets.question_view import question_markdown, shown_answer, solution_heading
from quizzer.tui.widgets.steady_footer import SteadyFooter

PRACTICE = "practice"  # the paper filter's value for templates not routed to any exam paper
PRACTICE_PREFIX = "practice/"
MAX_SEED = 999_999_999  # what the nine-digit seed box can hold
FIXED = 2 + 10  # the week column and the longest kind ("expression")
T = TypeVar("T")


@dataclass(frozen=True)
class BankQuery:
    """What the student searched for: words (all must appear) and optional filters."""

    text: str = ""
    topic: str | None = None
    week: int | None = None
    paper: str | None = None
    kind: str | None = None

    def matches(self, template: Template, topic_names: Mapping[str, str]) -> bool:
        """Whether ``template`` passes every filter and contains every search word."""
        haystack = " ".join([template.key, template.title, *template.topics,
                             *(topic_names.get(topic, "") for topic in template.topics)]).casefold()
        return (all(word in haystack for word in self.text.casefold().split())
                and (self.topic is None or self.topic in template.topics)
                and (self.week is None or template.week == self.week)
                and (self.paper is None or (template.paper or PRACTICE) == self.paper)
                and (self.kind is None or template.kind == self.kind))


def natural_order(template: Template) -> tuple[int, list[int | str]]:
    """Week first, then key with numbers compared as numbers (Q9 before Q10)."""
    return template.week, [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", template.key)]


def column_widths(width: int, longest_key: int) -> tuple[int, int, int]:
    """Key, topics and title widths that fill a table ``width`` cells wide (the title takes what is left)."""
    free = max(width - 2 - 5 * 2 - FIXED, 40)  # minus the scrollbar and one cell of padding each side
    key = min(longest_key, max(16, free // 2))
    topics = min(24, free // 5)
    return key, topics, free - key - topics


def shown_key(key: str) -> str:
    """A key as the table shows it: without the "practice/" every practice key starts with.

    Practice keys are long; the paper filter already separates practice from routed questions,
    and the preview shows the full key.
    """
    return terminal_safe(key.removeprefix(PRACTICE_PREFIX))  # read from a bank, which may be damaged


def preview_markdown(instance: Instance) -> str:
    """Prompt, choices, answer and worked solution of one instance, math as Unicode."""
    parts = [question_markdown(instance), *([parts_markdown(instance)] if instance.parts else [])]
    if instance.choices:
        parts.append("\n".join(f"- ({letter(i)}) {render_math(choice)}" for i, choice in enumerate(instance.choices)))
    parts += [f"**Answer:** {render_math(shown_answer(instance))}", f"#### {solution_heading(instance)}",
              render_math(instance.solution, fenced=True)]
    return "\n\n".join(parts)


def cell(text: str) -> Text:
    """Plain text (never markup, no control sequence: Textual writes an escape to the terminal as it is)
    that a narrow column cuts with an ellipsis."""
    return Text(terminal_safe(text), no_wrap=True, overflow="ellipsis")


def _chosen(select: Select[T]) -> T | None:
    """A filter's value, None for its blank "All …" entry."""
    return None if select.is_blank() else select.value  # type: ignore[return-value]


class BankBrowserScreen(Screen[None]):
    """Every template in a searchable table; the highlighted one is previewed at the chosen seed."""

    CSS_PATH = "../styles/browser.tcss"
    BINDINGS = [
        Binding("escape", "back", "Back"),
        Binding("slash", "focus_search", "Search"),
        Binding("p", "practise", "Practise"),  # typed into the search or seed box when one has the focus
        # Priority, so they also work in the seed box; check_action leaves them to the search box.  The seed row
        # says "+/- step", so the footer (full at 80 columns) shows only one of them.
        Binding("plus", "step_seed(1)", "Next seed", key_display="+", priority=True),
        Binding("minus", "step_seed(-1)", "Previous seed", key_display="-", priority=True, show=False),
    ]

    # always_update: a step that lands on the seed already held must still put it back in the box.
    seed: reactive[int] = reactive(CANONICAL_SEED, init=False, always_update=True)

    def __init__(self, study: Study) -> None:
        super().__init__()
        self.study = study
        self.topic_names = {topic.id: topic.name for topic in study.catalog.topics.values()}
        self.templates = sorted(study.templates.values(), key=natural_order)
        self.shown: tuple[str, int] | None = None  # (key, seed) in the preview, so repeats are skipped
        self.width = 0  # the width the columns were last fitted to

    def compose(self) -> ComposeResult:
        topics = sorted(self.study.catalog.topics.values(), key=lambda topic: topic.week)
        papers = sorted({t.paper for t in self.templates if t.paper})
        yield Header()
        with Horizontal(id="browser-search-row"):
            yield Input(placeholder="Search key, title or topic  ( / )", id="search", compact=True)
            yield Static("", id="browser-count")
        with Horizontal(id="browser-filters"):
            yield Select(((f"W{t.week} {t.name}", t.id) for t in topics), prompt="All topics",
                         id="filter-topic", compact=True)
            yield Select(((f"Week {week}", week) for week in sorted({t.week for t in self.templates})),
                         prompt="All weeks", id="filter-week", compact=True)
            yield Select([*((paper, paper) for paper in papers), ("practice (not routed)", PRACTICE)],
                         prompt="All papers", id="filter-paper", compact=True)
            yield Select(((kind, kind) for kind in sorted({t.kind for t in self.templates})),
                         prompt="All kinds", id="filter-kind", compact=True)
        yield DataTable(id="browser-table", cursor_type="row", zebra_stripes=True)
        with Horizontal(id="browser-seed-row"):
            yield Static("Preview at seed", id="browser-seed-label")
            yield Input(str(CANONICAL_SEED), id="seed", restrict=r"\d*", max_length=9, compact=True)
            yield Static("[b]+[/]/[b]-[/] step · 0 = the notes' numbers", id="browser-seed-hint")
        with VerticalScroll(id="browser-preview-scroll"):
            yield Markdown("", id="browser-preview")
        yield SteadyFooter()

    def on_mount(self) -> None:
        self.query_one("#browser-table", DataTable).focus()

    def on_resize(self, event: Resize) -> None:
        """Fit the columns to the new width: long titles are cut with an ellipsis, never scrolled off."""
        if event.size.width == self.width:
            return
        self.width = event.size.width
        longest = max((len(shown_key(template.key)) for template in self.templates), default=0)
        key, topics, title = column_widths(self.width, longest)
        table = self.query_one("#browser-table", DataTable)
        keep = self._highlighted_key()
        table.clear(columns=True)
        table.add_column("Key", width=key)
        table.add_column("Wk")
        table.add_column("Kind")
        table.add_column("Topics", width=topics)
        table.add_column("Title", width=title)
        self._fill(keep)

    # --- filtering ---------------------------------------------------------------------------

    def bank_query(self) -> BankQuery:
        """The search text and filters as the widgets show them now."""
        return BankQuery(text=self.query_one("#search", Input).value,
                         topic=_chosen(self.query_one("#filter-topic", Select)),
                         week=_chosen(self.query_one("#filter-week", Select)),
                         paper=_chosen(self.query_one("#filter-paper", Select)),
                         kind=_chosen(self.query_one("#filter-kind", Select)))

    @on(Input.Changed, "#search")
    @on(Select.Changed)
    def refilter(self) -> None:
        self._fill(self._highlighted_key())

    def _fill(self, keep: str | None) -> None:
        """Refill the table with the matching templates, keeping the cursor on ``keep`` if it still matches."""
        table = self.query_one("#browser-table", DataTable)
        wanted = self.bank_query()
        rows = [t for t in self.templates if wanted.matches(t, self.topic_names)]
        table.clear()
        for template in rows:
            table.add_row(cell(shown_key(template.key)), str(template.week), template.kind,
                          cell(self.topic_list(template)), cell(template.title), key=template.key)
        keys = [t.key for t in rows]
        if keep in keys:
            table.move_cursor(row=keys.index(keep), animate=False)
        total = len(self.templates)
        self.query_one("#browser-count", Static).update(
            f"{total} templates" if len(rows) == total else f"{len(rows)} of {total} templates")
        self.show_preview()

    def topic_list(self, template: Template) -> str:
        return ", ".join(self.topic_names.get(topic, topic) for topic in template.topics)

    def _highlighted_key(self) -> str | None:
        table = self.query_one("#browser-table", DataTable)
        if not table.row_count:
            return None
        return table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value

    # --- preview -----------------------------------------------------------------------------

    @on(DataTable.RowHighlighted, "#browser-table")
    def show_preview(self) -> None:
        """Render the highlighted template at the current seed (skipped when nothing changed)."""
        key = self._highlighted_key()
        preview = self.query_one("#browser-preview", Markdown)
        if key is None:
            self.shown = None
            preview.update("*No template matches: clear the search or a filter.*")
            return
        if self.shown == (key, self.seed):
            return
        if self.shown is None or self.shown[0] != key:  # another seed keeps the place, to compare solutions
            self.query_one("#browser-preview-scroll", VerticalScroll).scroll_home(animate=False)
        self.shown = (key, self.seed)
        template = self.study.templates[key]
        about = f"`{key}` · week {template.week} · {template.kind} · {self.topic_list(template)}\n\n"
        try:
            preview.update(about + preview_markdown(make_instance(template, self.seed)))
        except TemplateError as exc:
            preview.update(f"{about}*Seed {self.seed} cannot be built for this template:* {exc}")

    class PractiseRequested(Message):
        """Practise this question (its key), with fresh numbers each time."""

        def __init__(self, key: str) -> None:
            self.key = key
            super().__init__()

    def action_practise(self) -> None:
        """Practise the highlighted question (a student found a question here and had to guess which topic to
        practise to meet it)."""
        key = self._highlighted_key()
        if key is not None:
            self.post_message(self.PractiseRequested(key))

    @on(DataTable.RowSelected, "#browser-table")
    def read_preview(self) -> None:
        """Enter on a row moves to the preview, to scroll a long solution."""
        self.query_one("#browser-preview-scroll", VerticalScroll).focus()

    @on(Input.Changed, "#seed")
    def seed_typed(self, event: Input.Changed) -> None:
        # The box as it is now, not as this message saw it: a `+` may have stepped it since.
        if event.input.value:
            self.seed = int(event.input.value)

    def watch_seed(self, seed: int) -> None:
        box = self.query_one("#seed", Input)
        if box.value != str(seed):
            box.value = str(seed)
        self.show_preview()

    def action_step_seed(self, step: int) -> None:
        """Step from the seed the box shows: digits typed just before `+` may not have reached `seed` yet."""
        typed = self.query_one("#seed", Input).value
        self.seed = min(max((int(typed) if typed else self.seed) + step, CANONICAL_SEED), MAX_SEED)

    def action_back(self) -> None:
        """Leave a text box for the table first, so escape never drops a half-typed search."""
        if isinstance(self.focused, Input):
            self.query_one("#browser-table", DataTable).focus()
        else:
            self.app.pop_screen()

    def action_focus_search(self) -> None:
        self.query_one("#search", Input).focus()

    @on(Input.Submitted, "#search")
    def search_done(self) -> None:
        self.query_one("#browser-table", DataTable).focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """`+` and `-` are typed into the search box; everywhere else they step the seed."""
        if action == "step_seed":
            return self.focused is None or self.focused.id != "search"
        return True
