"""The write policy through MCP, over HTTP and stdio: the tools get the bus layer's refusals, byte by byte."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from edge_agent.config import parse_settings
from edge_agent.runtime import Runtime

pytestmark = pytest.mark.anyio

POLICY: dict[str, Any] = {
    "peripherals": {"boards": [{"board": "nucleo-f401re", "name": "bench", "transport": "sim"}]},
    "hardware": {"safety": {"adapters": {"bench": {"writable_gpio": ["red_led"],
                                                   "writable_i2c": ["0x50:0x00", "0x76:0xF2"]}}}},
}


@pytest.fixture
def policy_runtime(state: Path) -> Iterator[Runtime]:
    rt = Runtime.build(parse_settings(POLICY), state)
    yield rt
    rt.close()


async def test_http_tools_refuse_bytes_pairs_and_lines_outside_the_policy(policy_runtime: Runtime,
                                                                          mcpkit: Any) -> None:
    sim = policy_runtime.adapters["bench"].adapter
    async with mcpkit.serving(policy_runtime) as server, mcpkit.http_session(server.url) as s:
        refused = await s.call_tool("i2c_write", {"addr": "0x50", "register": 0, "bytes": [0xA1, 0xA2, 0xA3, 0xA4]})
        assert "0x01-0x03" in mcpkit.error_text(refused) and "writable_i2c" in mcpkit.error_text(refused)
        raw = await s.call_tool("i2c_write", {"addr": "0x50", "bytes": [0x00, 0xA1, 0xA2]})
        assert "writable_i2c" in mcpkit.error_text(raw)
        pairs = await s.call_tool("i2c_write", {"addr": "0x76", "bytes": [0xF2, 0x01, 0xE0, 0xB6]})
        assert "0xE0" in mcpkit.error_text(pairs)
        assert sim.world.device(0x50).regs[:4] == b"\xff" * 4  # nothing reached the parts
        assert mcpkit.structured(await s.call_tool("i2c_write", {"addr": "0x50", "register": 0, "bytes": [7]}))
        assert "writable_gpio" in mcpkit.error_text(await s.call_tool("gpio_write", {"pin": "PA6", "value": 1}))
        done = mcpkit.structured(await s.call_tool("gpio_write", {"pin": "13", "value": 1}))  # D13 = PA5
        assert done["pin"] == "PA5"
        caps = mcpkit.structured(await s.call_tool("hardware_capabilities", {"adapter": "bench"}))
        assert "red_led -> PA5" in str(caps)


async def test_stdio_tools_get_the_same_refusal(state: Path, tmp_path: Path, mcpkit: Any) -> None:
    config = tmp_path / "policy.toml"
    config.write_text('[[peripherals.boards]]\nboard = "nucleo-f401re"\nname = "bench"\ntransport = "sim"\n\n'
                      '[hardware.safety.adapters.bench]\nwritable_i2c = ["0x50:0x00"]\n')
    async with mcpkit.stdio_session(state, "--config", str(config)) as s:
        refused = await s.call_tool("i2c_write", {"addr": "0x50", "register": 0, "bytes": [1, 2]})
        assert '"0x50:0x00-0x01"' in mcpkit.error_text(refused)
        assert "writable_gpio" in mcpkit.error_text(await s.call_tool("gpio_write", {"pin": "LD2", "value": 1}))
