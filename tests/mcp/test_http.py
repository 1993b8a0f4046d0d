"""MCP over streamable HTTP: the bearer token, bad input, disconnects and concurrent clients.

The server runs in-process on an ephemeral loopback port; clients are the SDK's own session over
real HTTP, or raw HTTP where a well-behaved client cannot send what is being tested.
"""

from __future__ import annotations

import json
import threading
from typing import Any

import anyio
import httpx2
import pytest

from edge_agent.runtime import Runtime

pytestmark = pytest.mark.anyio

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "raw", "version": "0"}}}
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


async def _raw_post(url: str, body: bytes | str, token: str | None, **extra: str) -> httpx2.Response:
    headers = dict(HEADERS, **extra)
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    async with httpx2.AsyncClient(timeout=30) as client:
        return await client.post(url, content=body, headers=headers)


async def test_a_client_with_the_token_lists_and_calls_tools(runtime: Runtime, mcpkit: Any) -> None:
    async with mcpkit.serving(runtime) as server, mcpkit.http_session(server.url) as s:
        names = {t.name for t in (await s.list_tools()).tools}
        assert {"gpio_write", "pin_resolve", "memory_engage", "runtime_status"} <= names
        result = mcpkit.structured(await s.call_tool("gpio_write", {"pin": "D13", "value": 1}))
        assert result["pin"] == "PA5"


async def test_requests_without_or_with_a_wrong_token_get_401_and_the_server_keeps_serving(
        runtime: Runtime, mcpkit: Any) -> None:
    async with mcpkit.serving(runtime) as server:
        missing = await _raw_post(server.url, json.dumps(INIT), token=None)
        wrong = await _raw_post(server.url, json.dumps(INIT), token="not-the-token")
        assert missing.status_code == 401 and wrong.status_code == 401
        assert missing.json()["error"] == "invalid_token"
        assert "Bearer" in wrong.headers["www-authenticate"]
        with pytest.raises(Exception):  # noqa: B017 - the SDK client surfaces the 401 as its own error type
            async with mcpkit.http_session(server.url, token="wrong"):
                pass
        async with mcpkit.http_session(server.url) as s:
            assert mcpkit.structured(await s.call_tool("pin_resolve", {"name": "LD2", "board": "nucleo-f401re"}))


async def test_malformed_json_rpc_gets_a_parse_error_and_the_server_keeps_serving(
        runtime: Runtime, mcpkit: Any) -> None:
    async with mcpkit.serving(runtime) as server:
        garbage = await _raw_post(server.url, b"{this is not json", token=mcpkit.TOKEN)
        assert garbage.status_code == 400
        assert garbage.json()["error"]["code"] == -32700  # JSON-RPC 2.0 parse error
        not_rpc = await _raw_post(server.url, json.dumps({"hello": "world"}), token=mcpkit.TOKEN)
        assert 400 <= not_rpc.status_code < 500
        async with mcpkit.http_session(server.url) as s:
            assert mcpkit.structured(await s.call_tool("gpio_read", {"pin": "PA5"}))["pin"] == "PA5"


async def test_unknown_tools_wrong_types_and_huge_arguments_are_clear_errors_for_that_client(
        runtime: Runtime, mcpkit: Any) -> None:
    async with mcpkit.serving(runtime) as server, mcpkit.http_session(server.url) as s:
        assert (await s.call_tool("flash_firmware", {})).is_error
        text = mcpkit.error_text(await s.call_tool("i2c_read", {"addr": [1, 2], "len": "many"}))
        assert "addr" in text and "len" in text
        text = mcpkit.error_text(await s.call_tool("i2c_read", {"addr": "0x99"}))
        assert "0x03-0x77" in text  # the address range, so the agent can correct itself
        text = mcpkit.error_text(await s.call_tool("datasheet_search", {"query": "x" * 50_000}))
        assert "query" in text
        huge = await _raw_post(server.url, b'{"jsonrpc":"2.0","id":1,"method":"ping","pad":"' + b"x" * 8_000_000
                               + b'"}', token=mcpkit.TOKEN)
        assert huge.status_code == 413
        assert mcpkit.structured(await s.call_tool("gpio_read", {"pin": "PA5"}))["value"] in (0, 1)


