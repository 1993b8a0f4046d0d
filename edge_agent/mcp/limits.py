"""Bounds on what HTTP clients can hold: connections, time to send a request, MCP sessions.

uvicorn accepts connections without limit and waits forever for a request on each, so a few hundred
idle sockets exhaust the process's file descriptors while the watchdog keeps pinging. Here:

* at most ``max_connections`` connections are open; when one more arrives, the oldest connection
  that is only waiting for a request, or still receiving one (a head or body not yet complete: a
  client dribbling bytes holds a slot as long as an idle one), is closed to make room, and if every
  one is busy serving a complete request the newcomer is closed instead;
* a connection must deliver a complete request (head and body) within ``request_deadline_s`` of
  connecting or of sending its first byte after a response; otherwise it is closed;
* a request body may hold at most a route's limit (:class:`BodyLimit`), counted as it arrives, chunked
  or not: the request is answered 413 and its connection closed once the limit is passed, without
  reading (or buffering) the rest;
* the MCP session table, when full, drops the session idle for longest instead of refusing new
  clients with 503 until abandoned sessions time out.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import resource
import time
from typing import TYPE_CHECKING, Any

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

if TYPE_CHECKING:  # the ASGI interface's own names (starlette comes with the mcp SDK)
    from starlette.types import ASGIApp, Receive, Scope, Send

log = logging.getLogger(__name__)

MAX_CONNECTIONS = 128
REQUEST_DEADLINE_S = 10.0
#: Largest MCP request body (a tool call's arguments: register data, memory text), on the TCP port and
#: the local socket alike; other routes of those servers get the same bound unless given their own.
MAX_MCP_BODY = 16 * 1024 * 1024
_WARN_EVERY_S = 60.0


class _State:
    """Counters shared by the connections of one server (for logging at most once a minute)."""

    def __init__(self) -> None:
        self.last_warning = 0.0
        self.refused = 0
        self.evicted = 0
        self.timed_out = 0

    def warn(self, text: str) -> None:
        now = time.monotonic()
        if now - self.last_warning >= _WARN_EVERY_S:
            self.last_warning = now
            log.warning("%s (since start: %d refused, %d idle closed for room, %d request deadlines missed)",
                        text, self.refused, self.evicted, self.timed_out)


class LimitedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a connection cap and a deadline for each request to arrive."""

    max_connections = MAX_CONNECTIONS
    request_deadline_s = REQUEST_DEADLINE_S
    shared = _State()

    _deadline: asyncio.TimerHandle | None = None
    _opened = 0.0  # when the connection was made (monotonic)

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self._opened = time.monotonic()
        super().connection_made(transport)
        live = sum(1 for c in self.connections if not c.transport.is_closing())
        if live > self.max_connections and not self._make_room():
            self.shared.refused += 1
            self.shared.warn(f"HTTP connection limit ({self.max_connections}) reached; refusing new connections")
            transport.abort()
            return
        self._arm()

    def _waiting(self) -> bool:
        """True while no request is being served on this connection (only waiting for one)."""
        return self.cycle is None or self.cycle.response_complete

    def _receiving(self) -> bool:
        """True while the request's body is still arriving (the app cannot have answered it yet)."""
        return self.cycle is not None and self.cycle.more_body and not self.cycle.response_started

    def _make_room(self) -> bool:
        idle = [c for c in self.connections if c is not self and isinstance(c, LimitedH11Protocol)
                and (c._waiting() or c._receiving()) and not c.transport.is_closing()]
        if not idle:
            return False
        oldest = min(idle, key=lambda c: c._opened)
        self.shared.evicted += 1
        self.shared.warn(f"HTTP connection limit ({self.max_connections}) reached; closing idle or slow connections")
        oldest._drop()
        return True

    def _arm(self) -> None:
        if self._deadline is None:
            self._deadline = self.loop.call_later(self.request_deadline_s, self._missed_deadline)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _missed_deadline(self) -> None:
        self._deadline = None
        if self._waiting() or (self.cycle is not None and self.cycle.more_body):
            self.shared.timed_out += 1
            self.shared.warn(f"closed an HTTP connection that sent no complete request within "
                             f"{self.request_deadline_s:g} s")
            self._drop()

    def _drop(self) -> None:
        self._disarm()
        if not self.transport.is_closing():
            self.transport.close()

    def data_received(self, data: bytes) -> None:
        if self._waiting():  # the first bytes of a new request: it has until the deadline to complete
            self._arm()
        super().data_received(data)
        if not self._waiting() and not self.cycle.more_body:  # a request is in, head and body
            self._disarm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)


