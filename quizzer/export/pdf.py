"""PDF typeset by typst (offline, its own embedded fonts): the paper, then the answer sheet on a new page.

Math is converted from LaTeX by :mod:`quizzer.export.typstmath`; a display formula wider than
the text is scaled down to fit rather than running off the page.  Figures are written as SVG
(vectors: sharp at any zoom, text in the paper's own font) into a private temporary folder
that typst reads from.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

from quizzer.common.errors import UserError
from quizzer.export.document import CommonWrongAnswer, Paper, Question, Section, marks
from quizzer.export.richtext import escape_typst, to_typst, to_typst_inline

TYPST_PAPER = {"a4": "a4", "letter": "us-letter"}
WORK_SPACE = {"choice": "1.5em", "multi": "1.5em", "bool": "1.5em", "shape": "3em", "text": "9em"}
DEFAULT_WORK_SPACE = "7em"

PREAMBLE = """
#set document(title: TITLE, author: "quizzer", date: none)
#set page(paper: PAPER, margin: (x: 18mm, top: 18mm, bottom: 20mm),
  footer: context text(size: 8pt, fill: luma(110))[FOOTER #h(1fr) #counter(page).display("1 / 1", both: true)])
#set text(font: "Libertinus Serif", size: 10.5pt, lang: "en")
#set par(leading: 0.62em, spacing: 0.9em)
#show math.equation: set text(font: "New Computer Modern Math")
#show raw: set text(font: "DejaVu Sans Mono", size: 8.5pt)
#show raw.where(block: true): block.with(fill: luma(246), inset: 7pt, radius: 3pt, width: 100%)
#show heading.where(level: 1): set text(size: 16pt)
#show heading.where(level: 2): set text(size: 11.5pt)
#set list(indent: 0.6em)
#set enum(indent: 0.6em)
// A display formula or figure wider than the text is scaled down to fit instead of running off the page.
#let fit-width(body) = align(center, layout(size => {
  let width = measure(body).width
  if width > size.width { scale(size.width / width * 100%, reflow: true, body) } else { body }
}))
#let meta(body) = text(size: 8pt, fill: luma(100), body)
#let work(height) = block(width: 100%, height: height, stroke: (paint: luma(200), dash: "dashed"), radius: 3pt)
#let answer-box(body) = block(width: 100%, fill: rgb("#f2f6fc"), stroke: (left: 2.5pt + rgb("#1a56a8")),
  inset: 7pt, body)
#let why(body) = text(fill: luma(70), body)
#let notes-box(body) = block(width: 100%, fill: rgb("#fff8e6"), stroke: (left: 2.5pt + rgb("#d49a00")),
  inset: 7pt, body)
"""


def render(paper: Paper, sections: tuple[Section, ...]) -> bytes:
    return _compile(lambda root: typst_source(paper, sections, root))


def render_key(papers: list[Paper]) -> bytes:
    """One answer key for every version: each version's answer sheet, each starting on a new page."""
    def source(root: Path) -> str:
        body = "\n#pagebreak()\n".join(_answers(paper, root) for paper in papers)
        footer = escape_typst(f"Answer key · {papers[0].selection.describe()} · versions "
                              f"{papers[0].version}–{papers[-1].version}")
        return preamble("Answer key", footer, papers[0].layout.paper_size) + body
    return _compile(source)


def _compile(source: Callable[[Path], str]) -> bytes:
    import typst

    with tempfile.TemporaryDirectory(prefix="quizzer-pdf-") as folder:
        root = Path(folder)
        (root / "main.typ").write_text(source(root), encoding="utf-8")
        try:
            return typst.compile(str(root / "main.typ"), root=str(root), ignore_system_fonts=True, format="pdf")
        except typst.TypstError as exc:  # a formula the converter got wrong: say which, never a traceback
            raise UserError(f"typst could not typeset the paper: {exc.message}", where="--format pdf") from None


def typst_source(paper: Paper, sections: tuple[Section, ...], root: Path) -> str:
    """The typst document for ``sections``; its figures are written into ``root`` beside it."""
    body = "\n#pagebreak()\n".join(_SECTIONS[section](paper, root) for section in sections)
    footer = escape_typst(f"{paper.title} · paper code {paper.code}" if paper.exam and sections == ("paper",) else
                          f"{paper.title} · seed {paper.selection.seed}")
    return preamble(paper.title, footer, paper.layout.paper_size) + body


def preamble(title: str, footer: str, paper_size: str) -> str:
    paper = _string(TYPST_PAPER[paper_size])
    return PREAMBLE.replace("TITLE", _string(title)).replace("FOOTER", footer).replace("PAPER", paper)


