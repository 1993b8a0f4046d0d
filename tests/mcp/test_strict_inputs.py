"""Strict tool inputs: unknown arguments, read-only spaces, ambiguous byte strings, echoed registers, 401 form."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx2
import pytest

from edge_agent.config import parse_settings
from edge_agent.runtime import Runtime

pytestmark = pytest.mark.anyio


async def test_an_unknown_argument_is_an_error_naming_it_and_nothing_runs(runtime: Runtime, mcpkit: Any) -> None:
    async with mcpkit.serving(runtime) as server, mcpkit.http_session(server.url) as s:
        stored = mcpkit.structured(await s.call_tool("memory_store", {"content": "pump relay on GPIO17"}))
        text = mcpkit.error_text(await s.call_tool("memory_engage", {"query": "pump", "namespace": "lab"}))
        assert "'namespace'" in text and "space_path" in text  # names the stray argument and the real ones
        text = mcpkit.error_text(await s.call_tool("memory_forget", {"key": stored["key"], "force": True}))
        assert "'force'" in text
        assert mcpkit.structured(await s.call_tool("memory_export", {}))["count"] == 1  # the forget did not run
        tools = {t.name: t for t in (await s.list_tools()).tools}
        assert all(t.input_schema.get("additionalProperties") is False for t in tools.values())


async def test_reflect_into_a_read_only_space_refuses_and_stores_nothing(state: Path, mcpkit: Any) -> None:
    rt = Runtime.build(parse_settings({"memory": {"policy": {"read_only_namespaces": ["Devices/locked"]}}}), state)
    try:
        async with mcpkit.serving(rt) as server, mcpkit.http_session(server.url) as s:
            result = await s.call_tool("memory_reflect", {
                "session_id": "s1", "response": "noted", "space_path": "Devices/locked",
                "captures": [{"type": "fact", "title": "pump", "content": "the pump relay is on GPIO17"}]})
            assert "read-only" in mcpkit.error_text(result)
            assert mcpkit.structured(await s.call_tool("memory_export", {}))["count"] == 0
            assert rt.status()["memory"]["entries"] == 0
            ok = mcpkit.structured(await s.call_tool("memory_reflect", {
                "session_id": "s1", "space_path": "Devices/open",
                "captures": [{"type": "fact", "title": "pump", "content": "the pump relay is on GPIO17"}]}))
            assert ok["stored"] == 1
            recalled = mcpkit.structured(await s.call_tool("memory_recall", {
                "query": "pump relay", "space_path": "Devices/open", "min_score": 0.0}))["results"]
            assert [r["namespace"] for r in recalled] == ["Devices/open"]  # filed in the space it named
    finally:
        rt.close()


async def test_a_bare_byte_string_is_ambiguous_and_the_error_shows_both_readings(
        runtime: Runtime, mcpkit: Any) -> None:
    async with mcpkit.serving(runtime) as server, mcpkit.http_session(server.url) as s:
        text = mcpkit.error_text(await s.call_tool("spi_transfer", {"bytes": "27", "cs": 1}))
        assert "0x27" in text and "27 (byte 0x1B)" in text and "[27]" in text
        text = mcpkit.error_text(await s.call_tool("i2c_write", {"addr": 0x76, "register": 0xF4, "bytes": "018000"}))
        assert "0x01, 0x80, 0x00" in text and "18000" in text
        as_hex = mcpkit.structured(await s.call_tool("spi_transfer", {"bytes": "0x27", "cs": 1}))
        as_int = mcpkit.structured(await s.call_tool("spi_transfer", {"bytes": [27], "cs": 1}))
        assert as_hex["rx"] == [0x27] and as_int["rx"] == [27]  # loopback on CS1 echoes what was sent


async def test_registers_and_addresses_are_echoed_as_integers_and_hex(runtime: Runtime, mcpkit: Any) -> None:
    async with mcpkit.serving(runtime) as server, mcpkit.http_session(server.url) as s:
        read = mcpkit.structured(await s.call_tool("i2c_read", {"addr": "0x76", "register": "0xD0"}))
        assert (read["addr"], read["addr_hex"], read["register"], read["register_hex"]) == (0x76, "0x76", 0xD0,
                                                                                            "0xD0")
        write = mcpkit.structured(await s.call_tool("i2c_write", {"addr": 118, "register": 244, "bytes": [0x27]}))
        assert (write["addr"], write["addr_hex"], write["register"], write["register_hex"]) == (118, "0x76", 244,
                                                                                                "0xF4")
        plain = mcpkit.structured(await s.call_tool("i2c_read", {"addr": 0x76}))
        assert plain["register"] is None and plain["register_hex"] is None
        sensor = mcpkit.structured(await s.call_tool("sensor_read", {"addr": "0x76"}))
        assert (sensor["addr"], sensor["addr_hex"]) == (0x76, "0x76")


async def test_without_a_token_http_answers_a_plain_bearer_challenge_with_no_oauth_server(
        runtime: Runtime, mcpkit: Any) -> None:
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "x", "version": "0"}}}
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    async with mcpkit.serving(runtime) as server, httpx2.AsyncClient(timeout=30) as client:
        missing = await client.post(server.url, content=json.dumps(init), headers=headers)
        wrong = await client.post(server.url, content=json.dumps(init),
                                  headers={**headers, "Authorization": "Bearer nope"})
        assert missing.status_code == 401 and wrong.status_code == 401
        assert missing.headers["www-authenticate"] == 'Bearer realm="edge-agent"'
        assert wrong.headers["www-authenticate"].startswith('Bearer realm="edge-agent", error="invalid_token"')
        assert "resource_metadata" not in missing.headers["www-authenticate"] + wrong.headers["www-authenticate"]
        base = server.url.rsplit("/", 1)[0]
        for path in ("/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp",
                     "/.well-known/oauth-authorization-server", "/register", "/authorize"):
            assert (await client.get(base + path)).status_code == 404, path
