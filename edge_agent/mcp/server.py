"""The MCP server: the ONLY module that imports the `mcp` SDK (v2: ``MCPServer``, not ``FastMCP``).

Two transports over the same tools:

* stdio (``edge-agent mcp``), for clients that spawn the server;
* streamable HTTP (inside ``edge-agent run``), bound to 127.0.0.1 by default and guarded by a bearer
  token (the SDK's bearer middleware with our constant-time verifier). The listening socket is bound
  here before uvicorn starts, so a busy port is an ``OSError`` for the caller, not a process exit.
  The same server answers the status page at ``/`` (edge_agent.dashboard), checks Host and Origin on
  every request (:mod:`.netguard`) and bounds connections and sessions (:mod:`.limits`).

A tool's exception text reaches the model verbatim, so errors from the edge_agent tree pass through
as :class:`ToolError` with their sentence; anything unexpected is logged here with its traceback and
the agent gets a short sentence saying what to do, not a Python repr. A failed call's result also
carries the edge_agent error itself in ``_meta`` (``ERROR_META``), so a client of ours tells a
refusal from a failure by its class; other clients see the usual ``isError`` text.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import socket
import weakref
from collections.abc import Callable, Iterator
from typing import Any

import anyio
import uvicorn
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from mcp.server.transport_security import TransportSecuritySettings
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import AnyHttpUrl, ValidationError

from edge_agent import __version__
from edge_agent.errors import EdgeAgentError, error_to_wire
from edge_agent.hub import STATE_CHANGING
from edge_agent.hub.client import ERROR_META
from edge_agent.hub.messages import for_agent, unknown_arguments
from edge_agent.hub.messages import invalid_arguments as _invalid_arguments
from edge_agent.hub.toolbox import TOOL_NAMES, Tools
from edge_agent.mcp.limits import MAX_MCP_BODY, BodyLimit, evict_idle_sessions, protocol_class, stop_server
from edge_agent.mcp.netguard import HostOriginGuard, HostPolicy
from edge_agent.mcp.stdio import MAX_LINE_BYTES, LineReader, LineWriter, TooLong, claim_stdio, too_long_error
from edge_agent.mcp.token import token_matches
from edge_agent.runtime import Runtime

log = logging.getLogger(__name__)

INSTRUCTIONS = (
    "edge-agent gives you the hardware next to this device: look pins up with pin_resolve and "
    "datasheet_search before driving them, then use gpio_*/i2c_*/spi_transfer/sensor_read with the "
    "`adapter` or `board` argument. Call memory_engage before answering and memory_reflect after, "
    "passing engage's source_krefs. runtime_status shows what is connected and healthy."
)

BEARER_REALM = "edge-agent"
MAX_SESSIONS = 64
SESSION_IDLE_S = 600.0

# Writes (STATE_CHANGING) change the outside world or stored memory; the annotations let a client ask before
# calling them.
_DESTRUCTIVE = {"memory_forget", "i2c_write", "spi_transfer"}  # can overwrite EEPROM, flash, config
_HARDWARE = {"gpio_read", "gpio_write", "i2c_scan", "i2c_read", "i2c_write", "spi_transfer",
             "hardware_capabilities", "sensor_read"}


class _Tool(Tool):
    """The SDK's Tool with argument-validation errors rewritten as short sentences for the agent."""

    async def run(self, arguments: dict[str, Any], context: Any, convert_result: bool = False) -> Any:
        known = list((self.parameters or {}).get("properties", {}))
        unknown = sorted(set(arguments or {}) - set(known))
        if unknown:
            raise ToolError(unknown_arguments(self.name, unknown, known))
        try:
            return await super().run(arguments, context, convert_result)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):  # the arguments did not match the input schema
                # Same prefix as every other tool error the SDK reports.
                raise ToolError(f"Error executing tool {self.name}: {_invalid_arguments(exc.__cause__)}") \
                    from exc.__cause__
            origin = _edge_error(exc)
            if origin is None or not convert_result:
                raise
            log.info("tool %s: %s: %s", self.name, type(origin).__name__, origin.message())
            return CallToolResult(content=[TextContent(type="text", text=str(exc))], is_error=True,
                                  _meta={ERROR_META: error_to_wire(origin)})


