"""The teacher's report as text, Markdown, HTML (one self-contained file, inline SVG charts) or JSON.

The item analysis section is written by ``render_items``; this module places it last."""

from __future__ import annotations

import dataclasses
import html
import json
import textwrap
from collections.abc import Callable
from datetime import datetime

from quizzer.reporting.items import ItemAnalysis
from quizzer.reporting.render_items import HEADING, html_section, markdown_section, text_section
from quizzer.reporting.report import (
    BINS,
    MIN_LEARNERS,
    RECENT_DAYS,
    RECENT_MINIMUM,
    ClassReport,
    TopicDistribution,
    describe_scope,
)

BLOCKS = " ▁▂▃▄▅▆▇█"
BIN_LABELS = tuple(f"{100 * i // BINS}–{100 * (i + 1) // BINS}%" for i in range(BINS))
BIN_COLOURS = ("#c0392b", "#e67e22", "#f1c40f", "#7fb800", "#27ae60")  # low mastery red … high green


def _title(report: ClassReport) -> str:
    return f"Class report: {describe_scope(paper=report.paper, topic=report.topic)}"


def _facts(report: ClassReport) -> str:
    return (f"{report.learners} learners, {report.attempts} answers, "
            f"generated {report.generated_at:%Y-%m-%d %H:%M} UTC")


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.0%}"


def _spark(histogram: tuple[int, ...]) -> str:
    top = max(histogram) or 1
    return "".join(BLOCKS[round(n / top * (len(BLOCKS) - 1))] if n else "·" for n in histogram)


_NO_HARDEST = f"None yet: no question has been tried by {MIN_LEARNERS} learners."


def _sentence(text: str) -> str:
    return f"{text[0].upper()}{text[1:]}."


def _behind_rule() -> str:
    return (f"behind = mean mastery below the class's lower quartile, or fewer than {RECENT_MINIMUM} "
            f"answers in the last {RECENT_DAYS} days")


# --- text ---------------------------------------------------------------------------------------

WIDTH = 80  # a terminal's columns: long names and titles are cut short with an ellipsis, reasons wrap


def _fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[:width - 1].rstrip() + "…"


def render_text(report: ClassReport) -> str:
    lines = [_title(report), _facts(report)]
    for heading, body in (("Mastery by topic (quartiles over the learners who started it)", _text_mastery),
                          ("Most frequent misconceptions", _text_misconceptions),
                          (f"Hardest questions (first-try accuracy, at least {MIN_LEARNERS} learners)", _text_hardest),
                          ("Learners behind", _text_behind),
                          (HEADING, lambda r: text_section(r.items, WIDTH))):
        lines += ["", heading, *body(report)]
    return "\n".join(lines) + "\n"


def _text_mastery(report: ClassReport) -> list[str]:
    numbers = f" {'started':>7} {'q1':>4} {'median':>6} {'q3':>4} {'mastered':>8}  {'0→100%':<6}"
    name_width = WIDTH - 2 - len(numbers)
    lines = [f"  {'topic':<{name_width}}{numbers}"]
    for t in report.topics:
        q1, q2, q3 = t.quartiles or (None, None, None)
        started = f"{t.learners}/{t.learners + t.not_started}"
        lines.append(f"  {_fit(f'W{t.week} {t.name}', name_width):<{name_width}} {started:>7} {_pct(q1):>4} "
                     f"{_pct(q2):>6} {_pct(q3):>4} {t.mastered:>8}  {_spark(t.histogram)}")
    return lines


def _text_misconceptions(report: ClassReport) -> list[str]:
    lines = []
    for t in report.topics:
        rows = report.misconceptions.get(t.topic, [])
        lines += [f"  {_fit(t.name, WIDTH - 2)}"] if rows else []
        lines += [_fit(f"    {m.attempts:>4}× by {m.learners:>3} learner{'s' if m.learners != 1 else ' '}  {m.title}",
                       WIDTH) for m in rows]
    return lines or ["  none recorded"]


def _text_hardest(report: ClassReport) -> list[str]:
    key_width = max((len(q.key) for q in report.hardest), default=0)
    return [_fit(f"  {q.first_try_accuracy:>4.0%} of {q.learners:>3}  {q.key:<{key_width}}  {q.title}", WIDTH)
            for q in report.hardest] or [f"  {_NO_HARDEST}"]


def _text_behind(report: ClassReport) -> list[str]:
    lines = textwrap.wrap(_sentence(_behind_rule()), WIDTH, initial_indent="  ", subsequent_indent="  ")
    if not report.behind:
        return [*lines, "  nobody"]
    name_width = min(max(len(b.name) for b in report.behind), 24)
    lines.append(f"  {'learner':<{name_width}}  mastery  {f'last {RECENT_DAYS} days':>11}  why")
    for b in report.behind:
        row = f"  {b.name:<{name_width}}  {b.mean_mastery:>7.0%}  {b.recent_attempts:>11}  "
        lines += [_fit(f"{row if i == 0 else ' ' * len(row)}{reason}", WIDTH) for i, reason in enumerate(b.reasons)]
    return lines


