"""How the agent runs a tool: through the hub's tool caller, opened at the first tool call.

A turn that needs no tool then never opens an adapter nor dials the daemon; when a daemon serves
the state directory the calls go through it (it owns the hardware), else through a runtime in this
process, the same path the CLI takes.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from edge_agent.config import Settings
from edge_agent.hub import ToolCaller, open_tool_caller


class LazyToolCaller:
    """A ToolCaller that opens the real one on first use."""

    def __init__(self, settings: Settings, state_dir: Path) -> None:
        self._settings, self._state_dir = settings, Path(state_dir)
        self._lock = threading.Lock()
        self.inner: ToolCaller | None = None

    def _caller(self) -> ToolCaller:
        with self._lock:
            if self.inner is None:
                self.inner = open_tool_caller(self._settings, self._state_dir)
            return self.inner

    def call_tool(self, name: str, arguments: dict[str, Any]) -> Any:
        return self._caller().call_tool(name, arguments)

    def close(self) -> None:
        with self._lock:
            if self.inner is not None:
                self.inner.close()
                self.inner = None


__all__ = ["LazyToolCaller", "ToolCaller"]
