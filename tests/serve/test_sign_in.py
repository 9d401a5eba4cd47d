"""``quizzer serve`` on a bank with accounts: every learner signs in as themselves, and alice cannot
reach bob's data by any route we could think of — the URL (``?profile=bob``, on the page and on the
websocket), the cookie (none, forged, bob's name, the digest the bank keeps, one signed out, one
expired), the websocket (without a cookie, from another site's page), the teacher's report, a
second tab after sign-out, a session ended elsewhere (another server on the same bank), guessing
passwords (throttled, even the right one once throttled).

A real server in its own process and real HTTP and websocket clients (aiohttp); which profile an app
process runs as is read from its command line in /proc, and the browser test (test_browser.py)
checks that an answer lands in the signed-in learner's history."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from sqlmodel import select

from quizzer.common.clock import utcnow
from quizzer.server.app import PER_LEARNER
from tests.databases import bank_session
from tests.serve.helpers import app_profiles, children, free_port, served, wait_until

pytestmark = pytest.mark.slow

PASSWORDS = {"alice": "alice-password-1", "bob": "bob-password-22", "teach": "teach-password-333"}


def add_accounts() -> None:
    from quizzer.bank.accounts import set_password
    from quizzer.server.passwords import hash_password

    with bank_session() as session:
        for name, password in PASSWORDS.items():
            set_password(session=session, name=name, password_hash=hash_password(password),
                         role="teacher" if name == "teach" else "learner")
        session.commit()


@pytest.fixture
def server(isolated_bank: Path) -> Iterator[tuple[Any, str]]:
    add_accounts()
    with served("--port", str(free_port())) as (process, url):
        yield process, url.rstrip("/")


class Browser:
    """One browser's cookies, as a real one keeps them (host-only, per origin)."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.http = aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))  # unsafe: an IP address

    async def get(self, path: str, **kwargs: Any) -> tuple[int, str, Any]:
        async with self.http.get(self.base + path, allow_redirects=False, **kwargs) as response:
            return response.status, await response.text(), response.headers

    async def sign_in(self, name: str, password: str, **kwargs: Any) -> tuple[int, str, Any]:
        async with self.http.post(self.base + "/signin", data={"name": name, "password": password},
                                  allow_redirects=False, **kwargs) as response:
            return response.status, await response.text(), response.headers

    async def sign_out(self) -> int:
        async with self.http.post(self.base + "/signout", allow_redirects=False) as response:
            return response.status

    async def websocket(self, path: str = "/ws?width=80&height=24", **kwargs: Any) -> aiohttp.ClientWebSocketResponse:
        return await self.http.ws_connect(self.base.replace("http", "ws", 1) + path, **kwargs)

    def cookie(self) -> str | None:
        found = [cookie.value for cookie in self.http.cookie_jar if cookie.key == "quizzer_session"]
        return found[0] if found else None

    async def close(self) -> None:
        await self.http.close()


async def refused_websocket(browser: Browser, **kwargs: Any) -> int:
    with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
        await browser.websocket(**kwargs)
    return refused.value.status


async def wait_for(condition: Any, what: str) -> None:
    await asyncio.to_thread(wait_until, condition, what)


def test_signing_in_names_the_learner_and_nothing_in_a_request_can_name_another(server: tuple[Any, str]) -> None:
    process, base = server

    async def scenario() -> None:
        stranger, alice = Browser(base), Browser(base)
        try:
            # Not signed in: the page sends you to sign in; the websocket, the report: refused, nothing started.
            status, _, headers = await stranger.get("/?profile=bob")
            assert (status, headers["Location"]) == (303, "/signin")
            assert await refused_websocket(stranger) == 401
            assert (await stranger.get("/report"))[0] == 401
            assert (await stranger.get("/signin"))[0] == 200
            # A wrong password, another learner's password, an unknown name: one answer, no cookie.
            for name, password in (("alice", "wrong"), ("alice", PASSWORDS["bob"]), ("nobody", "x"), ("", "")):
                status, page, headers = await stranger.sign_in(name, password)
                assert status in (400, 401) and "Set-Cookie" not in headers, (name, page)
                assert "do not match" in page
            # The right one: an HttpOnly, SameSite, expiring cookie and the page of the learner who signed in.
            status, _, headers = await alice.sign_in("alice", PASSWORDS["alice"])
            assert (status, headers["Location"]) == (303, "/")
            cookie = headers["Set-Cookie"]
            assert re.search(r"quizzer_session=[\w-]{40,};", cookie), cookie
            assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Max-Age=43200" in cookie
            status, page, _ = await alice.get("/?profile=bob")
            assert status == 200 and "<strong>alice</strong>" in page and "bob" not in page
            # The websocket runs the app as alice, whatever its URL asks for.
            socket = await alice.websocket("/ws?width=80&height=24&profile=bob")
            await wait_for(lambda: app_profiles(process.pid) == ["alice"], "alice's app process")
            # Another site's page cannot open a session with alice's cookie (cross-site websocket hijacking).
            assert await refused_websocket(alice, origin="http://evil.example") == 403
            # A cookie alice could forge: bob's name, the digest the bank keeps of bob's token, random bytes.
            bob = Browser(base)
            await bob.sign_in("bob", PASSWORDS["bob"])
            bobs_token = bob.cookie()
            assert bobs_token is not None
            with bank_session() as session:
                from quizzer.bank.models import WebSession

                digests = list(session.exec(select(WebSession.token_hash)).all())
            for forged in ("bob", digests[0], digests[1], "A" * 43):
                forger = Browser(base)
                forger.http.cookie_jar.update_cookies({"quizzer_session": forged})
                assert (await forger.get("/"))[0] == 303, forged
                assert await refused_websocket(forger) == 401
                await forger.close()
            # The teacher's report: not for a learner.
            status, page, _ = await alice.get("/report")
            assert status == 403 and "Teachers only" in page
            teacher = Browser(base)
            await teacher.sign_in("teach", PASSWORDS["teach"])
            status, page, _ = await teacher.get("/report")
            assert status == 200 and "Class report" in page
            await teacher.close()
            await socket.close()
            await bob.close()
        finally:
            await stranger.close()
            await alice.close()

    asyncio.run(scenario())