def _edge_error(exc: BaseException) -> EdgeAgentError | None:
    """The edge_agent error a tool raised, under the SDK's and our own ToolError wrappers (None: none)."""
    seen: BaseException | None = exc
    while seen is not None and not isinstance(seen, EdgeAgentError):
        seen = seen.__cause__
    return seen


def _guard(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """Turn our errors into ToolError sentences; log anything unexpected with its traceback."""

    @functools.wraps(fn)
    def call(**kwargs: Any) -> Any:
        try:
            return fn(**kwargs)
        except EdgeAgentError as exc:
            raise ToolError(for_agent(exc)) from exc
        except ValidationError as exc:  # a nested model built inside the tool
            raise ToolError(_invalid_arguments(exc)) from exc
        except Exception as exc:
            log.exception("tool %s failed unexpectedly", name)
            raise ToolError(
                f"{name} failed with an internal error ({type(exc).__name__}); the server log has the details. "
                "Check runtime_status, then retry or try another approach"
            ) from exc

    return call


def build_tools(runtime: Runtime) -> list[Tool]:
    """The SDK Tool records for every tool, schemas generated from the typed signatures."""
    tools = Tools(runtime)
    records = []
    for name in TOOL_NAMES:
        fn = getattr(tools, name)
        annotations = ToolAnnotations(
            read_only_hint=name not in STATE_CHANGING,
            destructive_hint=name in _DESTRUCTIVE if name in STATE_CHANGING else None,
            idempotent_hint=name in ("gpio_write",) or name not in STATE_CHANGING,
            open_world_hint=name in _HARDWARE,
        )
        record = _Tool.from_function(fn, name=name, annotations=annotations)
        record.parameters["additionalProperties"] = False  # _Tool.run refuses unknown arguments by name
        record.fn = _guard(name, fn)
        records.append(record)
    return records


# The daemon serves MCP twice (the local socket and HTTP) from one runtime. A tool record is the
# function plus the pydantic models generated from its signature and result type, and holds no
# per-server state, so both servers share one set: generating it again costs memory for nothing.
_RECORDS: weakref.WeakKeyDictionary[Runtime, list[Tool]] = weakref.WeakKeyDictionary()


def shared_tools(runtime: Runtime) -> list[Tool]:
    """The runtime's tool records, built once and shared by every server of that runtime."""
    records = _RECORDS.get(runtime)
    if records is None:
        records = _RECORDS[runtime] = build_tools(runtime)
    return records


def build_server(runtime: Runtime, token: str | None = None, issuer: str = "http://127.0.0.1") -> MCPServer[object]:
    """An MCPServer exposing the runtime's tools; with `token`, HTTP requests must carry it as a bearer token."""
    auth = None if token is None else AuthSettings(issuer_url=AnyHttpUrl(issuer), resource_server_url=None)
    verifier = None if token is None else _StaticTokenVerifier(token)
    return MCPServer("edge-agent", version=__version__, instructions=INSTRUCTIONS, tools=shared_tools(runtime),
                     log_level="WARNING", auth=auth, token_verifier=verifier)


def tool_schemas(runtime: Runtime) -> list[dict[str, Any]]:
    """Name, input schema and output schema of every tool (for the snapshot test and docs)."""
    return [{"name": t.name, "input_schema": t.parameters, "output_schema": t.output_schema}
            for t in build_tools(runtime)]


# --- stdio ------------------------------------------------------------------------------------------


class _StdinLines:
    """stdin for the SDK's stdio transport: lines bounded at MAX_LINE_BYTES; an over-long one is answered here."""

    def __init__(self, reader: LineReader, writer: LineWriter) -> None:
        self._reader, self._writer = reader, writer

    def __aiter__(self) -> _StdinLines:
        return self

    async def __anext__(self) -> str:
        while True:
            # A blocked read cannot be interrupted; the caller exits the process on a signal instead.
            item = await anyio.to_thread.run_sync(self._reader.read, abandon_on_cancel=True)
            if item is None:
                raise StopAsyncIteration
            if isinstance(item, TooLong):
                log.warning("refused a %d-byte stdio message (limit %d bytes)", item.size, MAX_LINE_BYTES)
                await anyio.to_thread.run_sync(self._writer.write, too_long_error(item))
                continue
            return item.decode("utf-8", errors="replace")


class _StdoutLines:
    """stdout for the SDK's stdio transport, sharing one writer with the over-long-line answers."""

    def __init__(self, writer: LineWriter) -> None:
        self._writer = writer

    async def write(self, text: str) -> None:
        await anyio.to_thread.run_sync(self._writer.write, text.encode())

    async def flush(self) -> None:
        pass


def run_stdio(runtime: Runtime) -> None:
    """Serve MCP on stdin/stdout until the client closes the pipe."""
    from mcp.server.stdio import stdio_server

    server = build_server(runtime)
    wire_in, wire_out = claim_stdio()
    writer = LineWriter(wire_out)
    stdin: Any = _StdinLines(LineReader(wire_in), writer)
    stdout: Any = _StdoutLines(writer)

    async def serve() -> None:
        lowlevel = server._lowlevel_server  # what MCPServer.run_stdio_async runs, with our bounded streams
        async with stdio_server(stdin=stdin, stdout=stdout) as (read_stream, write_stream):
            await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())

    anyio.run(serve)


