"""A key to mark from: per version a one-page grid (question, answer, marks), and ``exam-key.csv``.

``exam-key.csv`` has one row per answer a student writes (a multi-part question: one per part), in the order
of each version's paper::

    version,paper_code,question,position,key,seed,answer,points,kind
    A,A-7KQ2M9XD,1,1,2024T3_Q1_NA Q1,4611686018427387904,"[4, 64]",2,vector
    A,A-7KQ2M9XD,3b,3,practice/warmup-chain (b),…,…,1,number

``question`` is the number printed on that paper (with a part's letter), ``position`` the question's place in
the teacher's order (they differ only with ``--shuffle-questions``), ``key`` and ``seed`` what ``quizzer grade``
and ``quizzer grade --batch`` take (a part as ``KEY (b)``), ``answer`` the right answer as a student would type
it (a choice: its letter, ``c``; select-all: ``a, c``), ``points`` its marks, ``kind`` its answer kind
(``text``: a written answer, marked by hand or self-rated; the model answer is in ``answer``).  So a class's
answers, collected as (paper code, question, answer, learner), join on (``paper_code``, ``question``) to give
``grade --batch`` its ``key,seed,answer,learner`` lines; the paper code is what a scanner reads
(:mod:`quizzer.export.papercode`).
"""

from __future__ import annotations

import csv
import io
import tempfile
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING

from quizzer.export.document import Paper, marks
from quizzer.export.richtext import escape_typst
from quizzer.grading.describe import option_letter
from quizzer.templates.instance import Instance

if TYPE_CHECKING:
    from quizzer.export.versions import Exam

GRID_ANSWER = 90  # characters of an answer the grid shows; a longer one (a model essay) points to the key


@dataclass(frozen=True)
class Row:
    version: str
    code: str
    question: str  # as printed: "3", "3b"
    position: int
    key: str
    seed: int
    answer: str
    points: float
    kind: str


def rows(paper: Paper) -> list[Row]:
    """One row per answer a student writes on ``paper``."""
    found = []
    for question in paper.questions:
        position = paper.position(question)
        for item in question.items:
            whole = question.whole or item.instance
            key = f"{whole.key} ({item.label})" if item.label else whole.key
            found.append(Row(paper.version, paper.code, f"{question.number}{item.label}", position, key,
                             whole.seed, _typed(item.instance), item.instance.points, item.instance.kind))
    return found


def _typed(instance: Instance) -> str:
    """The answer as a marker reads it and ``grade`` takes it: a choice's letter(s) (``c``, ``a, c``: the
    option's text is on the paper), else the answer as a student types it."""
    if instance.kind == "choice":
        return option_letter(int(instance.answer))
    if instance.kind == "multi":
        return ", ".join(option_letter(index) for index in sorted(instance.answer)) or "none"
    return instance.answer_text.strip()


def exam_key_csv(papers: list[Paper]) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["version", "paper_code", "question", "position", "key", "seed", "answer", "points", "kind"])
    for paper in papers:
        writer.writerows([row.version, row.code, row.question, row.position, row.key, row.seed, row.answer,
                          f"{row.points:g}", row.kind] for row in rows(paper))
    return buffer.getvalue().encode()


def _short(answer: str) -> str:
    flat = " ".join(answer.split())
    return flat if len(flat) <= GRID_ANSWER else flat[:GRID_ANSWER - 12].rstrip() + " … (see key)"


def differences(exam: Exam) -> str:
    """How the versions of each question differ, in one sentence."""
    varying = exam.varying()
    count = len(exam.versions)
    if count == 1:
        return "One version."
    if not varying:
        return f"Every question's {count} versions differ in their numbers only."
    listed = ", ".join(f"question {position} ({exam.forms[position - 1]} forms)" for position in varying)
    return (f"Every question's {count} versions differ in their numbers only, except {listed}: no seed among those "
            "tried asks the same as version A (positions in the teacher's order).")


def render_grid(papers: list[Paper], exam: Exam, fmt: str) -> bytes:
    """One page per version: the paper code, then question, answer and marks, and the total."""
    return _GRIDS[fmt](papers, differences(exam))


def _title(paper: Paper) -> str:
    return f"Version {paper.version} · paper code {paper.code}"


def _markdown(papers: list[Paper], note: str) -> bytes:
    pages = []
    for paper in papers:
        table = ["| Question | Answer | Marks |", "|---|---|---|"]
        table += [f"| {row.question} | `{_cell(row.answer)}` | {row.points:g} |" for row in rows(paper)]
        table.append(f"| | **Total** | **{paper.total_points:g}** |")
        pages.append(f"# {_title(paper)}\n\n{paper.title}\n\n" + "\n".join(table) + "\n")
    return (f"{note}\n\n" + "\n---\n\n".join(pages)).encode()


def _cell(answer: str) -> str:
    """An answer in a Markdown table cell: its bars escaped (a bar would end the cell)."""
    return _short(answer).replace("|", "\\|")


def _html(papers: list[Paper], note: str) -> bytes:
    pages = []
    for paper in papers:
        body = "".join(f"<tr><td>{escape(row.question)}</td><td><code>{escape(_short(row.answer))}</code></td>"
                       f"<td>{row.points:g}</td></tr>" for row in rows(paper))
        pages.append(f'<section class="grid"><h1>{escape(_title(paper))}</h1><p>{escape(paper.title)}</p>'
                     "<table><thead><tr><th>Question</th><th>Answer</th><th>Marks</th></tr></thead>"
                     f"<tbody>{body}<tr><td></td><th>Total</th><th>{paper.total_points:g}</th></tr></tbody>"
                     "</table></section>")
    style = ("body{font-family:sans-serif;margin:1.5rem}table{border-collapse:collapse;width:100%}"
             "td,th{border:1px solid #bbb;padding:.15rem .5rem;text-align:left;font-size:.9rem}"
             "section.grid{break-after:page}@page{size:A4;margin:14mm}")
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>Marking grid</title>'
            f"<style>{style}</style></head><body><p>{escape(note)}</p>{''.join(pages)}</body></html>\n").encode()


def _pdf(papers: list[Paper], note: str) -> bytes:
    import typst

    from quizzer.export.pdf import TYPST_PAPER

    def string(text: str) -> str:
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'

    pages = []
    for paper in papers:
        cells = "".join(f"[{row.question}], raw({string(_short(row.answer))}), [{row.points:g}],\n"
                        for row in rows(paper))
        pages.append(f"= {escape_typst(_title(paper))}\n{escape_typst(paper.title)} · "
                     f"{escape_typst(marks(paper.total_points))}\n\n"
                     "#table(columns: (auto, 1fr, auto), inset: 4pt, stroke: 0.5pt + luma(160),\n"
                     f"[*Question*], [*Answer*], [*Marks*],\n{cells}[], [*Total*], [*{paper.total_points:g}*])\n")
    size = TYPST_PAPER[papers[0].layout.paper_size] if papers else "a4"
    source = (f'#set page(paper: "{size}", margin: 14mm)\n#set text(font: "Libertinus Serif", size: 10pt)\n'
              '#show raw: set text(font: "DejaVu Sans Mono", size: 8pt)\n'
              f"#text(size: 8pt)[{escape_typst(note)}]\n\n" + "\n#pagebreak()\n".join(pages))
    with tempfile.TemporaryDirectory(prefix="quizzer-grid-") as folder:
        main = Path(folder) / "main.typ"
        main.write_text(source, encoding="utf-8")
        return typst.compile(str(main), root=folder, ignore_system_fonts=True, format="pdf")


_GRIDS = {"md": _markdown, "html": _html, "pdf": _pdf}