def test_signing_out_ends_every_tab_and_the_cookie(server: tuple[Any, str]) -> None:
    process, base = server

    async def scenario() -> None:
        alice = Browser(base)
        try:
            await alice.sign_in("alice", PASSWORDS["alice"])
            old_cookie = alice.cookie()
            tabs = [await alice.websocket() for _ in range(PER_LEARNER)]
            await wait_for(lambda: app_profiles(process.pid) == ["alice"] * PER_LEARNER, "an app process per tab")
            status, page, _ = await alice.get("/")  # one tab more than a learner may hold
            assert status == 429 and "Too many tabs" in page
            assert await refused_websocket(alice) == 429
            assert await alice.sign_out() == 303
            assert alice.cookie() is None  # the browser was told to forget it
            await wait_for(lambda: not children(process.pid), "both app processes ended")
            for tab in tabs:  # every other tab's connection is closed too
                message = await asyncio.wait_for(tab.receive(), 90)
                while message.type not in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED,
                                           aiohttp.WSMsgType.CLOSING):
                    message = await asyncio.wait_for(tab.receive(), 90)
            # The old cookie, replayed (a second tab reloading, or someone who copied it): signed out.
            replay = Browser(base)
            replay.http.cookie_jar.update_cookies({"quizzer_session": old_cookie})
            assert (await replay.get("/"))[0] == 303
            assert await refused_websocket(replay) == 401
            assert children(process.pid) == set()
            await replay.close()
        finally:
            await alice.close()

    asyncio.run(scenario())


def test_a_session_ended_elsewhere_or_expired_ends_here(server: tuple[Any, str]) -> None:
    """Another server on the same bank signs bob out (or the teacher gives him a new password), and
    alice's session expires: this server ends bob's open app and refuses both cookies."""
    from quizzer.bank.models import WebSession

    process, base = server

    async def scenario() -> None:
        alice, bob = Browser(base), Browser(base)
        try:
            await alice.sign_in("alice", PASSWORDS["alice"])
            await bob.sign_in("bob", PASSWORDS["bob"])
            await bob.websocket()
            await wait_for(lambda: app_profiles(process.pid) == ["bob"], "bob's app process")
            with bank_session() as session:
                from quizzer.bank.accounts import set_password
                from quizzer.server.passwords import hash_password

                set_password(session=session, name="bob", password_hash=hash_password("a new one"))
                for row in session.exec(select(WebSession)).all():
                    row.expires_at = utcnow() - timedelta(seconds=1)  # alice's: expired
                session.commit()
            await wait_for(lambda: not children(process.pid), "bob's app ended by the server")
            assert (await bob.get("/"))[0] == 303
            assert (await alice.get("/"))[0] == 303
            assert await refused_websocket(alice) == 401
            assert (await bob.sign_in("bob", PASSWORDS["bob"]))[0] == 401  # the old password is gone
            assert (await bob.sign_in("bob", "a new one"))[0] == 303
        finally:
            await alice.close()
            await bob.close()

    asyncio.run(scenario())


def test_guessing_a_password_is_throttled_even_the_right_one(server: tuple[Any, str]) -> None:
    _, base = server

    async def scenario() -> None:
        guesser = Browser(base)
        try:
            for guess in range(5):
                assert (await guesser.sign_in("bob", f"guess {guess}"))[0] == 401
            status, page, headers = await guesser.sign_in("bob", PASSWORDS["bob"])
            assert status == 429 and "Too many failed sign-ins" in page
            assert 0 < int(headers["Retry-After"]) <= 30 and guesser.cookie() is None
            # Throttled per name: alice, from the same address, still signs in.
            assert (await guesser.sign_in("alice", PASSWORDS["alice"]))[0] == 303
            # A form from another site: refused before any password is checked.
            other = Browser(base)
            status, _, _ = await other.sign_in("alice", PASSWORDS["alice"], headers={"Origin": "http://evil.example"})
            assert status == 403 and other.cookie() is None
            await other.close()
        finally:
            await guesser.close()

    asyncio.run(scenario())


def test_a_shared_token_is_refused_on_a_bank_with_accounts(isolated_bank: Path) -> None:
    from tests.cli_runner import run

    add_accounts()
    code, out, err = run("serve", "--token", "class-secret")
    assert (code, out) == (2, "") and err.startswith("quizzer: --token: this bank has accounts")


@pytest.mark.parametrize(("origin", "host", "same"), [
    ("http://127.0.0.1:8000", "127.0.0.1:8000", True),
    ("https://quiz.example.org", "quiz.example.org", True),
    ("https://quiz.example.org", "quiz.example.org:443", True),  # a proxy that writes the default port
    ("http://quiz.example.org", "quiz.example.org:80", True),
    ("https://quiz.example.org", "quiz.example.org:8443", False),
    ("https://evil.example", "quiz.example.org", False),
    ("https://quiz.example.org.evil.example", "quiz.example.org", False),
    ("null", "quiz.example.org", False),  # a sandboxed frame or a file
    ("http://quiz.example.org:x", "quiz.example.org", False),
])
def test_the_origin_check(origin: str, host: str, same: bool) -> None:
    from quizzer.server.gate import _same_host

    assert _same_host(origin, host) is same
