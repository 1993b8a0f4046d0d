"""`edge-agent status`: one screen (or JSON) whether or not the daemon is running."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from edge_agent.cli import main


def _status_json(state: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, Any]:
    assert main([*extra, "--state", str(state), "status", "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_status_without_a_daemon_reads_the_files_and_does_not_open_adapters(
        state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = _status_json(state, capsys)
    assert data["running"] is False
    assert data["adapters"] == [{"name": "nucleo-f401re", "url": "sim://nucleo-f401re", "board": "nucleo-f401re",
                                 "ok": None, "detail": "daemon not running", "health": None}]
    assert data["datasheets"]["ok"] is True and data["datasheets"]["chunks"] > 0
    assert data["memory"]["entries"] == 0
    assert data["sync"]["enabled"] is False and data["sync"]["outbox_depth"] == 0


def test_status_screen_names_adapters_datasheets_memory_and_sync(
        state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--state", str(state), "status"]) == 0
    screen = capsys.readouterr().out
    assert "not running" in screen
    for word in ("nucleo-f401re", "datasheets:", "memory:", "sync:", "outbox"):
        assert word in screen


def test_status_of_a_running_daemon_shows_adapter_health(daemon_factory: Any, state: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    d = daemon_factory()
    d.wait_ready()
    data = _status_json(state, capsys)
    assert data["running"] is True and data["daemon"]["pid"] == d.proc.pid
    assert data["adapters"][0]["ok"] is True
    assert data["components"]["mcp_http"]["url"] == d.url
    assert d.stop() == 0


def test_a_stale_status_file_from_a_dead_daemon_is_not_trusted(state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dead_pid = 2 ** 22 + 17  # above the default pid_max, so no process has it
    (state / "status.json").write_text(json.dumps({"daemon": {"pid": dead_pid, "written_at": 0}, "adapters": []}))
    assert not os.path.exists(f"/proc/{dead_pid}")
    data = _status_json(state, capsys)
    assert data["running"] is False and data["adapters"][0]["name"] == "nucleo-f401re"


def test_status_screen_counts_the_wal_in_the_memory_size() -> None:
    from edge_agent.cli.run import render_status

    data = {"running": False, "state_dir": "/s", "components": {"memory": {"ok": True}},
            "memory": {"live": 3, "db_bytes": 4096, "wal_bytes": 196608, "db_path": "/s/memory.db"}}
    assert "196.0 KiB in /s/memory.db" in render_status(data)
