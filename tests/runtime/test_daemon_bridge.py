"""SIGTERM while a bus transaction is in flight on a real firmware link: it completes, then the daemon exits.

The board is the host build of the firmware on a pty behind `bridge://`. The firmware is paused (as
if busy) so a `gpio_write` issued over MCP is on the wire when the daemon gets SIGTERM; the write must
still reach the board and be answered before the adapters close.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture
def firmware(tmp_path: Path) -> Iterator[Any]:
    hostsim = pytest.importorskip("edge_agent.bus.bridge.hostsim", reason="the bridge extra is not installed")
    pytest.importorskip("mcp", reason="the MCP SDK is not installed")
    try:
        binary = hostsim.build_host_firmware()
    except hostsim.HostFirmwareError as exc:
        if os.environ.get("EDGE_AGENT_REQUIRE_FIRMWARE") == "1":
            raise
        pytest.skip(str(exc))
    fw = hostsim.HostFirmware(binary, directory=tmp_path).start()
    yield fw
    fw.stop()


def _call_gpio_write(url: str, token: str, out: dict[str, Any]) -> None:
    import anyio
    import httpx2
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async def go() -> None:
        async with (
            httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60) as client,
            streamable_http_client(url, http_client=client) as (r, w),
            ClientSession(r, w, read_timeout_seconds=60) as s,
        ):
            await s.initialize()
            out["initialized"] = True
            out["calling"].set()
            res = await s.call_tool("gpio_write", {"pin": "red_led", "value": 1})
            out["result"] = res

    try:
        anyio.run(go)
    except BaseException as exc:  # the connection may close as the server stops; the result decides
        out.setdefault("error", exc)


def test_sigterm_lets_the_bus_transaction_in_flight_finish_before_closing(
        daemon_factory: Any, firmware: Any, tmp_path: Path) -> None:
    config = tmp_path / "edge-agent.toml"
    config.write_text(
        '[[peripherals.boards]]\nboard = "nucleo-f401re"\nname = "bench"\ntransport = "serial"\n'
        f'url = "bridge://{firmware.path}?timeout_scale=20"\n\n'
        '[hardware.safety.adapters.bench]\nwritable_gpio = ["LD2"]\n')
    d = daemon_factory(config)
    d.wait_ready()
    assert d.status_file()["adapters"][0]["ok"] is True

    out: dict[str, Any] = {"calling": threading.Event()}
    firmware.pause()  # the board stops answering: the next request waits on the wire
    client = threading.Thread(target=_call_gpio_write, args=(d.url, d.token(), out))
    client.start()
    assert out["calling"].wait(60)
    time.sleep(1.0)  # let the tool call reach the adapter (no event to await across the process boundary)
    d.send(signal.SIGTERM)
    d.notify.expect("STOPPING", "1")
    assert d.proc.poll() is None  # still waiting for the transaction
    firmware.resume()
    assert d.wait_exit() == 0
    client.join(60)
    result = out.get("result")
    assert result is not None and not result.is_error, out
    assert result.structured_content["pin"] == "PA5"

    from edge_agent.bus import open_adapter
    from edge_agent.config import parse_settings

    safety = parse_settings({"hardware": {"safety": {"adapters": {"bench": {"read_only": True}}}}}).hardware.safety
    with open_adapter(f"bridge://{firmware.path}", name="bench", safety=safety) as adapter:
        assert adapter.gpio_read("PA5") == 1  # the write reached the board before the daemon closed the link
