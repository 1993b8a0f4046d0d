"""MCP test fixtures: a runtime on the embedded defaults, the HTTP server in-process, real SDK clients."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the MCP SDK (extra 'mcp') is not installed")

import httpx2  # noqa: E402
from mcp.client.session import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402

from edge_agent.config import Settings  # noqa: E402
from edge_agent.mcp.server import HttpServer  # noqa: E402
from edge_agent.runtime import Runtime  # noqa: E402

SNAPSHOT = Path(__file__).with_name("tool_schemas.json")
TOKEN = "test-token-0123456789"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def runtime(state: Path) -> Iterator[Runtime]:
    """A runtime on the embedded defaults (sim://nucleo-f401re, bundled datasheets, local memory)."""
    rt = Runtime.build(Settings(), state)
    yield rt
    rt.close()


@asynccontextmanager
async def serving(rt: Runtime, token: str = TOKEN) -> AsyncIterator[HttpServer]:
    """The MCP HTTP server on an ephemeral loopback port."""
    server = HttpServer(rt, host="127.0.0.1", port=0, token=token)
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


@asynccontextmanager
async def http_session(url: str, token: str | None = TOKEN) -> AsyncIterator[ClientSession]:
    """An initialized SDK client session over streamable HTTP, with a bearer token if given."""
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30.0)) as client,
        streamable_http_client(url, http_client=client) as (read, write),
        ClientSession(read, write, read_timeout_seconds=60) as session,
    ):
        await session.initialize()
        yield session


def edge_agent_command() -> list[str]:
    """How to run this checkout's CLI in a subprocess."""
    script = Path(sys.executable).with_name("edge-agent")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "import sys; from edge_agent.cli import main; sys.exit(main())"]


@asynccontextmanager
async def stdio_session(state: Path, *extra: str, env: dict[str, str] | None = None) -> AsyncIterator[ClientSession]:
    """Spawn `edge-agent mcp` and talk to it with the SDK's stdio client."""
    cmd = edge_agent_command()
    full_env = {k: v for k, v in os.environ.items() if k.startswith(("XDG_", "PATH", "HOME", "PYTHON"))}
    full_env.update(env or {})
    params = StdioServerParameters(command=cmd[0], args=[*cmd[1:], "--state", str(state), *extra, "mcp"],
                                   env=full_env)
    with open(state / "mcp-stderr.log", "w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write, read_timeout_seconds=60) as session,
        ):
            await session.initialize()
            yield session


def structured(result: Any) -> dict[str, Any]:
    """The structured content of a successful tool result (fails the test with the error text otherwise)."""
    assert not result.is_error, result.content[0].text if result.content else result
    assert result.structured_content is not None
    return result.structured_content


def error_text(result: Any) -> str:
    """The text of a tool error result."""
    assert result.is_error, result
    return result.content[0].text


@pytest.fixture
def mcpkit() -> Any:
    """The helpers above, for test modules (conftest is not importable under --import-mode=importlib)."""
    from types import SimpleNamespace

    return SimpleNamespace(serving=serving, http_session=http_session, stdio_session=stdio_session,
                           structured=structured, error_text=error_text, TOKEN=TOKEN, SNAPSHOT=SNAPSHOT,
                           command=edge_agent_command)
