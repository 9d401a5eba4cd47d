"""The one exception type that reaches a user: a single clear line, exit status 2."""

from __future__ import annotations


class UserError(Exception):
    """Bad input from a user (a file, a flag, an answer, a database): reported, never a traceback."""

    exit_code = 2

    def __init__(self, message: str, *, where: str | None = None):
        self.where = where
        super().__init__(f"{where}: {message}" if where else message)


class TemplateError(UserError):
    """A question template that cannot be loaded, validated or rendered."""
