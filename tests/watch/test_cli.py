"""`edge-agent watch list|run-once`: listing with model checks, one window sampled and stored."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from edge_agent.cli import main

CONFIG = """
[[watch]]
name = "env"
adapter = "nucleo-f401re"
interval_s = 0.001
model = { path = "builtin:bme280_anomaly" }
rule = { kind = "threshold", above = 0.5 }

[[watch]]
name = "room"
interval_s = 0.001
window = 4
rule = { kind = "summary", every_s = 600 }
"""


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "edge-agent.toml"
    path.write_text(CONFIG)
    return path


def test_watch_list_shows_each_watch_with_its_model_check(config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--config", str(config), "watch", "list", "--json"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["env"]["model_check"].startswith("ok (ai_edge_litert")
    assert rows["room"]["model_check"] == "none (rule only)"
    assert rows["room"]["rule"] == "summary every 600 s -> fact"


def test_watch_list_exits_1_when_a_model_does_not_load(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "edge-agent.toml"
    cfg.write_text('[[watch]]\nname = "m"\nmodel = { path = "missing.tflite" }\n'
                   'rule = { kind = "threshold", above = 0.5 }\n')
    assert main(["--config", str(cfg), "watch", "list"]) == 1
    assert "missing.tflite" in capsys.readouterr().out


def test_run_once_stores_the_capture_in_the_state_memory(config: Path, state: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--config", str(config), "--state", str(state), "watch", "run-once", "room", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["evaluated"] and out["stored"] and out["capture"]["type"] == "fact"
    from edge_agent.config import load_settings
    from edge_agent.memory import MemoryStore

    store = MemoryStore.open(state, load_settings(config))
    try:
        stored = store.captures.capture_for(out["capture"]["entry_id"])
    finally:
        store.close()
    assert stored is not None and stored.metadata["watch"] == "room"


def test_run_once_dry_run_stores_nothing(config: Path, state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--config", str(config), "--state", str(state), "watch", "run-once", "room", "--dry-run"]) == 0
    assert "would store fact capture" in capsys.readouterr().out
    assert not (state / "workspaces").exists()


def test_run_once_of_a_quiet_model_watch_reports_the_score_and_no_capture(
    config: Path, state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--config", str(config), "--state", str(state), "watch", "run-once", "env", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["evaluated"] and out["capture"] is None and out["status"]["last_score"] < 0.5


def test_run_once_of_an_unknown_watch_is_an_error(config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--config", str(config), "watch", "run-once", "nope"]) == 1
    assert "nope" in capsys.readouterr().err


def test_watch_list_without_a_config_or_daemon_says_where_the_demo_watch_runs(
    state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # `make run` shows the demo watch; once the daemon is stopped, listing must not read as if it never existed.
    assert main(["--state", str(state), "watch", "list"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("no watches configured") and "demo-bme280" in out and "edge-agent run" in out


@pytest.mark.parametrize("bad", ["Sensor Anomaly", "ANOMALY", "", "9lives", "a" * 65, "anomaly!"])
def test_a_capture_type_the_memory_store_would_refuse_fails_config_check(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], bad: str) -> None:
    path = tmp_path / "edge-agent.toml"
    path.write_text(f'[[watch]]\nname = "env"\nrule = {{ kind = "change", on = "temperature_c", delta = 0.5, '
                    f'capture_type = "{bad}" }}\n')
    assert main(["config", "check", str(path)]) == 1
    err = capsys.readouterr().err
    assert "capture_type" in err and "not a capture type" in err and "lowercase label" in err


def test_a_valid_capture_type_is_stored_as_written(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "edge-agent.toml"
    path.write_text('[[watch]]\nname = "env"\ninterval_s = 0.001\nwindow = 2\n'
                    'rule = { kind = "summary", every_s = 600, capture_type = "sensor.summary-v2" }\n')
    assert main(["config", "check", str(path)]) == 0
    capsys.readouterr()
    assert main(["--config", str(path), "--state", str(tmp_path / "state"), "watch", "run-once", "env",
                 "--json"]) == 0
    assert "sensor.summary-v2" in capsys.readouterr().out