# --- Markdown -----------------------------------------------------------------------------------

def _md_table(headers: list[str], numeric: set[int], rows: list[list[str]], empty: str) -> list[str]:
    """A pipe table (numbers right-aligned), or ``empty`` as a sentence when there are no rows."""
    if not rows:
        return [empty]
    def line(cells: list[str]) -> str:
        return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"
    return [line(headers), "|" + "|".join("---:" if i in numeric else "---" for i in range(len(headers))) + "|",
            *map(line, rows)]


def render_markdown(report: ClassReport) -> str:
    names = {t.topic: t.name for t in report.topics}
    lines = [f"# {_title(report)}", "", f"{_facts(report)}.", "", "## Mastery by topic", "",
             "Each learner’s level as on their dashboard; quartiles over those who started the topic.", "",
             *_md_table(["week", "topic", "started", "q1", "median", "q3", "mastered", "histogram 0→100%"],
                        {0, 2, 3, 4, 5, 6},
                        [[str(t.week), t.name, f"{t.learners}/{t.learners + t.not_started}",
                          *(_pct(q) for q in t.quartiles or (None, None, None)), str(t.mastered),
                          f"`{_spark(t.histogram)}`"] for t in report.topics], "No topics in scope."),
             "", "## Most frequent misconceptions", "",
             *_md_table(["topic", "misconception", "answers", "learners"], {2, 3},
                        [[names[topic] if i == 0 else "", m.title, str(m.attempts), str(m.learners)]
                         for topic, rows in report.misconceptions.items() for i, m in enumerate(rows)],
                        "None recorded."),
             "", "## Hardest questions", "", f"First-try accuracy, at least {MIN_LEARNERS} learners.", "",
             *_md_table(["question", "title", "first try", "learners"], {2, 3},
                        [[f"`{q.key}`", q.title, _pct(q.first_try_accuracy), str(q.learners)]
                         for q in report.hardest], _NO_HARDEST),
             "", "## Learners behind", "", _sentence(_behind_rule()), "",
             *_md_table(["learner", "mean mastery", f"answers, last {RECENT_DAYS} days", "why"], {1, 2},
                        [[b.name, _pct(b.mean_mastery), str(b.recent_attempts), "; ".join(b.reasons)]
                         for b in report.behind], "Nobody."),
             "", *markdown_section(report.items)]
    return "\n".join(lines) + "\n"


# --- HTML ---------------------------------------------------------------------------------------

