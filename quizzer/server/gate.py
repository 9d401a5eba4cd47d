"""Who a request is.  A server is opened one of three ways, chosen when it starts:

- **sign-in** (the bank has accounts: ``quizzer accounts``): every learner signs in with their own
  name and password; a session cookie then names them, and everything they start runs as them.
- **token** (no accounts, a non-loopback address or ``--token``): one shared secret keeps strangers
  out, and everyone holding it is the server's one profile (``--profile``): a single user's server.
- **open** (no accounts, loopback, no token): only this machine can connect; the server's profile.

In no mode does a URL choose the profile: the sign-in does, or the server's command line.

**The session cookie** (``quizzer_session``) holds 32 random bytes; the bank keeps their SHA-256
(``bank.accounts``), so every server on one database knows the session and signing out ends it on
all of them.  It is HttpOnly (no script reads it), SameSite=Lax (no other site's form or script
sends it), Secure behind HTTPS, and expires after ``SESSION_HOURS`` in the browser and in the bank.
A request that changes state (sign in, sign out) or opens a websocket must come from this server's
own page: its Origin header, when the browser sends one, must name this host (no cross-site
websocket hijacking, no sign-in forged by another site).
"""

from __future__ import annotations

import asyncio
import hmac
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from quizzer.common.errors import UserError
from quizzer.common.profiles import valid_name
from quizzer.server import pages
from quizzer.server.passwords import MAX_PASSWORD, check_password
from quizzer.server.throttle import Throttle

if TYPE_CHECKING:
    from aiohttp import web
    from sqlalchemy.engine import Engine

SESSION_COOKIE = "quizzer_session"
SESSION_HOURS = 12
MAX_FORM_BYTES = 4096  # a sign-in form is a name and a password; anything larger is refused unread
UNAUTHORISED = "quizzer serve: this server needs its token: open the URL it printed when it started\n"
Handler = Callable[["web.Request"], Awaitable["web.StreamResponse"]]


@dataclass(frozen=True)
class Who:
    """The learner a request acts as; ``token`` is their session cookie's (sign-in mode only)."""

    name: str
    role: str = "learner"
    token: str | None = None


class Gate:
    """Open or token mode: everyone is the server's one profile (once past the token, if any)."""

    mode = "open"

    def __init__(self, *, profile: str, token: str | None = None) -> None:
        self.profile, self.token = profile, token
        self.cookie = "quizzer_token"
        if token is not None:
            self.mode = "token"

    def routes(self) -> list[Any]:
        return []

    async def who(self, request: web.Request) -> Who | web.StreamResponse:
        """The request's learner, or the response that refuses it."""
        from aiohttp import web

        if self.token is not None:
            given = request.query.get("token") or request.cookies.get(self.cookie) or ""
            if not hmac.compare_digest(given.encode(), self.token.encode()):
                return web.Response(status=401, text=UNAUTHORISED)
        return Who(self.profile)

    def after(self, request: web.Request, response: web.StreamResponse) -> None:
        """What a response sets: in token mode, the cookie that spares the token in every later URL."""
        if self.token is not None and "token" in request.query and not isinstance(response, _websocket()):
            response.set_cookie(self.cookie, self.token, httponly=True, samesite="Strict")

    async def end(self, who: Who) -> None:  # nothing to end: no sign-in
        return None

    async def still_signed_in(self, tokens: set[str]) -> set[str]:
        return tokens


