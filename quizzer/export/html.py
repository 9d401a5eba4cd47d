"""One self-contained HTML file: math as MathML, figures as inline SVG, print CSS for A4 and Letter.

Nothing is fetched from the network (no fonts, scripts or style sheets): the file opens and
prints the same offline.  The answer sheet starts on a new printed page.
"""

from __future__ import annotations

from html import escape

from quizzer.export.document import CommonWrongAnswer, Paper, Question, Section, marks
from quizzer.export.richtext import MathStyle, to_html, to_html_inline

MATH: MathStyle = "mathml"
# Room to work under each question on the printed paper, by how long an answer usually is.
WORK_SPACE = {"choice": "2.5em", "multi": "2.5em", "bool": "2.5em", "shape": "4em", "text": "10em"}
DEFAULT_WORK_SPACE = "8em"

STYLE = """
:root { color-scheme: light; --ink: #1b1b1b; --muted: #5f6368; --rule: #d0d4d9; --accent: #1a56a8; }
html { font-family: "Charter", "Bitstream Charter", "Sitka Text", Cambria, "Noto Serif", "DejaVu Serif", serif;
       font-size: 16px; line-height: 1.5; color: var(--ink); background: #fff; }
body { max-width: 46rem; margin: 2rem auto; padding: 0 1.25rem; }
math { font-family: "STIX Two Math", "Cambria Math", "Latin Modern Math", "Noto Sans Math", math; font-size: 1.05em; }
math[display="block"] { margin: 0.6em 0; overflow-x: auto; overflow-y: hidden; }
h1 { font-size: 1.6rem; line-height: 1.25; margin: 0 0 0.25rem; }
h2 { font-size: 1.15rem; margin: 0 0 0.2rem; }
h2 .number { color: var(--accent); margin-right: 0.35em; }
h2 .marks { float: right; font-weight: normal; font-size: 0.85rem; color: var(--muted); margin-left: 1em; }
.stamp, .meta { color: var(--muted); font-size: 0.85rem; margin: 0 0 0.5rem; }
.stamp code { font-size: 0.8rem; word-break: break-all; }
header { border-bottom: 2px solid var(--ink); padding-bottom: 0.6rem; margin-bottom: 1.4rem; }
.candidate { display: flex; gap: 2rem; margin-top: 0.8rem; font-size: 0.9rem; }
.candidate > span { flex: 1; border-bottom: 1px solid var(--ink); padding-bottom: 0.1rem; }
.candidate .out-of { float: right; }
.instructions { margin: 0.6rem 0; }
article { padding: 0.9rem 0 1rem; border-bottom: 1px solid var(--rule); }
article:last-child { border-bottom: 0; }
.choices { list-style: none; padding-left: 0.5rem; }
.choices li { margin: 0.25rem 0; }
.choices .letter { display: inline-block; min-width: 2em; font-weight: 600; }
.work { border: 1px dashed var(--rule); border-radius: 4px; margin-top: 0.6rem; }
.answer { background: #f2f6fc; border-left: 4px solid var(--accent); padding: 0.4rem 0.8rem; margin: 0.5rem 0; }
.accepted { color: var(--muted); font-size: 0.9rem; }
.notes { background: #fff8e6; border-left: 4px solid #d49a00; padding: 0.3rem 0.8rem; margin-top: 0.6rem; }
.notes h3 { font-size: 0.95rem; margin: 0.3rem 0; }
.notes ul { margin: 0.2rem 0 0.4rem; padding-left: 1.2rem; }
.notes li { margin: 0.25rem 0; }
.notes .why { color: #3c4043; }
.notes .label { color: var(--muted); font-style: italic; }
figure { margin: 0.8rem 0; text-align: center; }
figure svg { max-width: 100%; height: auto; }
pre { background: #f6f8fa; padding: 0.6rem 0.8rem; border-radius: 4px; overflow-x: auto; font-size: 0.85rem; }
code { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 0.9em; }
table { border-collapse: collapse; margin: 0.6rem 0; }
th, td { border: 1px solid var(--rule); padding: 0.2rem 0.6rem; text-align: left; }
section.answers { margin-top: 3rem; }
@page { margin: 16mm 15mm; }
@media print {
  html { font-size: 11pt; }
  body { max-width: none; margin: 0; padding: 0; }
  section.answers { break-before: page; margin-top: 0; }
  article { break-inside: avoid; }
  h2 { break-after: avoid; }
  .answer, .notes { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  math[display="block"] { overflow: visible; }
  pre { white-space: pre-wrap; overflow-wrap: anywhere; overflow: visible; }  /* paper has no scroll bar */
}
"""


def render(paper: Paper, sections: tuple[Section, ...]) -> bytes:
    # The page size, and a version's code in the top margin of every printed page.
    corner = f"Paper {paper.code}" if paper.exam else f"Version {paper.version}"
    version = f' @top-right {{ content: "{corner}"; font-size: 9pt; }}' if paper.version else ""
    page = f"@page {{ size: {'A4' if paper.layout.paper_size == 'a4' else 'letter'};{version} }}"
    return _document(paper.title, "\n".join(_SECTIONS[section](paper) for section in sections), page)