async def test_wrong_argument_types_get_one_sentence_per_argument_without_pydantic_links(
        runtime: Runtime, mcpkit: Any) -> None:
    async with mcpkit.serving(runtime) as server, mcpkit.http_session(server.url) as s:
        result = await s.call_tool("spi_transfer", {"bytes": "one eighty", "cs": 0})
        assert result.is_error
        text = mcpkit.error_text(result)
        assert "bytes" in text and "'one eighty'" in text
        assert "errors.pydantic.dev" not in text and "\n" not in text


async def test_a_client_that_disconnects_mid_call_does_not_wedge_the_adapter(
        runtime: Runtime, mcpkit: Any) -> None:
    slot = runtime.slot()
    in_call = threading.Event()
    async with mcpkit.serving(runtime) as server:
        # Hold the adapter so the tool call blocks inside its bus transaction, then drop the client.
        slot.lock.acquire()
        try:
            async with mcpkit.http_session(server.url) as s:
                with anyio.move_on_after(1.0) as scope:
                    in_call.set()
                    await s.call_tool("gpio_write", {"pin": "PA5", "value": 1})
                assert scope.cancelled_caught  # the client gave up and is closing its connection
        finally:
            slot.lock.release()
        async with mcpkit.http_session(server.url) as s:
            result = mcpkit.structured(await s.call_tool("gpio_write", {"pin": "PA5", "value": 0}))
            assert result["value"] == 0
            assert mcpkit.structured(await s.call_tool("gpio_read", {"pin": "PA5"}))["value"] == 0
    assert in_call.is_set()


async def test_many_concurrent_clients_are_all_served(runtime: Runtime, mcpkit: Any) -> None:
    results: list[dict[str, Any]] = []

    async def client(i: int) -> None:
        async with mcpkit.http_session(server.url) as s:
            for _ in range(3):
                pin = mcpkit.structured(await s.call_tool("pin_resolve", {"name": "D13", "board": "nucleo-f401re"}))
                write = mcpkit.structured(await s.call_tool("gpio_write", {"pin": "PA5", "value": i % 2}))
                results.append({"pin": pin["name"], "write": write["pin"]})

    async with mcpkit.serving(runtime) as server, anyio.create_task_group() as tg:
        for i in range(12):
            tg.start_soon(client, i)
    assert len(results) == 36
    assert all(r == {"pin": "PA5", "write": "PA5"} for r in results)


async def test_error_hints_name_mcp_tools_not_cli_commands(runtime: Runtime, mcpkit: Any) -> None:
    """Bus and pin errors carry a hint for what to do next; over MCP it names a tool the agent can call."""
    async with mcpkit.serving(runtime) as server, mcpkit.http_session(server.url) as s:
        nack = mcpkit.error_text(await s.call_tool("i2c_read", {"addr": "0x55", "len": 1}))
        assert "i2c_scan" in nack and "edge-agent" not in nack
        unknown = mcpkit.error_text(await s.call_tool("pin_resolve", {"name": "no_such_pin", "board": "nucleo-f401re"}))
        assert "hardware_board_info" in unknown and "edge-agent" not in unknown
        info = mcpkit.structured(await s.call_tool("hardware_board_info", {"board": "nucleo-f401re"}))
        assert any(p.startswith("PA5 (") and "D13" in p for p in info["pins"])
        assert len(info["pins"]) == info["pin_count"]


async def test_byte_arguments_accept_hex_strings_as_datasheets_print_them(runtime: Runtime, mcpkit: Any) -> None:
    """SPI loopback on the simulated board echoes what was sent, whichever way the bytes were written."""
    async with mcpkit.serving(runtime) as server, mcpkit.http_session(server.url) as s:
        as_list = mcpkit.structured(await s.call_tool("spi_transfer", {"bytes": [1, 128, 0], "cs": 1}))
        assert as_list["rx"] == [1, 128, 0]  # MOSI jumpered to MISO on CS1 in the default scenario
        for text in ("01 80 00", "0x018000", "0x01,0x80,0x00", "01:80:00"):
            as_hex = mcpkit.structured(await s.call_tool("spi_transfer", {"bytes": text, "cs": 1}))
            assert as_hex == as_list, text
