"""What a stranger or a careless client can hold on the HTTP server: connections, slow requests, sessions,
the bind address, foreign Host/Origin names, and TLS."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest

from edge_agent.config import ServerConfig, Settings
from edge_agent.mcp import limits
from edge_agent.mcp import server as mcp_server
from edge_agent.mcp.server import HttpServer
from edge_agent.runtime import Runtime

pytestmark = pytest.mark.anyio
REPO = Path(__file__).resolve().parents[2]
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
WAIT_S = 20.0


def _closed_by_peer(sock: socket.socket, wait_s: float = WAIT_S) -> bool:
    """True when the server closes the connection (EOF or reset) within wait_s; any reply is read past."""
    sock.settimeout(wait_s)
    try:
        while sock.recv(4096):
            pass
        return True
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


async def _init(client: httpx2.AsyncClient, url: str) -> httpx2.Response:
    return await client.post(url, content=json.dumps(INIT), headers=HEADERS)


async def test_idle_connections_beyond_the_cap_are_closed_and_a_real_client_still_gets_in(
        runtime: Runtime, mcpkit: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_CONNECTIONS", 8)
    async with mcpkit.serving(runtime) as server:
        idle = [socket.create_connection(("127.0.0.1", server.port)) for _ in range(20)]
        try:
            # The server closed the oldest idle ones to make room: at most the cap are left open.
            await _settle()
            closed = sum([await anyio.to_thread.run_sync(_closed_by_peer, s, 0.2) for s in idle])
            assert closed >= 20 - 8
            async with mcpkit.http_session(server.url) as s:  # a client with the token is served
                assert mcpkit.structured(await s.call_tool("gpio_read", {"pin": "PA5"}))["pin"] == "PA5"
        finally:
            for s in idle:
                s.close()


async def _settle() -> None:
    await anyio.sleep(0.3)  # let the server's loop run the accept callbacks


async def test_a_connection_that_never_completes_its_request_is_closed(
        runtime: Runtime, mcpkit: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "REQUEST_DEADLINE_S", 0.5)
    async with mcpkit.serving(runtime) as server:
        silent = socket.create_connection(("127.0.0.1", server.port))
        half_head = socket.create_connection(("127.0.0.1", server.port))
        half_head.sendall(b"GET /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        short_body = socket.create_connection(("127.0.0.1", server.port))
        short_body.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                           b"Authorization: Bearer " + mcpkit.TOKEN.encode() + b"\r\n"
                           b"Content-Length: 100\r\n\r\n{\"jsonrpc\"")
        try:
            for name, sock in (("silent", silent), ("half head", half_head), ("short body", short_body)):
                assert await anyio.to_thread.run_sync(_closed_by_peer, sock), name
        finally:
            for sock in (silent, half_head, short_body):
                sock.close()
        # A keep-alive client that pauses between complete requests is not cut off.
        async with httpx2.AsyncClient(base_url=server.base_url,
                                      headers={"Authorization": f"Bearer {mcpkit.TOKEN}"}) as c:
            assert (await c.get("/api/status")).status_code == 200
            await anyio.sleep(1.0)
            assert (await c.get("/api/status")).status_code == 200


async def test_a_full_session_table_drops_the_session_idle_longest_instead_of_refusing(
        runtime: Runtime, mcpkit: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mcp_server, "MAX_SESSIONS", 4)
    async with mcpkit.serving(runtime) as server, httpx2.AsyncClient(
            headers={"Authorization": f"Bearer {mcpkit.TOKEN}"}, timeout=30) as c:
        ids = []
        for _ in range(4):  # opened and abandoned, as a crashed client leaves them
            r = await _init(c, server.url)
            assert r.status_code == 200
            ids.append(r.headers["mcp-session-id"])
        newest = await _init(c, server.url)
        assert newest.status_code == 200, newest.text  # not 503 for the next ten minutes
        ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
        oldest = await c.post(server.url, content=json.dumps(ping),
                              headers={**HEADERS, "mcp-session-id": ids[0], "mcp-protocol-version": "2025-06-18"})
        assert oldest.status_code == 404  # the session idle for longest was closed
        kept = await c.post(server.url, content=json.dumps(ping),
                            headers={**HEADERS, "mcp-session-id": ids[1], "mcp-protocol-version": "2025-06-18"})
        assert kept.status_code == 200
        async with mcpkit.http_session(server.url) as s:  # and a full client session still works
            assert mcpkit.structured(await s.call_tool("pin_resolve", {"name": "LD2", "board": "nucleo-f401re"}))


async def test_the_local_socket_keeps_the_same_request_deadline(
        runtime: Runtime, state: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from edge_agent.mcp.socket_server import HubServer

    monkeypatch.setattr(limits, "REQUEST_DEADLINE_S", 0.5)
    hub = HubServer(runtime, state)
    await hub.start()
    try:
        silent = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        silent.connect(str(hub.path))
        try:
            assert await anyio.to_thread.run_sync(_closed_by_peer, silent)
        finally:
            silent.close()
    finally:
        await hub.stop()


def test_the_service_unit_bounds_file_descriptors_with_room_for_the_connection_cap() -> None:
    unit = (REPO / "systemd" / "edge-agent.service").read_text()
    match = re.search(r"^LimitNOFILE=(\d+)$", unit, re.M)
    assert match, "the unit sets no LimitNOFILE"
    # Every allowed connection holds a descriptor; databases, devices and the loop need about 64 more.
    assert int(match.group(1)) >= 2 * limits.MAX_CONNECTIONS + 64


# --- bind address, Host/Origin, TLS -------------------------------------------------------------------


def test_a_non_loopback_bind_is_refused_unless_allowed(state: Path, tmp_path: Path) -> None:
    from edge_agent.mcp.netguard import check_bind

    for host in ("127.0.0.1", "::1", "localhost", "127.0.0.2"):
        check_bind(host, False)
    proc = subprocess.run([*_cli(), "--state", str(state), "run", "--host", "0.0.0.0", "--port", "0"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0
    assert "allow_public_bind" in proc.stderr and "0.0.0.0" in proc.stderr
    assert not (state / "daemon.json").exists()
    assert not (state / "workspaces").exists()  # refused before the index and the database were built


def _cli() -> list[str]:
    import sys

    script = Path(sys.executable).with_name("edge-agent")
    return [str(script)] if script.exists() else [
        sys.executable, "-c", "import sys; from edge_agent.cli import main; sys.exit(main())"]


async def test_host_and_origin_are_checked_on_a_public_bind_with_the_configured_names(state: Path) -> None:
    settings = Settings(server=ServerConfig(allow_public_bind=True, allowed_hosts=["pi.lan"],
                                            allowed_origins=["https://tools.example.lan"]))
    rt = Runtime.build(settings, state)
    server = HttpServer(rt, host="0.0.0.0", port=0, token="t0ken-for-the-lan")
    await server.start()
    try:
        url = f"http://127.0.0.1:{server.port}/mcp"
        auth = {**HEADERS, "Authorization": "Bearer t0ken-for-the-lan"}
        async with httpx2.AsyncClient(timeout=30) as c:
            evil = await c.post(url, content=json.dumps(INIT), headers={**auth, "Host": f"evil.example:{server.port}"})
            assert evil.status_code == 421
            page = await c.get(f"http://127.0.0.1:{server.port}/api/status",
                               headers={**auth, "Host": "rebound.attacker.example"})
            assert page.status_code == 421
            lan = await c.post(url, content=json.dumps(INIT), headers={**auth, "Host": f"pi.lan:{server.port}"})
            assert lan.status_code == 200
            foreign = await c.post(url, content=json.dumps(INIT),
                                   headers={**auth, "Host": f"pi.lan:{server.port}", "Origin": "http://evil.example"})
            assert foreign.status_code == 403
            for origin in ("https://tools.example.lan", f"http://pi.lan:{server.port}"):
                ok = await c.post(url, content=json.dumps(INIT),
                                  headers={**auth, "Host": f"pi.lan:{server.port}", "Origin": origin})
                assert ok.status_code == 200, origin
    finally:
        await server.stop()
        rt.close()


def _self_signed(tmp_path: Path) -> tuple[str, str]:
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True, timeout=60)
    return str(cert), str(key)


async def test_tls_serves_https_only_and_marks_the_session_cookie_secure(runtime: Runtime, tmp_path: Path) -> None:
    import shutil
    import ssl

    if shutil.which("openssl") is None:
        pytest.skip("openssl is needed to make a test certificate")
    cert, key = _self_signed(tmp_path)
    server = HttpServer(runtime, host="127.0.0.1", port=0, token="tls-token-0123", tls=(cert, key))
    await server.start()
    try:
        assert server.url.startswith("https://")
        trust = ssl.create_default_context(cafile=cert)
        async with httpx2.AsyncClient(verify=trust, base_url=server.base_url, timeout=30) as c:
            login = await c.get("/?token=tls-token-0123")
            assert login.status_code == 303 and "Secure" in login.headers["set-cookie"]
            assert (await c.get("/api/status", headers={"Authorization": "Bearer tls-token-0123"})).status_code == 200
        with pytest.raises(httpx2.HTTPError):
            async with httpx2.AsyncClient(timeout=10) as plain:
                await plain.get(f"http://127.0.0.1:{server.port}/api/status")
    finally:
        await server.stop()


def test_wait_helper_sees_an_open_connection_as_open() -> None:
    """_closed_by_peer must not report an open, silent connection as closed (else the tests above prove nothing)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    client = socket.create_connection(listener.getsockname())
    peer, _ = listener.accept()
    try:
        assert _closed_by_peer(client, wait_s=0.3) is False
        peer.close()
        assert _closed_by_peer(client, wait_s=5) is True
    finally:
        client.close()
        listener.close()


