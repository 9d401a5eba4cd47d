"""An exam: ``quizzer export --versions N`` (or ``--secret FILE`` alone, one version): N papers of the same
questions, each with its own numbers and choice order, the answer key, a one-page grid per version and
``exam-key.csv``.

Beside ``-o exam.pdf`` (md, html, pdf) it writes ``exam-A.pdf``, ``exam-B.pdf``, … (the questions only: the
paper code on every page, no template key, seed or regenerate command), ``exam-key.pdf`` (each version's
answer sheet: answers, marks, common wrong answers, keys and seeds), ``exam-grid.pdf`` (one page per version:
question, answer, marks) and ``exam-key.csv``.  For moodle, moodle-backup and qti the versions go into one
file (``moodle.py``, ``moodlebackup.py``, ``qti.py``), with the key, grid and CSV beside it.

The numbers come from the course secret (:mod:`quizzer.export.papercode`), so the same command with the
same secret writes the same bytes, and a student's quizzer cannot reproduce them.  What a question asks
(which sublayers, tied or not, how many tokens) is held across versions: each version's question is the
first of the secret's seeds for it whose *structure* (its prompt with every number taken out, its answer's
shape, its choices) is version A's, so versions differ in numbers, not in what is asked
(``--vary-structure`` turns this off).  ``--shuffle-questions`` prints each version's questions in an order
of its own (recorded in the key and the CSV: ``question`` is the number on that paper, ``position`` the
teacher's order).
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from quizzer.common.errors import UserError
from quizzer.common.files import check_targets, write_files
from quizzer.export.document import PLAIN, Layout, Paper, Selection, build_paper
from quizzer.export.papercode import paper_code, question_seed, shuffled
from quizzer.templates.instance import Instance, make_instance
from quizzer.templates.schema import Template

VERSION_FORMATS = ("md", "html", "pdf", "moodle", "qti", "moodle-backup")
MAX_VERSIONS = 200
STRUCTURE_ATTEMPTS = 64  # seeds tried per question and version for version A's structure


@dataclass(frozen=True)
class Version:
    """One version of an exam: its letters, its paper code, its questions in the order the paper prints them,
    and each printed question's place in the teacher's order (1-based)."""

    letter: str
    code: str
    instances: tuple[Instance, ...]
    positions: tuple[int, ...]


@dataclass(frozen=True)
class Exam:
    versions: tuple[Version, ...]
    forms: tuple[int, ...]  # per position (teacher's order): how many structures its versions have

    def varying(self) -> list[int]:
        """The positions (1-based) whose versions do not all ask the same thing."""
        return [position for position, forms in enumerate(self.forms, start=1) if forms > 1]


def check_versions(fmt: str, output: Path | None, versions: int, exam: bool) -> None:
    if versions < 1 or versions > MAX_VERSIONS:
        raise UserError(f"must be between 1 and {MAX_VERSIONS}, got {versions}", where="--versions")
    where = "--versions" if versions > 1 else "--secret"
    if exam and fmt not in VERSION_FORMATS:
        raise UserError(f"it applies to {', '.join(VERSION_FORMATS)}, not {fmt}", where=where)
    if exam and output is None:
        raise UserError("an exam writes several files (papers, key, grid, exam-key.csv): give -o PATH", where=where)


def version_code(index: int) -> str:
    """A, B, …, Z, AA, AB, …: short enough for every page's corner."""
    code = ""
    index += 1
    while index:
        index, letter = divmod(index - 1, 26)
        code = chr(65 + letter) + code
    return code


