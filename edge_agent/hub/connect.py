"""``connect(state_dir)``: the service actions and MCP tools of a state directory, wherever they run.

This is the one place where "through the daemon or in this process" is decided, for every face: the
CLI, ``edge-agent mcp``'s tool calls and the agent (its memory, response cache, hardware context and
tools). While a daemon serves the state directory it owns the hardware and the databases, and the
calls run there (:class:`~edge_agent.hub.client.SocketServices`, standard library only). With no
daemon they run in this process (:class:`LocalOps`). A daemon that runs but cannot be reached is an
error (DaemonUnreachableError), never a reason to open the hardware behind its back. Both objects have
the same interface (:class:`Services`), and errors are raised as the same edge_agent types with their
hints.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from edge_agent.hub.client import READ_TIMEOUT_S, SocketServices, find_client
from edge_agent.jsontypes import JsonObject, JsonValue

if TYPE_CHECKING:
    from edge_agent.config import Settings
    from edge_agent.hub.tools import LocalToolCaller
    from edge_agent.runtime import Runtime
    from edge_agent.services.core import LocalServices
    from edge_agent.services.resources import DirectResources


class Services(Protocol):
    """The actions and tools of one state directory by name: JSON arguments in, the result's JSON out."""

    @property
    def state_dir(self) -> Path: ...

    def call(self, name: str, args: JsonObject, *, timeout: float | None = ...) -> JsonValue:
        """Run service action ``name``; its result JSON, or the action's edge_agent error."""
        ...

    def call_tool(self, name: str, arguments: JsonObject) -> JsonValue:
        """Run MCP tool ``name`` as an MCP client would; its structured result, or ToolCallError with the
        sentence an MCP client would see."""
        ...

    def close(self) -> None: ...

    def __enter__(self) -> Services: ...

    def __exit__(self, *exc: object) -> None: ...


#: Actions that report a runtime rather than open resources: without a daemon they run over a runtime.
RUNTIME_ACTIONS = frozenset({"runtime_status"})


class LocalOps:
    """The actions and the tools, run in this process.

    Actions run against resources opened for each call, or with ``keep`` opened once and kept until
    :meth:`close`. The tools run over a Runtime built at the first tool call (a process that calls no
    tool opens no adapter).
    """

    def __init__(self, settings: Settings, state_dir: Path, *, keep: bool = False) -> None:
        from edge_agent.services.core import LocalServices
        from edge_agent.services.resources import DirectResources

        self.settings = settings
        self.context: DirectResources = DirectResources(settings, Path(state_dir), keep=keep)
        self.actions: LocalServices = LocalServices(self.context, on_close=self.context.close)
        self._tools: LocalToolCaller | None = None
        self._lock = threading.Lock()

    @property
    def state_dir(self) -> Path:
        return self.context.state_dir

    def call(self, name: str, args: JsonObject, *, timeout: float | None = None) -> JsonValue:
        if name in RUNTIME_ACTIONS:
            return self._over_a_runtime(name, args)
        return self.actions.call(name, args)

    def _over_a_runtime(self, name: str, args: JsonObject) -> JsonValue:
        """An action that reports a runtime: over this process's own when the tools built one, else over one
        built from the files only for this call (no adapter opened: a serial port may be another process's)."""
        from edge_agent.services.core import LocalServices
        from edge_agent.services.resources import RuntimeResources

        own = self.runtime
        if own is not None:
            return LocalServices(RuntimeResources(own)).call(name, args)
        from edge_agent.runtime import Runtime

        runtime = Runtime.build(self.settings, self.state_dir, files_only=True)
        try:
            return LocalServices(RuntimeResources(runtime)).call(name, args)
        finally:
            runtime.close()

    @property
    def tools(self) -> LocalToolCaller:
        """The tool caller over this process's runtime (built on first use)."""
        with self._lock:
            if self._tools is None:
                from edge_agent.hub.tools import LocalToolCaller
                from edge_agent.runtime import Runtime

                self._tools = LocalToolCaller(Runtime.build(self.settings, self.state_dir), owns_runtime=True)
            return self._tools

    @property
    def runtime(self) -> Runtime | None:
        """The runtime the tools run over; None until the first tool call built it."""
        return self._tools.runtime if self._tools is not None else None

    def call_tool(self, name: str, arguments: JsonObject) -> JsonValue:
        return self.tools.call_tool(name, arguments)

    def close(self) -> None:
        with self._lock:
            tools, self._tools = self._tools, None
        try:
            if tools is not None:
                tools.close()
        finally:
            self.actions.close()

    def __enter__(self) -> LocalOps:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def json_object(value: JsonValue, action: str) -> JsonObject:
    """``value`` (the result of ``action``) as the JSON object every action returns; EdgeAgentError if not."""
    if not isinstance(value, dict):
        from edge_agent.errors import EdgeAgentError

        raise EdgeAgentError(f"{action} answered {type(value).__name__} where a JSON object was expected; the "
                             "daemon and this command are probably different versions: restart the service")
    return value


def connect(state_dir: Path, settings: Settings | Callable[[], Settings], *,
            keep: bool = False) -> SocketServices | LocalOps:
    """The daemon's actions and tools when one serves ``state_dir``, else the same run in this process.

    ``settings`` (or a function returning them) is used only in this process: a routed call neither
    loads the configuration nor imports pydantic. ``keep``: in this process, keep the store, cache and
    index open between calls until ``close()`` (for a caller that makes many calls).
    """
    client = find_client(Path(state_dir))
    if client is not None:
        return SocketServices(client)
    # Only the in-process path writes the state directory: a member of the daemon's group reaches the
    # socket in a directory it may enter but not write.
    from edge_agent.paths import ensure_state_dir

    ensure_state_dir(Path(state_dir))
    return LocalOps(settings() if callable(settings) else settings, Path(state_dir), keep=keep)


__all__ = ["READ_TIMEOUT_S", "RUNTIME_ACTIONS", "LocalOps", "Services", "connect", "json_object"]
