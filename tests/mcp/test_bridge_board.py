"""MCP tools against the real firmware (host build) behind `bridge://` on a pty, as a configured serial board.

The same tools an agent uses on the simulator drive the firmware's protocol end to end; unplugging
the board gives that agent a clear error while the server keeps serving, and replugging recovers.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from edge_agent.config import parse_settings
from edge_agent.runtime import Runtime

pytestmark = pytest.mark.anyio


@pytest.fixture
def firmware(host_firmware: Any) -> Any:
    return host_firmware


@pytest.fixture
def bridge_runtime(state: Path, firmware: Any) -> Iterator[Runtime]:
    settings = parse_settings({
        "peripherals": {"boards": [{"board": "nucleo-f401re", "name": "bench", "transport": "serial",
                                    "path": str(firmware.path)}]},
        # The simulated firmware has nothing to damage; real boards stay read-only unless allow-listed.
        "hardware": {"safety": {"adapters": {"bench": {"writable_gpio": ["LD2"]}}}},
    })
    rt = Runtime.build(settings, state)
    yield rt
    rt.close()


async def test_tools_drive_the_firmware_over_the_serial_bridge(bridge_runtime: Runtime, firmware: Any,
                                                                mcpkit: Any) -> None:
    ok = mcpkit.structured
    assert bridge_runtime.adapters["bench"].adapter is not None, bridge_runtime.adapters["bench"].error
    async with mcpkit.serving(bridge_runtime) as server, mcpkit.http_session(server.url) as s:
        async def call(tool: str, /, **args: Any) -> dict[str, Any]:
            return ok(await s.call_tool(tool, args))

        assert (await call("gpio_write", pin="red_led", value=1, adapter="bench"))["pin"] == "PA5"
        assert (await call("gpio_read", pin="D13", adapter="bench"))["value"] == 1
        assert (await call("i2c_scan", board="nucleo-f401re"))["addresses"] == [0x50, 0x76]
        assert (await call("i2c_read", addr=0x76, register=0xD0, len=1))["data"] == [0x60]
        refused = await s.call_tool("gpio_write", {"pin": "D7", "value": 1})
        assert "writable_gpio" in mcpkit.error_text(refused)  # names the key that would allow it
        caps = await call("hardware_capabilities", adapter="bench")
        assert caps["scheme"] == "bridge" and caps["health"]["ok"] is True

        firmware.unplug()
        unplugged = await s.call_tool("gpio_read", {"pin": "PA5"})
        assert "internal error" not in mcpkit.error_text(unplugged)  # a bus error sentence, not a crash
        assert ok(await s.call_tool("pin_resolve", {"name": "red_led", "board": "nucleo-f401re"}))["name"] == "PA5"
        firmware.start()
        link = bridge_runtime.adapters["bench"].adapter.link
        # The bridge reconnects in the background; a ping with a deadline waits for it.
        assert await anyio.to_thread.run_sync(lambda: link.request("ping", timeout_s=10)) == "pong"
        assert ok(await s.call_tool("gpio_read", {"pin": "PA5"}))["pin"] == "PA5"