_NUMBER = re.compile(r"[-−]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def structure(instance: Instance) -> tuple[object, ...]:
    """What a question asks, without its numbers: kind, prompt with every number as ``#``, the answer's shape,
    the choices and parts.  Two versions with the same structure differ in numbers only."""
    shape = np.shape(instance.answer) if instance.kind in ("vector", "matrix") else ()
    parts = tuple(structure(part.question) for part in instance.parts)
    return (instance.kind, _NUMBER.sub("#", instance.prompt), shape, len(instance.choices), parts)


def make_exam(instances: Sequence[Instance], template: Callable[[str], Template], secret: bytes, exam_seed: int,
              count: int, *, hold: bool = True, shuffle: bool = False) -> Exam:
    """``count`` versions of ``instances`` (the teacher's questions, in the teacher's order)."""
    templates = [template(instance.key) for instance in instances]
    codes = [paper_code(secret, exam_seed, version_code(index)) for index in range(count)]
    first = [make_instance(t, question_seed(secret, codes[0], position)) for position, t in enumerate(templates, 1)]
    made = [first]
    for code in codes[1:]:
        made.append([_held(t, structure(base) if hold else None, secret, code, position)
                     for position, (t, base) in enumerate(zip(templates, first, strict=True), 1)])
    forms = tuple(len({structure(version[p]) for version in made}) for p in range(len(templates)))
    versions = []
    for index, (code, questions) in enumerate(zip(codes, made, strict=True)):
        order = shuffled(secret, code, len(questions)) if shuffle else list(range(len(questions)))
        versions.append(Version(version_code(index), code, tuple(questions[i] for i in order),
                                tuple(i + 1 for i in order)))
    return Exam(tuple(versions), forms)


def _held(template: Template, wanted: tuple[object, ...] | None, secret: bytes, code: str, position: int) -> Instance:
    """The first of the secret's seeds for this question whose structure is ``wanted`` (else the first seed)."""
    first = make_instance(template, question_seed(secret, code, position))
    if wanted is None or structure(first) == wanted:
        return first
    for attempt in range(1, STRUCTURE_ATTEMPTS):
        candidate = make_instance(template, question_seed(secret, code, position, attempt))
        if structure(candidate) == wanted:
            return candidate
    return first


def build_papers(exam: Exam, selection: Selection, fmt: str, output: Path, layout: Layout = PLAIN,
                 exam_options: tuple[str, ...] = ()) -> list[Paper]:
    return [build_paper(version.instances, selection, fmt, output=output.name, version=version.letter,
                        versions=len(exam.versions), layout=layout, code=version.code, positions=version.positions,
                        exam_options=exam_options)
            for version in exam.versions]


def export_exam(exam: Exam, selection: Selection, *, fmt: str, output: Path, force: bool = False,
                layout: Layout = PLAIN, exam_options: tuple[str, ...] = (), sheets: bool = False) -> tuple[Path, ...]:
    """Render and write every version's paper (or, for an LMS, the one file holding them all), the answer
    key, the grid and ``exam-key.csv`` (and with ``sheets``, the answer sheets and their manifest:
    :mod:`quizzer.export.sheets`); the paths written."""
    from quizzer.export import FORMATS
    from quizzer.export.keygrid import exam_key_csv, render_grid

    stem, suffix = output.stem, output.suffix or FORMATS[fmt].suffix
    papers = build_papers(exam, selection, fmt, output, layout, exam_options)
    module = importlib.import_module(f"quizzer.export.{FORMATS[fmt].module}")
    if fmt in ("moodle", "moodle-backup", "qti"):  # one file: each question a category / section of its versions
        files = [(output, module.render_versions(papers))]
        document = "md"
    else:
        files = [(output.with_name(f"{stem}-{paper.version}{suffix}"), module.render(paper, ("paper",)))
                 for paper in papers]
        files.append((output.with_name(f"{stem}-key{suffix}"), module.render_key(papers)))
        attachments: Callable[[Paper], list[tuple[str, bytes]]] = getattr(module, "attachments", lambda _: [])
        files += [(output.with_name(name), content) for paper in papers for name, content in attachments(paper)]
        document = fmt
    grid_suffix = FORMATS[document].suffix
    files.append((output.with_name(f"{stem}-grid{grid_suffix}"), render_grid(papers, exam, document)))
    files.append((output.with_name(f"{stem}-key.csv"), exam_key_csv(papers)))
    if sheets:
        from quizzer.export.sheets import sheet_files

        files += sheet_files(papers, output)
    check_targets([path for path, _ in files], force=force)
    write_files(files)
    return tuple(path for path, _ in files)
