"""The status page over real HTTP (in-process server, raw client): token, login link, headers, size."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("mcp", reason="the MCP SDK (extra 'mcp') is not installed")

import httpx2  # noqa: E402

from edge_agent.dashboard.web import COOKIE, STATIC, cookie_value, static_file  # noqa: E402
from edge_agent.mcp.server import HttpServer  # noqa: E402
from edge_agent.runtime import Runtime  # noqa: E402

pytestmark = pytest.mark.anyio
TOKEN = "page-token-0123456789"
SIZE_CAP = 200 * 1024


async def _server(runtime: Runtime) -> HttpServer:
    server = HttpServer(runtime, host="127.0.0.1", port=0, token=TOKEN)
    await server.start()
    return server


async def test_without_a_valid_token_every_page_url_is_401_with_no_device_data(runtime: Runtime) -> None:
    server = await _server(runtime)
    try:
        async with httpx2.AsyncClient(base_url=server.base_url) as c:
            for path in ("/", "/api/status", "/static/app.js", "/?token=wrong"):
                r = await c.get(path, headers={"Accept": "text/html"})
                assert r.status_code == 401, path
                assert "Bearer" in r.headers["www-authenticate"]
                assert "nucleo" not in r.text and "PA5" not in r.text and "dev-" not in r.text
            r = await c.get("/api/status", headers={"Authorization": "Bearer nope"})
            assert r.status_code == 401 and r.json()["error"] == "unauthorized"
            r = await c.get("/api/status", headers={"Cookie": f"{COOKIE}={TOKEN}"})  # the raw token is no cookie
            assert r.status_code == 401
    finally:
        await server.stop()


async def test_the_login_link_sets_a_strict_httponly_cookie_and_redirects_to_the_page(runtime: Runtime) -> None:
    server = await _server(runtime)
    try:
        async with httpx2.AsyncClient(base_url=server.base_url) as c:
            r = await c.get(f"/?token={TOKEN}")
            assert r.status_code == 303 and r.headers["location"] == "/"
            cookie = r.headers["set-cookie"]
            assert "HttpOnly" in cookie and "SameSite=strict" in cookie and TOKEN not in cookie
            assert f"{COOKIE}={cookie_value(TOKEN)}" in cookie
            page = await c.get("/")  # the client kept the cookie
            assert page.status_code == 200 and "/static/app.js" in page.text
            data = (await c.get("/api/status")).json()
            assert data["boards"][0]["name"] == "nucleo-f401re"
            csp = page.headers["content-security-policy"]
            assert "default-src 'self'" in csp and "connect-src 'self'" in csp
            assert page.headers["referrer-policy"] == "no-referrer"
        async with httpx2.AsyncClient(base_url=server.base_url,
                                      headers={"Authorization": f"Bearer {TOKEN}"}) as c:
            assert (await c.get("/api/status")).json()["device"]["version"]
            assert (await c.get("/static/style.css")).headers["content-type"].startswith("text/css")
            assert (await c.get("/static/../web.py")).status_code in (401, 404)
            assert (await c.get("/static/nothing.js")).status_code == 404
    finally:
        await server.stop()


async def test_foreign_host_and_origin_are_refused_on_the_page_as_on_mcp(runtime: Runtime) -> None:
    server = await _server(runtime)
    try:
        async with httpx2.AsyncClient(base_url=server.base_url,
                                      headers={"Authorization": f"Bearer {TOKEN}"}) as c:
            r = await c.get("/api/status", headers={"Host": "attacker.example"})
            assert r.status_code == 421 and "allowed_hosts" in r.text
            r = await c.get("/api/status", headers={"Origin": "http://attacker.example"})
            assert r.status_code == 403 and "allowed_origins" in r.text
            r = await c.get("/api/status", headers={"Origin": server.base_url, "Host": f"localhost:{server.port}"})
            assert r.status_code == 200
    finally:
        await server.stop()


def test_the_page_and_its_assets_fit_the_size_cap() -> None:
    total = sum(len(static_file(name)) for name in STATIC)
    assert total <= SIZE_CAP, f"page and assets are {total} bytes"
    html = static_file("index.html").decode()
    for needle in ("http://", "https://", "//cdn", "@import"):
        assert needle not in html.replace('xmlns="http://www.w3.org/2000/svg"', "")


@pytest.mark.slow
def test_the_wheel_carries_the_page_files(tmp_path: Path) -> None:
    """The page is read with importlib.resources at run time: an installed wheel must hold its files."""
    repo = Path(__file__).resolve().parents[2]
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(tmp_path), str(repo)], check=True, timeout=240, capture_output=True)
    wheel = next(tmp_path.glob("edge_agent-*.whl"))
    with zipfile.ZipFile(wheel) as zf:
        for name in STATIC:
            assert zf.read(f"edge_agent/dashboard/static/{name}") == static_file(name), name
