"""The dashboard: mastery per topic, reviews due, the misconceptions you show most, and papers."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.content import Content
from textual.events import Resize
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Header, Static

from quizzer.templates.catalog import load_catalog
from quizzer.tui.widgets.mastery_bar import mastery_bar
from quizzer.tui.widgets.plan_panel import PlanPanel
from quizzer.tui.widgets.steady_footer import SteadyFooter

if TYPE_CHECKING:  # the study layer (numpy, the bank) loads after the first paint
    from quizzer.learning.dashboard import Dashboard, TopicRow
    from quizzer.learning.study import PlanView

BAR = 6  # mastery bar cells; with " 100%" the column is 11 wide
# Content widths of the fixed columns: week, mastery, tries, accuracy, due.
FIXED = (2, BAR + 5, 5, 4, 3)
PADDING = 2  # DataTable's cell padding, both sides
SCROLLBAR = 2
TOPIC_MIN = MISTAKE_MIN = 16  # below this the mistake column gives way to the detail line alone
MISTAKE_WIDE = 24  # the mistake column's share once topics have room; the detail line has the rest


def fit(text: str, width: int) -> Text:
    """``text`` cut to ``width`` cells with an ellipsis."""
    cell = Text(text)
    cell.truncate(width, overflow="ellipsis")
    return cell


def plural(count: int, word: str, many: str | None = None) -> str:
    return f"{count} {word if count == 1 else many or word + 's'}"


def misconception_title(misconception: str) -> str:
    """The catalogue's short title for a misconception id (the id itself when uncatalogued)."""
    info = load_catalog().misconceptions.get(misconception)
    return info.title if info else misconception.replace("_", " ")


def column_widths(available: int, longest_topic: int) -> tuple[int, int]:
    """Topic and mistake column widths that fit ``available`` cells (mistake 0: no such column)."""
    rest = available - sum(FIXED) - PADDING * (len(FIXED) + 1)
    if rest - PADDING >= TOPIC_MIN + MISTAKE_MIN:
        topic = min(longest_topic, max(TOPIC_MIN, rest - PADDING - MISTAKE_WIDE))
        return topic, rest - PADDING - topic
    return max(rest, 8), 0


