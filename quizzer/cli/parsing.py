"""How the command line is parsed: argparse, with what quizzer adds to it.

- ``takes(arg(...), ...)`` writes a command's arguments beside its function, as the very
  ``parser.add_argument`` calls they become; ``command`` and ``group`` add a function (or a group
  of them) to the parser, with its docstring as its help: the first line is the summary
  ``quizzer --help`` lists, the whole docstring the description of ``quizzer CMD --help``.
- ``Parser`` raises ``UsageError`` instead of printing a usage block and exiting: ``main`` prints it
  as one line.  It also lets an option's value start with '-' (``--answer -1/2``).
- ``Bounded`` (``at_least``, ``between``): a number type whose error names the range.
- ``HelpFormatter``: help that shows each option's range and default, and keeps a docstring's
  paragraphs.

The standard library and ``quizzer.common`` only: this module is imported at every start of ``quizzer``.
"""

from __future__ import annotations

import argparse
import inspect
import math
import re
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn, TypeVar

import msgspec

from quizzer.common.errors import did_you_mean
from quizzer.common.untrusted import quoted

F = TypeVar("F", bound=Callable[..., None])
Argument = tuple[tuple[str, ...], dict[str, Any]]  # add_argument's positional and keyword arguments


_UNKNOWN_COMMAND = re.compile(r"argument COMMAND: invalid choice: '(.*)' \(choose from (.*)\)", re.DOTALL)


class UsageError(Exception):
    """A command line that does not parse; ``prog`` is the (sub)command whose ``--help`` explains it."""

    def __init__(self, message: str, prog: str):
        super().__init__(message)
        self.prog = prog


class Parser(argparse.ArgumentParser):
    """An ArgumentParser that reports errors as ``UsageError`` and takes any next word as an option's value."""

    def __init__(self, **options: Any):
        # argparse would guess a prefix (--sol for --solutions): a typo must not run something else.
        super().__init__(**{"add_help": False, "allow_abbrev": False, "formatter_class": HelpFormatter, **options})
        self.add_argument("-h", "--help", action="help", help="Show this help and exit.")
        self.runs: Callable[..., None] | None = None  # the command whose arguments are added on first use

    def error(self, message: str) -> NoReturn:  # argparse's own prints the usage block and exits 2
        typo = _UNKNOWN_COMMAND.fullmatch(message)
        if typo:  # argparse lists every command; the one meant is more use
            word, commands = typo.group(1), re.findall(r"'([^']*)'", typo.group(2))
            message = f"unknown command {word!r}{did_you_mean(word, commands) or '; commands: ' + ', '.join(commands)}"
        raise UsageError(message, self.prog)

    def parse_known_args(self, args: Sequence[str] | None = None,  # type: ignore[override]
                         namespace: argparse.Namespace | None = None) -> tuple[argparse.Namespace, list[str]]:
        self._add_arguments()
        words = self._values_may_start_with_a_dash(sys.argv[1:] if args is None else list(args))
        self._each_value_once(words)
        return super().parse_known_args(words, namespace)

    def _each_value_once(self, words: list[str]) -> None:
        """An option of one value given twice is refused: argparse keeps the last silently, and a teacher's
        ``export --topic softmax --topic causal_self_attention`` made a paper of the second topic alone."""
        given: dict[argparse.Action, tuple[str, str]] = {}
        for at, word in enumerate(words):
            if word == "--" or (self._subparsers is not None and not word.startswith("-")):
                return  # the rest is a subcommand's, or positional
            flag, equals, value = word.partition("=")
            action = self._option_string_actions.get(flag)
            if not isinstance(action, argparse._StoreAction):  # an answer (append), a switch, a value
                continue
            value = value if equals else (words[at + 1] if at + 1 < len(words) else "")
            if action in given:
                first_flag, first = given[action]
                raise UsageError(f"{flag} is given twice ({first_flag} {first!r}, then {value!r}): give it once",
                                 self.prog)
            given[action] = flag, value

    def format_help(self) -> str:
        self._add_arguments()
        return super().format_help()

    def _add_arguments(self) -> None:
        """Add the arguments of the command this parser runs, once, when it parses or shows its help:
        a command line runs one command, and adding all 84 arguments of all 19 took 15 ms, half
        of what a bare Python start takes."""
        if self.runs is not None:
            function, self.runs = self.runs, None
            declared = [self.add_argument(*flags, **options) for flags, options in getattr(function, "arguments", ())]
            options = tuple(flag for action in self._actions for flag in action.option_strings)
            self.set_defaults(command=Command(function, tuple(action.dest for action in declared),
                                              getattr(function, "learner", False), self.prog, options))

    def _values_may_start_with_a_dash(self, words: list[str]) -> list[str]:
        """``--answer -1/2`` as ``--answer=-1/2``, as quizzer has always read it.  argparse takes a word
        that starts with '-' (other than a plain negative number) for an option, which would leave the
        option before it without its value; but answers such as -inf, -1/2 or -3e-4, a generated token
        and a title may start with '-'.  A group's parser stops at its subcommand: the rest is the
        subcommand's to read.  (``_actions`` and ``_subparsers`` are argparse's own, as old as it.)"""
        takes_a_value = {flag for action in self._actions if action.nargs is None for flag in action.option_strings}
        read: list[str] = []
        rest = iter(words)
        for word in rest:
            if word == "--" or (self._subparsers is not None and not word.startswith("-")):
                return [*read, word, *rest]
            read.append(word)
            value = next(rest, None) if word in takes_a_value else None
            if value == "--":
                return [*read, value, *rest]
            if value is not None:
                read[-1:] = [f"{word}={value}"] if value.startswith("-") else [word, value]
        return read


