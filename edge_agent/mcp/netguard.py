"""Who may reach the HTTP server: the bind policy and the Host/Origin check on every request.

* A non-loopback bind puts the device (and, without TLS, its token) on the network, so it is refused
  unless ``[server] allow_public_bind = true``.
* Every request's ``Host`` must name this server: the loopback names, the bound address when it is
  a specific one, this machine's host name (and ``<hostname>.local``, mDNS) and ``[server]
  allowed_hosts``. That defeats DNS rebinding, where a web page's own host name is pointed at the
  device so the browser treats the device as that page's origin.
* A browser's ``Origin``, when sent, must be this server under one of those names, with the scheme and
  the port it serves, or one of ``[server] allowed_origins``: another site's page cannot drive the
  device, including a page another program serves on the same machine (``http://localhost:3000`` is
  another origin than ``http://localhost:8765``).
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from edge_agent.errors import ConfigError

if TYPE_CHECKING:  # the ASGI interface's own names (starlette comes with the mcp SDK)
    from starlette.types import ASGIApp, Receive, Scope, Send

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")
WILDCARDS = ("0.0.0.0", "::", "")


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback addresses (127.0.0.0/8, ::1)."""
    if host.strip("[]").lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_bind(host: str, allow_public_bind: bool) -> None:
    """Refuse a non-loopback listen address unless the configuration allows it explicitly."""
    if is_loopback(host) or allow_public_bind:
        return
    raise ConfigError(
        f"refusing to serve HTTP on {host!r}: that address is reachable from the network, and anyone who can "
        "reach it can try the token. Keep the default host 127.0.0.1 (and use an SSH tunnel), or set "
        "[server] allow_public_bind = true, with [server] tls_cert and tls_key so the token is not sent in "
        "clear text, and [server] allowed_hosts naming how clients address this device")


def _host_name(value: str) -> str:
    """The name part of a Host header or entry ("[::1]:8765" -> "::1", "pi.local:80" -> "pi.local")."""
    value = value.strip().lower()
    if value.startswith("["):
        return value[1:value.index("]")] if "]" in value else value
    if value.count(":") == 1:
        return value.split(":", 1)[0]
    return value


@dataclass(frozen=True)
class HostPolicy:
    """The names and origins this server answers to."""

    names: frozenset[str]
    origins: frozenset[str]
    scheme: str = "http"
    port: int | None = None  # the port served; None accepts an origin on any port (no server bound yet)

    @classmethod
    def build(cls, bind_host: str, *, allowed_hosts: Iterable[str] = (), allowed_origins: Iterable[str] = (),
              tls: bool = False, port: int | None = None) -> HostPolicy:
        names = {n for n in LOOPBACK_NAMES}
        if bind_host not in WILDCARDS:
            names.add(_host_name(bind_host) if bind_host.startswith("[") else bind_host.lower())
        if not is_loopback(bind_host):
            hostname = socket.gethostname().lower()
            names.update({hostname, f"{hostname}.local"})
        names.update(_host_name(h) for h in allowed_hosts if h.strip())
        origins = {o.strip().rstrip("/").lower() for o in allowed_origins if o.strip()}
        return cls(frozenset(names), frozenset(origins), "https" if tls else "http", port)

    def host_ok(self, host: str | None) -> bool:
        return bool(host) and _host_name(host or "") in self.names

    def origin_ok(self, origin: str | None) -> bool:
        if not origin:  # same-origin GETs and non-browser clients send none
            return True
        origin = origin.strip().rstrip("/").lower()
        if origin in self.origins:
            return True
        parts = urlsplit(origin)
        if parts.scheme != self.scheme or (parts.hostname or "") not in self.names:
            return False
        if self.port is None:
            return True
        try:
            port = parts.port or self._default_port()
        except ValueError:  # a port that is not a number
            return False
        return port == self.port

    def _default_port(self) -> int:
        return 443 if self.scheme == "https" else 80

    def sdk_settings(self) -> dict[str, list[str]]:
        """The same policy in the MCP SDK's TransportSecuritySettings terms (``name:*`` = any port)."""
        hosts, origins = [], []
        for name in sorted(self.names):
            shown = f"[{name}]" if ":" in name else name
            hosts += [shown, f"{shown}:*"]
            if self.port is None:
                origins += [f"{self.scheme}://{shown}", f"{self.scheme}://{shown}:*"]
            else:
                origins.append(f"{self.scheme}://{shown}:{self.port}")
                if self.port == self._default_port():
                    origins.append(f"{self.scheme}://{shown}")
        return {"allowed_hosts": hosts, "allowed_origins": origins + sorted(self.origins)}


class HostOriginGuard:
    """ASGI middleware: 421 for a foreign Host, 403 for a foreign Origin, before any route runs."""

    def __init__(self, app: ASGIApp, policy: HostPolicy) -> None:
        self.app = app
        self.policy = policy

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        host, origin = headers.get("host"), headers.get("origin")
        if not self.policy.host_ok(host):
            await _plain(send, 421, f"Host {host!r} is not a name this server answers to; if clients reach this "
                                    "device by that name, add it to [server] allowed_hosts")
            return
        if not self.policy.origin_ok(origin):
            await _plain(send, 403, f"Origin {origin!r} may not use this server; add it to [server] "
                                    "allowed_origins if that site is yours")
            return
        await self.app(scope, receive, send)


async def _plain(send: Any, status: int, text: str) -> None:
    body = text.encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