def _paper(paper: Paper, root: Path) -> str:
    instructions = f"#block(width: 100%, inset: (y: 4pt))[{to_typst(paper.layout.instructions)}]\n" \
        if paper.layout.instructions.strip() else ""
    # The candidate box: name and student ID to fill in, the score out of the paper's total.
    stamp = f"{escape_typst(paper.totals)} · paper code #strong[{escape_typst(paper.code)}]" if paper.exam else \
        _stamp(paper)
    header = (f"= {escape_typst(paper.title)}\n#meta[{stamp}]\n\n{instructions}"
              "#block(width: 100%, stroke: 0.8pt, inset: 8pt, radius: 2pt, grid(columns: (1.4fr, 1fr, 0.8fr), "
              "column-gutter: 14pt, [Name: #box(width: 1fr, repeat[\\_])], [Student ID: #box(width: 1fr, repeat[\\_])],"
              f" [Score: #box(width: 1fr, repeat[\\_]) / {paper.total_points:g}]))\n"
              "#line(length: 100%, stroke: 1pt)\n")
    return header + "\n".join(_question(question, root, paper.exam) for question in paper.each())


def _answers(paper: Paper, root: Path) -> str:
    code = f"paper code {escape_typst(paper.code)} · " if paper.exam else ""
    header = (f"= Answer sheet\n#meta[{escape_typst(paper.title)} · {code}{_stamp(paper)}]\n"
              "#line(length: 100%, stroke: 1pt)\n")
    return header + "\n".join(_answer(question, root) for question in paper.each())


def _stamp(paper: Paper) -> str:
    """Seed and regenerate command; the command as raw text so its quotes stay straight for copying."""
    # The command on a line of its own, so it is never broken where a reader would copy it.
    return (f"{escape_typst(paper.totals)} · seed {paper.selection.seed} · regenerate with: #linebreak()"
            f"#raw({_string(paper.command)})")


def _heading(question: Question, meta: bool = True) -> str:
    instance = question.instance
    where = f"#meta[{escape_typst(instance.key)} · seed {instance.seed}]\n\n" if meta else "\n"
    # Marks sit at the right edge of the heading, where a marker adds them up.
    return (f"== {question.number}. {to_typst_inline(instance.title)} #h(1fr) "
            f"#text(size: 9pt, weight: \"regular\")[\\[{escape_typst(marks(instance.points))}\\]]\n{where}")


def _question(question: Question, root: Path, exam: bool = False) -> str:
    instance = question.instance
    choices = "".join(f"#block(spacing: 0.5em)[*({chr(97 + i)})* #h(0.3em) {to_typst_inline(choice)}]\n"
                      for i, choice in enumerate(instance.choices))
    work = f"#work({WORK_SPACE.get(instance.kind, DEFAULT_WORK_SPACE)})\n"
    heading = _heading(question, meta=not exam)
    return (f"#block(breakable: false, below: 1.4em)[\n{heading}{to_typst(instance.prompt)}\n\n"
            f"{_figure(question, 'prompt', root)}{choices}{work}]")


def _answer(question: Question, root: Path) -> str:
    accepted = f" #text(fill: luma(100))[(accepted {escape_typst(question.accepted)})]" if question.accepted else ""
    shown = question.sheet_answer
    answer = f"\n\n{to_typst(shown)}" if question.answer_is_block else to_typst_inline(shown)
    wrong = [f"- {_wrong_answer(wrong)}\n" for wrong in question.wrong_answers]
    # The heading keeps its first entry with it: never alone at the foot of a page.
    notes_box = (f"#notes-box[#block(breakable: false)[*Common wrong answers*\n\n{wrong[0]}]{''.join(wrong[1:])}]\n"
                 if wrong else "")
    # The heading stays with its answer: never alone at the foot of a page.
    return (f"#block(breakable: true, below: 1.4em)[\n#block(breakable: false)[{_heading(question)}"
            f"#answer-box[*Answer:* {accepted + answer if question.answer_is_block else answer + accepted}]]\n\n"
            f"{to_typst(question.instance.solution)}\n\n"
            f"{_figure(question, 'solution', root)}{notes_box}]")


def _wrong_answer(wrong: CommonWrongAnswer) -> str:
    mistake = f"#why[_mistake:_] #strong[{to_typst_inline(wrong.mistake)}.] " if wrong.mistake else ""
    return f"{to_typst_inline(wrong.answer)} — {mistake}#why[{to_typst_inline(wrong.feedback)}]"


def _figure(question: Question, where: str, root: Path) -> str:
    figure = question.instance.figure
    if figure is None or figure.where != where:
        return ""
    from quizzer.figures import draw

    name = f"figure-{question.instance.key.replace('/', '-').replace(' ', '-')}-{question.instance.seed}.svg"
    (root / name).write_text(draw(figure), encoding="utf-8")
    # At its own size (its text then matches the body's), unless it is wider than the text.
    return f'#align(center, fit-width(image("{name}")))\n\n'


def _string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


_SECTIONS = {"paper": _paper, "answers": _answers}
