"""The command line run in-process through Typer's CliRunner, as the CLI tests of every layer use it."""

from __future__ import annotations

from typer.testing import CliRunner

from quizzer.cli import app

runner = CliRunner()


def run(*args: str) -> tuple[int, str, str]:
    """Exit status, standard output and standard error of ``quizzer ARGS``."""
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr
