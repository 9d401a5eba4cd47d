"""The server behind ``quizzer serve``: the practice app in a browser.

textual-serve (from Textual's authors) runs one app process per browser session and streams its
screen over a websocket; each process is ``quizzer --profile NAME``, the very app a terminal opens,
on the same bank (``QUIZZER_DB`` is inherited), so attempts are committed as there.

**Who.**  Every request passes the gate first (``gate``: sign-in, token or open); the learner it
names is the only profile a session can run as, passed to the app process as one argument (never a
shell command built from the request).  Nothing in a URL chooses the profile.

**How many.**  ``max_sessions`` app processes at most (each is its own Python process with Textual
and the bank: about ``SESSION_MB`` resident, measured by ``bench/bench_serve.py``); beyond that a
new browser gets a 503 page saying the server is full, which reloads itself a minute later, rather
than a machine that swaps.  A learner may hold ``PER_LEARNER`` sessions (tabs) at once.

**Ending.**  Signing out ends that browser's app processes at once; a session signed out elsewhere
(another tab, another server on the same bank) or expired is ended within ``RECHECK_SECONDS``.
Ctrl+C (or SIGTERM) tells every app process to quit, waits for it briefly, then terminates what is
left, so no process outlives the server.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import ipaddress
import os
import shlex
import socket
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from quizzer.common.errors import UserError
from quizzer.server import pages
from quizzer.server.gate import Gate, SignInGate, Who, cross_site

if TYPE_CHECKING:
    from aiohttp import web
    from textual_serve.app_service import AppService

QUIT_SECONDS = 5.0  # an app process asked to quit gets this long before it is terminated
SESSION_MB = 120  # resident memory (RSS) of one app session, 115 MiB measured (README, "Capacity")
MEMORY_SHARE = 0.75  # of the machine's memory the default --max-sessions may fill
# Sessions one core carries (README, "Capacity"): 2 cores served 50 learners arriving over a minute
# (enter→verdict p95 9.8 s while their apps started); at 100 some waited over 10 minutes for a page.
SESSIONS_PER_CORE = 25
PER_LEARNER = 4  # app sessions (tabs) one learner may hold at once
RECHECK_SECONDS = 10.0  # how often live sessions are checked against the bank
HEARTBEAT_SECONDS = 60.0  # websocket pings; a pong later than half of it ends the session
FULL_RETRY_SECONDS = 60


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a host name: it may resolve to anything


def default_max_sessions() -> int:
    """As many sessions as ``MEMORY_SHARE`` of this machine's memory holds at ``SESSION_MB`` each, and no more
    than ``SESSIONS_PER_CORE`` per core: on a small machine the cores run out long before the memory."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        return min(20, SESSIONS_PER_CORE * cores)
    return max(1, min(int(total * MEMORY_SHARE / (SESSION_MB * 2**20)), SESSIONS_PER_CORE * cores))


def serve_app(*, host: str, port: int, token: str | None, profile: str, max_sessions: int | None) -> None:
    """Check the options, open the bank, then serve until stopped.  The bank decides the mode: with
    accounts, learners sign in; without, the server is one profile's (token-checked beyond loopback)."""
    from quizzer.bank.accounts import has_accounts
    from quizzer.bank.db import database_errors
    from quizzer.learning.regrade import open_current_bank

    if token is not None and not token.strip():
        raise UserError("--token: must not be empty")
    with database_errors():
        engine, session = open_current_bank(cross_thread=True)
        with session:
            accounts = has_accounts(session=session)
    if accounts and token is not None:
        engine.dispose()
        raise UserError("--token: this bank has accounts, so learners sign in with their own; a shared token "
                        "is for a single user's server (see 'quizzer accounts')")
    if not accounts and token is None and not is_loopback(host):
        import secrets

        token = secrets.token_urlsafe(18)
    try:
        with _listen_errors(host, port):
            _check_free(host, port)  # before the server starts and prints its URL
            server = make_server(host=host, port=port, max_sessions=max_sessions or default_max_sessions(),
                                 gate=None if accounts else Gate(profile=profile, token=token), engine=engine)
            server.serve()
    finally:
        engine.dispose()


@contextlib.contextmanager
def _listen_errors(host: str, port: int) -> Iterator[None]:
    try:
        yield
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise UserError(f"port {port} on {host} is already in use: stop what uses it or choose another "
                            "with --port") from None
        if exc.errno == errno.EADDRNOTAVAIL or isinstance(exc, socket.gaierror):  # not ours, or no such name
            raise UserError(f"--host: {host} is not an address of this machine") from None
        raise


