"""The teacher's report as text, Markdown, HTML (one self-contained file, inline SVG charts) or JSON."""

from __future__ import annotations

import dataclasses
import html
import json
from collections.abc import Callable
from datetime import datetime

from quizzer.report import (
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


def _heading(report: ClassReport) -> str:
    scope = describe_scope(paper=report.paper, topic=report.topic)
    return (f"Class report: {report.learners} learners, {report.attempts} answers ({scope}), "
            f"{report.generated_at:%Y-%m-%d %H:%M} UTC")


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.0%}"


def _spark(histogram: tuple[int, ...]) -> str:
    top = max(histogram) or 1
    return "".join(BLOCKS[round(n / top * (len(BLOCKS) - 1))] if n else "·" for n in histogram)


def _behind_rule() -> str:
    return (f"behind = mean mastery below the class's lower quartile, or fewer than {RECENT_MINIMUM} "
            f"answers in the last {RECENT_DAYS} days")


# --- text ---------------------------------------------------------------------------------------

def render_text(report: ClassReport) -> str:
    lines = [_heading(report), "", "Mastery by topic (BKT; quartiles over the learners who started it)"]
    width = max((len(t.name) for t in report.topics), default=10) + 4
    lines.append(f"  {'topic':<{width}} {'started':>8} {'q1':>5} {'median':>6} {'q3':>5} {'mastered':>8}  "
                 f"histogram 0→100%")
    for t in report.topics:
        q1, q2, q3 = t.quartiles or (None, None, None)
        lines.append(f"  W{t.week} {t.name:<{width - 3}} {t.learners:>4}/{t.learners + t.not_started:<3} "
                     f"{_pct(q1):>5} {_pct(q2):>6} {_pct(q3):>5} {t.mastered:>8}  {_spark(t.histogram)}")
    lines += ["", "Most frequent misconceptions"]
    for t in report.topics:
        for i, m in enumerate(report.misconceptions.get(t.topic, [])):
            label = f"  {t.name}" if i == 0 else ""
            lines.append(f"{label:<{width + 2}} {m.attempts:>4}× by {m.learners:>2} learners  {m.title}")
    if not report.misconceptions:
        lines.append("  none recorded")
    lines += ["", f"Hardest questions (first-try accuracy, at least {MIN_LEARNERS} learners)"]
    lines += [f"  {q.first_try_accuracy:>5.0%} of {q.learners:>3}  {q.key}  {q.title}" for q in report.hardest]
    lines += ["", f"Learners behind ({_behind_rule()})"]
    lines += [f"  {b.name:<20} mastery {b.mean_mastery:>4.0%}  {b.recent_attempts:>3} recent  {'; '.join(b.reasons)}"
              for b in report.behind] or ["  nobody"]
    return "\n".join(lines) + "\n"


# --- Markdown -----------------------------------------------------------------------------------

def render_markdown(report: ClassReport) -> str:
    lines = [f"# {_heading(report)}", "", "## Mastery by topic", "",
             "BKT estimate; quartiles over the learners who started the topic.", "",
             "| week | topic | started | q1 | median | q3 | mastered | histogram 0→100% |",
             "|---:|---|---:|---:|---:|---:|---:|---|"]
    for t in report.topics:
        q1, q2, q3 = t.quartiles or (None, None, None)
        lines.append(f"| {t.week} | {t.name} | {t.learners}/{t.learners + t.not_started} | {_pct(q1)} | "
                     f"{_pct(q2)} | {_pct(q3)} | {t.mastered} | `{_spark(t.histogram)}` |")
    lines += ["", "## Most frequent misconceptions", "", "| topic | misconception | answers | learners |",
              "|---|---|---:|---:|"]
    names = {t.topic: t.name for t in report.topics}
    lines += [f"| {names[topic] if i == 0 else ''} | {m.title} | {m.attempts} | {m.learners} |"
              for topic, rows in report.misconceptions.items() for i, m in enumerate(rows)]
    lines += ["", "## Hardest questions", "", f"First-try accuracy, at least {MIN_LEARNERS} learners.", "",
              "| question | title | first try | learners |", "|---|---|---:|---:|"]
    lines += [f"| `{q.key}` | {q.title} | {q.first_try_accuracy:.0%} | {q.learners} |" for q in report.hardest]
    lines += ["", "## Learners behind", "", f"{_behind_rule()[0].upper()}{_behind_rule()[1:]}.", "",
              "| learner | mean mastery | answers, last 7 days | why |", "|---|---:|---:|---|"]
    lines += [f"| {b.name} | {b.mean_mastery:.0%} | {b.recent_attempts} | {'; '.join(b.reasons)} |"
              for b in report.behind]
    return "\n".join(lines) + "\n"


