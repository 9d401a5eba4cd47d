"""The HTML around the app: the app's page, sign-in, "the server is full" and other messages, and the
teacher's report, each a Jinja template in ``templates/`` (autoescaped: a name typed into the sign-in
form comes back as text, never as markup).  Every page is self-contained: its styles and font come
from this server, so a browser makes no request to any other."""

from __future__ import annotations

import functools
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import jinja2
    from aiohttp import web

TEMPLATES = Path(__file__).parent / "templates"
STATIC = Path(__file__).parent / "static"


@functools.cache
def _environment() -> jinja2.Environment:
    import jinja2

    return jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True,
                              undefined=jinja2.StrictUndefined)


def render(template: str, *, status: int = 200, headers: dict[str, str] | None = None, **context: Any) -> web.Response:
    from aiohttp import web

    text = _environment().get_template(template).render(**context)
    return web.Response(status=status, text=text, content_type="text/html", headers=headers)


def app_page(*, name: str, role: str, websocket_url: str, signed_in: bool) -> web.Response:
    return render("app.html", name=name, teacher=role == "teacher", websocket_url=websocket_url,
                  signed_in=signed_in)


def sign_in(*, status: int = 200, name: str = "", error: str = "", retry_after: float = 0) -> web.Response:
    headers = {"Retry-After": str(math.ceil(retry_after))} if retry_after else None
    return render("signin.html", status=status, headers=headers, name=name, error=error)


def message(status: int, title: str, text: str, *, sign_in: bool = False, retry_after: int = 0) -> web.Response:
    headers = {"Retry-After": str(retry_after)} if retry_after else None
    return render("message.html", status=status, headers=headers, title=title, text=text, sign_in=sign_in,
                  refresh=retry_after)


def server_full(retry_after: int) -> web.Response:
    """503 with Retry-After; the page tries again by itself after that long."""
    return message(503, "The server is full",
                   f"Every place on this server is taken. Try again in a minute: this page tries again by itself "
                   f"in {retry_after} seconds.",
                   retry_after=retry_after)
