"""The server behind ``quizzer serve`` (the command, in ``practice``): the practice app in a browser,
for students who do not live in a terminal.

textual-serve (from Textual's authors) runs one app process per browser session and streams its
screen over a websocket; each process is ``quizzer --profile NAME``, the very app a terminal
opens, on the same bank (``QUIZZER_DB`` is inherited), so attempts are committed as there.

**Who may connect.**  On a loopback address nobody else can reach the server, so no token is
needed.  Any other address needs a token (``--token``, or one generated and printed once with the
URL to open).  Every request (page, websocket, static files) is checked first: one without the
token (``?token=`` once, then a cookie the page sets) gets 401, and no app process is started.

**Whose session.**  A session runs as the profile its URL names (``?profile=NAME``, else the
``--profile`` the server was started with, else the default profile), passed to the app process
as ``--profile``: two sessions never share a process, so never a learner.  The token is shared by
the class: it keeps strangers out, it does not tell learners apart (see SECURITY.md).

**Stopping.**  Ctrl+C (or SIGTERM) tells every app process to quit, waits for it briefly, then
terminates what is left, so no process outlives the server.

This module, and textual-serve with it, is imported only when ``serve`` runs: every other command
starts without them.
"""

from __future__ import annotations

import contextlib
import errno
import hmac
import ipaddress
import secrets
import shlex
import socket
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlencode

from quizzer.common.errors import UserError

if TYPE_CHECKING:
    from aiohttp import web

QUIT_SECONDS = 5.0  # an app process asked to quit gets this long before it is terminated
UNAUTHORISED = "quizzer serve: this server needs its token: open the URL it printed when it started\n"


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a host name: it may resolve to anything


def serve_app(*, host: str, port: int, token: str | None, default_profile: str) -> None:
    """Check the options, then serve until stopped; ``token`` None: none needed on loopback, else one made."""
    if token is not None and not token.strip():
        raise UserError("--token: must not be empty")
    if token is None and not is_loopback(host):
        token = secrets.token_urlsafe(18)
    with _listen_errors(host, port):
        _check_free(host, port)  # before the server starts and prints its URL
        make_server(host=host, port=port, token=token, default_profile=default_profile).serve()


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


def make_server(*, host: str, port: int, token: str | None, default_profile: str) -> Any:
    """The textual-serve server with quizzer's token check, per-session profile and clean stop."""
    import asyncio  # here, not at the top: every other command would pay for it at start-up

    import aiohttp_jinja2
    import jinja2
    from aiohttp import web
    from textual_serve.app_service import AppService
    from textual_serve.server import Server

    from quizzer.common.profiles import valid_name

    class App(AppService):
        """One app process, which ``stop`` makes sure has ended."""

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

    class QuizzerServer(Server):
        cookie = f"quizzer_token_{port}"  # a browser keeps cookies per host, not per port

        def __init__(self) -> None:
            super().__init__(command="quizzer", host=host, port=port, title="quizzer")
            self.sessions: set[App] = set()

        def initialize_logging(self) -> None:
            import logging

            logging.basicConfig(level=logging.WARNING, format="quizzer serve: %(message)s")

        def url(self) -> str:
            # 0.0.0.0 / :: listen everywhere but cannot be opened: show this machine's name instead.
            shown = socket.gethostname() if host in ("0.0.0.0", "::") else f"[{host}]" if ":" in host else host
            return f"http://{shown}:{port}/" + (f"?{urlencode({'token': token})}" if token else "")

        async def _make_app(self) -> web.Application:
            app = web.Application(middlewares=[self.check_token])
            aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(self.templates_path))
            app.add_routes([
                web.get("/", self.handle_index, name="index"),
                web.get("/ws/{profile}", self.handle_websocket, name="websocket"),
                web.get("/download/{key}", self.handle_download, name="download"),
                web.static("/static", self.statics_path, name="static"),
            ])
            app.on_startup.append(self.on_startup)
            app.on_shutdown.append(self.on_shutdown)
            return app

        @web.middleware
        async def check_token(self, request: web.Request, handler: Any) -> web.StreamResponse:
            """Every request presents the token (query or cookie) before any handler runs."""
            if token is None:
                return await handler(request)  # type: ignore[no-any-return]
            given = request.query.get("token") or request.cookies.get(self.cookie) or ""
            if not hmac.compare_digest(given.encode(), token.encode()):
                return web.Response(status=401, text=UNAUTHORISED)
            response: web.StreamResponse = await handler(request)
            if "token" in request.query and not isinstance(response, web.WebSocketResponse):
                response.set_cookie(self.cookie, token, httponly=True, samesite="Strict")
            return response

        async def handle_index(self, request: web.Request) -> web.Response:
            try:
                profile = valid_name(request.query.get("profile") or default_profile, where="?profile=")
            except UserError as exc:
                return web.Response(status=400, text=f"quizzer serve: {exc}\n")
            scheme = "wss" if request.secure else "ws"
            context = {"font_size": 16, "app_websocket_url": f"{scheme}://{request.host}/ws/{quote(profile)}",
                       "config": {"static": {"url": "/static/"}}, "application": {"name": f"quizzer: {profile}"}}
            return aiohttp_jinja2.render_template("app_index.html", request, context)

        async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
            """The session's own app process, as the profile its URL names."""
            try:
                profile = valid_name(request.match_info["profile"], where="session")
            except UserError as exc:
                raise web.HTTPBadRequest(text=f"quizzer serve: {exc}\n") from None
            websocket = web.WebSocketResponse(heartbeat=15)
            await websocket.prepare(request)

            async def close() -> None:
                await websocket.close()
            # textual-serve runs the command through a shell: exec makes the app the process it signals.
            command = "exec " + shlex.join([sys.executable, "-m", "quizzer.cli", "--profile", profile])
            session = App(command, write_bytes=websocket.send_bytes, write_str=websocket.send_str,
                          close=close, download_manager=self.download_manager)
            self.sessions.add(session)
            try:
                await session.start(_size(request, "width", 80), _size(request, "height", 24))
                await self._process_messages(websocket, session)
            except asyncio.CancelledError:
                await websocket.close()
            finally:
                self.sessions.discard(session)
                await session.stop()
            return websocket

        async def on_startup(self, app: web.Application) -> None:
            who = "" if token is None else " (give it only to your class: it holds the token)"
            print(f"quizzer serve: open {self.url()} in a browser{who}. Ctrl+C stops the server.", file=sys.stderr)

        async def on_shutdown(self, app: web.Application) -> None:
            if self.sessions:
                print(f"quizzer serve: stopping {len(self.sessions)} app session(s)…", file=sys.stderr)
            await asyncio.gather(*(session.stop() for session in list(self.sessions)))

    return QuizzerServer()


def _size(request: web.Request, name: str, default: int) -> int:
    try:
        return max(10, min(int(request.query.get(name, default)), 1000))
    except ValueError:
        return default
