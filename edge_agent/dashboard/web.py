"""The status page's HTTP side: ``/`` (the page), ``/static/<file>`` and ``/api/status`` (what it polls).

Access is the MCP bearer token, either as ``Authorization: Bearer <token>`` or through the login link
``/?token=<token>``, which sets an HttpOnly, SameSite=Strict cookie and redirects to ``/`` so the token
leaves the address bar. The cookie holds an HMAC of the token, not the token: a stolen cookie opens the
page but cannot call MCP tools. Anything else gets 401 and a body with no device data.

Every response forbids loading anything from elsewhere (Content-Security-Policy ``default-src
'self'``), so the page works offline and cannot leak to a third party.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from functools import cache
from importlib import resources
from typing import Any

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from edge_agent.dashboard.collect import Collector
from edge_agent.runtime import Runtime

COOKIE = "edge_agent_session"
#: The files under static/ the page is made of, with their media types (nothing else is served).
STATIC = {"index.html": "text/html; charset=utf-8", "app.js": "text/javascript; charset=utf-8",
          "style.css": "text/css; charset=utf-8"}
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
                               "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
}
_DENIED_HTML = (b"<!doctype html><meta charset=utf-8><title>edge-agent: sign in</title>"
                b"<p>This status page needs the device's access link. On the device, run "
                b"<code>edge-agent dashboard --url</code> and open the link it prints.</p>")


@cache
def static_file(name: str) -> bytes:
    """The bytes of one of the page's files shipped in the package."""
    return (resources.files("edge_agent.dashboard") / "static" / name).read_bytes()


def token_matches(expected: str, given: str) -> bool:
    """Constant-time comparison, so response timing does not leak the token."""
    return hmac.compare_digest(expected.encode(), given.encode())


def cookie_value(token: str) -> str:
    """What the session cookie holds: derived from the token, useless as a bearer token."""
    return hmac.new(token.encode(), b"edge-agent status page session", hashlib.sha256).hexdigest()


class Dashboard:
    """The status page's routes for one runtime and token."""

    def __init__(self, runtime: Runtime, token: str, *, secure_cookie: bool = False) -> None:
        self.collector = Collector(runtime)
        self._token = token
        self._cookie = cookie_value(token)
        self._secure = secure_cookie

    def routes(self) -> list[Route]:
        """Starlette routes to add to the HTTP app."""
        return [Route("/", self.index, methods=["GET", "HEAD"]),
                Route("/static/{name}", self.static, methods=["GET", "HEAD"]),
                Route("/api/status", self.status, methods=["GET"])]

    def authorized(self, request: Request) -> bool:
        """A valid bearer token or session cookie (compared in constant time)."""
        auth = request.headers.get("authorization", "")
        if auth[:7].lower() == "bearer " and token_matches(self._token, auth[7:].strip()):
            return True
        cookie = request.cookies.get(COOKIE)
        return cookie is not None and token_matches(self._cookie, cookie)

    async def index(self, request: Request) -> Response:
        given = request.query_params.get("token")
        if given is not None:
            if not token_matches(self._token, given):
                return denied(request)
            response = RedirectResponse("/", status_code=303, headers=SECURITY_HEADERS)
            response.set_cookie(COOKIE, self._cookie, httponly=True, samesite="strict", secure=self._secure,
                                path="/")
            return response
        if not self.authorized(request):
            return denied(request)
        return Response(static_file("index.html"), media_type=STATIC["index.html"], headers=SECURITY_HEADERS)

    async def static(self, request: Request) -> Response:
        if not self.authorized(request):
            return denied(request)
        name = request.path_params["name"]
        if name not in STATIC or name == "index.html":
            return Response("not found", status_code=404, media_type="text/plain", headers=SECURITY_HEADERS)
        return Response(static_file(name), media_type=STATIC[name], headers=SECURITY_HEADERS)

    async def status(self, request: Request) -> Response:
        if not self.authorized(request):
            return denied(request)
        data = await anyio.to_thread.run_sync(self.collector.snapshot)
        body = json.dumps(data, separators=(",", ":"), default=str)
        return Response(body, media_type="application/json", headers=SECURITY_HEADERS)


def denied(request: Request) -> Response:
    """401 with a WWW-Authenticate challenge and no device data (HTML for a browser, JSON otherwise)."""
    headers: dict[str, Any] = {**SECURITY_HEADERS, "WWW-Authenticate": 'Bearer realm="edge-agent"'}
    if "text/html" in request.headers.get("accept", ""):
        return Response(_DENIED_HTML, status_code=401, media_type="text/html; charset=utf-8", headers=headers)
    body = {"error": "unauthorized", "detail": "send the MCP token as 'Authorization: Bearer <token>', or open the "
            "link `edge-agent dashboard --url` prints"}
    return Response(json.dumps(body), status_code=401, media_type="application/json", headers=headers)
