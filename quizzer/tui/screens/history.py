"""History: accuracy and mastery over time per topic, and every answer given so far."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import accumulate

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.events import Resize
from textual.screen import Screen
from textual.widgets import DataTable, Header, Select, Static
from textual_plotext import Plot, PlotextPlot

from quizzer.bank.models import Attempt
from quizzer.common.untrusted import terminal_safe
from quizzer.grading.verdict import rating_named
from quizzer.learning.mastery import DEFAULTS, RECALL_KIND, MasteryParams, MasteryTracker, as_utc
from quizzer.learning.study import Study, graded
from quizzer.templates.parts import part_name
from quizzer.templates.schema import Template
from quizzer.tui.screens.browser import cell, shown_key
from quizzer.tui.screens.dashboard import plural
from quizzer.tui.widgets.steady_footer import SteadyFooter

VERDICTS = {"correct": ("✔ correct", "green"), "partial": ("◐ partial", "yellow"),
            "incorrect": ("✘ incorrect", "red")}
TICKS = 6  # dates under the plot's x axis
# Colour names that plotext and Rich read alike, so the key above the plot matches its lines.
MASTERY_COLOR, ACCURACY_COLOR = "cyan", "magenta"
WHEN = len("yesterday 23:59")
FIXED = WHEN + 12 + 5 + 5  # the when, verdict, score and time columns
EMPTY = ("[b]No answers yet.[/]\n\nPractise a few questions ([b]enter[/] on the dashboard) and your accuracy "
         "and mastery per topic will be plotted here, answer by answer.")


@dataclass(frozen=True)
class Point:
    """One topic just after one attempt on it."""

    number: int  # the attempt's position in the whole history, from 1
    mastery: float  # the topic's mastery level after the attempt
    accuracy: float  # mean score of the topic's attempts so far


def topic_series(attempts: Sequence[Attempt], templates: Mapping[str, Template],
                 params: MasteryParams = DEFAULTS) -> dict[str, list[Point]]:
    """Replay the history in order through the mastery model, keeping every step per topic."""
    tracker = MasteryTracker(templates, params)
    scores: dict[str, float] = {}
    series: dict[str, list[Point]] = {}
    ordered = sorted(attempts, key=lambda attempt: as_utc(attempt.created_at))  # stable, like replay
    for number, attempt in enumerate(ordered, 1):
        for topic in tracker.fold(graded(attempt)):
            state = tracker.topic(topic)
            scores[topic] = scores.get(topic, 0.0) + attempt.score
            series.setdefault(topic, []).append(Point(number, state.level, scores[topic] / state.attempts))
    return series


def course_mastery(series: Mapping[str, Sequence[Point]], topics: Sequence[str], count: int,
                   p_init: float = DEFAULTS.prior_level) -> list[float]:
    """Mean mastery over ``topics`` after each of ``count`` attempts (a topic not yet tried is at ``p_init``)."""
    changes: dict[int, list[tuple[str, float]]] = {}
    for topic, points in series.items():
        for point in points:
            changes.setdefault(point.number, []).append((topic, point.mastery))
    current = dict.fromkeys(topics, p_init)
    means = []
    for number in range(1, count + 1):
        current.update((topic, mastery) for topic, mastery in changes.get(number, ()) if topic in current)
        means.append(sum(current.values()) / len(current))
    return means


def running_mean(values: Sequence[float]) -> list[float]:
    """The mean of the first 1, 2, … values."""
    return [total / n for n, total in enumerate(accumulate(values), 1)]


def friendly_time(at: datetime, now: datetime) -> str:
    """A UTC instant in the local zone, as near to now as it is: "today 14:05", "Mon 09:30", "3 Nov 2025"."""
    local, today = as_utc(at).astimezone(), as_utc(now).astimezone().date()
    days, clock = (today - local.date()).days, f"{local:%H:%M}"
    if days == 0:
        return f"today {clock}"
    if days == 1:
        return f"yesterday {clock}"
    if 1 < days < 7:
        return f"{local:%a} {clock}"
    if local.year == today.year:
        return f"{local.day} {local:%b} {clock}"
    return f"{local.day} {local:%b %Y}"


def _question(attempt: Attempt) -> str:
    """The question an answer was to, with its part's label for a part of a multi-part question."""
    return part_name(shown_key(attempt.template_key), attempt.part)


