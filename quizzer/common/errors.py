"""The one exception type that reaches a user: a single clear line, exit status 2."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from typing import Any


class UserError(Exception):
    """Bad input from a user (a file, a flag, an answer, a database): reported, never a traceback."""

    exit_code = 2

    def __init__(self, message: str, *, where: str | None = None):
        self.where = where
        self.message = message  # without ``where``: what a caller that names the place itself words again
        super().__init__(f"{where}: {message}" if where else message)

    def lines(self) -> list[str]:
        """What the user is told, one line per problem (the CLI prints each as ``quizzer: LINE``)."""
        return [str(self)]


def did_you_mean(name: str, candidates: Iterable[str], *, cutoff: float = 0.6) -> str:
    """' (did you mean 'x'?)' for the closest candidate, or '' when none is close: every
    "unknown …" message in quizzer ends this way."""
    close = difflib.get_close_matches(name, list(candidates), n=1, cutoff=cutoff)
    return f" (did you mean {close[0]!r}?)" if close else ""


# How a TemplateError names the field it is about ("field 'parts.1.answer': …"): its first name, then the rest.
FIELD_NAMED = re.compile(r"\bfield '(\w+)((?:\.\w+)*)'")


class TemplateError(UserError):
    """A question template that cannot be loaded, validated or rendered.  ``drawn``: the values drawn for
    the instance it failed on, when the draw itself succeeded (``quizzer validate`` names them)."""

    drawn: dict[str, Any] | None = None


class TemplateErrors(TemplateError):
    """Several templates refused at once (``quizzer validate`` of a folder): one problem per broken file,
    in the order of the files, each told as its own line.  A single problem is raised as itself."""

    def __init__(self, problems: list[TemplateError]):
        self.problems = problems
        super().__init__("\n".join(str(problem) for problem in problems))

    def lines(self) -> list[str]:
        return [line for problem in self.problems for line in problem.lines()]
