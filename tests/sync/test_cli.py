"""`edge-agent sync status|now|retry-dead` and `edge-agent kumiho-test-server`."""

from __future__ import annotations

import json
import select
import signal
import subprocess
import sys
from pathlib import Path

import grpc
import pytest

from edge_agent.cli import main
from edge_agent.config import load_settings
from edge_agent.memory import Capture, MemoryStore
from edge_agent.sync import OutboxSink

from .conftest import RPC_DEADLINE_S


@pytest.fixture
def config(tmp_path: Path, server) -> Path:
    path = tmp_path / "edge-agent.toml"
    path.write_text(
        '[device]\nid = "cli-pi"\n\n[kumiho]\nenabled = true\n'
        f'endpoint = "{server.endpoint}"\nbackoff_initial_s = 0.02\nbackoff_max_s = 0.1\n'
        f'rpc_timeout_s = {RPC_DEADLINE_S}\n'
    )
    return path


def _queue(config: Path, state: Path, n: int) -> list[str]:
    settings = load_settings(config)
    with MemoryStore.open(state, settings, capture_sink=OutboxSink(settings, state)) as store:
        return [store.captures.record_capture(Capture(type="fact", title=f"cli {i}", content=f"cli fact {i}")).id
                for i in range(n)]


def _cli(config: Path, state: Path, *args: str) -> int:
    return main(["--config", str(config), "--state", str(state), *args])


def test_sync_status_json_reports_the_queue(config, state, capsys):
    _queue(config, state, 3)
    assert _cli(config, state, "sync", "status", "--json") == 0
    status = json.loads(capsys.readouterr().out)
    assert status["queued"] == 3 and status["in_flight"] == 0 and status["dead_letters"] == 0
    assert status["device_id"] == "cli-pi" and status["oldest_unsynced_age_s"] >= 0
    assert status["last_success"] is None


def test_sync_status_text_names_the_fields(config, state, capsys):
    _queue(config, state, 1)
    assert _cli(config, state, "sync", "status") == 0
    out = capsys.readouterr().out
    for label in ("queued", "in flight", "dead letters", "last success", "last error", "oldest unsynced"):
        assert label in out


def test_sync_now_drains_the_outbox_and_exits_zero(config, state, server, capsys):
    ids = _queue(config, state, 4)
    assert _cli(config, state, "sync", "now") == 0
    assert sorted(server.servicer.revisions_by_capture()) == sorted(ids)
    _cli(config, state, "sync", "status", "--json")
    status = json.loads(capsys.readouterr().out.split("\n", 1)[1])
    assert status["queued"] == 0 and status["last_success"]


def test_sync_now_exits_nonzero_when_the_server_is_unreachable(config, state, server, capsys):
    _queue(config, state, 2)
    server.go_offline()
    assert _cli(config, state, "sync", "now", "--timeout", "0.5") == 1
    assert "not empty" in capsys.readouterr().err
    server.go_online()


def test_kumiho_endpoint_overrides_the_configured_one(tmp_path, state, server):
    config = tmp_path / "other.toml"
    config.write_text('[device]\nid = "cli-pi"\n[kumiho]\nenabled = true\nendpoint = "127.0.0.1:1"\n'
                      'backoff_initial_s = 0.02\n')
    ids = _queue(config, state, 2)
    assert _cli(config, state, "sync", "now", "--kumiho-endpoint", server.endpoint) == 0
    assert sorted(server.servicer.revisions_by_capture()) == sorted(ids)


def test_sync_retry_dead_requeues_dead_letters(config, state, server, capsys):
    ids = _queue(config, state, 1)
    server.servicer.force("BatchCreateRevisions", grpc.StatusCode.INVALID_ARGUMENT, 1)
    assert _cli(config, state, "sync", "now") == 0  # the outbox is empty: the capture is a dead letter
    capsys.readouterr()
    _cli(config, state, "sync", "status", "--json")
    assert json.loads(capsys.readouterr().out)["dead_letters"] == 1
    assert _cli(config, state, "sync", "retry-dead") == 0
    assert _cli(config, state, "sync", "now") == 0
    assert list(server.servicer.revisions_by_capture()) == ids


#: Bounds for a subprocess on a loaded 2-core machine (start-up measured at 2-6 s and exit at 0.3-1.6 s at load
#: 5-9, niced): far above what a working server needs, so reaching one means a hang, reported as such.
_START_S, _EXIT_S = 120.0, 60.0


def test_kumiho_test_server_command_serves_the_sdk_until_terminated(tmp_path):
    proc = subprocess.Popen(
        [sys.executable, "-c", "import sys; from edge_agent.cli import main; sys.exit(main(sys.argv[1:]))",
         "kumiho-test-server", "--port", "0"],
        stdout=subprocess.PIPE, text=True)
    try:
        ready, _, _ = select.select([proc.stdout], [], [], _START_S)
        assert ready, f"the test server printed nothing in {_START_S:.0f} s (exit code {proc.poll()})"
        line = proc.stdout.readline()
        assert line.startswith("kumiho test server listening on 127.0.0.1:"), (line, proc.poll())
        endpoint = line.rsplit(" ", 1)[1].strip()
        import kumiho

        client = kumiho.connect(endpoint=endpoint, token="", use_discovery=False, enable_auto_login=False)
        client.create_project("CognitiveMemory", "AI Cognitive Memory")
        assert [p.name for p in client.get_projects()] == ["CognitiveMemory"]
        client.close()
        proc.send_signal(signal.SIGTERM)
        try:
            code = proc.wait(timeout=_EXIT_S)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the test server was still running {_EXIT_S:.0f} s after SIGTERM")
        assert code == 0  # stopped by its handler, not killed by the signal
    finally:
        if proc.poll() is None:  # a failed check above: leave no server behind
            proc.kill()
            proc.wait()

