"""stdio MCP bounds a message line at the HTTP body limit, in the server itself and in the relay to a daemon."""

from __future__ import annotations

import json
import subprocess
import threading
from pathlib import Path
from typing import IO, Any

import pytest

from edge_agent.mcp.stdio import MAX_LINE_BYTES

HUGE = 200 * 1024 * 1024
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}


def _vm(pid: int, key: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) // 1024
    raise AssertionError(key)


def _send_huge(stdin: IO[bytes]) -> None:
    stdin.write(b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"memory_store","arguments":'
                b'{"content":"')
    chunk = b"a" * (4 * 1024 * 1024)
    for _ in range(HUGE // len(chunk)):
        stdin.write(chunk)
    stdin.write(b'"}}}\n')
    stdin.write(json.dumps({"jsonrpc": "2.0", "id": 8, "method": "ping"}).encode() + b"\n")
    stdin.flush()


def _converse(cmd: list[str]) -> tuple[list[dict[str, Any]], int, int]:
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(json.dumps(INIT).encode() + b"\n")
        proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        proc.stdin.flush()
        replies = [json.loads(proc.stdout.readline())]
        before = _vm(proc.pid, "VmHWM")
        writer = threading.Thread(target=_send_huge, args=(proc.stdin,))
        writer.start()
        replies += [json.loads(proc.stdout.readline()), json.loads(proc.stdout.readline())]
        writer.join()
        after = _vm(proc.pid, "VmHWM")
        proc.stdin.close()
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return replies, before, after


def _check(replies: list[dict[str, Any]], before: int, after: int) -> None:
    assert replies[0]["id"] == 1 and "result" in replies[0]
    by_id = {r["id"]: r for r in replies[1:]}
    refused = by_id[7]["error"]
    assert refused["code"] == -32600 and str(MAX_LINE_BYTES) in refused["message"]
    assert "result" in by_id[8]  # the next message on the same pipe is answered as usual
    assert after - before < 32, f"VmHWM grew from {before} to {after} MiB on a {HUGE >> 20} MiB line"


@pytest.mark.slow
def test_the_stdio_server_refuses_an_over_long_line_without_growing(state: Path, mcpkit: Any) -> None:
    _check(*_converse([*mcpkit.command(), "--state", str(state), "mcp"]))


@pytest.mark.slow
def test_the_relay_to_a_daemon_refuses_an_over_long_line_without_growing(state: Path, mcpkit: Any) -> None:
    cmd = mcpkit.command()
    daemon = subprocess.Popen([*cmd, "--state", str(state), "run", "--no-http"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        import time

        from edge_agent.hub.client import HubClient

        deadline = time.monotonic() + 60
        while HubClient.find(state) is None:
            assert daemon.poll() is None and time.monotonic() < deadline, "the daemon did not start serving"
            time.sleep(0.1)
        _check(*_converse([*cmd, "--state", str(state), "mcp"]))
    finally:
        daemon.terminate()
        daemon.wait(timeout=60)


def test_the_line_reader_keeps_lines_up_to_the_limit_and_drops_longer_ones_whole() -> None:
    import io

    from edge_agent.mcp.stdio import LineReader, TooLong, too_long_error

    limit = 64
    exact = b"x" * limit + b"\n"
    over = b'{"jsonrpc": "2.0", "id": "req-9", "params": "' + b"y" * 500 + b'"}\n'
    last = b'{"id": 3}'  # no newline at the end of input
    reader = LineReader(io.BytesIO(exact + over + b"\n" + last), limit=limit)
    assert reader.read() == exact
    dropped = reader.read()
    assert isinstance(dropped, TooLong) and dropped.size == len(over) and dropped.request_id == "req-9"
    assert reader.read() == b"\n"  # the next line starts right after the dropped one
    assert reader.read() == last
    assert reader.read() is None
    answer = json.loads(too_long_error(dropped, limit))
    assert answer["id"] == "req-9" and answer["error"]["code"] == -32600
