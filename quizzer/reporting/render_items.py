"""The item analysis section of the teacher's report, as text, Markdown and HTML (JSON takes the
dataclasses as they are).  ``render`` places these sections; the numbers come from ``items``."""

from __future__ import annotations

import html
import textwrap
from collections.abc import Callable, Sequence

from quizzer.reporting.items import (
    GROUPS,
    LOW_DISCRIMINATION,
    MIN_ITEM_LEARNERS,
    TOO_EASY,
    TOO_HARD,
    Flag,
    ItemAnalysis,
    ItemStats,
    Share,
    VariantStats,
)
from quizzer.reporting.rasch import Estimate

RESPONSE_WIDTH = 18  # a typed answer (a matrix, say) is cut to this in the tables

HEADING = "Item analysis"
EXPLAIN = (f"One first try per learner and question. Facility = mean first-try score; discrimination = corrected "
           f"item-rest correlation. Flags (questions tried by {MIN_ITEM_LEARNERS}+ learners): too easy > {TOO_EASY}, "
           f"too hard < {TOO_HARD}, not discriminating < {LOW_DISCRIMINATION} or negative, a mistake the upper "
           "third makes more than the lower; a variant (version, seed) significantly easier or harder than its "
           "siblings (two-proportion z, Holm-adjusted p < 0.05). Wrong answers and mistakes: shares of the attempts "
           "not right.")


def variant_flags(item: ItemStats) -> list[str]:
    """``variant B easier: 0.92 right at the first try vs 0.61 over the other variants (…, z = +3.4, p = 0.002)``;
    p Holm-adjusted over the question's variants when it has more than two."""
    return [_variant(v) for v in item.variants if v.flag]


def _variant(v: VariantStats) -> str:
    p = "p < 0.001" if v.p < 0.001 else f"p = {v.p:.3f}"
    return (f"variant {v.variant} {v.flag}: {v.facility:.2f} right at the first try vs {v.others:.2f} over the "
            f"other variants ({v.learners} learners; two-proportion z = {v.z:+.1f}, {p})")


def _signed(value: float | None) -> str:
    return "–" if value is None else f"{value:+.2f}"


def _estimate(estimate: Estimate | None) -> str:
    return "–" if estimate is None else f"{estimate.value:+.2f} ± {estimate.se:.2f}"


def _seconds(value: float | None) -> str:
    return "–" if value is None else f"{value:.0f} s"


def _cut(text: str, width: int = RESPONSE_WIDTH) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[:width - 1] + "…"


def _shares(shares: Sequence[Share], *, quoted: bool) -> str:
    return ", ".join(f"{_quote(s.text) if quoted else s.text} {s.share:.0%}" for s in shares) or "–"


def _quote(text: str) -> str:
    return f"“{_cut(text)}”"


def _ability_rows(analysis: ItemAnalysis) -> list[tuple[str, Estimate]]:
    """Learners by estimated ability, strongest first."""
    if analysis.rasch is None:
        return []
    return sorted(analysis.rasch.abilities.items(), key=lambda item: (-item[1].value, item[0]))


def _rasch_note(analysis: ItemAnalysis) -> str:
    note = analysis.rasch_rule
    if analysis.rasch is None:
        return f"{note}."
    fit = analysis.rasch
    extremes = [f"{len(fit.extreme_items)} question(s)" if fit.extreme_items else "",
                f"{len(fit.extreme_learners)} learner(s)" if fit.extreme_learners else ""]
    left_out = " and ".join(e for e in extremes if e)
    return (f"{note}. Conditional ML (as eRm), logits, difficulties centred at 0; ± one standard error"
            + (f"; not estimated (all right or all wrong): {left_out}" if left_out else "") + ".")


# --- text ---------------------------------------------------------------------------------------