# --- streamable HTTP ----------------------------------------------------------------------------------


class _StaticTokenVerifier:
    """Accepts exactly the token from the state directory's token file."""

    def __init__(self, token: str) -> None:
        self._token = token

    async def verify_token(self, token: str) -> AccessToken | None:
        if token_matches(self._token, token):
            return AccessToken(token="local", client_id="edge-agent-local", scopes=[])
        return None


class _Uvicorn(uvicorn.Server):
    """uvicorn without its own signal handlers: the daemon's loop owns SIGTERM/SIGHUP."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # proto must say TCP explicitly: asyncio only sets TCP_NODELAY on accepted sockets whose proto is
    # IPPROTO_TCP, and without it Nagle plus the client's delayed ACK add ~40 ms to every response.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    sock.setblocking(False)
    sock.set_inheritable(True)
    return sock


class HttpServer:
    """MCP over streamable HTTP (and the status page) on an asyncio loop; ``start`` returns once it accepts.

    ``tls`` is a (certificate, key) pair of PEM files: the server then speaks HTTPS only. Host names
    and origins it answers to come from the runtime's ``[server]`` settings.
    """

    def __init__(self, runtime: Runtime, *, host: str, port: int, token: str, path: str = "/mcp",
                 tls: tuple[str, str] | None = None, dashboard: bool = True) -> None:
        self.host, self.port, self.path = host, port, path
        self.runtime = runtime
        self.tls = tls
        self.dashboard = dashboard
        self.error: str = ""
        self._token = token
        self._task: asyncio.Task[None] | None = None
        self._server: _Uvicorn | None = None
        self._stopping = False

    @property
    def base_url(self) -> str:
        """Scheme, host and port: where the status page is."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{'https' if self.tls else 'http'}://{host}:{self.port}"

    @property
    def url(self) -> str:
        """Where MCP clients connect."""
        return f"{self.base_url}{self.path}"

    def app(self) -> HostOriginGuard:
        """The ASGI app: Host/Origin guard around the MCP endpoint (bearer token) and the status page."""
        cfg = self.runtime.settings.server
        policy = HostPolicy.build(self.host, allowed_hosts=cfg.allowed_hosts, allowed_origins=cfg.allowed_origins,
                                  tls=self.tls is not None, port=self.port or None)
        server = build_server(self.runtime, self._token, issuer=f"{self.base_url}")
        if self.dashboard:
            from edge_agent.dashboard.web import Dashboard

            for route in Dashboard(self.runtime, self._token, secure_cookie=self.tls is not None).routes():
                server.custom_route(route.path, methods=sorted(route.methods or ["GET"]))(route.endpoint)
        security = TransportSecuritySettings(enable_dns_rebinding_protection=True, **policy.sdk_settings())
        # Bounded sessions: a small board cannot hold the SDK's default of 10,000 idle sessions for 30 min.
        app = server.streamable_http_app(streamable_http_path=self.path, host=self.host, json_response=True,
                                         max_sessions=MAX_SESSIONS, session_idle_timeout=SESSION_IDLE_S,
                                         transport_security=security)
        evict_idle_sessions(server.session_manager)
        return HostOriginGuard(BodyLimit(_bearer_challenge(app, self.path), {}, MAX_MCP_BODY), policy)

    async def start(self) -> None:
        """Bind, start serving, and return when connections are accepted (OSError if the port is taken)."""
        sock = _bind(self.host, self.port)
        self.port = sock.getsockname()[1]
        cert, key = self.tls if self.tls else (None, None)
        config = uvicorn.Config(self.app(), log_config=None, access_log=False, lifespan="on",
                                timeout_graceful_shutdown=5, ws="none", http=protocol_class(),
                                ssl_certfile=cert, ssl_keyfile=key)
        self._server = _Uvicorn(config)
        self._task = asyncio.create_task(self._server.serve(sockets=[sock]), name="mcp-http")
        while not self._server.started:
            if self._task.done():
                self.error = _task_error(self._task)
                raise OSError(f"MCP HTTP server failed to start: {self.error}")
            await asyncio.sleep(0.01)

    def failed(self) -> bool:
        """True when the server stopped without being asked to."""
        if self._task is None or not self._task.done() or self._stopping:
            return False
        self.error = self.error or _task_error(self._task)
        return True

    async def stop(self) -> None:
        """Stop accepting, let requests in flight finish (bounded), close."""
        self._stopping = True
        if self._server is None or self._task is None:
            return
        await stop_server(self._server, self._task, "MCP HTTP server")


