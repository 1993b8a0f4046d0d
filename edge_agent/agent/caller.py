"""How the agent runs a tool: ``call_tool`` of the state directory's services (``edge_agent.hub.connect``).

When a daemon serves the state directory the calls go through it (it owns the hardware), else through
a runtime in this process, built at the first tool call: a turn that needs no tool opens no adapter.
"""

from __future__ import annotations

from edge_agent.hub import ToolCaller

__all__ = ["ToolCaller"]
