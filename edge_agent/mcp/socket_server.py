"""The daemon's local socket: ``<state>/hub.sock``, HTTP/1.1 served by uvicorn on an AF_UNIX socket.

Routes:

* ``POST /mcp``: MCP streamable HTTP in stateless mode with JSON responses, the same tools as the TCP
  endpoint; ``edge-agent mcp`` relays a desktop client's messages here and the agent calls its tools
  here;
* ``POST /op/<name>``: the service actions (:mod:`edge_agent.services`): ``{"args": {...}}`` in,
  ``{"result": ...}`` or ``{"error": {...}}`` out; an edge_agent error travels whole, see
  :func:`edge_agent.errors.error_to_wire`.

There is no token: the socket file is mode 0660, so the service user and the members of its group can
connect and nobody else can (the state directory's own mode applies on top). Each request runs in a
worker thread; bus transactions still go one at a time per adapter through the runtime's slot locks.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import json
import logging
import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import uvicorn
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from edge_agent.errors import EdgeAgentError, InvalidArgumentError, UnknownActionError, error_to_wire
from edge_agent.hub.client import _ShortPath, connect_unix, socket_path
from edge_agent.mcp.limits import MAX_MCP_BODY, BodyLimit, stop_server
from edge_agent.runtime import Runtime
from edge_agent.services.core import LocalServices, actions
from edge_agent.services.resources import RuntimeResources

log = logging.getLogger(__name__)

SOCKET_MODE = 0o660
#: Largest /op request body (memory import sends a whole export file).
MAX_OP_BODY = 64 * 1024 * 1024
#: Concurrent operations in worker threads; further requests wait their turn.
MAX_WORKERS = 16


class SocketInUseError(EdgeAgentError):
    """Another live process serves the state directory's socket."""


def bind_socket(path: Path) -> socket.socket:
    """Bind ``path`` 0660, replacing a stale socket (nobody accepts on it) but never a live one."""
    if path.exists() or path.is_symlink():
        try:
            connect_unix(path, timeout=1.0).close()
        except OSError as exc:
            if exc.errno not in (errno.ECONNREFUSED, errno.ENOENT, errno.ENOTSOCK):
                raise
            log.info("replacing the stale socket %s (its daemon is gone)", path)
        else:
            from edge_agent.holders import describe_socket_holders

            raise SocketInUseError(f"{path} is served by a live process ({describe_socket_holders(path)}); stop "
                                   "it, or give this daemon its own --state directory")
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    # The umask makes the file 0660 from the start (never reachable with a wider mode); this runs at
    # start-up, before the daemon's worker threads create files.
    old_umask = os.umask(0o117)
    try:
        with _ShortPath(path) as name:
            sock.bind(name)
        os.chmod(path, SOCKET_MODE)
    except BaseException:
        sock.close()
        raise
    finally:
        os.umask(old_umask)
    sock.setblocking(False)
    return sock


