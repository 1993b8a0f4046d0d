"""A real MCP client spawns `edge-agent mcp` over stdio: schemas match the snapshot, every tool works on sim."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from edge_agent.mcp.tools import TOOL_NAMES

pytestmark = pytest.mark.anyio


def _listing(tools: list[Any]) -> dict[str, Any]:
    out = {}
    for t in tools:
        ann = t.annotations.model_dump(mode="json", exclude_none=True, by_alias=True) if t.annotations else {}
        out[t.name] = {"inputSchema": t.input_schema, "outputSchema": t.output_schema, "annotations": ann}
    return out


async def test_stdio_client_lists_every_tool_with_the_snapshotted_schemas(state: Path, mcpkit: Any) -> None:
    """Set EDGE_AGENT_UPDATE_SNAPSHOT=1 to rewrite tests/mcp/tool_schemas.json after a deliberate change."""
    async with mcpkit.stdio_session(state) as session:
        tools = (await session.list_tools()).tools
    listing = _listing(tools)
    assert list(listing) == list(TOOL_NAMES)
    if os.environ.get("EDGE_AGENT_UPDATE_SNAPSHOT"):
        mcpkit.SNAPSHOT.write_text(json.dumps(listing, indent=1, sort_keys=True) + "\n")
    expected = json.loads(mcpkit.SNAPSHOT.read_text())
    for name in TOOL_NAMES:
        assert listing[name] == expected[name], f"schema of {name} changed; update the snapshot if deliberate"
    assert set(expected) == set(listing)


async def test_every_tool_answers_with_structured_results_against_the_simulated_board(
        state: Path, mcpkit: Any) -> None:
    ok = mcpkit.structured
    async with mcpkit.stdio_session(state) as s:
        async def call(tool: str, /, **args: Any) -> dict[str, Any]:
            return ok(await s.call_tool(tool, args))

        # hardware: LD2 (PA5, alias red_led) on the simulated NUCLEO-F401RE, BME280 at 0x76
        assert (await call("gpio_write", pin="PA5", value=1))["pin"] == "PA5"
        assert (await call("gpio_read", pin="PA5"))["value"] == 1
        scan = await call("i2c_scan")
        assert 0x76 in scan["addresses"]
        chip_id = await call("i2c_read", addr="0x76", register=0xD0, len=1)
        assert chip_id["data"] == [0x60]  # BME280 datasheet §5.4.1: chip id register 0xD0 reads 0x60
        assert (await call("i2c_write", addr=0x76, register=0xF4, bytes=[0x27]))["written"] == 1
        assert len((await call("spi_transfer", bytes=[0x9F, 0, 0, 0]))["rx"]) == 4
        info = await call("hardware_board_info", board="nucleo-f401re")
        assert info["leds"]["LD2"] == "PA5"
        caps = await call("hardware_capabilities")
        assert caps["i2c"] and caps["health"]["ok"] is True
        reading = await call("sensor_read", sensor="bme280", addr=0x76)
        assert -40 <= reading["temperature_c"] <= 85

        # datasheets and pins
        files = (await call("datasheet_list"))["files"]
        assert files
        hits = (await call("datasheet_search", query="user LED pin", board="nucleo-f401re"))["results"]
        assert hits and {"source", "heading", "text", "score"} <= set(hits[0])
        text = (await call("datasheet_read", source=hits[0]["source"]))["text"]
        assert text.strip()
        assert (await call("pin_resolve", name="D13", board="nucleo-f401re"))["name"] == "PA5"
        assert (await call("hardware_context", query="LED"))["context"].strip()

        # memory
        stored = await call("memory_store", content="The bench BME280 sits at I2C address 0x76.",
                            title="bme280 address", memory_type="fact")
        assert stored["key"] == "bme280 address"
        recalled = (await call("memory_recall", query="BME280 address", min_score=0.0))["results"]
        assert any(r["id"] == stored["id"] for r in recalled)
        engaged = await call("memory_engage", query="BME280 address")
        assert engaged["source_krefs"] == [f"mem://{stored['id']}"]
        reflected = await call("memory_reflect", session_id="s1", response="It is at 0x76.",
                               captures=[{"type": "fact", "title": "sensor bus", "content": "BME280 on i2c1"}],
                               source_krefs=engaged["source_krefs"])
        assert reflected["captures"][0]["source_refs"] == engaged["source_krefs"]
        exported = await call("memory_export")
        assert exported["count"] >= 2
        assert (await call("memory_forget", key="bme280 address"))["forgotten"] >= 1

        # runtime
        assert (await call("sync_status"))["enabled"] is False
        status = await call("runtime_status")
        assert status["adapters"][0]["ok"] is True


async def test_a_failing_tool_returns_an_actionable_error_and_the_session_keeps_working(
        state: Path, mcpkit: Any) -> None:
    async with mcpkit.stdio_session(state) as s:
        bad = await s.call_tool("pin_resolve", {"name": "no_such_pin", "board": "nucleo-f401re"})
        assert "hardware_board_info" in mcpkit.error_text(bad)  # the tool that lists every pin name
        unknown = await s.call_tool("no_such_tool", {})
        assert unknown.is_error
        wrong_type = await s.call_tool("gpio_write", {"pin": "PA5", "value": "high"})
        assert "value" in mcpkit.error_text(wrong_type)
        huge = await s.call_tool("spi_transfer", {"bytes": [0] * 100_000})
        assert "bytes" in mcpkit.error_text(huge)
        assert mcpkit.structured(await s.call_tool("gpio_read", {"pin": "PA5"}))["pin"] == "PA5"


def test_malformed_json_rpc_on_stdin_is_skipped_and_later_requests_are_answered(state: Path, mcpkit: Any) -> None:
    import subprocess

    lines = [
        "{this is not json",
        json.dumps({"jsonrpc": "2.0", "id": 7, "method": "bogus/method"}),
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}),
    ]
    proc = subprocess.run([*mcpkit.command(), "--state", str(state), "mcp"], input="\n".join(lines) + "\n",
                          capture_output=True, text=True, timeout=120)
    replies = {r["id"]: r for r in map(json.loads, proc.stdout.splitlines()) if "id" in r}
    assert replies[7]["error"]["code"] == -32601  # JSON-RPC: method not found
    assert replies[1]["result"]["serverInfo"]["name"] == "edge-agent"
    assert proc.returncode == 0  # stdin closed: a clean exit that closed the adapters and the store
