"""``quizzer serve`` in a real browser: Playwright driving Debian's chromium (never a downloaded
browser) opens the page, sees the dashboard, answers a question, and the attempt is in the bank
under the profile the URL names; beyond loopback a request without the token is refused and
starts nothing; a taken port is one line; Ctrl+C leaves no app process behind.

The screen is drawn on a canvas, so the test reads what the server sent the browser (the
websocket's frames, escape codes stripped) and keeps a screenshot in the test's tmp_path."""

from __future__ import annotations

import os
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.databases import bank_session, postgres_required

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
QUESTION = REPO / "questions/week1/scaled_dot_product_attention/practice-w1b-sdpa-longer-sequence.yaml"  # a choice
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ESCAPES = re.compile(r"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07]*\x07|\x1b[()][0-9A-Za-z]|\x1b[=>78]")
STARTED = re.compile(r"quizzer serve: open (\S+)")
WAIT = 90.0  # seconds: generous, for a busy machine; nothing asserts how fast


@pytest.fixture
def one_question(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bank whose only question is a multiple-choice one, so any letter is an answer the bank records."""
    folder = tmp_path / "questions"
    folder.mkdir()
    shutil.copy(QUESTION, folder)
    monkeypatch.setenv("QUIZZER_QUESTIONS_DIR", str(folder))
    monkeypatch.setenv("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")


@pytest.fixture
def browser() -> Iterator[object]:
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


@contextmanager
def served(*args: str) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """``quizzer serve ARGS`` in its own process; yields it and the URL it printed; stopped with Ctrl+C."""
    process = subprocess.Popen([sys.executable, "-m", "quizzer.cli", "serve", *args], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert process.stderr is not None
        ready, _, _ = select.select([process.stderr], [], [], WAIT)  # a server that never starts fails, not hangs
        line = process.stderr.readline() if ready else "(nothing printed)"
        started = STARTED.search(line)
        assert started, line + process.stderr.read()
        yield process, started.group(1)
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(WAIT)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=WAIT) as response:
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


def test_a_student_practises_in_the_browser_as_the_profile_the_url_names(
        one_question: None, browser: object, tmp_path: Path) -> None:
    port = free_port()
    with served("--port", str(port), "--profile", "alice") as (server, url):
        assert url == f"http://127.0.0.1:{port}/"  # loopback: no token
        page = browser.new_page(viewport={"width": 1200, "height": 800})  # type: ignore[attr-defined]
        frames: list[str] = []
        page.on("websocket", lambda ws: ws.on("framereceived", lambda frame: frames.append(
            frame if isinstance(frame, str) else frame.decode("utf-8", "replace"))))

        def wait_for(text: str) -> None:
            deadline = time.monotonic() + WAIT
            while text not in ESCAPES.sub("", "".join(frames)) and time.monotonic() < deadline:
                page.wait_for_timeout(200)
            assert text in ESCAPES.sub("", "".join(frames)), f"never saw {text!r}"

        page.goto(f"{url}?profile=bob")
        wait_for("profile bob")
        wait_for(" reviews due")  # the dashboard has loaded the bank
        page.screenshot(path=str(tmp_path / "dashboard.png"))
        apps = children(server.pid)
        assert len(apps) == 1  # one app process for the one browser session
        page.locator(".xterm-helper-textarea").focus()
        page.keyboard.press("Enter")  # practise what you need most
        wait_for("What a longer sequence costs in self-attention")
        wait_for("enter submits")  # the options are on screen: a letter read before them is dropped (key gate)
        page.keyboard.press("a")
        page.keyboard.press("Enter")
        deadline = time.monotonic() + WAIT
        while not attempts() and time.monotonic() < deadline:
            time.sleep(0.3)
        page.screenshot(path=str(tmp_path / "answered.png"))
        seen = ESCAPES.sub("", "".join(frames[-3:]))  # what the browser showed last, should this fail
        assert attempts() == [("bob", "practice/w1b-sdpa-longer-sequence", "a")], seen  # bob's, not alice's
        server.send_signal(signal.SIGINT)  # Ctrl+C with a session open
        assert server.wait(WAIT) == 0
    assert not any(alive(pid) for pid in apps)
    assert (tmp_path / "dashboard.png").read_bytes().startswith(b"\x89PNG")


def test_beyond_loopback_nothing_starts_without_the_token(one_question: None, browser: object) -> None:
    port = free_port()
    with served("--host", "0.0.0.0", "--port", str(port)) as (server, url):
        token = re.fullmatch(rf"http://{re.escape(socket.gethostname())}:{port}/\?token=([\w-]+)", url)
        assert token and len(token.group(1)) >= 20  # generated, printed once with the URL
        local = f"http://127.0.0.1:{port}"
        page = browser.new_page()  # type: ignore[attr-defined]
        refused = page.goto(f"{local}/?profile=bob")
        assert refused.status == 401 and "needs its token" in page.content()
        for path in ("/ws/bob?width=80&height=24", "/?token=wrong", "/static/js/textual.js"):
            assert status(local + path) == 401, path
        assert children(server.pid) == set()  # nothing was started
        assert status(f"{local}/?token={token.group(1)}") == 200
        assert status(f"{local}/?token={token.group(1)}&profile=../../etc") == 400
        assert children(server.pid) == set()  # the page alone starts no app either


def test_a_taken_port_is_one_line(isolated_bank: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run([sys.executable, "-m", "quizzer.cli", "serve", "--port", str(port)],
                                capture_output=True, text=True, timeout=WAIT)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (f"quizzer: port {port} on 127.0.0.1 is already in use: stop what uses it or "
                             "choose another with --port\n")


@pytest.mark.parametrize(("args", "message"), [
    (("--token", " "), "--token: must not be empty"),
    (("--host", "192.0.2.1"), "--host: 192.0.2.1 is not an address of this machine"),  # TEST-NET-1: nobody's
])
def test_bad_options_are_one_line_and_start_nothing(isolated_bank: Path, args: tuple[str, ...], message: str) -> None:
    from tests.cli_runner import run

    assert run("serve", *args) == (2, "", f"quizzer: {message}\n")
