"""The MCP server's tools: the tool set defined once in :mod:`edge_agent.hub.toolbox`.

The tools sit below this package (in the hub, beside the in-process tool caller), so the MCP server,
the daemon's socket and the agent run one definition; the names are kept here for the MCP faces.
"""

from edge_agent.hub.toolbox import HEX_BYTES, TOOL_NAMES, CaptureIn, EdgeAgentError, PinArg, Tools

__all__ = ["HEX_BYTES", "TOOL_NAMES", "CaptureIn", "EdgeAgentError", "PinArg", "Tools"]