def _check_free(host: str, port: int) -> None:
    """Bind the address once, as the server will (SO_REUSEADDR, like aiohttp): an OSError if it cannot."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind((host, port))


def make_server(*, host: str, port: int, max_sessions: int, gate: Gate | None, engine: Any) -> Any:
    """The textual-serve server behind quizzer's gate, with its capacity and clean stop.
    ``gate`` None: sign-in mode, on ``engine``'s bank."""
    from aiohttp import web
    from textual_serve.server import Server

    class QuizzerServer(Server):
        def __init__(self) -> None:
            super().__init__(command="quizzer", host=host, port=port, title="quizzer")
            self.sessions: dict[AppService, Who] = {}
            self.sockets: dict[AppService, web.WebSocketResponse] = {}
            self.gate = gate or SignInGate(engine, on_sign_out=self.end_sessions_of)

        def initialize_logging(self) -> None:
            import logging

            logging.basicConfig(level=logging.WARNING, format="quizzer serve: %(message)s")

        def url(self) -> str:
            # 0.0.0.0 / :: listen everywhere but cannot be opened: show this machine's name instead.
            shown = socket.gethostname() if host in ("0.0.0.0", "::") else f"[{host}]" if ":" in host else host
            token = getattr(self.gate, "token", None)
            return f"http://{shown}:{port}/" + (f"?{urlencode({'token': token})}" if token else "")

        async def _make_app(self) -> web.Application:
            app = web.Application(middlewares=[self.check], client_max_size=64 * 1024)
            app.add_routes([
                web.get("/", self.handle_index, name="index"),
                web.get("/ws", self.handle_websocket, name="websocket"),
                web.get("/report", self.handle_report, name="report"),
                *self.gate.routes(),
                web.static("/static/quizzer", pages.STATIC / "quizzer", name="quizzer-static"),
                web.static("/static", self.statics_path, name="static"),
            ])
            app.on_startup.append(self.on_startup)
            app.on_shutdown.append(self.on_shutdown)
            return app

        @web.middleware
        async def check(self, request: web.Request, handler: Any) -> web.StreamResponse:
            """Every request but the public ones (static files, the sign-in form) names its learner first."""
            public = request.path.startswith("/static/") or request.path in ("/signin", "/signout")
            if public and self.gate.mode != "token":
                return await handler(request)  # type: ignore[no-any-return]
            who = await self.gate.who(request)
            if not isinstance(who, Who):
                return who
            request["who"] = who
            response: web.StreamResponse = await handler(request)
            self.gate.after(request, response)
            return response

        def full(self, who: Who) -> web.StreamResponse | None:
            """The page for a session that cannot start now (the server, or this learner, is at the limit)."""
            if len(self.sessions) >= max_sessions:
                return pages.server_full(FULL_RETRY_SECONDS)
            if sum(1 for other in self.sessions.values() if other.name == who.name) >= PER_LEARNER:
                return pages.message(429, "Too many tabs", f"You have {PER_LEARNER} quizzer tabs open already: "
                                     "close one, then reload this page.")
            return None

        async def handle_index(self, request: web.Request) -> web.StreamResponse:
            who: Who = request["who"]
            refused = self.full(who)
            if refused is not None:
                return refused
            scheme = "wss" if request.secure or request.headers.get("X-Forwarded-Proto") == "https" else "ws"
            return pages.app_page(name=who.name, role=who.role, websocket_url=f"{scheme}://{request.host}/ws",
                                  signed_in=who.token is not None)

        async def handle_report(self, request: web.Request) -> web.StreamResponse:
            """The class report, for a teacher only."""
            who: Who = request["who"]
            if who.role != "teacher":
                return pages.message(403, "Teachers only", "The class report is for the course's teachers.")
            try:
                html = await asyncio.to_thread(_class_report, engine)
            except UserError as exc:  # nothing answered yet
                return pages.message(200, "Class report", str(exc).capitalize() + ".")
            return web.Response(text=html, content_type="text/html")

        async def handle_websocket(self, request: web.Request) -> web.StreamResponse:  # type: ignore[override]  # or a page refusing it
            """The session's own app process, as the learner the gate named."""
            who: Who = request["who"]
            refused = cross_site(request) or self.full(who)
            if refused is not None:
                return refused
            # The heartbeat finds a browser that went away without closing (a laptop shut, a dropped network)
            # and frees its app process.  aiohttp closes a socket whose pong is late by half the heartbeat:
            # at 15 s (7.5 s for the pong) a server at its capacity dropped live students mid-session while
            # 50 app processes started (bench/bench_serve.py); 60 s frees a gone browser within 90 s.
            websocket = web.WebSocketResponse(heartbeat=HEARTBEAT_SECONDS)
            await websocket.prepare(request)

            async def close() -> None:
                await websocket.close()
            # textual-serve runs the command through a shell: exec makes the app the process it signals.
            command = "exec " + shlex.join([sys.executable, "-m", "quizzer.cli", "--profile", who.name])
            session = _app_service()(command, write_bytes=websocket.send_bytes, write_str=websocket.send_str,
                                     close=close, download_manager=self.download_manager)
            self.sessions[session], self.sockets[session] = who, websocket
            try:
                await session.start(_size(request, "width", 80), _size(request, "height", 24))
                await self._process_messages(websocket, session)
            except asyncio.CancelledError:
                await websocket.close()
            finally:
                self.sessions.pop(session, None)
                self.sockets.pop(session, None)
                await session.stop()
            return websocket

        async def end_sessions_of(self, token: str) -> None:
            """Sign-out: every app session this browser's cookie started ends now."""
            ended = [session for session, who in self.sessions.items() if who.token == token]

            async def end(session: AppService) -> None:
                socket = self.sockets.get(session)
                await session.stop()
                if socket is not None:
                    await socket.close()  # the tab hears at once, whatever state its app was in
            await asyncio.gather(*(end(session) for session in ended))

        async def recheck(self) -> None:
            """End the sessions whose sign-in ended elsewhere (another server, or expiry)."""
            while True:
                await asyncio.sleep(RECHECK_SECONDS)
                tokens = {who.token for who in self.sessions.values() if who.token is not None}
                with contextlib.suppress(Exception):  # a bank that is briefly unreachable: next time
                    live = await self.gate.still_signed_in(tokens)
                    for token in tokens - live:
                        await self.end_sessions_of(token)

        def serve(self, debug: bool = False) -> None:
            """textual-serve's, but the URL is printed once the server listens (aiohttp's ``print``, after its
            sites start), not before: whoever reads it (a test, a supervisor) may connect at once."""
            import signal

            self.initialize_logging()
            loop = asyncio.new_event_loop()
            asyncio.set_event_loop(loop)
            loop.add_signal_handler(signal.SIGINT, self.request_exit)
            loop.add_signal_handler(signal.SIGTERM, self.request_exit)
            web.run_app(self._make_app(), host=host, port=port, handle_signals=False, loop=loop,
                        print=lambda _message: self.announce())

        async def on_startup(self, app: web.Application) -> None:
            if self.gate.mode == "sign-in":
                app["recheck"] = asyncio.create_task(self.recheck())

        def announce(self) -> None:
            how = {"sign-in": " (learners sign in with the names and passwords from 'quizzer accounts')",
                   "token": " (give it only to your class: it holds the token)", "open": ""}[self.gate.mode]
            print(f"quizzer serve: open {self.url()} in a browser{how}. Ctrl+C stops the server.", file=sys.stderr)

        async def on_shutdown(self, app: web.Application) -> None:
            if "recheck" in app:
                app["recheck"].cancel()
            if self.sessions:
                print(f"quizzer serve: stopping {len(self.sessions)} app session(s)…", file=sys.stderr)
            await asyncio.gather(*(session.stop() for session in list(self.sessions)))

    return QuizzerServer()