# --- HTML ---------------------------------------------------------------------------------------

STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; color: #1d2330; margin: 2rem auto; max-width: 62rem; padding: 0 1rem; }
h1 { font-size: 1.45rem; } h2 { font-size: 1.15rem; margin-top: 2rem; border-bottom: 1px solid #dde; }
table { border-collapse: collapse; width: 100%; }
td, th { padding: .3rem .5rem; text-align: left; vertical-align: middle; }
th { font-weight: 600; color: #556; border-bottom: 1px solid #ccd; } tr:nth-child(even) td { background: #f6f7fb; }
td.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; } .note { color: #556; }
.legend span { display: inline-block; width: .8rem; height: .8rem; margin: 0 .25rem 0 .8rem; vertical-align: -1px; }
code { font-size: .9em; }
"""


def _e(text: object) -> str:
    return html.escape(str(text))


def _distribution_svg(t: TopicDistribution, width: int = 260, height: int = 18) -> str:
    """The learners who started the topic as one bar, split by their mastery fifth."""
    total = sum(t.histogram)
    if not total:
        return '<span class="note">nobody yet</span>'
    parts, x = [], 0.0
    for count, colour, label in zip(t.histogram, BIN_COLOURS, BIN_LABELS, strict=False):
        w = width * count / total
        if count:
            parts.append(f'<rect x="{x:.1f}" y="0" width="{w:.1f}" height="{height}" fill="{colour}">'
                         f"<title>{count} learner(s) at {label}</title></rect>")
        x += w
    return (f'<svg width="{width}" height="{height}" role="img" aria-label="learners of {_e(t.name)} by mastery">'
            + "".join(parts) + "</svg>")


def _accuracy_svg(accuracy: float, width: int = 160, height: int = 14) -> str:
    return (f'<svg width="{width}" height="{height}"><rect width="{width}" height="{height}" fill="#e3e6ef"/>'
            f'<rect width="{accuracy * width:.1f}" height="{height}" fill="#2e6fd8"/></svg>')


def _table(headers: list[str], rows: list[list[str]], numeric: set[int]) -> str:
    head = "".join(f"<th>{h}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f'<td class="n">{c}</td>' if i in numeric else f"<td>{c}</td>"
                                    for i, c in enumerate(row)) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def render_html(report: ClassReport) -> str:
    legend = "".join(f'<span style="background:{colour}"></span>{label}'
                     for colour, label in zip(BIN_COLOURS, BIN_LABELS, strict=True))
    names = {t.topic: t.name for t in report.topics}
    sections = [
        f"<h1>{_e(_heading(report))}</h1>",
        "<h2>Mastery by topic</h2>",
        f'<p class="note">BKT estimate per learner, over the learners who started the topic. Each bar '
        f'splits them by mastery.</p><p class="legend">{legend}</p>',
        _table(["Wk", "Topic", "Started", "Q1 · median · Q3", "Mastered", "Learners by mastery"],
               [[str(t.week), _e(t.name), f"{t.learners}/{t.learners + t.not_started}",
                 " · ".join(_pct(q) for q in t.quartiles) if t.quartiles else "–", str(t.mastered),
                 _distribution_svg(t)] for t in report.topics], {0, 2, 3, 4}),
        "<h2>Most frequent misconceptions</h2>",
        _table(["Topic", "Misconception", "Answers", "Learners"],
               [[_e(names[topic]) if i == 0 else "", _e(m.title), str(m.attempts), str(m.learners)]
                for topic, rows in report.misconceptions.items() for i, m in enumerate(rows)], {2, 3}),
        "<h2>Hardest questions</h2>",
        f'<p class="note">First-try accuracy, questions tried by at least {MIN_LEARNERS} learners.</p>',
        _table(["Question", "Title", "First try", "", "Learners"],
               [[f"<code>{_e(q.key)}</code>", _e(q.title), _pct(q.first_try_accuracy),
                 _accuracy_svg(q.first_try_accuracy), str(q.learners)] for q in report.hardest], {2, 4}),
        "<h2>Learners behind</h2>",
        f'<p class="note">{_e(_behind_rule()[0].upper() + _behind_rule()[1:])}.</p>',
        _table(["Learner", "Mean mastery", f"Answers, last {RECENT_DAYS} days", "Why"],
               [[_e(b.name), _pct(b.mean_mastery), str(b.recent_attempts), _e("; ".join(b.reasons))]
                for b in report.behind], {1, 2}),
    ]
    return ("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{_e(_heading(report))}</title><style>{STYLE}</style></head><body>\n"
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
