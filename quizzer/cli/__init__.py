"""The ``quizzer`` command line: the typer ``app``, its root options, the command table and ``main``.

The commands live in one module per concern; this module registers them on the one ``app``:

- ``questions`` — validate, verify, add, list, topics, coverage, show, generate;
- ``practice`` — practise (and the bare ``quizzer``), grade (one answer or ``--batch``);
- ``teacher`` — export, report;
- ``serve`` — the practice app in a browser;
- ``profiles`` — the ``profiles`` group (list, rename) and the ``progress`` group (export, import);
- ``shared`` — what they all use: ``reports_errors``, ``bank_session``, the filter check, file reading.

Registration: the command modules define plain functions and never import this module; below,
``app.command()(fn)`` registers them, in the order ``quizzer --help`` lists them.  So there is no
import cycle, and this page is the whole command table.

Heavy modules (numpy, sqlmodel, the engine, torch, the exporters, textual) are imported inside
the commands that need them, so ``quizzer --help`` and ``quizzer --version`` stay fast.  Every
command reports bad input as one line on stderr with exit status 2.
"""

from __future__ import annotations

import os
import sys
from typing import Annotated

import typer

from quizzer import __version__
from quizzer.cli import practice, profiles, questions, serve, teacher
from quizzer.cli.shared import reports_errors
from quizzer.common.errors import UserError

app = typer.Typer(
    name="quizzer",
    help="Exam revision for the Transformers course: randomized questions, graded at once, with worked solutions.",
    invoke_without_command=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"quizzer {__version__}")
        raise typer.Exit()


@app.callback()
@reports_errors
def root(
    ctx: typer.Context,
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Show the version and exit.")] = False,
    profile: Annotated[str | None, typer.Option(
        "--profile", metavar="NAME",
        help="Whose progress: a learner profile (default: $QUIZZER_PROFILE, else your OS user name).")] = None,
) -> None:
    """Exam revision for the Transformers course. With no command: open the practice app."""
    from quizzer.common.profiles import current_profile_name

    ctx.obj = current_profile_name(profile)
    if ctx.invoked_subcommand is None:
        practice.run_app(ctx.obj)


# --- the command table ---------------------------------------------------------------------------

app.command()(practice.practise)
app.command()(questions.validate)
app.command()(questions.verify)
app.command()(questions.add)
app.command("list")(questions.list_templates)
app.command()(questions.topics)
app.command()(questions.coverage)
app.command()(questions.show)
app.command()(questions.generate)
app.command()(teacher.export)
app.command()(practice.grade)
app.command()(teacher.report)
app.command()(serve.serve)

profiles_app = typer.Typer(help="Learner profiles: whose attempts and reviews these are.", rich_markup_mode=None)
progress_app = typer.Typer(help="Move a learner's progress between banks as a JSON file.", rich_markup_mode=None)
app.add_typer(profiles_app, name="profiles")
app.add_typer(progress_app, name="progress")
profiles_app.callback(invoke_without_command=True)(profiles.profiles)
profiles_app.command("rename")(profiles.rename_profile)
progress_app.command("export")(profiles.export_progress)
progress_app.command("import")(profiles.import_progress)


def main(argv: list[str] | None = None) -> None:
    """Console entry point: usage errors become one line and exit status 2."""
    from typer._click.exceptions import ClickException

    # pydantic looks for plugins in the entry points of every installed distribution the first time a
    # model is built (importlib.metadata: a tenth of `quizzer show`'s start-up); quizzer uses none, and
    # typer switches them off for its own adapters.  Someone who sets the variable keeps their choice.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    try:
        if not (sys.argv[1:] if argv is None else argv):
            # Bare `quizzer` opens the app straight away, as the root callback would: parsing no
            # options through typer costs pydantic's import (typer coerces options with it), about
            # a fifth of the time to the dashboard's first paint.
            from quizzer.common.profiles import current_profile_name

            practice.run_app(current_profile_name(None))
            sys.exit(0)
        # Without standalone mode, typer.Exit(code) comes back as a return value.
        code = app(args=argv, prog_name="quizzer", standalone_mode=False)
    except ClickException as exc:
        typer.echo(f"quizzer: {exc.format_message()} (see 'quizzer --help')", err=True)
        sys.exit(exc.exit_code if exc.exit_code != 1 else 2)
    except UserError as exc:
        typer.echo(f"quizzer: {exc}", err=True)
        sys.exit(2)
    except KeyboardInterrupt:
        sys.exit(130)
    sys.exit(code if isinstance(code, int) else 0)
