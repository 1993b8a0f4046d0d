"""Every tool publishes a real outputSchema, and what it returns validates against it."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from edge_agent.mcp.tools import TOOL_NAMES
from edge_agent.runtime import Runtime

pytestmark = pytest.mark.anyio

CALLS: list[tuple[str, dict[str, Any]]] = [
    ("gpio_write", {"pin": "PA5", "value": 1}), ("gpio_read", {"pin": "D13"}), ("i2c_scan", {}),
    ("i2c_read", {"addr": "0x76", "register": "0xD0"}), ("i2c_read", {"addr": 0x76}),
    ("i2c_write", {"addr": 0x76, "register": 0xF4, "bytes": [0x27]}), ("spi_transfer", {"bytes": "0x9f00", "cs": 1}),
    ("hardware_board_info", {}), ("hardware_board_info", {"board": "rpi-4b"}), ("hardware_capabilities", {}),
    ("sensor_read", {}), ("datasheet_search", {"query": "user LED"}), ("datasheet_list", {}),
    ("datasheet_read", {"source": "nucleo-f401re.md"}), ("pin_resolve", {"name": "red_led", "board": "nucleo-f401re"}),
    ("hardware_context", {"query": "LED"}), ("memory_store", {"content": "LD2 is on PA5", "title": "led"}),
    ("memory_engage", {"query": "LD2"}), ("memory_recall", {"query": "LD2", "min_score": 0.0}),
    ("memory_reflect", {"session_id": "s", "captures": [{"type": "fact", "title": "t", "content": "c"}]}),
    ("memory_export", {}), ("memory_forget", {"key": "led"}), ("sync_status", {}), ("runtime_status", {}),
]


async def test_each_tool_publishes_an_output_schema_its_results_validate_against(
        runtime: Runtime, mcpkit: Any) -> None:
    assert {name for name, _ in CALLS} == set(TOOL_NAMES)
    async with mcpkit.serving(runtime) as server, mcpkit.http_session(server.url) as s:
        schemas = {t.name: t.output_schema for t in (await s.list_tools()).tools}
        for name in TOOL_NAMES:
            schema = schemas[name]
            assert schema and schema.get("type") == "object" and schema.get("properties"), name
            assert set(schema.get("required", [])) <= set(schema["properties"]), name
        for name, args in CALLS:
            result = mcpkit.structured(await s.call_tool(name, args))
            jsonschema.validate(result, schemas[name])
            assert set(schemas[name].get("required", [])) <= set(result), name
