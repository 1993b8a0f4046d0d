"""End to end, in the order an agent works, over MCP/HTTP, with sync on to a loopback Kumiho server.

engage memory -> resolve `red_led` on the Nucleo -> read that datasheet section -> write the LED ->
read the BME280 -> reflect a capture citing engage's source refs -> check sync status.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from edge_agent.config import parse_settings
from edge_agent.runtime import Runtime

pytestmark = pytest.mark.anyio


@pytest.fixture
def kumiho() -> Any:
    testserver = pytest.importorskip("edge_agent.sync.testserver", reason="the kumiho extra is not installed")
    server = testserver.KumihoTestServer().start()
    yield server
    server.stop()


@pytest.fixture
def synced_runtime(state: Path, kumiho: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("KUMIHO_AUTH_TOKEN", "device-token")
    settings = parse_settings({"kumiho": {"enabled": True, "endpoint": kumiho.endpoint, "sync_interval_s": 0.2,
                                          "space_path": "Devices/bench-1"}})
    rt = Runtime.build(settings, state)
    stop = threading.Event()
    rt.start_background(stop)
    yield rt
    stop.set()
    rt.close()


async def test_agent_workflow_from_engage_to_synced_reflection(synced_runtime: Runtime, kumiho: Any,
                                                               mcpkit: Any) -> None:
    rt = synced_runtime
    ok = mcpkit.structured
    assert rt.sync is not None, rt.components["sync"].detail
    async with mcpkit.serving(rt) as server, mcpkit.http_session(server.url) as s:
        async def call(tool: str, /, **args: Any) -> dict[str, Any]:
            return ok(await s.call_tool(tool, args))

        # An earlier session taught the device where the LED is; it has synced upstream since.
        await call("memory_reflect", session_id="earlier", response="noted",
                   captures=[{"type": "fact", "title": "bench LED", "content": "The bench Nucleo's user LED LD2 "
                              "is driven by PA5; it lights when PA5 is high."}])
        assert rt.sync.sync_until_empty(deadline_s=30)

        # 1. engage memory before answering
        engaged = await call("memory_engage", query="bench Nucleo user LED")
        assert engaged["results"] and engaged["source_krefs"]
        assert all(ref.startswith("kref://") for ref in engaged["source_krefs"])  # synced: krefs, not mem://
        # 2. resolve the alias on the Nucleo board
        pin = await call("pin_resolve", name="red_led", board="nucleo-f401re")
        assert pin["name"] == "PA5"
        # 3. read the datasheet section behind it
        hits = (await call("datasheet_search", query="user LED LD2 pin", board="nucleo-f401re"))["results"]
        top = hits[0]
        section = await call("datasheet_read", source=top["source"], heading=top["heading"])
        assert "PA5" in section["text"]
        # 4. write the LED, by alias, on the board chosen by id
        wrote = await call("gpio_write", pin="red_led", value=1, board="nucleo-f401re")
        assert wrote["pin"] == "PA5" and (await call("gpio_read", pin="PA5"))["value"] == 1
        # 5. read the BME280
        reading = await call("sensor_read", sensor="bme280", addr="0x76", board="nucleo-f401re")
        assert 300 <= reading["pressure_hpa"] <= 1100
        # 6. reflect a capture citing engage's source refs
        reflected = await call(
            "memory_reflect", session_id="s-42", response="LD2 is on and the bench reads "
            f"{reading['temperature_c']:.1f} C.",
            captures=[{"type": "implementation", "title": "LED on, climate read",
                       "content": f"Drove red_led (PA5) high; BME280 read {reading['temperature_c']:.1f} C."}],
            source_krefs=engaged["source_krefs"])
        assert reflected["captures"][0]["source_refs"] == engaged["source_krefs"]
        # 7. sync status: queued, then delivered upstream with the provenance edge
        assert rt.sync.sync_until_empty(deadline_s=30)
        status = await call("sync_status")
        assert status["enabled"] is True and status["queued"] == 0 and status["dead_letters"] == 0
        assert status["synced_total"] >= 2
    capture_id = reflected["captures"][0]["capture_id"]
    revisions = kumiho.servicer.revisions_by_capture()[capture_id]
    assert kumiho.servicer.edges_from(revisions[-1]) == engaged["source_krefs"]
