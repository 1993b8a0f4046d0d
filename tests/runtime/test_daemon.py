"""The daemon's lifecycle: sd_notify readiness and watchdog, SIGTERM, SIGHUP reload, restart with state."""

from __future__ import annotations

import os
import platform
import signal
import socket
from pathlib import Path
from typing import Any

import pytest

from edge_agent.daemon import Notifier, _watchdog_interval

SIM_BOARD = '[[peripherals.boards]]\nboard = "nucleo-f401re"\ntransport = "sim"\n'
TWO_BOARDS = SIM_BOARD + '\n[[peripherals.boards]]\nboard = "rpi-4b"\nname = "pi"\ntransport = "sim"\n'


def test_notifier_sends_ready_status_and_watchdog_datagrams(notify_socket: Any,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WATCHDOG_USEC", "3000000")
    n = Notifier(notify_socket.name)
    assert n.enabled
    n.ready("serving")
    assert notify_socket.expect("READY") == {"READY": "1", "STATUS": "serving", "MAINPID": str(os.getpid())}
    n.watchdog()
    assert notify_socket.expect("WATCHDOG") == {"WATCHDOG": "1"}
    n.stopping()
    assert notify_socket.expect("STOPPING")["STATUS"] == "stopping"
    n.close()


def test_a_notify_socket_nobody_reads_never_blocks_the_sender(notify_socket: Any,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A full datagram queue drops pings; a blocking send would wedge the main loop and the HTTP server."""
    monkeypatch.setenv("WATCHDOG_USEC", "3000000")
    n = Notifier(notify_socket.name)
    sent = [n.watchdog() for _ in range(5000)]
    assert sent[0] is True and sent[-1] is False  # the queue filled up and later pings were dropped
    n.close()


def test_watchdog_pings_are_not_sent_when_systemd_did_not_ask_for_them(notify_socket: Any) -> None:
    n = Notifier(notify_socket.name)
    assert n.watchdog_s is None and n.watchdog() is False
    n.close()


def test_notifier_without_a_notify_socket_does_nothing() -> None:
    n = Notifier("")
    assert not n.enabled
    assert n.ready("x") is False and n.watchdog() is False


def test_watchdog_pings_at_a_third_of_watchdog_usec_and_only_for_this_pid(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WATCHDOG_USEC", "30000000")
    assert _watchdog_interval() == pytest.approx(10.0)
    monkeypatch.setenv("WATCHDOG_PID", str(os.getpid()))
    assert _watchdog_interval() == pytest.approx(10.0)
    monkeypatch.setenv("WATCHDOG_PID", str(os.getpid() + 1))
    assert _watchdog_interval() is None
    monkeypatch.delenv("WATCHDOG_USEC")
    assert _watchdog_interval() is None


def test_daemon_reports_ready_pings_the_watchdog_and_stops_cleanly_on_sigterm(daemon_factory: Any) -> None:
    d = daemon_factory()
    ready = d.wait_ready()
    assert "MCP http://127.0.0.1:" in ready["STATUS"] and ready["MAINPID"] == str(d.proc.pid)
    d.notify.expect("WATCHDOG", "1")
    d.notify.expect("WATCHDOG", "1")  # repeatedly, from the main loop
    assert d.url.startswith("http://127.0.0.1:")
    status = d.status_file()
    assert status["adapters"][0]["ok"] is True
    d.send(signal.SIGTERM)
    d.notify.expect("STOPPING", "1")
    assert d.wait_exit() == 0
    assert not (d.state / "daemon.json").exists()
    assert "ready in" in d.log() and "stopped" in d.log()


def test_sighup_with_an_invalid_config_keeps_the_running_configuration(daemon_factory: Any, tmp_path: Path) -> None:
    config = tmp_path / "edge-agent.toml"
    config.write_text(SIM_BOARD)
    d = daemon_factory(config)
    d.wait_ready()
    config.write_text(SIM_BOARD + "\n[peripherals]\ndatasheet_dirr = 'typo'\n")
    d.send(signal.SIGHUP)
    d.notify.expect("RELOADING", "1")
    refused = d.notify.expect("READY", "1")  # the reload is over for systemd, refused or not
    assert "reload refused" in refused["STATUS"]
    assert d.proc.poll() is None
    assert [a["name"] for a in d.status_file()["adapters"]] == ["nucleo-f401re"]

    config.write_text(TWO_BOARDS)
    d.send(signal.SIGHUP)
    d.notify.expect("RELOADING", "1")
    reloaded = d.notify.expect("READY", "1")
    assert "2/2 adapters" in reloaded["STATUS"]
    assert [a["name"] for a in d.status_file()["adapters"]] == ["nucleo-f401re", "pi"]
    assert d.stop() == 0
    assert "reload refused" in d.log() and "datasheet_dirr" in d.log()


def test_a_busy_http_port_stops_the_daemon_with_an_error_naming_the_port(
        daemon_factory: Any, tmp_path: Path) -> None:
    """Serving on without HTTP would tell systemd "ready" while every MCP client fails to connect."""
    with socket.socket() as blocker:
        blocker.bind(("127.0.0.1", 0))
        blocker.listen()
        port = blocker.getsockname()[1]
        config = tmp_path / "edge-agent.toml"
        config.write_text(f"[server]\nport = {port}\n")
        d = daemon_factory(config, port=None)
        code = d.proc.wait(timeout=60)
        assert code != 0
        d.notify.sock.setblocking(False)
        sent = []
        while True:
            try:
                sent.append(d.notify.sock.recv(4096).decode())
            except BlockingIOError:
                break
        assert sent and not any("READY=1" in m for m in sent)  # it said "starting", never "ready"
        assert d.wait_exit() == code
        log = d.log()
        assert f"port {port}" in log and "http_enabled = false" in log
        assert " ready in " not in log
        assert not (d.state / "daemon.json").exists()


async def _store_and_recall(url: str, token: str, content: str | None) -> list[dict[str, Any]]:
    import httpx2
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}) as client,
        streamable_http_client(url, http_client=client) as (r, w),
        ClientSession(r, w, read_timeout_seconds=60) as s,
    ):
        await s.initialize()
        if content is not None:
            args = {"content": content, "title": "restart check", "memory_type": "fact"}
            res = await s.call_tool("memory_store", args)
            assert not res.is_error, res.content
        res = await s.call_tool("memory_recall", {"query": "restart check survives", "min_score": 0.0})
        assert not res.is_error, res.content
        return res.structured_content["results"]


def test_a_restarted_daemon_keeps_its_memory_and_token(daemon_factory: Any) -> None:
    import anyio

    pytest.importorskip("mcp")
    first = daemon_factory()
    first.wait_ready()
    token = first.token()
    assert oct((first.state / "mcp-token").stat().st_mode & 0o777) == "0o600"
    stored = anyio.run(_store_and_recall, first.url, token, "the restart check survives a restart")
    assert stored
    assert first.stop() == 0

    second = daemon_factory()
    second.wait_ready()
    assert second.token() == token
    recalled = anyio.run(_store_and_recall, second.url, token, None)
    assert [r["id"] for r in recalled] == [stored[0]["id"]]
    assert second.stop() == 0


def test_without_http_the_daemon_still_runs_its_jobs_and_stops_on_sigint(daemon_factory: Any, state: Path,
                                                                          tmp_path: Path) -> None:
    config = tmp_path / "edge-agent.toml"
    config.write_text("[server]\nhttp_enabled = false\n")
    d = daemon_factory(config, port=None)
    ready = d.wait_ready()
    assert "MCP HTTP off" in ready["STATUS"]
    assert not (state / "mcp-token").exists()  # no HTTP, no token
    assert d.status_file()["adapters"][0]["ok"] is True
    d.send(signal.SIGINT)
    d.notify.expect("STOPPING", "1")
    assert d.wait_exit() == 0


def test_the_stdio_server_closes_cleanly_on_sigterm(state: Path, edge_agent_cmd: list[str]) -> None:
    import subprocess

    proc = subprocess.Popen([*edge_agent_cmd, "--state", str(state), "mcp"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n')
    proc.stdin.flush()
    assert b'"id":1' in proc.stdout.readline()  # serving (bounded by the test timeout)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(60) == 0
    wal = next(state.glob("workspaces/*/memory/memory.db-wal"), None)
    assert wal is None or wal.stat().st_size == 0  # the store was closed: WAL checkpointed into the database


def test_a_second_daemon_on_the_same_state_directory_is_refused(daemon_factory: Any, state: Path) -> None:
    first = daemon_factory()
    first.wait_ready()
    second = daemon_factory()
    assert second.proc.wait(60) == 1
    second.stop()
    assert f"pid {first.proc.pid}" in second.log()
    assert first.proc.poll() is None and first.status_file()["adapters"][0]["ok"] is True
    assert first.stop() == 0


_ARENA_PROBE = """
import ctypes, sys, threading
from edge_agent.daemon import limit_malloc_arenas
print(limit_malloc_arenas() if sys.argv[1] == "cap" else "skipped")
barrier = threading.Barrier(6)
keep = []
def work():
    barrier.wait()
    keep.append([bytes(200_000) for _ in range(20)])  # above pymalloc's object limit: glibc malloc serves it
threads = [threading.Thread(target=work) for _ in range(6)]
for t in threads: t.start()
for t in threads: t.join()
sys.stdout.flush()
ctypes.CDLL(None).malloc_stats()  # one "Arena N:" block per arena, on stderr
"""


def _arenas_used(mode: str, **env: str) -> tuple[str, int]:
    import subprocess
    import sys

    clean = {k: v for k, v in os.environ.items() if k != "MALLOC_ARENA_MAX"}
    out = subprocess.run([sys.executable, "-c", _ARENA_PROBE, mode], capture_output=True, text=True, check=True,
                         env={**clean, **env})
    return out.stdout.strip(), sum(line.startswith("Arena ") for line in out.stderr.splitlines())


_glibc = pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="arenas and malloc_stats are glibc's")


@_glibc
def test_the_daemon_caps_heap_arenas_so_concurrent_threads_share_two() -> None:
    assert _arenas_used("nocap")[1] > 2  # six threads allocating at once spread over arenas of their own
    assert _arenas_used("cap") == ("True", 2)


@_glibc
def test_an_operators_malloc_arena_max_is_left_alone() -> None:
    said, arenas = _arenas_used("cap", MALLOC_ARENA_MAX="4")
    assert said == "False"
    assert arenas > 2


def test_ctrl_c_says_in_one_line_that_the_daemon_is_stopping_whatever_the_log_level(
        daemon_factory: Any, tmp_path: Path) -> None:
    from edge_agent.daemon import STOPPING_ON_CTRL_C

    config = tmp_path / "edge-agent.toml"
    config.write_text('[device]\nlog_level = "error"\n\n[server]\nhttp_enabled = false\n\n'
                      '[[watch]]\nname = "bench"\nmodel = { path = "builtin:bme280_anomaly" }\n')
    d = daemon_factory(config, port=None)
    d.wait_ready()
    d.send(signal.SIGINT)
    assert d.wait_exit() == 0
    lines = d.log().splitlines()
    stopping = [line for line in lines if "stopping" in line.lower()]
    assert stopping == [STOPPING_ON_CTRL_C], lines
    assert "Ctrl-C" in STOPPING_ON_CTRL_C
    # The watch loaded its model (when the ml extra is installed) without the runtime's native note.
    assert not [line for line in lines if line.startswith("INFO: ")], lines