def connection_cap(wanted: int | None = None) -> int:
    """MAX_CONNECTIONS, lowered when the open-file limit is too small for it (each needs a descriptor,
    and databases, devices and the loop's own sockets need about 64 more)."""
    cap = MAX_CONNECTIONS if wanted is None else wanted
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY:
        cap = min(cap, max(8, (soft - 64) // 2))
    return cap


def protocol_class(max_connections: int | None = None,
                   request_deadline_s: float | None = None) -> type[LimitedH11Protocol]:
    """A protocol class for one server (its own limits and counters); None means the module default."""
    return type("LimitedH11Protocol", (LimitedH11Protocol,),
                {"max_connections": connection_cap(max_connections),
                 "request_deadline_s": REQUEST_DEADLINE_S if request_deadline_s is None else request_deadline_s,
                 "shared": _State()})


# --- request bodies ---------------------------------------------------------------------------------


class _TooLarge(Exception):
    pass


class BodyLimit:
    """ASGI middleware: a request body larger than its route's limit is answered 413 as soon as it is
    known to be (from Content-Length, or by counting the bytes of a chunked body as they arrive).

    ``limits`` maps a path prefix to its limit in bytes; the longest matching prefix wins, and a path
    none matches gets ``default``. The app never sees more than the limit; once the answer is sent the
    rest of the body is not read (uvicorn closes a connection whose request body was not consumed).
    """

    def __init__(self, app: ASGIApp, limits: dict[str, int], default: int) -> None:
        self.app = app
        self.limits = sorted(limits.items(), key=lambda kv: -len(kv[0]))
        self.default = default

    def limit_for(self, path: str) -> int:
        return next((n for prefix, n in self.limits if path.startswith(prefix)), self.default)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit_for(scope.get("path", ""))
        declared = dict(scope.get("headers") or []).get(b"content-length", b"")
        if declared.isdigit() and int(declared) > limit:
            await _too_large(send, limit)
            return
        seen = 0
        refused = False
        started = False

        async def counting_receive() -> Any:
            nonlocal seen, refused
            if refused:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    refused = True
                    if not started:
                        await _too_large(send, limit)
                    raise _TooLarge
            return message

        async def tracking_send(message: Any) -> None:
            nonlocal started
            if refused:
                return  # the 413 went out; whatever the app says after it is dropped
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counting_receive, tracking_send)
        except BaseException:
            if not refused:
                raise
            # the app's reaction to the cut body (an error, a task group of them) is not news


async def _too_large(send: Any, limit: int) -> None:
    body = json.dumps({"error": {"type": "RequestTooLarge",
                                 "message": f"the request body is larger than {limit} bytes; send less"}}).encode()
    await send({"type": "http.response.start", "status": 413,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


# --- MCP sessions -------------------------------------------------------------------------------------


def evict_idle_sessions(manager: Any) -> None:
    """Make a full session table drop the session idle for longest instead of answering 503.

    A session with a request in flight (or an open GET stream) is never dropped; with every session
    busy, the SDK's 503 stands. A dropped client that comes back gets 404 and starts a new session,
    as after an idle timeout.
    """
    admit = manager._admit_session

    def admit_evicting(requestor: Any) -> Any:
        limit = manager.max_sessions
        if limit is not None and len(manager._server_instances) >= limit:
            _evict_oldest_idle(manager)
        return admit(requestor)

    manager._admit_session = admit_evicting


def _evict_oldest_idle(manager: Any) -> None:
    best_id, best_deadline = None, math.inf
    for session_id, transport in list(manager._server_instances.items()):
        scope = getattr(transport, "idle_scope", None)
        if scope is None or getattr(transport, "_requests_in_flight", True):
            continue
        if scope.deadline < best_deadline:  # idle since longest = earliest idle deadline
            best_id, best_deadline = session_id, scope.deadline
    if best_id is None:
        return
    transport = manager._server_instances.pop(best_id)
    manager._session_owners.pop(best_id, None)
    transport.idle_scope.cancel()  # ends the session's server task, which terminates its transport
    log.info("MCP session table full (%d): closed the session idle for longest", manager.max_sessions)


async def stop_server(server: uvicorn.Server, task: asyncio.Task[None], what: str) -> None:
    """Stop accepting and let requests in flight finish for up to 8 s, then force the rest for 2 s.

    A crash while stopping is logged with ``what`` names the server, not re-raised: shutdown goes on.
    """
    server.should_exit = True
    try:
        await asyncio.wait_for(asyncio.shield(task), timeout=8)
    except TimeoutError:
        server.force_exit = True
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(task, timeout=2)
    except BaseException as exc:
        log.warning("%s stopped with %s", what, type(exc).__name__)