class HistoryScreen(Screen[None]):
    """Mastery and accuracy over time, for one topic or the whole course, above every past answer."""

    CSS_PATH = "../styles/history.tcss"
    BINDINGS = [Binding("escape", "app.pop_screen", "Back"), Binding("t", "choose_topic", "Topic")]

    def __init__(self, study: Study) -> None:
        super().__init__()
        self.study = study
        self.attempts = study.attempts()  # oldest first
        self.retries = study.retries()  # second tries, by the attempt they follow (never counted as answers)
        self.topic: str | None = None  # the topic chosen above the chart (None: all)
        self.series = topic_series(self.attempts, study.templates)
        self.width = 0  # the width the table's columns were last fitted to

    def compose(self) -> ComposeResult:
        yield Header()
        if not self.attempts:
            yield Static(EMPTY, id="history-empty")
        else:
            topics = [topic for topic in self.study.catalog.topics.values() if topic.id in self.series]
            with Horizontal(id="history-bar"):
                yield Select(((f"W{t.week} {t.name} ({len(self.series[t.id])})", t.id) for t in topics),
                             prompt="All topics", id="history-topic", compact=True)
                yield Static(self._summary(), id="history-summary")
            yield Static("", id="history-legend")
            yield PlotextPlot(id="history-plot")
            yield DataTable(id="history-table", cursor_type="row", zebra_stripes=True)
            yield Static("", id="history-detail")
        yield SteadyFooter()

    def on_mount(self) -> None:
        if self.attempts:
            self.draw(None)
            self.query_one("#history-table", DataTable).focus()

    def on_resize(self, event: Resize) -> None:
        """Fit the question and misconception columns to the width, cutting long text with an ellipsis."""
        if not self.attempts or event.size.width == self.width:
            return
        self.width = event.size.width
        free = max(self.width - 2 - 6 * 2 - FIXED, 30)  # minus the scrollbar and one cell of padding each side
        longest = max(len(_question(attempt)) for attempt in self.attempts)
        question = min(longest, max(17, min(free * 3 // 5, free - len("Misconception"))))
        table = self.query_one("#history-table", DataTable)
        row = table.cursor_row
        table.clear(columns=True)
        table.add_column("When", width=WHEN)
        table.add_column("Question", width=question)
        table.add_column("Verdict", width=12)
        table.add_column("Score", width=5)
        table.add_column("Time", width=5)
        table.add_column("Misconception", width=free - question)
        self._fill_table()
        table.move_cursor(row=row, animate=False)

    def _shown(self) -> list[Attempt]:
        """The answers the list shows: the chosen topic's (to a question listing it), else all."""
        if self.topic is None:
            return self.attempts
        templates = self.study.templates
        return [attempt for attempt in self.attempts
                if attempt.template_key in templates and self.topic in templates[attempt.template_key].topics]

    def _fill_table(self) -> None:
        """The answers, newest first (of the chosen topic, when one is chosen)."""
        table = self.query_one("#history-table", DataTable)
        if not table.columns:
            return  # not fitted to a width yet: on_resize fills it
        table.clear()
        now = self.study.clock()
        for attempt in reversed(self._shown()):
            if self._self_rated(attempt):  # the student's own rating, not a mark: shown as the mock exam does
                label, style, score = f"◇ {rating_named(attempt.response) or 'rated'}", "italic", "–"
            else:
                label, style = VERDICTS.get(attempt.verdict, (attempt.verdict, ""))
                if attempt.carried_forward:  # right on the learner's own earlier value, as the app said
                    label = f"{label[0]} your value"
                if attempt.id in self.retries:  # the first answer (what counts), then the second try's mark
                    label = f"{label[0]} → {VERDICTS[self.retries[attempt.id][-1].verdict][0][0]} retry"
                score = f"{attempt.score:.0%}"
            table.add_row(friendly_time(attempt.created_at, now), cell(_question(attempt)),
                          Text(label, style=style), score,
                          f"{attempt.seconds:.0f} s" if attempt.seconds is not None else "–",
                          cell(self._misconception(attempt.misconception)), key=str(attempt.id))

    @on(DataTable.RowHighlighted, "#history-table")
    def answer_highlighted(self, event: DataTable.RowHighlighted) -> None:
        """The highlighted answer's question by its title and its mistake in full: at 80 columns both columns
        are cut to a dozen characters ("Used n-1 in …")."""
        attempt = next(a for a in self.attempts if str(a.id) == event.row_key.value)
        template = self.study.templates.get(attempt.template_key)
        title = template.title if template else shown_key(attempt.template_key)
        mistake = self._misconception(attempt.misconception)
        retried = [(" · ", ("second try: ", "dim"), f"{terminal_safe(retry.response)} {VERDICTS[retry.verdict][0]}")
                   for retry in self.retries.get(attempt.id or 0, [])]
        self.query_one("#history-detail", Static).update(Text.assemble(
            (title, "bold"), f"  {_question(attempt)}", *((" · ", ("mistake: ", "dim"), mistake) if mistake else ()),
            *(part for parts in retried for part in parts)))

    def _summary(self) -> str:
        """How many answers, how many marked right, how many self-rated (as the mock exam counts them)."""
        rated = sum(map(self._self_rated, self.attempts))
        correct = sum(a.verdict == "correct" and not self._self_rated(a) for a in self.attempts)
        return " · ".join([plural(len(self.attempts), "answer"), f"{correct} correct",
                           *([f"{rated} self-rated"] if rated else []), plural(len(self.series), "topic")])

    def _self_rated(self, attempt: Attempt) -> bool:
        template = self.study.templates.get(attempt.template_key)
        return template is not None and template.kind == RECALL_KIND

    def _misconception(self, name: str | None) -> str:
        if not name:
            return ""
        known = self.study.catalog.misconceptions.get(name)
        return known.title if known else terminal_safe(name.replace("_", " "))  # an id the catalogue lacks

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """No topic to choose (and no `t` in the footer) before the first answer."""
        return bool(self.attempts) or action != "choose_topic"

    def action_choose_topic(self) -> None:
        """Open the topic list from anywhere on the screen."""
        topics = self.query_one("#history-topic", Select)
        topics.focus()
        topics.action_show_overlay()

    @on(Select.Changed, "#history-topic")
    def topic_chosen(self, event: Select.Changed) -> None:
        """The chart and the list of answers follow the topic chosen."""
        self.topic = None if event.select.is_blank() else str(event.value)
        self.draw(self.topic)
        self._fill_table()

    def draw(self, topic: str | None) -> None:
        """Plot one topic's mastery and accuracy, or the course's mean mastery and overall accuracy."""
        if topic is None:
            numbers = list(range(1, len(self.attempts) + 1))
            topics = list(self.study.catalog.topics)
            mastery_label = f"mean mastery of all {len(topics)} topics"
            mastery = course_mastery(self.series, topics, len(self.attempts))
            accuracy = running_mean([attempt.score for attempt in self.attempts])
        else:
            points = self.series[topic]
            numbers = [point.number for point in points]
            mastery_label = "mastery"
            mastery, accuracy = [point.mastery for point in points], [point.accuracy for point in points]
        # The key is a line of its own: plotext draws its legend over the top-left of the data.
        self.query_one("#history-legend", Static).update(Text.assemble(
            ("━━ ", MASTERY_COLOR), mastery_label, "   ", ("━━ ", ACCURACY_COLOR), "accuracy so far   ",
            ("── ", "dim"), f"mastered ({DEFAULTS.threshold:.0%})"))
        plot = self.query_one("#history-plot", PlotextPlot)
        plt = plot.plt
        plt.clear_figure()
        plt.horizontal_line(DEFAULTS.threshold, color="gray")  # first, so the data is drawn over it
        for values, color in ((mastery, MASTERY_COLOR), (accuracy, ACCURACY_COLOR)):
            plt.plot(numbers, values, color=color, marker="braille")
            if topic is not None:  # a topic's answers are sparse: mark each one, or a lone answer is a speck
                plt.scatter(numbers, values, color=color, marker="dot")
        plt.ylim(0, 1)
        plt.yticks([0, 0.25, 0.5, DEFAULTS.threshold], ["0%", "25%", "50%", "mastered"])
        self._time_ticks(plt)
        plot.refresh()

    def _time_ticks(self, plt: Plot) -> None:
        """Label answer numbers on the x axis with their dates (or times, when all fall on one day)."""
        count = len(self.attempts)
        numbers = sorted({1 + round(i * (count - 1) / (TICKS - 1)) for i in range(TICKS)})
        moments = [as_utc(self.attempts[n - 1].created_at).astimezone() for n in numbers]
        one_day = moments[0].date() == moments[-1].date()
        labels = [f"{m:%H:%M}" if one_day else f"{m.day} {m:%b}" for m in moments]
        # A label is shown once, at the first answer that has it.
        ticks = [(n, label) for i, (n, label) in enumerate(zip(numbers, labels, strict=True))
                 if label not in labels[:i]]
        plt.xticks([n for n, _ in ticks], [label for _, label in ticks])
        plt.xlim(0.5, count + 0.5)
