"""The mock exam's first phase: the routed papers (size, time allowed, topics), a seed and a timer.

Apart from :mod:`quizzer.tui.screens.exam` because it shares nothing with the sitting but the
choice it ends in (:class:`PaperPicker.Chosen`); the exam screen keeps the keys (``r``, ``t``) that
act on it, so that its footer shows them only in this phase.
"""

from __future__ import annotations

from collections import Counter

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import DataTable, Input, Label, Select, Static

from quizzer.learning.dashboard import paper_title, paper_topics
from quizzer.learning.study import Study
from quizzer.tui.screens.dashboard import fit

TIMER_CHOICES = ((0, "No timer"), (1, "1 min per question"), (2, "2 min per question"),
                 (3, "3 min per question"), (5, "5 min per question"))
DEFAULT_MINUTES = 2


class PaperPicker(Vertical):
    """Posts :class:`PaperPicker.Chosen` when a paper is picked (enter on its row)."""

    class Chosen(Message):
        def __init__(self, paper: str, seed: int) -> None:
            self.paper, self.seed = paper, seed
            super().__init__()

    def __init__(self, study: Study, *, id: str | None = None) -> None:  # noqa: A002 (Textual's name)
        super().__init__(id=id)
        self.study = study
        # A paper's size in its routed questions, as the dashboard counts it (a chain asks several).
        self.counts: Counter[str] = Counter()
        for template in study.templates.values():
            if template.paper:
                self.counts[template.paper] += len(template.routed_ids)

    def compose(self) -> ComposeResult:
        yield Static("Sit a routed paper with fresh numbers. Each answer is saved as you give it, but "
                     "nothing is marked until you finish; until then you can move between questions "
                     "and change any answer. [b]enter[/] starts the highlighted paper.", id="exam-intro")
        with Horizontal(id="exam-options"):
            yield Label("Seed", classes="exam-label")
            yield Input(type="integer", id="exam-seed", tooltip="The same seed gives the same numbers")
            yield Label("Timer", classes="exam-label")
            yield Select([(label, minutes) for minutes, label in TIMER_CHOICES], value=DEFAULT_MINUTES,
                         allow_blank=False, id="exam-timer")
        yield DataTable(id="exam-papers", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        self.query_one("#exam-seed", Input).value = str(self._draw_seed())
        papers = self.query_one("#exam-papers", DataTable)
        # The topics take what the other columns leave (cut with an ellipsis): no sideways scrolling at 80 columns.
        fixed = {"Paper": 15, "Code": 12, "Qs": 3, "Time": 7}
        self.topics_width = max(self.app.size.width - sum(fixed.values()) - 2 * (len(fixed) + 1) - 4, 10)
        for label, width in (*fixed.items(), ("Topics examined", self.topics_width)):
            papers.add_column(label, width=width)
        self._fill_papers()
        papers.focus()

    @property
    def minutes(self) -> int:
        """Minutes per question (0: no timer), read from the Select itself: it takes a new value at
        once, while its Changed message comes later, so a second `t` pressed before that message is
        handled would cycle from the old choice and the press would be lost."""
        # allow_blank=False: the value is never NoSelection.
        return int(self.query_one("#exam-timer", Select).value)  # type: ignore[arg-type]

    def _draw_seed(self) -> int:
        return self.study.rng.randrange(1, 1_000_000)

    def _fill_papers(self) -> None:
        papers = self.query_one("#exam-papers", DataTable)
        row = papers.cursor_row
        papers.clear()
        catalog = self.study.catalog
        examined = paper_topics(catalog)
        minutes = self.minutes  # one look at the Select, not two per paper
        for paper in catalog.papers:
            count = self.counts[paper]
            allowed = f"{count * minutes} min" if minutes else "untimed"
            papers.add_row(paper_title(catalog, paper), paper, str(count), allowed,
                           fit("; ".join(examined.get(paper, ())), self.topics_width), key=paper)
        papers.move_cursor(row=row)

    def new_seed(self) -> None:
        self.query_one("#exam-seed", Input).value = str(self._draw_seed())

    def cycle_timer(self) -> None:
        choices = [minutes for minutes, _ in TIMER_CHOICES]
        timer = self.query_one("#exam-timer", Select)
        timer.value = choices[(choices.index(self.minutes) + 1) % len(choices)]

    @on(Select.Changed, "#exam-timer")
    def timer_changed(self) -> None:
        self._fill_papers()

    @on(DataTable.RowSelected, "#exam-papers")
    def paper_chosen(self, event: DataTable.RowSelected) -> None:
        event.stop()
        seed_input = self.query_one("#exam-seed", Input)
        if not seed_input.value.lstrip("-").isdigit():
            seed_input.value = str(self._draw_seed())
        self.post_message(self.Chosen(str(event.row_key.value), int(seed_input.value)))


__all__ = ["DEFAULT_MINUTES", "PaperPicker"]
