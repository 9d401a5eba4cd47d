"""``quizzer export``: a paper and its answer sheet, or the bank for Anki and Moodle, as files.

Every format renders the same :class:`~quizzer.export.document.Paper`.  Which documents a
format writes:

* ``md``: two files, the paper at ``-o PATH`` and the answer sheet beside it
  (``paper.md`` → ``paper-answers.md``), plus each figure as ``paper-figure-N.svg``; without
  ``-o``, both on stdout.
* ``html`` and ``pdf``: one file, the paper, then the answer sheet starting on a new page.
* ``json``, ``moodle``, ``apkg``, ``qti``: one file holding questions and answers together;
  ``moodle-backup``: a Moodle course backup (``.mbz``) whose quiz gives every question its points
  (:mod:`quizzer.export.moodlebackup`).

``--paper-only`` / ``--answers-only`` write just that part (``json``: without / with answers).
An exam (``--versions N`` or ``--secret FILE``) is :mod:`quizzer.export.versions`: papers that carry a paper
code and nothing that reproduces their answers (:mod:`quizzer.export.papercode`), the teacher's key, a grid
and ``exam-key.csv`` (:mod:`quizzer.export.keygrid`).
Files are rendered completely in memory first, then written by :mod:`quizzer.common.files` (temporary
files in the target directory, moved into place), so a failed export never leaves a half-written file.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from quizzer.common.errors import UserError
from quizzer.common.files import check_targets, write_files
from quizzer.export.document import PLAIN, SECTIONS, Layout, Section, Selection, build_paper
from quizzer.templates.instance import Instance


@dataclass(frozen=True)
class Format:
    module: str
    suffix: str
    layout: str  # "split": one file per section; "combined": sections in one file; "bundle": one file, no parts
    binary: bool = False


FORMATS = {
    "md": Format("markdown", ".md", "split"),
    "html": Format("html", ".html", "combined"),
    "pdf": Format("pdf", ".pdf", "combined", binary=True),
    "json": Format("jsonfmt", ".json", "combined"),
    "moodle": Format("moodle", ".xml", "bundle"),
    "moodle-backup": Format("moodlebackup", ".mbz", "bundle", binary=True),
    "apkg": Format("apkg", ".apkg", "bundle", binary=True),
    "qti": Format("qti", ".zip", "bundle", binary=True),
}


@dataclass(frozen=True)
class Written:
    """What an export produced: file paths, or the text for stdout when no ``-o`` was given."""

    paths: tuple[Path, ...]
    stdout: bytes = b""


def check_request(fmt: str, output: Path | None, only: Section | None) -> None:
    """Reject impossible combinations before any work is done."""
    spec = _format(fmt)
    if only and spec.layout == "bundle":
        raise UserError(f"--format {fmt} holds questions and answers together; "
                        "--paper-only and --answers-only apply to md, html, pdf and json")
    if spec.binary and output is None:
        raise UserError(f"--format {fmt} writes a binary file: give -o PATH")


def export(instances: list[Instance], selection: Selection, *, fmt: str, output: Path | None,
           only: Section | None = None, force: bool = False, layout: Layout = PLAIN) -> Written:
    """Render ``instances`` in ``fmt`` and write the files (or return the text for stdout)."""
    check_request(fmt, output, only)
    spec = _format(fmt)
    sections = (only,) if only else SECTIONS
    plan = _plan(spec, output, sections)
    targets = [path for path, _ in plan if path is not None]
    check_targets(targets, force=force)
    module = importlib.import_module(f"quizzer.export.{spec.module}")
    renderer = module.render
    with _progress(len(instances) * sum(len(parts) for _, parts in plan)) as step:
        paper = build_paper(instances, selection, fmt, step, output=output.name if output else None, layout=layout)
        rendered = [(path, renderer(paper, parts)) for path, parts in plan]
    if output is None:
        return Written(paths=(), stdout=b"".join(content for _, content in rendered))
    attached = [(output.with_name(name), content) for name, content in getattr(module, "attachments",
                                                                               lambda _: [])(paper)]
    check_targets([path for path, _ in attached], force=force)  # figures beside a Markdown paper
    files = [(path, content) for path, content in rendered if path is not None] + attached
    write_files(files)
    return Written(paths=tuple(path for path, _ in files))


def read_layout(paper_size: str, title: str | None, instructions: Path | None) -> Layout:
    """The exam layout from the command line; the instructions file is read here (Markdown, UTF-8)."""
    if paper_size not in ("a4", "letter"):
        raise UserError(f"unknown paper size {paper_size!r}; choose a4 or letter", where="--paper-size")
    text = ""
    if instructions is not None:
        try:
            text = instructions.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else "not UTF-8 text"
            raise UserError(f"cannot read the instructions: {reason}", where=str(instructions)) from None
        if len(text) > MAX_INSTRUCTIONS:
            raise UserError(f"instructions are {len(text)} characters; the limit is {MAX_INSTRUCTIONS}",
                            where=str(instructions))
    return Layout(paper_size="letter" if paper_size == "letter" else "a4", title=title or None, instructions=text,
                  instructions_file=str(instructions) if instructions else None)


MAX_INSTRUCTIONS = 20_000


def answers_path(path: Path) -> Path:
    """Where the answer sheet goes beside a paper: ``paper.md`` → ``paper-answers.md``."""
    return path.with_name(f"{path.stem}-answers{path.suffix}")


def _format(fmt: str) -> Format:
    if fmt not in FORMATS:
        raise UserError(f"unknown format {fmt!r}; formats: {', '.join(FORMATS)}", where="--format")
    return FORMATS[fmt]


def _plan(spec: Format, output: Path | None, sections: tuple[Section, ...]
          ) -> list[tuple[Path | None, tuple[Section, ...]]]:
    """Which file receives which sections."""
    if spec.layout == "split" and output is not None and len(sections) == 2:
        return [(output, ("paper",)), (answers_path(output), ("answers",))]
    return [(output, sections)]


@contextmanager
def _progress(total: int) -> Iterator[Callable[[], None]]:
    """A rich progress bar on stderr when it is a terminal; otherwise nothing."""
    if not sys.stderr.isatty():
        yield lambda: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (TextColumn("exporting"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task("export", total=total)
        yield lambda: progress.advance(task)
