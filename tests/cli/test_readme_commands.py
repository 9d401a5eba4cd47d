"""Every `quizzer grade … --answer …` command the READMEs show is run, and prints the verdict its comment states.

A student copies these lines first: two of them graded INCORRECT (seed 0's answer under seed 7; another seed's
learning rate), and the student concluded grading was broken.  The comment after each command (``# CORRECT
(score 1), …``) says what it prints, so the README cannot show a verdict the command does not give.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from tests.cli_runner import run

ROOT = Path(__file__).resolve().parents[2]
READMES = [ROOT / "README.md", ROOT / "questions" / "README.md"]
_SHELL_BLOCK = re.compile(r"```sh\n(.*?)```", re.DOTALL)


def graded_commands() -> list[tuple[str, str, str]]:
    """(file, command, stated verdict) for each grade command with an answer in a shell block of a README."""
    found = []
    for readme in READMES:
        for block in _SHELL_BLOCK.findall(readme.read_text(encoding="utf-8")):
            for line in block.splitlines():
                command, _, comment = line.partition("  #")
                if not (command.startswith("quizzer ") and " grade " in command and " --answer " in command):
                    continue
                words = shlex.split(command)
                if "grade" in words and "--answer" in words:
                    found.append((readme.name, command.strip(), comment.strip()))
    return found


COMMANDS = graded_commands()


def test_the_readmes_show_grade_commands() -> None:
    assert len(COMMANDS) >= 4


@pytest.mark.parametrize(("readme", "command", "stated"), COMMANDS, ids=[c for _, c, _ in COMMANDS])
def test_each_grade_command_prints_the_verdict_its_comment_states(
        readme: str, command: str, stated: str, bundled_bank: Path) -> None:
    verdict = stated.split(",")[0].strip()
    assert re.match(r'(CORRECT|PARTIAL|INCORRECT)\b|"verdict": "(correct|partial|incorrect)"', verdict), (
        f"{readme}: say what `{command}` prints in its comment, e.g. '# CORRECT (score 1)'")
    code, out, err = run(*shlex.split(command)[1:])
    assert code == 0, err
    assert any(line.strip().startswith(verdict) for line in out.splitlines()), out  # INCORRECT is not CORRECT
