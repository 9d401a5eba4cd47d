"""Two ``quizzer serve`` processes on one PostgreSQL bank, as behind a reverse proxy with sticky
sessions (README, "More students: more servers on one database"): alice signs in on the first and
answers there; the first server is killed (SIGKILL, with its app processes) in the middle of her
next answer; her browser, sent to the second server by the proxy, is still signed in there, and she
answers on; every answer whose verdict she saw is in the one bank, and the one cut short is there
whole or not at all.  (A sign-out on one server ends the session on the others:
test_sign_in.test_a_session_ended_elsewhere_or_expired_ends_here.)"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.databases import postgres_required
from tests.serve.helpers import (
    REPO,
    Terminal,
    alive,
    attempts,
    children,
    free_port,
    served,
    status,
    use_one_question,
    wait_until,
)
from tests.serve.test_sign_in import PASSWORDS, Browser, add_accounts

pytestmark = [pytest.mark.slow, pytest.mark.postgresql]


@pytest.fixture
def shared_bank(postgres: Any, isolated_bank: Path, monkeypatch: pytest.MonkeyPatch,
                tmp_path: Path) -> Iterator[str]:
    """A PostgreSQL bank of its own (``QUIZZER_DB``), whose only question is a multiple-choice one."""
    use_one_question(tmp_path, monkeypatch)
    url = postgres.create()
    monkeypatch.setenv("QUIZZER_DB", url)
    yield url
    postgres.drop(url)


def listening(url: str) -> bool:
    try:
        return status(url) == 200
    except OSError:  # not yet
        return False


async def answer(terminal: Terminal) -> None:
    await terminal.wait_for("enter submits")
    await terminal.press("a")
    await terminal.press("\r")


def test_a_learner_continues_on_the_other_server_and_nothing_is_lost(shared_bank: str) -> None:
    add_accounts()
    with served("--port", str(free_port())) as (first, first_url), \
            served("--port", str(free_port())) as (second, second_url):

        async def scenario() -> None:
            on_first, on_second = Browser(first_url.rstrip("/")), Browser(second_url.rstrip("/"))
            try:
                await on_first.sign_in("alice", PASSWORDS["alice"])
                terminal = Terminal(await on_first.websocket())
                await terminal.wait_for(" reviews due")
                await terminal.press("\r")
                await answer(terminal)
                await terminal.see_verdict()  # alice saw her verdict
                assert [who for who, _, _ in attempts()] == ["alice"]
                await terminal.press("n")
                apps = children(first.pid)
                await answer(terminal)  # ... and the server dies as she presses enter
                os.killpg(first.pid, signal.SIGKILL)  # the server and its app processes (one process group)
                first.wait()
                await asyncio.to_thread(wait_until, lambda: not any(alive(pid) for pid in apps), "the apps gone")
                cut_short = len(attempts()) - 1  # 0 or 1: the answer in flight, whole or not at all

                # The proxy sends her browser to the second server: the same cookie is a session there.
                on_second.http.cookie_jar.update_cookies({"quizzer_session": on_first.cookie()})
                status, page, _ = await on_second.get("/")
                assert status == 200 and "<strong>alice</strong>" in page
                terminal = Terminal(await on_second.websocket())
                await terminal.wait_for(" reviews due")
                await terminal.press("\r")
                await answer(terminal)
                await terminal.see_verdict()
                assert [who for who, _, _ in attempts()] == ["alice"] * (2 + cut_short)
                await terminal.close()
                assert await on_second.sign_out() == 303
                assert (await on_second.get("/"))[0] == 303
            finally:
                await on_first.close()
                await on_second.close()

        asyncio.run(scenario())


def test_the_documented_nginx_configuration_fails_a_learner_over(shared_bank: str, tmp_path: Path) -> None:
    """deploy/nginx-quizzer.conf, as the README gives it, in front of two servers: alice signs in and
    practises through nginx; the server holding her app is killed; through nginx she is still
    signed in and her app starts on the other server."""
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    if not Path(nginx).exists():
        if postgres_required():  # CI: .ci/run installs nginx-light
            pytest.fail("no nginx", pytrace=False)
        pytest.skip("nginx is not installed")
    add_accounts()
    proxy, one, two = free_port(), free_port(), free_port()
    site = (REPO / "deploy/nginx-quizzer.conf").read_text()
    site = site.replace("listen 8100;", f"listen 127.0.0.1:{proxy};")
    site = site.replace("127.0.0.1:8101", f"127.0.0.1:{one}").replace("127.0.0.1:8102", f"127.0.0.1:{two}")
    temp = " ".join(f"{kind}_temp_path {tmp_path / kind};" for kind in ("client_body", "proxy", "fastcgi", "uwsgi",
                                                                         "scgi"))
    (tmp_path / "nginx.conf").write_text(
        f"worker_processes 1; pid {tmp_path / 'nginx.pid'}; error_log {tmp_path / 'error.log'};\n"
        f"events {{ worker_connections 256; }}\n"
        f"http {{ access_log off; {temp}\n{site}\n}}\n")
    with served("--port", str(one)) as (first, _), served("--port", str(two)) as (second, _):
        server = subprocess.Popen([nginx, "-c", str(tmp_path / "nginx.conf"), "-g", "daemon off;"],
                                  stderr=subprocess.PIPE, text=True)
        try:
            wait_until(lambda: listening(f"http://127.0.0.1:{proxy}/signin"), "nginx listening")

            async def scenario() -> None:
                alice = Browser(f"http://127.0.0.1:{proxy}")
                try:
                    assert (await alice.sign_in("alice", PASSWORDS["alice"]))[0] == 303
                    terminal = Terminal(await alice.websocket())
                    await terminal.wait_for(" reviews due")
                    holder, other = (first, second) if children(first.pid) else (second, first)
                    assert children(holder.pid) and not children(other.pid)
                    os.killpg(holder.pid, signal.SIGKILL)
                    holder.wait()
                    status_code, page, _ = await alice.get("/")
                    assert status_code == 200 and "<strong>alice</strong>" in page  # still signed in
                    terminal = Terminal(await alice.websocket())
                    await terminal.wait_for(" reviews due")
                    assert children(other.pid)  # her app, on the server left
                    await terminal.close()
                finally:
                    await alice.close()

            asyncio.run(scenario())
        finally:
            server.terminate()
            server.wait(30)
