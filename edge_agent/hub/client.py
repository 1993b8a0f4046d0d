"""The thin client of the daemon's local socket: plain HTTP/1.1 over AF_UNIX, standard library only.

A routed CLI command must cost little more than ``edge-agent --help``, so this module imports no bus
backend, index, memory or pydantic code: it finds ``<state>/hub.sock``, sends one request and decodes
the JSON answer. Two routes are used:

* ``POST /op/<name>`` with ``{"args": {...}}``: a CLI operation; the answer is ``{"result": ...}`` or
  ``{"error": {"type", "message"}}`` with a 4xx/5xx status;
* ``POST /mcp``: MCP JSON-RPC messages (stateless streamable HTTP, JSON responses), for ``edge-agent
  mcp`` and the agent's tool calls.
"""

from __future__ import annotations

import errno
import http.client
import itertools
import json
import os
import socket
from pathlib import Path

from edge_agent.errors import EdgeAgentError, ToolCallError, error_from_wire
from edge_agent.jsontypes import JsonObject, JsonValue

#: The ``_meta`` key of a failed ``tools/call`` result that carries the error itself
#: (:func:`edge_agent.errors.error_to_wire`): its sentence is for the model, its class tells a caller
#: through the daemon a refusal from a failure, as a caller in the same process tells them apart.
ERROR_META = "edge-agent/error"

SOCKET_NAME = "hub.sock"
CONNECT_TIMEOUT_S = 2.0
#: Default wait for an answer. Operations that may take longer (sync now) pass their own.
READ_TIMEOUT_S = 120.0
#: AF_UNIX paths are limited to 107 bytes; longer state paths are reached through /proc/self/fd.
_SUN_PATH_MAX = 107


class HubError(EdgeAgentError, ConnectionError):
    """The daemon's socket could not be used, or the daemon stopped while handling the request."""


class DaemonUnreachableError(HubError):
    """A daemon runs on the state directory but its socket cannot be used. It owns the hardware and the
    databases, so the command stops rather than opening them behind the daemon's back."""


class RemoteError(EdgeAgentError):
    """An operation the daemon ran failed; ``kind`` is the error class name on the daemon's side."""

    def __init__(self, message: str, kind: str = "EdgeAgentError", status: int = 500) -> None:
        self.kind, self.status = kind, status
        super().__init__(message)


def socket_path(state_dir: Path) -> Path:
    """Where the daemon of ``state_dir`` listens."""
    return Path(state_dir) / SOCKET_NAME


class _ShortPath:
    """A connectable/bindable name for ``path``: itself, or /proc/self/fd/N/<name> when it is too long."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None
        text = os.fsencode(path)
        if len(text) <= _SUN_PATH_MAX:
            self.name: str = str(path)
        else:
            self._fd = os.open(path.parent, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
            self.name = f"/proc/self/fd/{self._fd}/{path.name}"

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> str:
        return self.name

    def __exit__(self, *exc: object) -> None:
        self.close()


def connect_unix(path: Path, timeout: float = CONNECT_TIMEOUT_S) -> socket.socket:
    """A connected AF_UNIX stream socket (OSError when nobody listens)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC)
    sock.settimeout(timeout)
    try:
        with _ShortPath(path) as name:
            sock.connect(name)
    except BaseException:
        sock.close()
        raise
    return sock


class _UnixConnection(http.client.HTTPConnection):
    def __init__(self, path: Path, timeout: float) -> None:
        super().__init__("localhost", timeout=timeout)
        self._path = path

    def connect(self) -> None:
        self.sock = connect_unix(self._path)
        self.sock.settimeout(self.timeout)


def daemon_pid(state_dir: Path) -> int | None:
    """The pid in <state>/daemon.json, when the file is there and readable."""
    try:
        return int(json.loads((Path(state_dir) / "daemon.json").read_text()).get("pid") or 0) or None
    except (OSError, ValueError, TypeError, AttributeError):
        return None


def running_daemon(state_dir: Path) -> int | None:
    """The pid of the daemon that says it serves ``state_dir`` (its daemon.json) while that process lives.

    A daemon removes the file when it stops; one that was killed leaves it behind with a pid that is
    gone, or that the system has since given to an unrelated program (not an edge-agent command line).
    """
    pid = daemon_pid(state_dir)
    if pid is None:
        return None
    if pid == os.getpid():
        return pid
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        pass  # the service user's process: alive
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return pid  # no /proc to ask: trust the file
    return pid if b"edge-agent" in cmdline or b"edge_agent" in cmdline else None


