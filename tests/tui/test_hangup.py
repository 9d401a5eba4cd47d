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

APP_TITLE = b"Transformers exam revision"
HANG_SECONDS = 60.0  # a hang guard, not a timing: the app ends within about a second of the hangup

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


def test_closing_the_terminal_ends_the_app_under_a_parent_that_leads_its_session(tmp_path: Path) -> None:
    terminal, follower = pty.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    pid_file = tmp_path / "app.pid"
    quizzer = str(Path(sys.executable).with_name("quizzer"))
    env = dict(os.environ, TERM="xterm-256color", QUIZZER_DB=str(tmp_path / "bank.sqlite"))
    leader = subprocess.Popen([sys.executable, "-c", LEADER, str(pid_file), quizzer], stdin=follower,
                              stdout=follower, stderr=follower, env=env, start_new_session=True)
    os.close(follower)
    app = None
    try:
        seen, started = b"", time.monotonic()
        while APP_TITLE not in seen:  # the dashboard is on the terminal
            assert time.monotonic() - started < HANG_SECONDS, seen[-400:]
            if select.select([terminal], [], [], 1.0)[0]:
                seen += os.read(terminal, 1 << 16)
        app = int(pid_file.read_text())
        os.close(terminal)  # the window closes: the terminal hangs up
        terminal = -1
        # The app ends as a hangup ends a program; its leader, which waited for it, with it.
        assert leader.wait(timeout=HANG_SECONDS) == 128 + signal.SIGHUP and not alive(app)
    finally:
        if terminal >= 0:
            os.close(terminal)
        if app is not None and alive(app):
            os.kill(app, signal.SIGKILL)
        if leader.poll() is None:
            leader.kill()
            leader.wait()


def test_a_terminal_that_is_not_the_apps_controlling_terminal_is_not_taken_for_a_hung_up_one() -> None:
    """A pty the app was merely handed (``setsid``, make bench's) answers ENOTTY: the first version of the check
    took that for a hangup and ended the app a second after it started."""
    terminal, follower = pty.openpty()
    try:
        assert not hung_up(follower)
    finally:
        os.close(terminal)
        os.close(follower)