def render_key(papers: list[Paper]) -> bytes:
    """One answer key for every version: each version's answer sheet, one after another."""
    return _document("Answer key", "\n".join(_answers(paper) for paper in papers))


def _document(title: str, body: str, style: str = "") -> bytes:
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{escape(title)}</title>\n<style>{STYLE}{style}</style>\n</head>\n<body>\n"
            f"{body}\n</body>\n</html>\n").encode()


def _paper(paper: Paper) -> str:
    articles = "\n".join(_question(question, f"q{paper.version}", paper.exam) for question in paper.each())
    instructions = (f'<div class="instructions">{to_html(paper.layout.instructions, math=MATH)}</div>'
                    if paper.layout.instructions.strip() else "")
    candidate = ('<div class="candidate"><span>Name:</span><span>Student ID:</span>'
                 f'<span>Score: <span class="out-of">/ {paper.total_points:g}</span></span></div>')
    return f'<section class="paper">\n{_header(paper.title, paper, instructions + candidate, student=True)}\n' \
           f'{articles}\n</section>'


def _answers(paper: Paper) -> str:
    articles = "\n".join(_answer(question, f"a{paper.version}") for question in paper.each())
    return f'<section class="answers">\n{_header("Answer sheet", paper)}\n{articles}\n</section>'


def _header(title: str, paper: Paper, extra: str = "", student: bool = False) -> str:
    """The title and stamp; an exam paper's student copy shows its paper code instead of seed and command."""
    code = f'paper code <strong class="code">{escape(paper.code)}</strong>' if paper.exam else ""
    stamp = (f"{paper.totals} · {code}" if student and paper.exam else
             f"{paper.totals} · {code + ' · ' if code else ''}seed {paper.selection.seed} · regenerate with "
             f"<code>{escape(paper.command)}</code>")
    return f'<header><h1>{escape(title)}</h1><p class="stamp">{stamp}</p>{extra}</header>'


def _heading(question: Question, meta: bool = True) -> str:
    instance = question.instance
    where = f'<p class="meta"><code>{escape(instance.key)}</code> · seed {instance.seed}</p>' if meta else ""
    return (f'<h2><span class="number">{question.number}.</span>{to_html_inline(instance.title, math=MATH)}'
            f'<span class="marks">[{marks(instance.points)}]</span></h2>{where}')


def _question(question: Question, prefix: str, exam: bool = False) -> str:
    instance = question.instance
    choices = "".join(f'<li><span class="letter">({chr(97 + i)})</span>{to_html_inline(choice, math=MATH)}</li>'
                      for i, choice in enumerate(instance.choices))
    parts = [_heading(question, meta=not exam), to_html(instance.prompt, math=MATH), _figure(question, "prompt"),
             f'<ul class="choices">{choices}</ul>' if choices else "",
             f'<div class="work" style="height: {WORK_SPACE.get(instance.kind, DEFAULT_WORK_SPACE)}"></div>']
    return _article(question, parts, prefix)


def _answer(question: Question, prefix: str) -> str:
    accepted = f' <span class="accepted">(accepted {escape(question.accepted)})</span>' if question.accepted else ""
    answer = _answer_html(question.sheet_answer)  # a note after a block answer would read as its last line's
    shown = f"{accepted}{answer}" if question.answer_is_block else f"{answer}{accepted}"
    parts = [_heading(question),
             f'<div class="answer"><strong>Answer:</strong> {shown}</div>',
             to_html(question.instance.solution, math=MATH), _figure(question, "solution"), _wrong_answers(question)]
    return _article(question, parts, prefix)


def _answer_html(answer: str) -> str:
    """A one-line answer inline after its label; a model answer of several paragraphs as blocks."""
    return to_html(answer, math=MATH) if "\n" in answer.strip() else to_html_inline(answer, math=MATH)


def _wrong_answers(question: Question) -> str:
    if not question.wrong_answers:
        return ""
    items = "".join(f"<li>{_wrong_answer(wrong)}</li>" for wrong in question.wrong_answers)
    return f'<aside class="notes"><h3>Common wrong answers</h3><ul>{items}</ul></aside>'


def _wrong_answer(wrong: CommonWrongAnswer) -> str:
    mistake = (f'<span class="label">mistake:</span> <strong>{to_html_inline(wrong.mistake, math=MATH)}.</strong> '
               if wrong.mistake else "")
    return (f'<span class="wrong">{to_html_inline(wrong.answer, math=MATH)}</span> — {mistake}'
            f'<span class="why">{to_html_inline(wrong.feedback, math=MATH)}</span>')


def _figure(question: Question, where: str) -> str:
    figure = question.instance.figure
    if figure is None or figure.where != where:
        return ""
    from quizzer.figures import figure_svg

    return f"<figure>{figure_svg(question.instance)}</figure>"


def _article(question: Question, parts: list[str], prefix: str) -> str:
    """One question's article; ids ``q1``… on the paper, ``a1``… on the answer sheet (one page holds both)."""
    return f'<article id="{prefix}{question.number}">\n' + "\n".join(part for part in parts if part) + "\n</article>"


_SECTIONS = {"paper": _paper, "answers": _answers}