def _unreachable(state_dir: Path, pid: int, why: str) -> DaemonUnreachableError:
    return DaemonUnreachableError(
        f"the edge-agent daemon (pid {pid}) serves {state_dir} but its socket {socket_path(state_dir)} {why}; it "
        "owns the hardware and the memory store, so this command did not open them itself. Check `edge-agent "
        "status` and the daemon's log; restart the service if it has no socket, or stop it to use the hardware "
        "directly")


class HubClient:
    """Requests to the daemon of one state directory (a new connection per request: no shared state)."""

    def __init__(self, state_dir: Path) -> None:
        self.state_dir = Path(state_dir)
        self.path = socket_path(self.state_dir)

    # discovery -------------------------------------------------------------------------------------

    @classmethod
    def find(cls, state_dir: Path) -> HubClient | None:
        """A client when a daemon listens on the state dir's socket, else None (no daemon, or a stale socket)."""
        path = socket_path(state_dir)
        try:
            exists = path.exists()
        except PermissionError:
            # The kernel refuses even to look inside a state directory without search permission for
            # this user: the service creates /var/lib/edge-agent 0700 unless its group is let in.
            raise HubError(f"this user may not enter {Path(state_dir)}, where the edge-agent daemon's socket is; "
                           "run as the service user, or join its group and give the group traversal with "
                           "StateDirectoryMode=0710 in a drop-in (docs/hub.md, 'Who may connect')") from None
        if not exists:
            pid = running_daemon(state_dir)
            if pid is not None:
                raise _unreachable(Path(state_dir), pid, "is not there (a daemon without the local socket, or "
                                   "one still starting)")
            return None
        try:
            connect_unix(path, timeout=CONNECT_TIMEOUT_S).close()
        except PermissionError as exc:
            raise HubError(f"the edge-agent daemon's socket {path} refused this user ({exc.strerror}); "
                           "run as the service user or a member of its group") from None
        except OSError as exc:
            if exc.errno in (errno.ECONNREFUSED, errno.ENOENT, errno.ENOTSOCK):
                pid = running_daemon(state_dir)
                if pid is not None:
                    raise _unreachable(Path(state_dir), pid, f"refuses connections ({exc.strerror})") from None
                return None  # left behind by a daemon that was killed: nobody serves it
            raise HubError(f"cannot reach the edge-agent daemon on {path}: {exc.strerror or exc}") from None
        return cls(state_dir)

    # requests --------------------------------------------------------------------------------------

    def request(self, method: str, route: str, body: JsonValue | bytes = None, *,
                timeout: float | None = READ_TIMEOUT_S,
                headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
        """One HTTP exchange; HubError when the daemon is gone or stops mid-request."""
        data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
        conn = _UnixConnection(self.path, timeout=timeout if timeout is not None else 3600.0)
        try:
            hdrs = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
            hdrs.update(headers or {})
            conn.request(method, route, body=data, headers=hdrs)
            resp = conn.getresponse()
            payload = resp.read()
            return resp.status, {k.lower(): v for k, v in resp.getheaders()}, payload
        except TimeoutError:
            raise HubError(f"the edge-agent daemon (pid {daemon_pid(self.state_dir) or '?'}) did not answer "
                           f"within {timeout:g} s; the operation may still complete. Check `edge-agent status`") \
                from None
        except (ConnectionError, http.client.HTTPException, OSError) as exc:
            raise HubError(
                f"the edge-agent daemon (pid {daemon_pid(self.state_dir) or '?'}) stopped while handling the "
                f"request ({type(exc).__name__}); it may or may not have been carried out. Check "
                "`edge-agent status`, then retry") from None
        finally:
            conn.close()

    def op(self, name: str, args: JsonObject, *, timeout: float | None = READ_TIMEOUT_S) -> JsonValue:
        """Run the CLI operation ``name`` in the daemon; returns its result or raises RemoteError."""
        status, _, payload = self.request("POST", f"/op/{name}", {"args": args}, timeout=timeout)
        try:
            data: JsonValue = json.loads(payload)
        except ValueError:
            raise HubError(f"the edge-agent daemon answered /op/{name} with HTTP {status} and no JSON body") from None
        if status == 200 and isinstance(data, dict) and "result" in data:
            return data["result"]
        err = data.get("error") if isinstance(data, dict) else None
        if isinstance(err, dict) and "bases" in err:  # an edge_agent error: raised here as the same type
            raise error_from_wire(err)
        if isinstance(err, dict):
            raise RemoteError(str(err.get("message", "")), str(err.get("type", "EdgeAgentError")), status)
        raise HubError(f"the edge-agent daemon answered /op/{name} with HTTP {status}: {payload[:200]!r}")

    def mcp(self, message: JsonObject, *, timeout: float | None = READ_TIMEOUT_S) -> JsonObject | None:
        """Send one MCP JSON-RPC message; returns the response (None for a notification)."""
        status, headers, payload = self.request("POST", "/mcp", message, timeout=timeout)
        if status == 202 or not payload:
            return None
        if headers.get("content-type", "").startswith("text/event-stream"):
            payload = _last_sse_data(payload)
        try:
            data = json.loads(payload)
        except ValueError:
            raise HubError(f"the edge-agent daemon answered MCP with HTTP {status}: {payload[:200]!r}") from None
        if not isinstance(data, dict):
            raise HubError(f"the edge-agent daemon answered MCP with HTTP {status}: {payload[:200]!r}")
        return data


def _last_sse_data(payload: bytes) -> bytes:
    data = b""
    for line in payload.splitlines():
        if line.startswith(b"data:"):
            data = line[5:].strip()
    return data


def find_client(state_dir: Path) -> HubClient | None:
    """The client of the daemon serving ``state_dir``, or None when no daemon runs there (use the hardware
    directly); DaemonUnreachableError when one runs but cannot be reached."""
    return HubClient.find(state_dir)


class SocketServices:
    """The service actions and the MCP tools of the daemon serving a state directory, over its socket.

    ``call`` runs an action (``POST /op/<name>``): arguments and results are the actions' JSON, as
    :class:`edge_agent.services.core.LocalServices` takes and returns them; an error the action raised in
    the daemon is raised here as the same edge_agent error type with the same hint. ``call_tool`` runs an
    MCP tool (``tools/call`` on ``POST /mcp``), as an MCP client would. Standard library only: a routed
    command never imports pydantic.
    """

    def __init__(self, client: HubClient) -> None:
        self.client = client
        self._ids = itertools.count(1)

    @property
    def state_dir(self) -> Path:
        return self.client.state_dir

    def call(self, name: str, args: JsonObject, *, timeout: float | None = READ_TIMEOUT_S) -> JsonValue:
        """Run action ``name`` in the daemon; its result JSON."""
        return self.client.op(name, args, timeout=timeout)

    def call_tool(self, name: str, arguments: JsonObject) -> JsonValue:
        """Send ``tools/call``; the structured result, or ToolCallError with the server's sentence."""
        message: JsonObject = {"jsonrpc": "2.0", "id": next(self._ids), "method": "tools/call",
                               "params": {"name": name, "arguments": arguments}}
        reply = self.client.mcp(message)
        if reply is None:
            raise HubError(f"the edge-agent daemon gave no answer to tools/call {name}")
        if "error" in reply:
            err = reply["error"] or {}
            raise ToolCallError(str((err.get("message") if isinstance(err, dict) else None) or err), tool=name)
        result = reply.get("result") or {}
        if not isinstance(result, dict):
            raise HubError(f"the edge-agent daemon answered tools/call {name} with a result that is not an object")
        content = result.get("content") or []
        text = "".join(str(c.get("text", "")) for c in (content if isinstance(content, list) else [])
                       if isinstance(c, dict) and c.get("type") == "text")
        if result.get("isError"):
            meta = result.get("_meta")
            origin = meta.get(ERROR_META) if isinstance(meta, dict) else None
            # The daemon's sentence for the model, raised from the error itself (its class says refused or failed)
            cause = error_from_wire(origin) if isinstance(origin, dict) else None
            raise ToolCallError(text or f"{name} failed", tool=name) from cause
        structured: JsonValue = result.get("structuredContent")
        if structured is not None:
            return structured
        try:
            parsed: JsonValue = json.loads(text)
        except ValueError:
            return text
        return parsed

    def close(self) -> None:
        pass

    def __enter__(self) -> SocketServices:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
