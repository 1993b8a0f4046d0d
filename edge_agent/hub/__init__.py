"""One owner of the hardware: the daemon serves every other process over a local socket.

While ``edge-agent run`` serves a state directory it listens on ``<state>/hub.sock`` (see
:mod:`edge_agent.mcp.socket_server`); CLI commands, ``edge-agent mcp`` and the agent send their operations
there (:mod:`edge_agent.hub.client`, standard library only) instead of opening buses and databases
themselves. With no daemon they run the same operation in their own process.

:func:`edge_agent.hub.connect.connect` gives a caller the service actions (:mod:`edge_agent.services`)
of a state directory on either path, with the same arguments, results and error types;
it is the one place that decides between the two paths. :class:`ToolCaller` is the part of it the
agent's tool loop uses (MCP tools by name); :func:`open_tool_caller` is ``connect`` kept open.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from edge_agent.jsontypes import JsonObject, JsonValue

if TYPE_CHECKING:
    from pathlib import Path

    from edge_agent.config import Settings
    from edge_agent.hub.connect import Services


#: The tools that change the world outside the device: a line's level, a bus target's registers, whatever an
#: SPI transfer's outgoing bytes do to the device.
HARDWARE_WRITES = frozenset({"gpio_write", "i2c_write", "spi_transfer"})
#: The tools that change stored memory.
MEMORY_WRITES = frozenset({"memory_store", "memory_reflect", "memory_forget"})
#: Every tool call that changes state: what supervised autonomy asks about and MCP annotates as a write.
STATE_CHANGING = HARDWARE_WRITES | MEMORY_WRITES


class ToolCaller(Protocol):
    """Runs the MCP tools (edge_agent.mcp.tools.Tools) by name.

    ``call_tool`` returns the tool's JSON-able result, or raises an EdgeAgentError whose message is
    written for an agent (what failed, why, which tool or argument to use instead).
    """

    def call_tool(self, name: str, arguments: JsonObject) -> JsonValue: ...

    def close(self) -> None: ...


def open_tool_caller(settings: Settings, state_dir: Path) -> Services:
    """The services of ``state_dir`` (:func:`edge_agent.hub.connect.connect`), kept open between calls: the
    daemon's tools when a daemon serves it, else the tools over a Runtime built here at the first call.

    The returned object is a :class:`ToolCaller` and a context manager; ``close()`` releases what it
    opened (the in-process runtime's adapters and store).
    """
    from edge_agent.hub.connect import connect

    return connect(state_dir, settings, keep=True)


__all__ = ["ToolCaller", "open_tool_caller"]
