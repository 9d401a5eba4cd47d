"""The dashboard: mastery per topic, reviews due, the misconceptions you show most, and past papers.

Topics and past papers are two tables of the full width, one shown at a time (tab switches): side by
side, a paper's code read as if it belonged to the topic row beside it, and at 80 columns both lost
their ends.  Not Textual's TabbedContent: it mounts its tabs after the first frame, and the dashboard
must be whole in the first frame the app writes (``make bench``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.events import Resize
from textual.message import Message
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import DataTable, Header, Static

from quizzer.tui.widgets.mastery_bar import mastery_bar
from quizzer.tui.widgets.plan_panel import PlanPanel
from quizzer.tui.widgets.steady_footer import SteadyFooter

if TYPE_CHECKING:  # the study layer (numpy, the bank) loads after the first paint
    from quizzer.learning.dashboard_rows import Dashboard, PaperRow, TopicRow

BAR = 6  # mastery bar cells; with " 100%" the column is 11 wide
# Content widths of the fixed columns: week, mastery, tries, accuracy, due.
FIXED = (2, BAR + 5, 5, 4, 3)
PADDING = 2  # DataTable's cell padding, both sides
SCROLLBAR = 2
TOPIC_MIN = MISTAKE_MIN = 16  # below this the mistake column gives way to the detail line alone
MISTAKE_WIDE = 24  # the mistake column's share once topics have room; the detail line has the rest
# The summary's practice keys, shorter and shorter until the line fits (the last one may wrap).
SUMMARY_KEYS = ("[b]enter[/] the plan · [b]m[/] mistakes · [b]n[/] new · [b]r[/] reviews · [b]?[/] all keys",
                "[b]enter[/] the plan · [b]m[/] mistakes · [b]n[/] new · [b]r[/] reviews",
                "[b]enter[/] plan · [b]m[/] mistakes · [b]n[/] new · [b]r[/] reviews")
PAPER_FIXED = (15, 5)  # "2025 T2 · ET/FN", "12/12"; the topics it examines take the rest


def fit(text: str, width: int) -> Text:
    """``text`` cut to ``width`` cells with an ellipsis."""
    cell = Text(text)
    cell.truncate(width, overflow="ellipsis")
    return cell


def plural(count: int, word: str, many: str | None = None) -> str:
    return f"{count} {word if count == 1 else many or word + 's'}"


def column_widths(available: int, longest_topic: int) -> tuple[int, int]:
    """Topic and mistake column widths that fit ``available`` cells (mistake 0: no such column).  The
    mistake column keeps MISTAKE_WIDE cells where the topics still fit whole, else at least MISTAKE_MIN."""
    rest = available - sum(FIXED) - PADDING * (len(FIXED) + 1)
    if rest - PADDING >= TOPIC_MIN + MISTAKE_MIN:
        share = MISTAKE_WIDE if rest - PADDING - MISTAKE_WIDE >= longest_topic else MISTAKE_MIN
        topic = min(longest_topic, max(TOPIC_MIN, rest - PADDING - share))
        return topic, rest - PADDING - topic
    return max(rest, 8), 0


class DashboardScreen(Screen[None]):
    """Weeks → topics with mastery; past papers with how many routed questions you answered right."""

    BINDINGS = [
        Binding("enter", "practise_most", "Practise", priority=True),
        Binding("p", "practise_topic", "Topic"),
        Binding("tab", "switch_tab", "Topics/Papers", priority=True),
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

    def __init__(self, initial: Dashboard | None = None) -> None:
        """``initial``: the dashboard to show at once (the one saved at the last start, still current)."""
        super().__init__()
        self.data: Dashboard | None = initial
        self.widths: tuple[int, int] | None = None
        self.paper_widths: int | None = None
        self.filled_width = 0

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("Loading your bank…", id="summary")
        yield PlanPanel("", id="plan")
        with Vertical(id="dashboard"):
            yield Static(self._tab_bar(), id="tab-bar")
            yield DataTable(id="topics", cursor_type="row", zebra_stripes=True)
            yield DataTable(id="papers", cursor_type="row", zebra_stripes=True)
        # Under the table, the whole width: the highlighted row in full.
        yield Static("", id="topic-detail")
        yield SteadyFooter()

    def on_mount(self) -> None:
        self.query_one("#topics", DataTable).focus()
        self.app.theme_changed_signal.subscribe(self, lambda _: self._fill())  # the bars' colours follow the theme
        if self.data is not None:
            self.show(self.data)

    def show(self, data: Dashboard) -> None:
        """Fill the tables (called by the app whenever the learner's data changes)."""
        self.data = data
        self._show_summary()
        self.query_one("#plan", PlanPanel).show(data.plan)
        self._fill()

    def _show_summary(self) -> None:
        """The counts and the practice keys, the keys' tail left off where the line would wrap."""
        if self.data is None:
            return
        counts = f"{plural(self.data.attempts, 'answer')} · {plural(self.data.due, 'review')} due"
        summary = self.query_one("#summary", Static)
        width = summary.size.width or self.app.size.width - summary.styles.gutter.width
        for keys in SUMMARY_KEYS:
            line = Content.from_markup(f"{counts} · {keys}")
            if line.cell_length <= width:
                break
        summary.update(line)

    def on_resize(self, event: Resize) -> None:
        # After the refresh, so the table has its new width to fit the columns to.
        self.call_after_refresh(self._fill, resized=True)

    def _width(self, widget: Widget) -> int:
        """``widget``'s width, or before the first layout the screen's: the tables take the whole width,
        and a dashboard known at mount (a snapshot) is then in the very first frame."""
        return widget.size.width or self.app.size.width

    def _fill(self, resized: bool = False) -> None:
        if resized and self.filled_width == self._width(self.query_one("#dashboard")):
            return  # laid out as it was filled: the columns fit already
        self.filled_width = self._width(self.query_one("#dashboard"))
        self._show_summary()
        self._fill_topics()
        self._fill_papers()
        self._show_detail()

    def _fill_topics(self) -> None:
        """The topic rows, in columns that fit the table's current width."""
        topics = self.query_one("#topics", DataTable)
        if self.data is None or not self._width(topics):
            return
        longest = max((len(row.name) for row in self.data.topics), default=0)
        widths = column_widths(self._width(topics) - SCROLLBAR, longest)
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
                cells.append(fit(self._title(row.misconceptions[0][0]), mistake_width) if row.misconceptions else "")
            topics.add_row(*cells, key=row.id)
        topics.move_cursor(row=min(cursor, max(topics.row_count - 1, 0)))

    def _fill_papers(self) -> None:
        """A row per past paper: its year, term and codes, how many of its questions you got right, and
        the topics it examines (as many as fit; the detail line lists them all)."""
        papers = self.query_one("#papers", DataTable)
        width = self._width(self.query_one("#dashboard"))
        if self.data is None or not width:
            return
        rest = max(width - SCROLLBAR - sum(PAPER_FIXED) - PADDING * (len(PAPER_FIXED) + 2), 8)
        cursor = papers.cursor_row
        papers.clear(columns=rest != self.paper_widths)
        if rest != self.paper_widths:
            self.paper_widths = rest
            for label, column in zip(("Paper", "Done", "Topics examined"), (*PAPER_FIXED, rest), strict=True):
                papers.add_column(label, width=column)
        for paper in self.data.papers:
            papers.add_row(paper.title or paper.paper, f"{paper.done}/{paper.routed}",
                           fit("; ".join(paper.topics), rest), key=paper.paper)
        papers.move_cursor(row=min(cursor, max(papers.row_count - 1, 0)))

    def _title(self, misconception: str) -> str:
        """The catalogue's short title for a misconception id (the id itself when uncatalogued)."""
        titles = self.data.titles if self.data is not None else {}
        return titles.get(misconception) or misconception.replace("_", " ")

    def _mastery(self, row: TopicRow) -> Text:
        """The mastery bar; an untried topic has no estimate yet, so no percentage."""
        if not row.attempts:
            return Text("░" * BAR + "    –", style="dim")
        return mastery_bar(row.mastery, BAR, mastered=row.mastered, light=not self.app.current_theme.dark)

    def _papers_shown(self) -> bool:
        return self.has_class("-papers")

    def _tab_bar(self) -> Content:
        """`Topics  Past papers`, the one shown highlighted."""
        papers = self._papers_shown()
        return Content.assemble(("Topics", "" if papers else "reverse bold"), "   ",
                                ("Past papers", "reverse bold" if papers else ""), ("   tab switches", "dim"))

    @on(DataTable.RowHighlighted)
    def row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_detail()

    def action_switch_tab(self) -> None:
        """Show the other table (the stylesheet hides one by the screen's ``-papers`` class)."""
        self.toggle_class("-papers")
        self.query_one("#tab-bar", Static).update(self._tab_bar())
        self.query_one("#papers" if self._papers_shown() else "#topics", DataTable).focus()
        self._show_detail()

    def _show_detail(self) -> None:
        """The highlighted row in full: a topic's name, size and mistakes made in it; a paper's topics."""
        if self.data is None:
            return
        if self._papers_shown():
            index = self.query_one("#papers", DataTable).cursor_row
            if 0 <= index < len(self.data.papers):
                self.query_one("#topic-detail", Static).update(self._paper_detail(self.data.papers[index]))
            return
        index = self.query_one("#topics", DataTable).cursor_row
        if not 0 <= index < len(self.data.topics):
            return
        row: TopicRow = self.data.topics[index]
        mistakes = (", ".join(f"{self._title(m)} ×{n}" for m, n in row.misconceptions)
                    if row.misconceptions else "none recorded")
        self.query_one("#topic-detail", Static).update(Content.assemble(
            (row.name, "bold"), f" · week {row.week} · {plural(row.templates, 'question')} · "
            f"{plural(row.attempts, 'try', 'tries')} · mistakes: {mistakes}"))

    @staticmethod
    def _paper_detail(paper: PaperRow) -> Content:
        return Content.assemble(
            (paper.title or paper.paper, "bold"), f" ({paper.paper}) · {paper.done} of {paper.routed} routed "
            f"questions right · topics: {'; '.join(paper.topics) or 'none routed'}")

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
        if topics.row_count and not self._papers_shown():
            key = topics.coordinate_to_cell_key(topics.cursor_coordinate).row_key.value
            self.post_message(self.PractiseRequested(key))
