"""Closing the terminal ends the app, whoever started it.

Under ``make run`` the terminal's session is led by make: closing the window hangs up make alone, which
catches the hangup and waits for its child, and the app lived on — Textual's input loop read the closed
terminal's end of file again and again, a processor at 100 % and the bank held open until someone
killed it.  Here a small Python program leads the session as make does (it takes the terminal, starts
the app, and waits for it through the hangup), and the app must end after the terminal is closed.
"""

from __future__ import annotations

import fcntl
import os
import pty
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

from quizzer.tui.app import hung_up
from tests.hang import HANG_SECONDS

APP_TITLE = b"Transformers exam revision"

# The session's leader, as make is: the terminal becomes its controlling terminal; it starts the app,
# writes the app's pid where the test reads it, and waits for the app, the hangup caught (as make does).
LEADER = """
import fcntl, signal, subprocess, sys, termios
fcntl.ioctl(0, termios.TIOCSCTTY, 0)
signal.signal(signal.SIGHUP, lambda *_: None)
app = subprocess.Popen(sys.argv[2:])
with open(sys.argv[1], "w") as f:
    f.write(str(app.pid))
code = app.wait()
sys.exit(128 - code if code < 0 else code)  # as a shell reports a child killed by a signal
"""


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


# The app's command, ended by an error once the terminal is gone, as Textual ends when a write to the gone terminal
# fails before the app's own check has seen the hangup: it writes a line, waits for the hangup, then raises.
FAILING_ON_HANGUP = """
import errno, os, sys, time
import quizzer.tui.app as app
from quizzer.cli import main

def run(self):
    os.write(1, b"app running\\r\\n")
    for _ in range(6000):  # a hang guard: the test hangs up at once
        if app.hung_up(0):
            break
        time.sleep(0.01)
    raise OSError(errno.EIO, "Input/output error")

app.QuizzerApp.run = run
sys.argv = ["quizzer"]
main()
"""


def under_a_leader(tmp_path: Path, command: list[str], shows: bytes) -> tuple[subprocess.Popen[bytes], int]:
    """Start ``command`` on a new terminal whose session a LEADER leads, close the terminal once the command
    shows ``shows``, and return the leader and the command's pid."""
    terminal, follower = pty.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    pid_file = tmp_path / "app.pid"
    env = dict(os.environ, TERM="xterm-256color", QUIZZER_DB=str(tmp_path / "bank.sqlite"))
    leader = subprocess.Popen([sys.executable, "-c", LEADER, str(pid_file), *command], stdin=follower,
                              stdout=follower, stderr=follower, env=env, start_new_session=True)
    os.close(follower)
    try:
        seen, started = b"", time.monotonic()
        while shows not in seen:
            assert time.monotonic() - started < HANG_SECONDS, seen[-400:]
            if select.select([terminal], [], [], 1.0)[0]:
                seen += os.read(terminal, 1 << 16)
    except BaseException:
        leader.kill()
        leader.wait()
        raise
    finally:
        os.close(terminal)  # the window closes: the terminal hangs up
    return leader, int(pid_file.read_text())


def ends_as_a_hangup(leader: subprocess.Popen[bytes], app: int) -> bool:
    """Whether the command ends as a hangup ends a program, and its leader, which waited for it, with it."""
    try:
        return leader.wait(timeout=HANG_SECONDS) == 128 + signal.SIGHUP and not alive(app)
    finally:
        if alive(app):
            os.kill(app, signal.SIGKILL)
        if leader.poll() is None:
            leader.kill()
            leader.wait()


def test_closing_the_terminal_ends_the_app_under_a_parent_that_leads_its_session(tmp_path: Path) -> None:
    quizzer = str(Path(sys.executable).with_name("quizzer"))
    assert ends_as_a_hangup(*under_a_leader(tmp_path, [quizzer], APP_TITLE))  # the dashboard was on the terminal


def test_an_app_that_fails_once_its_terminal_is_gone_ends_as_a_hangup(tmp_path: Path) -> None:
    """Not with status 1 and a traceback written to a terminal no one can read."""
    assert ends_as_a_hangup(*under_a_leader(tmp_path, [sys.executable, "-c", FAILING_ON_HANGUP], b"app running"))


def test_a_terminal_that_is_not_the_apps_controlling_terminal_is_not_taken_for_a_hung_up_one() -> None:
    """A pty the app was merely handed (``setsid``, make bench's) answers ENOTTY: the first version of the check
    took that for a hangup and ended the app a second after it started."""
    terminal, follower = pty.openpty()
    try:
        assert not hung_up(follower)
    finally:
        os.close(terminal)
        os.close(follower)