def _bearer_challenge(app: Any, path: str) -> Any:
    """Answer 401 with a plain bearer challenge (RFC 6750): a realm, no OAuth metadata.

    The token is a static secret from the state directory, not something an OAuth server issues, so
    the challenge names no ``resource_metadata`` and no authorization server: a client such as MCP
    Inspector then asks its user for the bearer token instead of starting an OAuth flow. A request
    that sent no token gets no error code; a wrong token gets ``error="invalid_token"``. Only
    responses of the MCP endpoint (``path``) are touched.
    """

    async def wrapped(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope.get("type") != "http" or not str(scope.get("path", "")).startswith(path):
            await app(scope, receive, send)
            return
        sent_token = any(k.lower() == b"authorization" for k, _ in scope.get("headers", ()))

        async def send_with_challenge(message: dict[str, Any]) -> None:
            if message.get("type") == "http.response.start" and message.get("status") == 401:
                challenge = f'Bearer realm="{BEARER_REALM}"'
                if sent_token:
                    challenge += ', error="invalid_token", error_description="the bearer token is not valid"'
                headers = [(k, v) for k, v in message.get("headers", ()) if k.lower() != b"www-authenticate"]
                message = {**message, "headers": [*headers, (b"www-authenticate", challenge.encode())]}
            await send(message)

        await app(scope, receive, send_with_challenge)

    return wrapped


def _task_error(task: asyncio.Task[None]) -> str:
    if task.cancelled():
        return "cancelled"
    exc = task.exception()
    return "exited" if exc is None else f"{type(exc).__name__}: {exc}"
