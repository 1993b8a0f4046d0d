"""An Origin is scheme, host and port: a page another program serves on this machine is another site."""

from __future__ import annotations

import json
from typing import Any

import httpx2
import pytest

from edge_agent.mcp.netguard import HostPolicy
from edge_agent.runtime import Runtime

pytestmark = pytest.mark.anyio
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}


async def test_a_page_on_another_local_port_may_not_drive_the_device(runtime: Runtime, mcpkit: Any) -> None:
    async with mcpkit.serving(runtime) as server:
        headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
                   "Authorization": f"Bearer {mcpkit.TOKEN}", "Host": f"localhost:{server.port}"}
        async with httpx2.AsyncClient(timeout=30) as c:
            async def post(origin: str) -> int:
                r = await c.post(server.url, content=json.dumps(INIT), headers={**headers, "Origin": origin})
                return r.status_code

            assert await post(f"http://localhost:{server.port + 1}") == 403  # a dev server, a local web app
            assert await post("http://localhost") == 403  # port 80
            assert await post(f"https://localhost:{server.port}") == 403  # another scheme
            assert await post(f"http://localhost:{server.port}") == 200
            assert await post(f"http://127.0.0.1:{server.port}") == 200
            page = await c.get(f"http://127.0.0.1:{server.port}/api/status",
                               headers={"Authorization": f"Bearer {mcpkit.TOKEN}",
                                        "Origin": f"http://127.0.0.1:{server.port + 7}"})
            assert page.status_code == 403  # the status page's API too


def test_default_ports_and_configured_origins() -> None:
    plain = HostPolicy.build("127.0.0.1", port=80, allowed_origins=["https://tools.example.lan"])
    assert plain.origin_ok("http://localhost") and plain.origin_ok("http://localhost:80")
    assert not plain.origin_ok("http://localhost:8080") and not plain.origin_ok("http://localhost:bad")
    assert plain.origin_ok("https://tools.example.lan")  # configured origins are taken as written
    assert "http://localhost:80" in plain.sdk_settings()["allowed_origins"]
    assert not any(o.endswith(":*") for o in plain.sdk_settings()["allowed_origins"])
    secure = HostPolicy.build("127.0.0.1", port=443, tls=True)
    assert secure.origin_ok("https://localhost") and not secure.origin_ok("https://localhost:8443")