def text_section(analysis: ItemAnalysis, width: int) -> list[str]:
    lines = textwrap.wrap(EXPLAIN, width, initial_indent="  ", subsequent_indent="  ")
    numbers = f" {'lrn':>4} {'att':>5} {'facil':>5} {'discr':>6} {'Rasch b ± se':>13} {'median':>6}"
    key_width = width - 2 - len(numbers)
    lines.append(f"  {'question':<{key_width}}{numbers}")
    for item in analysis.items:
        lines.append(f"  {_fit(item.key, key_width):<{key_width}} {item.learners:>4} {item.attempts:>5} "
                     f"{item.facility:>5.2f} {_signed(item.discrimination):>6} {_estimate(item.difficulty):>13} "
                     f"{_seconds(item.median_seconds):>6}")
        lines.append(_fit(f"      wrong answers: {_shares(item.wrong_answers, quoted=True)}", width))
        if item.mistakes:
            lines.append(_fit(f"      mistakes: {_shares(item.mistakes, quoted=False)}", width))
        reasons = [f"{flag.kind}: {flag.reason}" for flag in item.flags] + variant_flags(item)
        lines += [line for reason in reasons for line in textwrap.wrap(
            f"⚑ {reason}", width, initial_indent="      ", subsequent_indent="        ")]
    if analysis.papers:
        lines += ["", "  By paper", f"  {'paper':<14} {'questions':>9} {'learners':>8} {'attempts':>8} "
                                    f"{'facility':>8} {'discr':>6} {'flagged':>7}"]
        lines += [f"  {p.paper:<14} {p.items:>9} {p.learners:>8} {p.attempts:>8} {p.facility:>8.2f} "
                  f"{_signed(p.discrimination):>6} {p.flagged:>7}" for p in analysis.papers]
    lines += ["", *textwrap.wrap(_rasch_note(analysis), width, initial_indent="  ", subsequent_indent="  ")]
    abilities = [f"{name[:14]:<14} {_estimate(estimate):>13}" for name, estimate in _ability_rows(analysis)]
    if abilities:
        lines.append("  Learners' ability (θ ± se), strongest first:")
        per_line = max(1, (width - 2) // 30)
        lines += ["  " + "   ".join(abilities[i:i + per_line]) for i in range(0, len(abilities), per_line)]
    return lines


def _fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[:width - 1].rstrip() + "…"


# --- Markdown -----------------------------------------------------------------------------------

def markdown_section(analysis: ItemAnalysis) -> list[str]:
    def row(cells: Sequence[str]) -> str:
        return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"

    lines = [f"## {HEADING}", "", EXPLAIN, "",
             row(["question", "learners", "attempts", "facility", "discrimination", "Rasch b ± se", "median time",
                  "frequent wrong answers", "frequent mistakes", "flags"]),
             "|---|---:|---:|---:|---:|---:|---:|---|---|---|"]
    lines += [row([f"`{i.key}`", str(i.learners), str(i.attempts), f"{i.facility:.2f}", _signed(i.discrimination),
                   _estimate(i.difficulty), _seconds(i.median_seconds), _shares(i.wrong_answers, quoted=True),
                   _shares(i.mistakes, quoted=False),
                   "; ".join([*(f"**{f.kind}**: {f.reason}" for f in i.flags), *variant_flags(i)])])
              for i in analysis.items]
    if analysis.papers:
        lines += ["", "### By paper", "",
                  row(["paper", "questions", "learners", "attempts", "mean facility", "mean discrimination",
                       "flagged"]), "|---|---:|---:|---:|---:|---:|---:|"]
        lines += [row([p.paper, str(p.items), str(p.learners), str(p.attempts), f"{p.facility:.2f}",
                       _signed(p.discrimination), str(p.flagged)]) for p in analysis.papers]
    lines += ["", "### Learners' ability", "", _rasch_note(analysis)]
    if abilities := _ability_rows(analysis):
        lines += ["", row(["learner", "θ ± se"]), "|---|---:|",
                  *(row([name, _estimate(estimate)]) for name, estimate in abilities)]
    return lines


# --- HTML ---------------------------------------------------------------------------------------

BAR_COLOUR = "#2e6fd8"
FLAG_COLOUR = "#c0392b"


def _e(text: object) -> str:
    return html.escape(str(text))


def flag_svg(flag: Flag, width: int = 150, height: int = 56) -> str:
    """Three bars, the flag's measure in the lower, middle and upper third of the class: a working
    question rises to the right; a wrong key falls; a too-easy one is full everywhere."""
    bar, gap, top = 36, 12, 12
    parts = []
    for n, (label, value) in enumerate(zip(GROUPS, flag.groups, strict=True)):
        x, h = n * (bar + gap) + 2, value * (height - top - 14)
        colour = FLAG_COLOUR if flag.kind == "upper-mistake" else BAR_COLOUR
        parts.append(f'<rect x="{x}" y="{height - 14 - h:.1f}" width="{bar}" height="{h:.1f}" fill="{colour}">'
                     f"<title>{label} third: {value:.0%}</title></rect>"
                     f'<text x="{x + bar / 2}" y="{height - 14 - h - 2:.1f}" font-size="10" text-anchor="middle">'
                     f"{value:.0%}</text>"
                     f'<text x="{x + bar / 2}" y="{height - 2}" font-size="10" text-anchor="middle">{label}</text>')
    return (f'<svg width="{width}" height="{height}" role="img" '
            f'aria-label="{_e(flag.measure)} by third of the class">'
            f'<line x1="0" y1="{height - 14}" x2="{width}" y2="{height - 14}" stroke="#99a"/>'
            + "".join(parts) + "</svg>")


# render's table maker: (headers, groups of rows, numeric columns, note when empty) -> HTML.
# Passed in, so that render (which places this section) and this module do not import each other.
Table = Callable[[list[str], list[list[list[str]]], set[int], str], str]


def html_section(analysis: ItemAnalysis, make: Table) -> list[str]:
    sections = [f"<h2>{HEADING}</h2>", f'<p class="note">{_e(EXPLAIN)}</p>',
                make(["Question", "Learners", "Attempts", "Facility", "Discrimination", "Rasch b ± se", "Median time"],
                     [[[f"<code>{_e(i.key)}</code>", str(i.learners), str(i.attempts), f"{i.facility:.2f}",
                        _signed(i.discrimination), _estimate(i.difficulty), _seconds(i.median_seconds)]
                       for i in analysis.items]], {1, 2, 3, 4, 5, 6}, "No answers in scope."),
                "<h3>Frequent wrong answers and mistakes</h3>",
                make(["Question", "Wrong answers", "Mistakes"],
                     [[[f"<code>{_e(i.key)}</code>", _e(_shares(i.wrong_answers, quoted=True)),
                        _e(_shares(i.mistakes, quoted=False))] for i in analysis.items]], set(), ""),
                "<h3>Flags</h3>",
                '<p class="note">Each chart: the flagged measure in the lower, middle and upper third of the '
                "learners who tried the question (ordered by their score on the other questions).</p>",
                make(["Question", "Flag", "Why", "By third"],
                     [[[f"<code>{_e(i.key)}</code>" if n == 0 else "", _e(f.kind), _e(f.reason), flag_svg(f)]
                       for n, f in enumerate(i.flags)] for i in _flagged(analysis.items)], set(), "No flags.")]
    if variants := [(i, text) for i in analysis.items for text in variant_flags(i)]:
        sections += ["<h3>Variants easier or harder than their siblings</h3>",
                     make(["Question", "Variant"], [[[f"<code>{_e(i.key)}</code>", _e(text)] for i, text in variants]],
                          set(), "")]
    if analysis.papers:
        sections += ["<h3>By paper</h3>",
                     make(["Paper", "Questions", "Learners", "Attempts", "Mean facility", "Mean discrimination",
                           "Flagged"],
                          [[[_e(p.paper), str(p.items), str(p.learners), str(p.attempts), f"{p.facility:.2f}",
                             _signed(p.discrimination), str(p.flagged)] for p in analysis.papers]],
                          {1, 2, 3, 4, 5, 6}, "")]
    sections += ["<h3>Learners' ability</h3>", f'<p class="note">{_e(_rasch_note(analysis))}</p>']
    if abilities := _ability_rows(analysis):
        sections.append(make(["Learner", "θ ± se"], [[[_e(name), _estimate(e)] for name, e in abilities]], {1}, ""))
    return sections


def _flagged(items: Sequence[ItemStats]) -> list[ItemStats]:
    return [item for item in items if item.flags]