class SignInGate(Gate):
    """Sign-in mode: each learner is who their session cookie says, checked in the bank every time."""

    mode = "sign-in"

    def __init__(self, engine: Engine, *, on_sign_out: Callable[[str], Awaitable[None]]) -> None:
        super().__init__(profile="")
        self.engine, self.on_sign_out = engine, on_sign_out
        self.throttle = Throttle()
        self.lifetime = timedelta(hours=SESSION_HOURS)

    def routes(self) -> list[Any]:
        from aiohttp import web

        return [web.get("/signin", self.sign_in_page), web.post("/signin", self.sign_in),
                web.post("/signout", self.sign_out)]

    async def who(self, request: web.Request) -> Who | web.StreamResponse:
        from aiohttp import web

        token = request.cookies.get(SESSION_COOKIE, "")
        found = await self._bank(_signed_in, token) if 0 < len(token) <= 100 else None
        if found is not None:
            return Who(found.name, found.role, token)
        if request.path == "/" and request.method == "GET":
            raise web.HTTPSeeOther("/signin")
        return pages.message(401, "Please sign in", "This page needs you to sign in first.", sign_in=True)

    def after(self, request: web.Request, response: web.StreamResponse) -> None:
        return None

    async def sign_in_page(self, request: web.Request) -> web.StreamResponse:
        return pages.sign_in()

    async def sign_in(self, request: web.Request) -> web.StreamResponse:
        from aiohttp import web

        refused = cross_site(request)
        if refused is not None:
            return refused
        if (request.content_length or 0) > MAX_FORM_BYTES:
            return pages.sign_in(status=413, error="That form is too large.")
        form = await request.post()
        name, password = str(form.get("name", "")).strip(), str(form.get("password", ""))
        address = request.remote or ""
        wait = self.throttle.wait(name=name, address=address)
        if wait > 0:
            return pages.sign_in(status=429, name=name, error=(
                f"Too many failed sign-ins: try again in {_duration(wait)}, or ask your teacher for a new password."),
                retry_after=wait)
        try:
            valid_name(name, where="name")
        except UserError:
            name_ok = False
        else:
            name_ok = len(password) <= MAX_PASSWORD
        record = await self._bank(_password_record, name) if name_ok else None
        # check_password does the same work when there is no record, so a wrong name costs a wrong password's time.
        matches = await asyncio.to_thread(check_password, password, record[0] if record else None)
        if not matches:
            self.throttle.failed(name=name, address=address)
            return pages.sign_in(status=401, name=name, error="That name and password do not match.")
        self.throttle.succeeded(name=name)
        token = secrets.token_urlsafe(32)
        await self._bank(_start, name, token, self.lifetime)
        response = web.HTTPSeeOther("/")
        response.set_cookie(SESSION_COOKIE, token, max_age=int(self.lifetime.total_seconds()), httponly=True,
                            samesite="Lax", secure=is_https(request), path="/")
        return response

    async def sign_out(self, request: web.Request) -> web.StreamResponse:
        from aiohttp import web

        refused = cross_site(request)
        if refused is not None:
            return refused
        token = request.cookies.get(SESSION_COOKIE, "")
        if token:
            await self._bank(_end, token)
            await self.on_sign_out(token)
        response = web.HTTPSeeOther("/signin")
        response.del_cookie(SESSION_COOKIE, path="/")
        return response

    async def still_signed_in(self, tokens: set[str]) -> set[str]:
        """Those of ``tokens`` whose session has not ended (here, on another server, or by expiring)."""
        return {token for token in tokens if await self._bank(_signed_in, token) is not None}

    async def _bank(self, work: Callable[..., Any], *args: Any) -> Any:
        """Bank work off the event loop: one short session in a worker thread."""
        from quizzer.bank.db import new_session

        def run() -> Any:
            with new_session(self.engine) as session:
                result = work(session, *args)
                session.commit()
                return result
        return await asyncio.to_thread(run)


def _signed_in(session: Any, token: str) -> Any:
    from quizzer.bank.accounts import signed_in

    return signed_in(session=session, token=token)


def _password_record(session: Any, name: str) -> tuple[str, str] | None:
    from quizzer.bank.accounts import password_record

    return password_record(session=session, name=name)


def _start(session: Any, name: str, token: str, lifetime: timedelta) -> Any:
    from quizzer.bank.accounts import start_session

    return start_session(session=session, name=name, token=token, lifetime=lifetime)


def _end(session: Any, token: str) -> None:
    from quizzer.bank.accounts import end_session

    end_session(session=session, token=token)


def cross_site(request: web.Request) -> web.StreamResponse | None:
    """403 for a request another site's page made (its Origin names another host); None when it is ours."""
    origin = request.headers.get("Origin")
    if origin is None or _same_host(origin, request.host):
        return None
    return pages.message(403, "Refused", "That request came from another site.")


def _same_host(origin: str, host: str) -> bool:
    """Whether the Origin names the host the request was sent to (a default port written or not)."""
    try:
        sent, ours = urlsplit(origin), urlsplit("//" + host)
        default = 443 if sent.scheme == "https" else 80
        return sent.hostname == ours.hostname and (sent.port or default) == (ours.port or default)
    except ValueError:  # a port that is not a number
        return False


def is_https(request: web.Request) -> bool:
    """Behind an HTTPS reverse proxy the connection to us is plain, so the proxy's header says it."""
    return request.secure or request.headers.get("X-Forwarded-Proto", "") == "https"


def _duration(seconds: float) -> str:
    return f"{round(seconds)} s" if seconds < 90 else f"{round(seconds / 60)} min"


def _websocket() -> type:
    from aiohttp import web

    return web.WebSocketResponse