class Bounded(msgspec.Struct, frozen=True):
    """An argparse ``type``: a number of ``kind`` (int or float) from ``low`` to ``high`` (None: no limit)."""

    kind: type[int] | type[float]
    low: float
    high: float | None = None

    def __call__(self, text: str) -> int | float:
        try:
            value = self.kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{quoted(text)} is not a {'whole number' if self.kind is int else 'number'}") from None
        if not math.isfinite(value):  # nan compares false with every bound, and inf is no amount of anything
            raise argparse.ArgumentTypeError(f"{quoted(text)} is not a finite number ({self.range})")
        if value < self.low or (self.high is not None and value > self.high):
            raise argparse.ArgumentTypeError(f"{text if len(text) <= 40 else quoted(text, 40)} is out of range "
                                             f"({self.range})")
        return value

    @property
    def range(self) -> str:
        return f"at least {self.low}" if self.high is None else f"{self.low} to {self.high}"


def at_least(low: int, kind: type[int] | type[float] = int) -> Bounded:
    return Bounded(kind, low)


def between(low: int, high: int) -> Bounded:
    return Bounded(int, low, high)


class HelpFormatter(argparse.HelpFormatter):
    """Each option's range and default after its help (``[1 to 1000]``, ``[default: text]``; none for an
    option that is off or unset by default); a description's paragraphs wrapped one by one."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        notes = [action.type.range] if isinstance(action.type, Bounded) else []
        if action.option_strings and not (action.default is None or action.default is False
                                          or action.default == argparse.SUPPRESS):
            notes.append(f"default: {action.default}")
        note = f" [{'; '.join(notes)}]".replace("%", "%%") if notes else ""
        return (action.help or "") + note

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        fill = super()._fill_text
        return "\n\n".join(fill(paragraph, width, indent) for paragraph in text.split("\n\n"))


# --- declaring commands ---------------------------------------------------------------------------

def arg(*flags: str, **options: Any) -> Argument:
    """One ``parser.add_argument(*flags, **options)``, written beside the command that takes it."""
    return flags, options


def takes(*arguments: Argument, learner: bool = False) -> Callable[[F], F]:
    """Declare a command's arguments; ``learner``: it is also called with ``profile``, the name of the
    current learner (the root ``--profile``, else $QUIZZER_PROFILE, else the OS user name)."""
    def declare(function: F) -> F:
        function.arguments = arguments  # type: ignore[attr-defined]
        function.learner = learner  # type: ignore[attr-defined]
        return function
    return declare


class Command(msgspec.Struct, frozen=True):
    """What a parsed command line runs: ``function``, called with the arguments it declared."""

    function: Callable[..., None]
    names: tuple[str, ...]  # the namespace attributes that are its keyword arguments
    learner: bool           # it is also called with ``profile``
    prog: str               # e.g. 'quizzer progress export': whose --help explains a usage error
    options: tuple[str, ...] = ()  # every option it takes (--dry-run, -n, …): what a mistyped one was meant to be

    def unrecognized(self, words: list[str]) -> UsageError:
        """The error for ``words`` left over after parsing, naming the option meant by the first one
        that looks like a mistyped option (--dryrun: '--dry-run'; --fromat: '--format')."""
        hint = ""
        for word in words:
            if word.startswith("-") and (hint := did_you_mean(word.split("=", 1)[0], self.options)):
                break
        return UsageError(f"unrecognized arguments: {' '.join(words)}{hint}", self.prog)

    def run(self, parsed: argparse.Namespace, profile: str) -> None:
        values = {name: getattr(parsed, name) for name in self.names}
        self.function(**values, **({"profile": profile} if self.learner else {}))


def command(commands: argparse._SubParsersAction[Parser], name: str, function: Callable[..., None]) -> None:
    """Add ``function`` as the subcommand ``name``, with the arguments it ``takes``."""
    summary, description = _help(function)
    commands.add_parser(name, help=summary, description=description).runs = function


def group(commands: argparse._SubParsersAction[Parser], name: str, summary: str,
          alone: Callable[..., None] | None = None) -> argparse._SubParsersAction[Parser]:
    """Add the group ``name`` and return its subcommands, to add with ``command``; ``alone`` is what the
    group does without one (with its arguments), else a subcommand is required."""
    parser = commands.add_parser(name, help=summary, description=summary)
    if alone is not None:
        parser.description = f"{summary}\n\n'{parser.prog}' alone: {_help(alone)[1]}"
        parser.runs = alone
    return parser.add_subparsers(title="commands", metavar="COMMAND", required=alone is None)


def _help(function: Callable[..., None]) -> tuple[str, str]:
    """A command's summary (its docstring's first line) and description (the whole docstring)."""
    text = inspect.cleandoc(function.__doc__ or "")
    return text.split("\n", 1)[0], text
