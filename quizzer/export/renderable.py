"""Valid means exportable: every text of every seed ``quizzer validate`` renders goes through each
exporter's maths and figure path, and what any of them would break on refuses the template.

Before this check a prompt with ``$x^$`` passed validation and then stopped the HTML and QTI exports
with a ``latex2mathml`` traceback, and a figure of values around 1e-17 stopped four of them.  The paths:

* MathML (HTML, QTI, Moodle): ``richtext.to_html`` converts every ``$…$`` with latex2mathml;
* typst (PDF): ``richtext.to_typst``, and once per template one typst document of every distinct text
  the seeds gave, compiled as the PDF export compiles (a formula the converter writes wrongly would
  refuse the whole paper);
* SVG (every export with figures): the instance's figure drawn with its axes.

``ExportCheck`` is handed to ``quizzer.templates.validate.validate_files`` by both ``quizzer validate``
and ``quizzer add`` (through ``quizzer.cli.shared``), so it runs inside the validation budget and a file
is valid exactly when it would be added.  The exporters' libraries are imported here, by those commands
only.
"""

from __future__ import annotations

import functools
import re
import tempfile
import threading
from collections.abc import Iterator
from typing import Any

from quizzer.common.errors import TemplateError
from quizzer.export.pdf import preamble
from quizzer.export.richtext import to_html, to_typst
from quizzer.templates.instance import Instance

_SHORT = 100  # characters of an exporter's complaint in the refusal
# A number's digits, its decimal point and a minus that is plainly its sign (after a space, a bracket, a comma,
# an & or an =) never decide whether LaTeX converts or typst typesets; a minus after ^ or _ (x^-1), an exponent
# (1e-17) and words (nan) stay in a text's shape.
_NUMBER = re.compile(r"(?:(?<=[\s\[(,&={])-)?[0-9]+(?:\.[0-9]+)?")
_TYPST_CHUNK = 25  # texts typeset together (all of a template's 700 at once took 190 MB more memory)


class ExportCheck:
    """One template's check: ``__call__`` on each seed's instance, ``finish`` after the last."""

    def __init__(self) -> None:
        self.typst: dict[str, tuple[str, int]] = {}  # typst markup → (field, seed) that first gave it
        self.seen: set[str] = set()  # the shapes of the texts already converted

    def __call__(self, instance: Instance) -> None:
        for field, text in texts(instance):
            # Seeds differ in their numbers, which never decide whether LaTeX converts or typst typesets: a text is
            # checked once per shape (each number read as 0), not once per seed (w1b-mha-two-head-forward: 8
            # shapes in 200 seeds, where its digit runs alone made 599, every prompt and solution one of its own).
            shape = _NUMBER.sub("0", text)
            if shape in self.seen:
                continue
            self.seen.add(shape)
            try:
                to_html(text, math="mathml")
            except Exception as exc:  # noqa: BLE001  latex2mathml has many exception types: each would break it
                raise TemplateError(f"field {field!r}: the HTML, QTI and Moodle exports cannot show its maths "
                                    f"(latex2mathml: {_said(exc)}); write the LaTeX in full") from None
            markup = to_typst(text)
            self.typst.setdefault(markup, (field, instance.seed))
        if instance.figure is not None:
            from quizzer.figures import figure_svg

            try:
                figure_svg(instance)
            except Exception as exc:  # noqa: BLE001  any failure here is an export that would stop
                raise TemplateError(f"field 'figure': the exports cannot draw it ({_said(exc)})") from None

    def finish(self) -> None:
        """Typeset every distinct text as the PDF export does, a chunk at a time (a template's 700 texts at
        once took 190 MB more memory); in a chunk that fails, find the first text that breaks it (the shortest
        failing beginning of the chunk, by halving: a few compilations, not one per text)."""
        markups = list(self.typst)
        for start in range(0, len(markups), _TYPST_CHUNK):
            error = _typst_error(markups[start:start + _TYPST_CHUNK])
            if error is not None:
                markups = markups[start:start + _TYPST_CHUNK]
                break
        else:
            return
        good, bad = 0, len(markups)  # markups[:good] typesets; markups[:bad] does not
        while bad - good > 1:
            middle = (good + bad) // 2
            error_here = _typst_error(markups[:middle])
            good, bad, error = (middle, bad, error) if error_here is None else (good, middle, error_here)
        field, seed = self.typst[markups[bad - 1]]
        raise TemplateError(f"seed {seed}: field {field!r}: the PDF export cannot typeset it (typst: {error[:_SHORT]})")


def texts(instance: Instance, field: str = "") -> Iterator[tuple[str, str]]:
    """Every text an export shows of ``instance``, with the field it comes from."""
    yield f"{field}title", instance.title
    yield f"{field}prompt", instance.prompt
    yield f"{field}solution", instance.solution
    for choice in instance.choices:
        yield f"{field}{'items' if instance.kind == 'order' else 'choices'}", choice
    yield f"{field}answer", instance.answer_text
    for mistake in instance.mistakes:
        yield f"{field}misconceptions", mistake.answer_text
        yield f"{field}misconceptions", mistake.feedback
    for index, part in enumerate(instance.parts):
        yield f"parts.{index}.prompt", part.stem
        yield from texts(part.question, f"parts.{index}.")


def _typst_error(markups: list[str]) -> str | None:
    import typst

    document = preamble("check", "", "a4") + "\n\n#pagebreak()\n\n".join(markups)
    compiler, _ = _typst_compiler()
    with _TYPST_LOCK:
        try:
            compiler.compile(input=document.encode("utf-8"), format="pdf")
        except typst.TypstError as exc:
            return str(exc.message)
    return None


_TYPST_LOCK = threading.Lock()  # one compilation at a time: the compiler is shared


@functools.cache
def _typst_compiler() -> tuple[Any, tempfile.TemporaryDirectory[str]]:
    """One typst compiler for the process, its root an empty folder (so a document can read no file),
    kept with that folder: a compiler loads its fonts once, and a fresh one per template (as
    ``typst.compile`` makes) took 12 ms of processor time a check, where the shared one takes 4."""
    import typst

    folder = tempfile.TemporaryDirectory(prefix="quizzer-check-")
    return typst.Compiler(root=folder.name, ignore_system_fonts=True), folder


def _said(exc: Exception) -> str:
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return text[:_SHORT]