def test_the_daemon_serves_https_with_tls_files_relative_to_its_config(tmp_path: Path) -> None:
    import shutil
    import signal
    import ssl

    if shutil.which("openssl") is None:
        pytest.skip("openssl is needed to make a test certificate")
    conf_dir = tmp_path / "etc"
    conf_dir.mkdir()
    cert, key = _self_signed(conf_dir)
    config = conf_dir / "edge-agent.toml"
    config.write_text('[server]\ntls_cert = "cert.pem"\ntls_key = "key.pem"\n')
    state = tmp_path / "state"
    proc = subprocess.Popen([*_cli(), "--config", str(config), "--state", str(state), "run", "--port", "0"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = 60.0
        start = time.monotonic()
        while not (state / "daemon.json").exists():
            assert proc.poll() is None and time.monotonic() - start < deadline, "the daemon did not start"
            time.sleep(0.1)
        url = json.loads((state / "daemon.json").read_text())["url"]
        assert url.startswith("https://127.0.0.1:")
        link = subprocess.run([*_cli(), "--config", str(config), "--state", str(state), "dashboard", "--url"],
                              capture_output=True, text=True, timeout=deadline).stdout.strip()
        assert link.startswith("https://127.0.0.1:") and "?token=" in link
        with httpx2.Client(verify=ssl.create_default_context(cafile=cert), timeout=30) as c:
            assert c.get(link).status_code == 303
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