NOT_STARTED_COLOUR = "#d5d9e3"
STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; color: #1d2330; margin: 2rem auto; max-width: 62rem; padding: 0 1rem; }
h1 { font-size: 1.45rem; margin-bottom: .2rem; }
h3 { font-size: 1rem; margin-top: 1.4rem; }
h2 { font-size: 1.15rem; margin-top: 2rem; border-bottom: 1px solid #dde; }
table { border-collapse: collapse; width: 100%; }
td, th { padding: .3rem .5rem; text-align: left; vertical-align: middle; }
th { font-weight: 600; color: #556; border-bottom: 1px solid #ccd; white-space: nowrap; }
tr:nth-child(even) td { background: #f6f7fb; }
table.grouped tr td { background: none; } table.grouped tbody { border-top: 1px solid #dde; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; } .note { color: #556; }
.legend span { display: inline-block; width: .8rem; height: .8rem; margin: 0 .25rem 0 .8rem; vertical-align: -1px; }
code { font-size: .9em; white-space: nowrap; }
"""


def _e(text: object) -> str:
    return html.escape(str(text))


def _distribution_svg(t: TopicDistribution, width: int = 260, height: int = 18) -> str:
    """The whole class as one bar: the learners who started the topic split by their mastery
    fifth, then those who have not started it, so a bar shows both how far and how many."""
    segments = [*zip(t.histogram, BIN_COLOURS, BIN_LABELS, strict=True),
                (t.not_started, NOT_STARTED_COLOUR, "not started")]
    total = sum(count for count, _, _ in segments) or 1
    parts, x = [], 0.0
    for count, colour, label in segments:
        if count:
            w = width * count / total
            parts.append(f'<rect x="{x:.1f}" y="0" width="{w:.1f}" height="{height}" fill="{colour}">'
                         f"<title>{count} learner(s): {label}</title></rect>")
            x += w
    return (f'<svg width="{width}" height="{height}" role="img" aria-label="learners of {_e(t.name)} by mastery">'
            + "".join(parts) + "</svg>")


def _accuracy_svg(accuracy: float, width: int = 160, height: int = 14) -> str:
    return (f'<svg width="{width}" height="{height}" role="img" aria-label="{accuracy:.0%} right at the first try">'
            f'<rect width="{width}" height="{height}" fill="#e3e6ef"/>'
            f'<rect width="{accuracy * width:.1f}" height="{height}" fill="#2e6fd8"/></svg>')


def _table(headers: list[str], groups: list[list[list[str]]], numeric: set[int], empty: str) -> str:
    """A table with one ``<tbody>`` per group of rows (several: drawn as groups), or ``empty`` as a note."""
    if not any(groups):
        return f'<p class="note">{empty}</p>'
    def cells(row: list[str], tag: str) -> str:
        return "".join(f'<{tag} class="n">{c}</{tag}>' if i in numeric else f"<{tag}>{c}</{tag}>"
                       for i, c in enumerate(row))
    bodies = "".join("<tbody>" + "".join(f"<tr>{cells(row, 'td')}</tr>" for row in rows) + "</tbody>"
                     for rows in groups)
    grouped = ' class="grouped"' if len(groups) > 1 else ""
    return f"<table{grouped}><thead><tr>{cells(headers, 'th')}</tr></thead>{bodies}</table>"


def render_html(report: ClassReport) -> str:
    legend = "".join(f'<span style="background:{colour}"></span>{label}' for colour, label in
                     zip((*BIN_COLOURS, NOT_STARTED_COLOUR), (*BIN_LABELS, "not started"), strict=True))
    names = {t.topic: t.name for t in report.topics}
    sections = [
        f"<h1>{_e(_title(report))}</h1>", f'<p class="note">{_e(_facts(report))}</p>',
        "<h2>Mastery by topic</h2>",
        '<p class="note">Each learner’s level as on their dashboard; quartiles over those who started the topic. '
        f'Each bar is the whole class, split by mastery.</p><p class="legend">{legend}</p>',
        _table(["Wk", "Topic", "Started", "Q1 · median · Q3", "Mastered", "Learners by mastery"],
               [[[str(t.week), _e(t.name), f"{t.learners}/{t.learners + t.not_started}",
                  " · ".join(_pct(q) for q in t.quartiles) if t.quartiles else "–", str(t.mastered),
                  _distribution_svg(t)] for t in report.topics]], {0, 2, 3, 4}, "No topics in scope."),
        "<h2>Most frequent misconceptions</h2>",
        _table(["Topic", "Misconception", "Answers", "Learners"],
               [[[_e(names[topic]) if i == 0 else "", _e(m.title), str(m.attempts), str(m.learners)]
                 for i, m in enumerate(rows)] for topic, rows in report.misconceptions.items()], {2, 3},
               "None recorded."),
        "<h2>Hardest questions</h2>",
        f'<p class="note">First-try accuracy, questions tried by at least {MIN_LEARNERS} learners.</p>',
        _table(["Question", "Title", "First try", "", "Learners"],
               [[[f"<code>{_e(q.key)}</code>", _e(q.title), _pct(q.first_try_accuracy),
                  _accuracy_svg(q.first_try_accuracy), str(q.learners)] for q in report.hardest]], {2, 4},
               _NO_HARDEST),
        "<h2>Learners behind</h2>", f'<p class="note">{_e(_sentence(_behind_rule()))}</p>',
        _table(["Learner", "Mean mastery", f"Answers, last {RECENT_DAYS} days", "Why"],
               [[[_e(b.name), _pct(b.mean_mastery), str(b.recent_attempts), _e("; ".join(b.reasons))]
                 for b in report.behind]], {1, 2}, "Nobody."),
        *html_section(report.items, _table),
    ]
    return _page(_title(report), sections)


def _page(title: str, sections: list[str]) -> str:
    return ("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{_e(title)}</title><style>{STYLE}</style></head><body>\n"
            + "\n".join(sections) + "\n</body></html>\n")


# --- JSON ---------------------------------------------------------------------------------------

def render_json(report: ClassReport) -> str:
    def default(value: object) -> str:
        if isinstance(value, datetime):
            return value.isoformat()
        raise TypeError(type(value).__name__)

    return json.dumps(dataclasses.asdict(report), indent=2, ensure_ascii=False, default=default) + "\n"


RENDERERS: dict[str, Callable[[ClassReport], str]] = {
    "text": render_text, "md": render_markdown, "html": render_html, "json": render_json}


def render_item_analysis(analysis: ItemAnalysis, fmt: str, title: str) -> str:
    """The item analysis alone (``quizzer report --results``: a class's results from another system)."""
    if fmt == "json":
        return json.dumps(dataclasses.asdict(analysis), indent=2, ensure_ascii=False) + "\n"
    if fmt == "md":
        return "\n".join([f"# {title}", "", *markdown_section(analysis)]) + "\n"
    if fmt == "html":
        return _page(title, [f"<h1>{_e(title)}</h1>", *html_section(analysis, _table)])
    return "\n".join([title, *text_section(analysis, WIDTH)]) + "\n"
