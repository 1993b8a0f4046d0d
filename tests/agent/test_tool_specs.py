"""The agent offers exactly the MCP server's tools: same names, descriptions and input schemas."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from edge_agent.agent.tools import COMPACT_SCHEMA_CHARS, COMPACT_TOOLS, openai_tool_specs, specs_chars
from edge_agent.config import Settings
from edge_agent.mcp.tools import TOOL_NAMES
from edge_agent.runtime import Runtime


def test_specs_equal_what_the_mcp_server_lists(state: Path) -> None:
    pytest.importorskip("mcp", reason="the MCP SDK (extra 'mcp') is not installed")
    from edge_agent.mcp.server import build_server

    rt = Runtime.build(Settings(), state)
    try:
        listed = anyio.run(build_server(rt).list_tools)
    finally:
        rt.close()
    mcp = [{"name": t.name, "description": t.description, "parameters": t.input_schema} for t in listed]
    ours = [spec["function"] for spec in openai_tool_specs()]
    assert ours == mcp
    assert [t["name"] for t in ours] == list(TOOL_NAMES)
    assert all(spec["type"] == "function" for spec in openai_tool_specs())


def test_compact_tools_fit_their_budget() -> None:
    specs = openai_tool_specs(COMPACT_TOOLS)
    assert {s["function"]["name"] for s in specs} == set(COMPACT_TOOLS)
    assert specs_chars(specs) <= COMPACT_SCHEMA_CHARS
