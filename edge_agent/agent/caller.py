"""How the agent runs a tool: the ToolCaller interface and the in-process caller over the runtime.

The in-process caller builds the runtime on the first tool call only, so a turn that needs no
hardware never opens an adapter. Arguments are validated against the tool's input schema first; a
refusal or failure is raised as an EdgeAgentError whose message is written for the model.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, Protocol

from pydantic import ValidationError

from edge_agent.agent.tools import check_arguments
from edge_agent.config import Settings
from edge_agent.errors import ToolCallError


class ToolCaller(Protocol):
    def call_tool(self, name: str, arguments: dict[str, Any]) -> Any:
        """Run one tool; a JSON-able result, or an EdgeAgentError on refusal or failure."""
        ...

    def close(self) -> None: ...


class LocalToolCaller:
    """Runs the tools in this process, on a runtime built from the settings at the first call."""

    def __init__(self, settings: Settings, state_dir: Path) -> None:
        self._settings, self._state_dir = settings, Path(state_dir)
        self._runtime: Any = None
        self._tools: Any = None
        self._lock = threading.Lock()

    def _bound(self) -> Any:
        with self._lock:
            if self._tools is None:
                from edge_agent.mcp.tools import Tools
                from edge_agent.runtime import Runtime

                self._runtime = Runtime.build(self._settings, self._state_dir)
                self._tools = Tools(self._runtime)
            return self._tools

    def call_tool(self, name: str, arguments: dict[str, Any]) -> Any:
        kwargs = check_arguments(name, arguments)
        try:
            return getattr(self._bound(), name)(**kwargs)
        except ValidationError as exc:  # a nested model built inside the tool
            raise ToolCallError(f"{name}: invalid arguments: {exc.errors(include_url=False)}", tool=name) from exc

    def close(self) -> None:
        with self._lock:
            if self._runtime is not None:
                self._runtime.close()
                self._runtime = self._tools = None


def open_tool_caller(settings: Settings, state_dir: Path) -> ToolCaller:
    """The tool caller for this device."""
    return LocalToolCaller(settings, state_dir)