class DashboardScreen(Screen[None]):
    """Weeks → topics with mastery; papers with how many routed questions you answered right."""

    BINDINGS = [
        Binding("enter", "practise_most", "Practise", priority=True),
        Binding("p", "practise_topic", "Topic"),
        Binding("m", "practise_mode('mistakes')", "Mistakes"),
        Binding("n", "practise_mode('new')", "New", show=False),
        Binding("r", "practise_mode('reviews')", "Reviews", show=False),
        Binding("e", "app.exam", "Exam"),
        Binding("b", "app.browse", "Bank"),
        Binding("h", "app.history", "History"),
    ]

    class PractiseRequested(Message):
        """The student asked to practise: a topic id, or None for 'what I need most'; ``mode``: the plan,
        or new questions, reviews or mistakes only (``quizzer.learning.plan.picker``)."""

        def __init__(self, topic: str | None, mode: str = "plan") -> None:
            self.topic, self.mode = topic, mode
            super().__init__()

    def __init__(self) -> None:
        super().__init__()
        self.data: Dashboard | None = None
        self.widths: tuple[int, int] | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("Loading your bank…", id="summary")
        yield PlanPanel("", id="plan")
        with Horizontal(id="dashboard"):
            yield DataTable(id="topics", cursor_type="row", zebra_stripes=True)
            yield DataTable(id="papers", cursor_type="row", zebra_stripes=True)
        # Under both tables, the whole width: at 80 columns the mistakes need it.
        yield Static("", id="topic-detail")
        yield SteadyFooter()

    def on_mount(self) -> None:
        self.query_one("#papers", DataTable).add_columns("Paper", "Done")
        self.query_one("#topics", DataTable).focus()

    def show(self, data: Dashboard) -> None:
        """Fill the tables (called by the app whenever the learner's data changes)."""
        self.data = data
        self.query_one("#summary", Static).update(
            f"{plural(data.attempts, 'answer')} · {plural(data.due, 'review')} due · "
            "[b]enter[/] plan · [b]m[/] mistakes · [b]n[/] new · [b]r[/] reviews")
        self._fill_topics()
        papers = self.query_one("#papers", DataTable)
        papers.clear()
        for paper in data.papers:
            papers.add_row(paper.paper, f"{paper.done}/{paper.routed}", key=paper.paper)

    def show_plan(self, view: PlanView) -> None:
        self.query_one("#plan", PlanPanel).show(view, load_catalog().topics)

    def on_resize(self, event: Resize) -> None:
        # After the refresh, so the table has its new width to fit the columns to.
        self.call_after_refresh(self._fill_topics)

    def _fill_topics(self) -> None:
        """The topic rows, in columns that fit the table's current width."""
        topics = self.query_one("#topics", DataTable)
        if self.data is None or not topics.size.width:
            return
        longest = max((len(row.name) for row in self.data.topics), default=0)
        widths = column_widths(topics.size.width - SCROLLBAR, longest)
        topic_width, mistake_width = widths
        cursor = topics.cursor_row
        topics.clear(columns=widths != self.widths)
        if widths != self.widths:
            self.widths = widths
            for label, width in zip(("Wk", "Topic", "Mastery", "Tries", "Acc", "Due"),
                                    (FIXED[0], topic_width, *FIXED[1:]), strict=True):
                topics.add_column(label, width=width)
            if mistake_width:
                topics.add_column("Top mistake", width=mistake_width)
        for row in self.data.topics:
            cells: list[str | Text] = [
                str(row.week), fit(row.name, topic_width), self._mastery(row), str(row.attempts),
                f"{row.accuracy:.0%}" if row.accuracy is not None else "–", str(row.due) if row.due else ""]
            if mistake_width:
                cells.append(fit(misconception_title(row.misconceptions[0][0]), mistake_width)
                             if row.misconceptions else "")
            topics.add_row(*cells, key=row.id)
        topics.move_cursor(row=min(cursor, max(topics.row_count - 1, 0)))
        self._show_detail(topics.cursor_row)

    @staticmethod
    def _mastery(row: TopicRow) -> Text:
        """The mastery bar; an untried topic has no estimate yet, so no percentage."""
        if not row.attempts:
            return Text("░" * BAR + "    –", style="dim")
        return mastery_bar(row.mastery, BAR, mastered=row.mastered)

    @on(DataTable.RowHighlighted, "#topics")
    def topic_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_detail(event.cursor_row)

    def _show_detail(self, index: int) -> None:
        """The highlighted topic in full: its name, size and the mistakes made in it."""
        if self.data is None or not 0 <= index < len(self.data.topics):
            return
        row: TopicRow = self.data.topics[index]
        mistakes = (", ".join(f"{misconception_title(m)} ×{n}" for m, n in row.misconceptions)
                    if row.misconceptions else "none recorded")
        self.query_one("#topic-detail", Static).update(Content.assemble(
            (row.name, "bold"), f" · week {row.week} · {plural(row.templates, 'question')} · "
            f"{plural(row.attempts, 'try', 'tries')} · mistakes: {mistakes}"))

    @on(DataTable.RowSelected, "#topics")
    def topic_clicked(self, event: DataTable.RowSelected) -> None:
        """A click on the highlighted row practises that topic, like `p`."""
        self.post_message(self.PractiseRequested(str(event.row_key.value)))

    def action_practise_most(self) -> None:
        self.post_message(self.PractiseRequested(None))

    def action_practise_mode(self, mode: str) -> None:
        self.post_message(self.PractiseRequested(None, mode))

    def action_practise_topic(self) -> None:
        topics = self.query_one("#topics", DataTable)
        if topics.row_count:
            key = topics.coordinate_to_cell_key(topics.cursor_coordinate).row_key.value
            self.post_message(self.PractiseRequested(key))
