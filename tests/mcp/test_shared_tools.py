"""The daemon's two MCP servers (local socket and HTTP) share one set of tool records per runtime."""

from __future__ import annotations

from pathlib import Path

import anyio

from edge_agent.config import Settings
from edge_agent.mcp.server import build_server, shared_tools
from edge_agent.mcp.tools import TOOL_NAMES
from edge_agent.runtime import Runtime


def test_socket_and_http_servers_serve_the_same_records(runtime: Runtime) -> None:
    socket_server = build_server(runtime)
    http_server = build_server(runtime, "a-token-0123456789", issuer="http://127.0.0.1:8765")
    for name in TOOL_NAMES:
        record = socket_server._tool_manager.get_tool(name)
        assert record is not None
        assert record is http_server._tool_manager.get_tool(name)
    assert shared_tools(runtime) is shared_tools(runtime)


def test_a_shared_record_answers_for_its_own_runtime(runtime: Runtime, tmp_path: Path) -> None:
    other = Runtime.build(Settings(), tmp_path / "other")
    try:
        assert shared_tools(other) is not shared_tools(runtime)
        mine = build_server(runtime)
        theirs = build_server(other)

        async def status_dir(server: object) -> str:
            out = await server.call_tool("runtime_status", {})  # type: ignore[attr-defined]
            return str(out)

        assert str(runtime.state_dir) in anyio.run(status_dir, mine)
        assert str(other.state_dir) in anyio.run(status_dir, theirs)
        assert str(other.state_dir) not in anyio.run(status_dir, mine)
    finally:
        other.close()