def _app_service() -> type[AppService]:
    """textual-serve's app session, made sure to end: a hung app is terminated, then killed."""
    from textual_serve.app_service import AppService

    class App(AppService):
        process: asyncio.subprocess.Process | None = None

        async def _open_app_process(self, width: int = 80, height: int = 24) -> asyncio.subprocess.Process:
            self.process = await super()._open_app_process(width, height)
            return self.process

        async def stop(self) -> None:
            with contextlib.suppress(TimeoutError, ConnectionError):  # a hung or gone app: ended below
                await asyncio.wait_for(super().stop(), QUIT_SECONDS)
            process = self.process
            if process is None:
                return
            if process.returncode is None:
                process.terminate()
                try:
                    await asyncio.wait_for(process.wait(), QUIT_SECONDS)
                except TimeoutError:
                    process.kill()
                    await process.wait()
            if process.stdin is not None:
                process.stdin.close()  # the last pipe: its transport is closed now, not after the loop

    return App


def _class_report(engine: Any) -> str:
    """The teacher's report on the whole bank, as ``quizzer report --format html`` writes it."""
    from quizzer.bank.db import new_session
    from quizzer.common.clock import utcnow
    from quizzer.reporting.queries import load_class
    from quizzer.reporting.render import render_html
    from quizzer.reporting.report import build_report, require_answers
    from quizzer.templates.catalog import load_catalog

    with new_session(engine) as session:
        data = load_class(session=session, paper=None, topic=None)
    require_answers(data, paper=None, topic=None)
    return render_html(build_report(data.attempts, data.learners, data.templates, load_catalog(), now=utcnow(),
                                    paper=None, topic=None))


def _size(request: web.Request, name: str, default: int) -> int:
    try:
        return max(10, min(int(request.query.get(name, default)), 1000))
    except ValueError:
        return default
