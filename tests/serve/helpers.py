"""What the tests of ``quizzer serve`` share: a server in its own process, the app processes it
started (from /proc), Chromium through Playwright (Debian's, never a downloaded one), and the bank's
attempts by learner."""

from __future__ import annotations

import os
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.databases import bank_session, postgres_required
from tests.hang import HANG_SECONDS

REPO = Path(__file__).resolve().parents[2]
QUESTION = REPO / "questions/week1/scaled_dot_product_attention/practice-w1b-sdpa-longer-sequence.yaml"  # a choice
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ESCAPES = re.compile(r"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07]*\x07|\x1b[()][0-9A-Za-z]|\x1b[=>78]")
STARTED = re.compile(r"quizzer serve: open (\S+)")


def use_one_question(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bank whose only question is a multiple-choice one, so any letter is an answer the bank records."""
    folder = tmp_path / "questions"
    folder.mkdir()
    shutil.copy(QUESTION, folder)
    monkeypatch.setenv("QUIZZER_QUESTIONS_DIR", str(folder))
    monkeypatch.setenv("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")


@contextmanager
def chromium() -> Iterator[object]:
    if not os.path.exists(CHROMIUM):
        if postgres_required():  # CI: .ci/run installs chromium, so its absence is a failure
            pytest.fail(f"no chromium at {CHROMIUM}", pytrace=False)
        pytest.skip("chromium is not installed")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM,
                                              args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
        yield launched
        launched.close()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def children(pid: int) -> set[int]:
    """The processes whose parent is ``pid`` (from /proc)."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # ended while we looked
        if int(fields[1]) == pid:
            found.add(int(stat.parent.name))
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def app_profiles(server_pid: int) -> list[str]:
    """The ``--profile`` of every live app process the server started (read from their command lines)."""
    profiles = []
    for pid in children(server_pid):
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if alive(pid) and b"--profile" in argv:
            profiles.append(argv[argv.index(b"--profile") + 1].decode())
    return sorted(profiles)


def wait_until(condition: Callable[[], object], what: str) -> None:
    """Wait for a state (never for a time): fails after HANG_SECONDS seconds without it."""
    deadline = time.monotonic() + HANG_SECONDS
    while not condition():
        assert time.monotonic() < deadline, f"never saw {what}"
        time.sleep(0.2)


@contextmanager
def served(*args: str) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """``quizzer serve ARGS`` in its own process; yields it and the URL it printed; stopped with Ctrl+C."""
    process = subprocess.Popen([sys.executable, "-m", "quizzer.cli", "serve", *args], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert process.stderr is not None
        # a server that never starts fails, not hangs
        ready, _, _ = select.select([process.stderr], [], [], HANG_SECONDS)
        line = process.stderr.readline() if ready else "(nothing printed)"
        started = STARTED.search(line)
        assert started, line + process.stderr.read()
        # Keep reading what it logs: a pipe nobody drains would stop the server once it filled.
        threading.Thread(target=process.stderr.read, daemon=True).start()
        yield process, started.group(1)
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(HANG_SECONDS)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=HANG_SECONDS) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return error.code


def attempts() -> list[tuple[str, str, str]]:
    from sqlmodel import col, select

    from quizzer.bank.models import Attempt, Learner

    with bank_session() as session:
        rows = session.exec(select(Learner.name, Attempt.template_key, Attempt.response)
                            .join(Learner, col(Attempt.learner_id) == col(Learner.id))).all()
    return [tuple(row) for row in rows]  # type: ignore[misc]


class Screen:
    """What the server sent one page's terminal (the websocket's frames, escape codes stripped)."""

    def __init__(self, page: object) -> None:
        self.page, self.frames = page, []  # type: list[str]
        page.on("websocket", lambda ws: ws.on("framereceived", lambda frame: self.frames.append(  # type: ignore[attr-defined]
            frame if isinstance(frame, str) else frame.decode("utf-8", "replace"))))

    def text(self) -> str:
        return ESCAPES.sub("", "".join(self.frames))

    def wait_for(self, text: str) -> None:
        deadline = time.monotonic() + HANG_SECONDS
        while text not in self.text() and time.monotonic() < deadline:
            self.page.wait_for_timeout(200)  # type: ignore[attr-defined]
        assert text in self.text(), f"never saw {text!r}"


class Terminal:
    """The app over a raw websocket, as the page's script speaks textual-serve's protocol: keys go
    in as ``["stdin", text]``, the screen comes back as bytes (escape codes stripped here)."""

    def __init__(self, socket: object) -> None:
        import asyncio

        self.socket, self.text, self.seen = socket, "", 0
        self.reader = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        async for message in self.socket:  # type: ignore[attr-defined]
            if isinstance(message.data, bytes):
                self.text += ESCAPES.sub("", message.data.decode("utf-8", "replace"))

    async def press(self, keys: str) -> None:
        import json

        await self.socket.send_str(json.dumps(["stdin", keys]))  # type: ignore[attr-defined]

    async def wait_for(self, *markers: str) -> str:
        """Wait until the screen shows one of ``markers`` after what an earlier wait consumed; the one it showed."""
        import asyncio

        deadline = time.monotonic() + HANG_SECONDS
        while not (shown := [marker for marker in markers if marker in self.text[self.seen:]]):
            assert time.monotonic() < deadline, f"never saw {markers!r}: {self.text[-1000:]!r}"
            await asyncio.sleep(0.05)
        marker = min(shown, key=lambda m: self.text.index(m, self.seen))
        self.seen = self.text.index(marker, self.seen) + len(marker)
        return marker

    async def see_verdict(self) -> None:
        """After an answer: its verdict, and past a wrong answer's "try again" offer to the solution (the
        footer then offers the next question)."""
        if await self.wait_for("next question", "enter the solution") == "enter the solution":
            await self.press("\r")
            await self.wait_for("next question")

    async def close(self) -> None:
        self.reader.cancel()
        await self.socket.close()  # type: ignore[attr-defined]
