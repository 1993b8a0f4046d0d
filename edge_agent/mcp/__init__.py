"""The MCP face of edge_agent: `server.py` (the only module importing the `mcp` SDK) and `tools.py`."""
