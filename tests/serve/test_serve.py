"""``quizzer serve`` on a bank without accounts, in a real browser: Playwright driving Debian's
chromium (never a downloaded browser) opens the page, sees the dashboard, answers a question with no
click first (the terminal has the keyboard on load), and the attempt is in the bank under the
server's profile, whatever the URL says; beyond loopback a request without the token is refused and
starts nothing; a taken port is one line; Ctrl+C leaves no app process behind.

The screen is drawn on a canvas, so the test reads what the server sent the browser (the
websocket's frames, escape codes stripped) and keeps a screenshot in the test's tmp_path."""

from __future__ import annotations

import re
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.hang import HANG_SECONDS
from tests.serve.helpers import (
    Screen,
    alive,
    app_profiles,
    attempts,
    children,
    chromium,
    free_port,
    served,
    status,
    use_one_question,
    wait_until,
)

pytestmark = pytest.mark.slow


def test_a_student_practises_in_the_browser_as_the_servers_profile_whatever_the_url_says(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    use_one_question(tmp_path, monkeypatch)
    port = free_port()
    with served("--port", str(port), "--profile", "alice") as (server, url), chromium() as browser:
        assert url == f"http://127.0.0.1:{port}/"  # loopback: no token
        page = browser.new_page(viewport={"width": 1200, "height": 800})  # type: ignore[attr-defined]
        screen = Screen(page)
        page.goto(f"{url}?profile=bob")  # the URL cannot choose whose session it is
        screen.wait_for("profile alice")
        screen.wait_for(" reviews due")  # the dashboard has loaded the bank
        page.screenshot(path=str(tmp_path / "dashboard.png"))
        apps = children(server.pid)
        assert app_profiles(server.pid) == ["alice"]  # one app process for the one browser session
        page.keyboard.press("Enter")  # no click first: the terminal has the keyboard on load
        screen.wait_for("What a longer sequence costs in self-attention")
        screen.wait_for("enter submits")  # the options are on screen: a letter read before them is dropped (key gate)
        page.keyboard.press("a")
        page.keyboard.press("Enter")
        wait_until(attempts, "the attempt in the bank")
        page.screenshot(path=str(tmp_path / "answered.png"))
        assert attempts() == [("alice", "practice/w1b-sdpa-longer-sequence", "a")], screen.text()[-2000:]
        server.send_signal(signal.SIGINT)  # Ctrl+C with a session open
        assert server.wait(HANG_SECONDS) == 0
    assert not any(alive(pid) for pid in apps)
    assert (tmp_path / "dashboard.png").read_bytes().startswith(b"\x89PNG")


def test_beyond_loopback_nothing_starts_without_the_token(isolated_bank: Path) -> None:
    port = free_port()
    with served("--host", "0.0.0.0", "--port", str(port)) as (server, url):
        token = re.fullmatch(rf"http://{re.escape(socket.gethostname())}:{port}/\?token=([\w-]+)", url)
        assert token and len(token.group(1)) >= 20  # generated, printed once with the URL
        local = f"http://127.0.0.1:{port}"
        for path in ("/", "/?profile=bob", "/ws?width=80&height=24", "/?token=wrong", "/static/js/textual.js",
                     "/report", "/signin"):
            assert status(local + path) in (401, 404), path
        assert status(local + "/") == 401
        assert children(server.pid) == set()  # nothing was started
        assert status(f"{local}/?token={token.group(1)}") == 200
        assert status(f"{local}/report?token={token.group(1)}") == 403  # the report is a teacher's (sign-in mode)
        assert children(server.pid) == set()  # the page alone starts no app either


def test_a_taken_port_is_one_line(isolated_bank: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run([sys.executable, "-m", "quizzer.cli", "serve", "--port", str(port)],
                                capture_output=True, text=True, timeout=HANG_SECONDS)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (f"quizzer: port {port} on 127.0.0.1 is already in use: stop what uses it or "
                             "choose another with --port\n")


@pytest.mark.parametrize(("args", "message"), [
    (("--token", " "), "--token: must not be empty"),
    (("--host", "192.0.2.1"), "--host: 192.0.2.1 is not an address of this machine"),  # TEST-NET-1: nobody's
    (("--max-sessions", "0"), None),
])
def test_bad_options_are_one_line_and_start_nothing(isolated_bank: Path, args: tuple[str, ...],
                                                    message: str | None) -> None:
    from tests.cli_runner import run

    code, out, err = run("serve", *args)
    assert (code, out, err.count("\n")) == (2, "", 1)
    assert message is None or err == f"quizzer: {message}\n"


def test_a_full_server_says_so_and_starts_nothing_more(isolated_bank: Path) -> None:
    import asyncio

    import aiohttp

    port = free_port()
    with served("--port", str(port), "--max-sessions", "1") as (server, url):

        async def scenario() -> None:
            async with aiohttp.ClientSession() as http:
                first = await http.ws_connect(f"ws://127.0.0.1:{port}/ws?width=80&height=24")
                await asyncio.to_thread(wait_until, lambda: len(children(server.pid)) == 1, "the first app")
                async with http.get(url) as page:
                    assert page.status == 503 and page.headers["Retry-After"] == "60"
                    text = await page.text()
                    assert "The server is full" in text and "try again in a minute" in text.lower()
                    assert "setTimeout(" in text and "60000" in text  # it tries again by itself
                with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                    await http.ws_connect(f"ws://127.0.0.1:{port}/ws?width=80&height=24")
                assert refused.value.status == 503
                assert len(children(server.pid)) == 1
                await first.close()
                await asyncio.to_thread(wait_until, lambda: not children(server.pid), "the first app ended")
                async with http.get(url) as page:
                    assert page.status == 200  # a place again

        asyncio.run(scenario())
