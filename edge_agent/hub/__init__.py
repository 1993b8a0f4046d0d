"""One owner of the hardware: the daemon serves every other process over a local socket.

While ``edge-agent run`` serves a state directory it listens on ``<state>/hub.sock`` (see
:mod:`edge_agent.hub.server`); CLI commands, ``edge-agent mcp`` and the agent send their operations
there (:mod:`edge_agent.hub.client`, standard library only) instead of opening buses and databases
themselves. With no daemon they run the same operation in their own process.

:func:`edge_agent.hub.connect.connect` gives a caller the service actions (:mod:`edge_agent.services`)
of a state directory on either path, with the same arguments, results and error types;
:class:`ToolCaller` is how the agent runs MCP tools by name on either path, and :func:`open_tool_caller`
picks the path for a state directory.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from pathlib import Path

    from edge_agent.config import Settings


class ToolCaller(Protocol):
    """Runs the MCP tools (edge_agent.mcp.tools.Tools) by name.

    ``call_tool`` returns the tool's JSON-able result, or raises an EdgeAgentError whose message is
    written for an agent (what failed, why, which tool or argument to use instead).
    """

    def call_tool(self, name: str, arguments: dict[str, Any]) -> Any: ...

    def close(self) -> None: ...


def open_tool_caller(settings: Settings, state_dir: Path) -> Any:
    """The daemon's tools when a daemon serves ``state_dir``, else the tools over an in-process Runtime.

    The returned object is a :class:`ToolCaller` and a context manager; ``close()`` releases what it
    opened (the in-process runtime's adapters and store).
    """
    from edge_agent.hub.tools import open_tool_caller as _open

    return _open(settings, state_dir)


__all__ = ["ToolCaller", "open_tool_caller"]
