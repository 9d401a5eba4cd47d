"""The ``quizzer`` command line: the root options, the command table, and ``main``.

The commands live in one module per concern; this module puts them on the one parser:

- ``questions`` — validate, verify, add, list, topics, coverage, show, generate;
- ``practice`` — practise (and the bare ``quizzer``), grade (one answer or ``--batch``), serve;
- ``teacher`` — export, report;
- ``profiles`` — the ``profiles`` group (list, rename) and the ``progress`` group (export, import);
- ``accounts`` — the ``accounts`` group: who may sign in to ``quizzer serve`` (its server is ``quizzer.server``);
- ``shared`` — what they all use: ``bank_session``, the filter check, file reading;
- ``parsing`` — argparse as quizzer uses it: ``takes``/``arg`` (a command's arguments, written
  beside its function), usage errors as one line, ranges, help.

Registration: the command modules define plain functions and never import this module; below,
``command(commands, name, function)`` adds each, in the order ``quizzer --help`` lists them.  So
there is no import cycle, and this page is the whole command table.

Why argparse and not a library: start-up time.  A one-question command (``quizzer show KEY``) does
a few milliseconds of work, so what it imports is most of its time.  Measured with ``python -X
importtime`` on the development machine, where a bare ``python -c pass`` takes about 30 ms:
``import typer`` with the pydantic adapters it reads every option through (typer 0.29) takes
about 170 ms, plain ``click`` about 30 ms (80 ms from a fresh interpreter), ``argparse`` 2 ms.

Heavy modules (numpy, sqlmodel, the engine, torch, the exporters, textual) are imported inside
the commands that need them, so ``quizzer --help`` and ``quizzer --version`` stay fast.  Every
command reports bad input as one line on stderr with exit status 2 (one line per problem: ``validate``
and ``add`` name every broken file).
"""

from __future__ import annotations

import functools
import os
import sys

from quizzer import __version__
from quizzer.cli import accounts, plan, practice, profiles, questions, scanning, teacher
from quizzer.cli.parsing import Command, Parser, UsageError, command, group
from quizzer.common.errors import UserError
from quizzer.common.profiles import current_profile_name
from quizzer.common.untrusted import terminal_safe, terminal_safe_stdout

KILLED_BY_SIGPIPE = 128 + 13  # the status a shell reports for a process killed by SIGPIPE (signal 13)


@functools.cache
def parser() -> Parser:
    """The whole command line, built once per process (tests run many commands in one)."""
    root = Parser(prog="quizzer", description="Exam revision for the Transformers course: randomized questions, "
                                              "graded at once, with worked solutions.\n\n"
                                              "With no command: open the practice app.")
    root.add_argument("--version", action="version", version=f"quizzer {__version__}",
                      help="Show the version and exit.")
    root.add_argument("--profile", metavar="NAME", help="Whose progress: a learner profile "
                                                        "(default: $QUIZZER_PROFILE, else your OS user name).")
    commands = root.add_subparsers(title="commands", metavar="COMMAND")

    # --- the command table ----------------------------------------------------------------------
    command(commands, "practise", practice.practise)
    command(commands, "validate", questions.validate)
    command(commands, "verify", questions.verify)
    command(commands, "add", questions.add)
    command(commands, "list", questions.list_templates)
    command(commands, "topics", questions.topics)
    command(commands, "coverage", questions.coverage)
    command(commands, "show", questions.show)
    command(commands, "generate", questions.generate)
    command(commands, "export", teacher.export)
    command(commands, "grade", practice.grade)
    command(commands, "plan", plan.plan)
    command(commands, "next", plan.next_question)
    command(commands, "report", teacher.report)
    command(commands, "scan", scanning.scan)
    command(commands, "serve", practice.serve)
    learners = group(commands, "profiles", "Learner profiles: whose attempts and reviews these are.",
                     alone=profiles.profiles)
    command(learners, "rename", profiles.rename_profile)
    logins = group(commands, "accounts", "Who may sign in to 'quizzer serve': a password for each learner.",
                   alone=accounts.accounts)
    command(logins, "add", accounts.add_account)
    command(logins, "import", accounts.import_accounts)
    command(logins, "reset", accounts.reset_account)
    command(logins, "remove", accounts.remove_account)
    progress = group(commands, "progress", "Move a learner's progress between banks as a JSON file.")
    command(progress, "export", profiles.export_progress)
    command(progress, "import", profiles.import_progress)
    return root


def run(argv: list[str]) -> None:
    """Parse ``argv`` and run its command (none: open the practice app)."""
    parsed, extra = parser().parse_known_args(argv)
    chosen: Command | None = getattr(parsed, "command", None)
    if extra:  # argparse leaves these to the root parser, which would name no command
        raise (chosen.unrecognized(extra) if chosen else UsageError(f"unrecognized arguments: {' '.join(extra)}",
                                                                    "quizzer"))
    profile = current_profile_name(parsed.profile)
    if chosen is None:
        practice.run_app(profile)
    else:
        chosen.run(parsed, profile)


def main(argv: list[str] | None = None) -> None:
    """Console entry point: bad input becomes one line on stderr and exit status 2."""
    # pydantic looks for plugins in the entry points of every installed distribution the first time a
    # model is built (importlib.metadata: a tenth of `quizzer show`'s start-up); quizzer uses none.
    # Someone who sets the variable keeps their choice.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    try:
        try:
            with terminal_safe_stdout():
                run(sys.argv[1:] if argv is None else argv)
        finally:  # --help exits from inside run(): flushed here, not at exit, a reader gone away is met below
            sys.stdout.flush()
    except BrokenPipeError:
        # The reader stopped early (quizzer show KEY | head): stop quietly with the status a shell gives a
        # process killed by SIGPIPE, as other Unix tools do.  stdout goes to /dev/null first, or Python
        # would report the same broken pipe again when it flushes stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(KILLED_BY_SIGPIPE)
    except UsageError as exc:
        _say(f"{exc} (see '{exc.prog} --help')")
        sys.exit(2)
    except UserError as exc:
        for line in exc.lines():  # one per problem: validate names every broken file
            _say(line)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        sys.exit(130)
    sys.exit(0)


def _say(message: str) -> None:
    """``quizzer: message`` on stderr, one line even if the message quoted something with a line break."""
    print("quizzer: " + terminal_safe(" ".join(message.splitlines())), file=sys.stderr)
