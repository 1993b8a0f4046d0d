"""The local socket holds to the TCP port's bounds, tried over real sockets: bodies counted as they arrive
(chunked too), slow senders evicted before they shut out the CLI, and malformed /op requests answered
400 with a sentence instead of a bare 500."""

from __future__ import annotations

import json
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from edge_agent.errors import EdgeAgentError
from edge_agent.hub.client import HubClient, RemoteError, connect_unix
from edge_agent.mcp import limits
from edge_agent.mcp import socket_server as hub_server
from edge_agent.mcp.socket_server import HubServer
from edge_agent.runtime import Runtime
from edge_agent.services.core import actions

pytestmark = pytest.mark.anyio


@asynccontextmanager
async def hub(runtime: Runtime, state: Path) -> AsyncIterator[HubServer]:
    server = HubServer(runtime, state)
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


def _raw_op(path: Path, body: bytes, name: str = "status") -> tuple[int, dict[str, Any]]:
    sock = connect_unix(path, timeout=30)
    try:
        sock.sendall(f"POST /op/{name} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                     f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body)
        return _response(sock)
    finally:
        sock.close()


def _response(sock: socket.socket) -> tuple[int, dict[str, Any]]:
    data = b""
    try:
        while chunk := sock.recv(65536):
            data += chunk
    except ConnectionResetError:
        pass  # closed with our unread request still queued: what arrived before the reset is the answer
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body)


def _send_chunked_until_closed(path: Path, total: int) -> tuple[int, int]:
    """POST a chunked body of ``total`` bytes; (status, bytes the server let us send before closing)."""
    sock = connect_unix(path, timeout=30)
    sent = 0
    try:
        sock.sendall(b"POST /op/memory_import HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                     b"Transfer-Encoding: chunked\r\n\r\n")
        piece = b"x" * 65536
        try:
            while sent < total:
                sock.sendall(b"%x\r\n%s\r\n" % (len(piece), piece))
                sent += len(piece)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server answered and closed: the rest was never read
        status, _ = _response(sock)
        return status, sent
    finally:
        sock.close()


async def test_a_chunked_body_over_the_limit_is_refused_without_reading_it_all(
        runtime: Runtime, state: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hub_server, "MAX_OP_BODY", 1024 * 1024)
    async with hub(runtime, state) as server:
        status, sent = await anyio.to_thread.run_sync(_send_chunked_until_closed, server.path, 64 * 1024 * 1024)
        assert status == 413
        assert sent < 32 * 1024 * 1024  # closed long before the 64 MiB the client meant to send
        # A body under the limit still works, and so does the CLI's client.
        assert await anyio.to_thread.run_sync(lambda: HubClient(state).op("runtime_status", {}))


async def test_slow_senders_are_evicted_so_the_cli_still_gets_in(runtime: Runtime, state: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_CONNECTIONS", 8)
    async with hub(runtime, state) as server:
        def dribble() -> socket.socket:
            sock = connect_unix(server.path, timeout=30)
            sock.sendall(b"POST /op/status HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1000\r\n\r\n{\"args\"")
            return sock

        slow = [await anyio.to_thread.run_sync(dribble) for _ in range(20)]
        try:
            await anyio.sleep(0.3)
            for _ in range(3):  # the CLI, the agent and one more, each while every slot is a dribbler
                result = await anyio.to_thread.run_sync(lambda: HubClient(state).op("gpio_read", {"pin": "PA5"}))
                assert result["value"] in (0, 1)
        finally:
            for sock in slow:
                sock.close()


async def test_deeply_nested_json_is_a_400_with_a_sentence(runtime: Runtime, state: Path) -> None:
    nested = b'{"args": {"text": ' + b"[" * 200_000 + b"]" * 200_000 + b"}}"
    async with hub(runtime, state) as server:
        status, body = await anyio.to_thread.run_sync(_raw_op, server.path, nested, "memory_import")
    assert status == 400 and "nests JSON too deeply" in body["error"]["message"]


#: Every argument name any operation reads.
_NAMES = ("address", "register", "length", "bus", "data", "pin", "value", "pull", "cs", "mode", "speed_hz", "url",
          "key", "content", "category", "namespace", "session", "importance", "timestamp", "title", "entry_id",
          "query", "limit", "min_score", "workspace", "text", "prompt", "model", "system", "response", "tokens",
          "session_id", "name", "timeout", "interval", "force", "dry_run", "since", "until", "exclude_ids",
          "source_refs", "live_only", "other_workspace", "kumiho_endpoint", "report", "offline", "boards",
          # the service actions' arguments (the MCP tools' names)
          "addr", "len", "bytes", "sensor", "adapter", "board", "source", "heading")
_WRONG = [{"x": [1]}, [1, [2]], "not-a-number", 12345678901234567890, 1.5, True]


async def test_no_operation_answers_500_to_arguments_of_the_wrong_type(runtime: Runtime, state: Path) -> None:
    async with hub(runtime, state):
        def call_all() -> list[str]:
            client = HubClient(state)
            bad = []
            for name in sorted(actions()):
                for wrong in _WRONG:
                    try:
                        client.op(name, dict.fromkeys(_NAMES, wrong), timeout=60)
                    except RemoteError as exc:
                        if exc.status >= 500 or not str(exc).strip():
                            bad.append(f"{name} with {wrong!r}: {exc.status} {exc}")
                        elif exc.status == 400:
                            assert f"operation {name!r}" in str(exc) or "JSON" in str(exc)
                    except EdgeAgentError as exc:  # a typed error, raised again here: the daemon answered 4xx
                        if not str(exc).strip():
                            bad.append(f"{name} with {wrong!r}: {type(exc).__name__} without a sentence")
            return bad

        bad = await anyio.to_thread.run_sync(call_all)
    assert bad == []


async def test_the_tcp_port_counts_a_chunked_mcp_body_the_same_way(runtime: Runtime, mcpkit: Any,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from edge_agent.mcp import server as mcp_server

    monkeypatch.setattr(mcp_server, "MAX_MCP_BODY", 256 * 1024)
    async with mcpkit.serving(runtime) as server:
        def send() -> tuple[int, int]:
            sock = socket.create_connection(("127.0.0.1", server.port), timeout=30)
            sent = 0
            try:
                sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                             b"Accept: application/json, text/event-stream\r\nAuthorization: Bearer "
                             + mcpkit.TOKEN.encode() + b"\r\nTransfer-Encoding: chunked\r\n\r\n")
                piece = b"[" * 65536
                try:
                    while sent < 64 * 1024 * 1024:
                        sock.sendall(b"%x\r\n%s\r\n" % (len(piece), piece))
                        sent += len(piece)
                except (BrokenPipeError, ConnectionResetError):
                    pass
                return _response(sock)[0], sent
            finally:
                sock.close()

        status, sent = await anyio.to_thread.run_sync(send)
    assert status == 413 and sent < 32 * 1024 * 1024
