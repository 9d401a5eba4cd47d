"""The command line run in-process, as the CLI tests of every layer use it: ``quizzer.cli.main`` with its
standard output and error captured, its exit status from the ``SystemExit`` it ends with."""

from __future__ import annotations

import contextlib
import io

from quizzer.cli import main


class _Captured(io.TextIOWrapper):
    """A text stream with a ``buffer`` (``export`` writes bytes to ``sys.stdout.buffer``), read back as text."""

    def __init__(self) -> None:
        super().__init__(io.BytesIO(), encoding="utf-8", newline="")

    def text(self) -> str:
        self.flush()
        return self.buffer.getvalue().decode("utf-8")  # type: ignore[attr-defined]


def run(*args: str) -> tuple[int, str, str]:
    """Exit status, standard output and standard error of ``quizzer ARGS``."""
    out, err = _Captured(), _Captured()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(list(args))
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
        else:  # main always ends with sys.exit
            raise AssertionError("quizzer.cli.main returned instead of exiting")
    return code, out.text(), err.text()