class _Uvicorn(uvicorn.Server):
    """uvicorn without its own signal handlers: the daemon's loop owns SIGTERM/SIGHUP."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


class HubServer:
    """Serves the runtime on ``<state>/hub.sock`` from the daemon's asyncio loop."""

    def __init__(self, runtime: Runtime, state_dir: Path) -> None:
        self.runtime = runtime
        self.path = socket_path(state_dir)
        self.services = LocalServices(RuntimeResources(runtime))
        self._server: _Uvicorn | None = None
        self._task: asyncio.Task[None] | None = None
        self._limiter = anyio.CapacityLimiter(MAX_WORKERS)
        self.error = ""

    def app(self) -> BodyLimit:
        from edge_agent.mcp.server import build_server

        server = build_server(self.runtime)
        server.custom_route("/op/{name}", methods=["POST"])(self._op)
        # The HTTP host check protects browsers on TCP ports; on a socket the file mode is the guard.
        from mcp.server.transport_security import TransportSecuritySettings

        app = server.streamable_http_app(streamable_http_path="/mcp", json_response=True, stateless_http=True,
                                         transport_security=TransportSecuritySettings(
                                             enable_dns_rebinding_protection=False))
        # The TCP port's body limits, counted as bytes arrive (a chunked body has no Content-Length).
        return BodyLimit(app, {"/op/": MAX_OP_BODY, "/mcp": MAX_MCP_BODY}, MAX_MCP_BODY)

    async def _op(self, request: Request) -> Response:
        name = request.path_params["name"]
        body = await request.body()
        try:
            args = json.loads(body or b"{}").get("args") or {}
            if not isinstance(args, dict):
                raise ValueError("args is not an object")
        except RecursionError:
            return _error(400, "BadRequest", "the request body nests JSON too deeply to read; send flat arguments")
        except (ValueError, AttributeError) as exc:
            return _error(400, "BadRequest", f"the request body is not {{\"args\": {{...}}}} JSON ({exc})")
        if name not in actions():
            unknown = UnknownActionError(f"this edge-agent daemon has no operation {name!r}; the CLI and the daemon "
                                         "are probably different versions: restart the service after an upgrade")
            return JSONResponse({"error": error_to_wire(unknown)}, status_code=404)
        try:
            result = await anyio.to_thread.run_sync(self.services.call, name, args, limiter=self._limiter)
        except EdgeAgentError as exc:  # sent whole: the client raises the same type with the same hint
            status = 404 if isinstance(exc, UnknownActionError) else 400 if isinstance(exc, InvalidArgumentError) \
                else 422
            return JSONResponse({"error": error_to_wire(exc)}, status_code=status)
        except OSError as exc:  # a file or device the operation was pointed at
            return _error(422, type(exc).__name__, str(exc))
        except (TypeError, ValueError, KeyError, AttributeError, IndexError, OverflowError, RecursionError) as exc:
            # What the operation could not do with the arguments it was sent (a string for a number, a
            # list for a name, a missing key, nesting too deep): the caller's mistake, told as such.
            log.debug("operation %s refused its arguments", name, exc_info=True)
            return _error(400, "InvalidArguments", _argument_sentence(name, args, exc))
        except Exception as exc:
            log.exception("operation %s failed unexpectedly", name)
            return _error(500, type(exc).__name__, f"internal error: {type(exc).__name__}: {exc}; the daemon's log "
                          "has the traceback")
        return JSONResponse({"result": result})

    async def start(self) -> None:
        """Bind the socket and serve; returns once connections are accepted."""
        from edge_agent.mcp.limits import protocol_class

        sock = bind_socket(self.path)
        # The same connection cap and request deadline as the TCP port: local clients hold descriptors too.
        config = uvicorn.Config(self.app(), log_config=None, access_log=False, lifespan="on",
                                timeout_graceful_shutdown=5, ws="none", http=protocol_class())
        self._server = _Uvicorn(config)
        self._task = asyncio.create_task(self._server.serve(sockets=[sock]), name="hub-socket")
        while not self._server.started:
            if self._task.done():
                self.error = "exited" if self._task.cancelled() or self._task.exception() is None \
                    else str(self._task.exception())
                raise OSError(f"the local socket server failed to start: {self.error}")
            await asyncio.sleep(0.01)

    async def stop(self) -> None:
        """Stop accepting, let operations in flight finish (bounded), remove the socket file."""
        if self._server is not None and self._task is not None:
            await stop_server(self._server, self._task, "local socket server")
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()


def _argument_sentence(name: str, args: dict[str, Any], exc: BaseException) -> str:
    given = ", ".join(f"{key}: {type(value).__name__}" for key, value in sorted(args.items())) or "none"
    if isinstance(exc, KeyError):
        what = f"the argument {exc.args[0]!r} is missing" if exc.args else "an argument is missing"
    elif isinstance(exc, RecursionError):
        what = "an argument nests too deeply"
    else:
        what = f"an argument has the wrong type or value ({type(exc).__name__}: {str(exc)[:200]})"
    return (f"operation {name!r}: {what}; arguments sent (name: type): {given}. The CLI of the same version "
            "sends the right ones: `edge-agent COMMAND --help` lists them")


def _error(status: int, kind: str, message: str) -> JSONResponse:
    return JSONResponse({"error": {"type": kind, "message": message}}, status_code=status)
