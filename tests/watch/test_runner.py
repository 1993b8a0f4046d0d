"""Watches on the simulated board: anomaly to stored capture, sensor faults back off, the runner never raises."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from edge_agent.bus.pool import AdapterSlot
from edge_agent.config import Settings
from edge_agent.errors import ConfigError, MemoryStoreError
from edge_agent.watch import ModelFileError, WatchRunner
from edge_agent.watch.runner import MIN_BACKOFF_S

from .conftest import MODEL_WATCH, make_settings


def _store(state: Path, settings: Settings) -> Any:
    from edge_agent.memory import MemoryStore
    from edge_agent.sync import OutboxSink

    return MemoryStore.open(state, settings, capture_sink=OutboxSink(settings, state))


def test_sim_anomaly_becomes_a_stored_anomaly_capture_queued_for_upstream(sim: Any, state: Path) -> None:
    """The daemon path: runner thread, bundled model, memory store with the outbox sink."""
    settings = make_settings(MODEL_WATCH, kumiho={"enabled": True})
    store = _store(state, settings)
    got = threading.Event()
    captures: list[Any] = []

    def on_capture(c: Any) -> None:
        captures.append(c)
        got.set()

    runner = WatchRunner(settings, {"nucleo-f401re": sim}, store, on_capture=on_capture)
    # 40 normal reads (2.5 windows), then 9 °C too warm until cleared: a step inside window 3.
    sim.bme280().inject_anomaly(temperature_c=9.0, after_reads=40)
    stop = threading.Event()
    thread = threading.Thread(target=runner.run, args=(stop,))
    thread.start()
    try:
        assert got.wait(30), runner.status()
    finally:
        stop.set()
        thread.join(10)
    assert not thread.is_alive()
    cap = captures[0]
    assert cap.type == "anomaly"
    assert float(cap.metadata["score"]) > 0.5
    assert cap.metadata["source"] == "watch://env"
    assert (cap.metadata["adapter_url"], cap.metadata["bus"], cap.metadata["address"]) == (
        "sim://nucleo-f401re", str(sim.i2c().bus), "0x76")
    window = json.loads(cap.metadata["window"])
    assert window["count"] == 16
    t = window["channels"]["temperature_c"]
    assert t["min"] < 23.0 < 31.0 < t["max"]  # both sides of the step are in the window
    stored = store.captures.capture_for(cap.entry_id)
    assert stored is not None and stored.id == cap.id and stored.type == "anomaly"
    with sqlite3.connect(store.db_path) as conn:
        assert conn.execute("SELECT COUNT(*) FROM sync_outbox WHERE capture_id = ?", (cap.id,)).fetchone()[0] == 1
    st = runner.status()[0]
    assert st["captures"] == 1 and st["state"] == "sampling" and st["backend"] == "ai_edge_litert"
    store.close()


def test_quiet_sensor_produces_no_anomaly_capture(sim: Any) -> None:
    runner = WatchRunner(make_settings(MODEL_WATCH), {"nucleo-f401re": sim}, None)
    for _ in range(3):
        out = runner.run_once("env", interval_s=0)
        assert out["evaluated"] and out["capture"] is None
    assert runner.status()[0]["last_score"] < 0.1


def test_nack_backs_off_with_doubling_waits_and_reports_the_state(sim: Any) -> None:
    settings = make_settings({"name": "t", "interval_s": 0.1, "backoff_max_s": 3.0})
    runner = WatchRunner(settings, {"nucleo-f401re": sim}, None)
    w = runner.watches["t"]
    sim.inject_fault(error="nack", address=0x76, count=None)
    waits = []
    now = 1000.0
    for _ in range(6):
        assert w.tick(now) is None
        waits.append(round(w.next_due - now, 3))
        now = w.next_due
    assert waits == [MIN_BACKOFF_S, 1.0, 2.0, 3.0, 3.0, 3.0]
    st = w.status()
    assert st["state"] == "backoff" and st["errors"]["nack"] == 6 and st["consecutive_errors"] == 6
    assert "I2CNackError" in st["last_error"]


def test_watch_recovers_and_rebuilds_the_driver_after_a_transient_nack(sim: Any) -> None:
    runner = WatchRunner(make_settings({"name": "t", "window": 4}), {"nucleo-f401re": sim}, None)
    w = runner.watches["t"]
    w.tick(0.0)
    w.tick(0.0)
    sim.inject_fault(error="nack", address=0x76, count=1)
    w.tick(0.0)
    assert w.state == "backoff" and len(w.window) == 0  # samples across a gap are not one window
    out = runner.run_once("t", interval_s=0)
    assert out["evaluated"] and out["capture"] is not None
    assert w.state == "sampling" and w.consecutive_errors == 0 and w.errors["nack"] == 1


def test_bus_timeout_is_counted_separately(sim: Any) -> None:
    runner = WatchRunner(make_settings({"name": "t"}), {"nucleo-f401re": sim}, None)
    sim.inject_fault(error="timeout", address=0x76, count=None)
    w = runner.watches["t"]
    w.tick(0.0)
    w.tick(w.next_due)
    st = w.status()
    assert st["errors"] == {"nack": 0, "timeout": 2, "other": 0} and st["state"] == "backoff"


def test_runner_keeps_running_while_the_sensor_fails_and_stops_promptly(sim: Any) -> None:
    runner = WatchRunner(make_settings({"name": "t", "backoff_max_s": 0.5}), {"nucleo-f401re": sim}, None)
    sim.inject_fault(error="nack", address=0x76, count=None)
    stop = threading.Event()
    thread = threading.Thread(target=runner.run, args=(stop,))
    thread.start()
    w = runner.watches["t"]
    # Bounded by time, not by a count of short polls: a niced test on a loaded 2-core machine can have the
    # runner's thread held for seconds; the limit is for a runner that never retries, not a speed check.
    end = time.monotonic() + 60
    while w.errors["nack"] < 3 and time.monotonic() < end:
        stop.wait(0.05)
    stop.set()
    thread.join(5)
    assert not thread.is_alive()
    assert w.errors["nack"] >= 3 and w.state == "backoff"


def test_out_of_range_readings_are_dropped_counted_and_never_captured(sim: Any) -> None:
    """+100 °C on a 22.5 °C room reads 122.5 °C: beyond the BME280's 85 °C limit, so not a measurement."""
    settings = make_settings({"name": "t", "window": 4, "rule": {"kind": "threshold", "on": "temperature_c",
                                                                 "above": 30}})
    runner = WatchRunner(settings, {"nucleo-f401re": sim}, None)
    sim.bme280().inject_anomaly(temperature_c=100.0)
    w = runner.watches["t"]
    for _ in range(8):
        w.tick(0.0)
    st = w.status()
    assert st["dropped"]["out_of_range"] == 8 and st["evaluations"] == 0 and st["captures"] == 0
    assert st["state"] == "dropping"
    sim.bme280().clear_anomaly()
    w.tick(0.0)
    assert w.state == "sampling"


def test_rate_limit_caps_captures_from_a_flapping_sensor(sim: Any) -> None:
    settings = make_settings({"name": "t", "window": 2, "rule": {"kind": "threshold", "on": "temperature_c",
                                                                 "above": 25, "repeat": True},
                              "rate_limit": {"max_captures": 2, "per_s": 3600}})
    stored: list[Any] = []
    runner = WatchRunner(settings, {"nucleo-f401re": sim}, None, on_capture=stored.append)
    sim.bme280().inject_anomaly(temperature_c=10.0)
    for _ in range(5):
        runner.run_once("t", interval_s=0)
    st = runner.status()[0]
    assert len(stored) == 2 and st["captures"] == 2 and st["rate_limited"] == 3


def test_change_rule_reports_a_temperature_shift_as_state_change(sim: Any) -> None:
    settings = make_settings({"name": "t", "window": 4, "rule": {"kind": "change", "on": "temperature_c",
                                                                 "delta": 2.0}})
    runner = WatchRunner(settings, {"nucleo-f401re": sim}, None)
    assert runner.run_once("t", interval_s=0)["capture"] is None
    sim.bme280().set_environment(temperature_c=26.0)  # between windows: the next one is all 26 °C
    cap = runner.run_once("t", interval_s=0)["capture"]
    assert cap is not None and cap.type == "state_change" and cap.metadata["rule"] == "change"
    assert json.loads(cap.metadata["window"])["channels"]["temperature_c"]["mean"] == pytest.approx(26.0, abs=0.1)
    assert runner.run_once("t", interval_s=0)["capture"] is None  # 26 °C is the new reference


def test_a_store_that_refuses_the_capture_is_counted_and_the_watch_keeps_going(sim: Any) -> None:
    class Refusing:
        def record_capture(self, capture: Any) -> Any:
            raise MemoryStoreError("outbox full")

    class FullStore:
        captures = Refusing()

    settings = make_settings({"name": "t", "window": 2, "rule": {"kind": "summary", "every_s": 1}})
    runner = WatchRunner(settings, {"nucleo-f401re": sim}, FullStore())
    out = runner.run_once("t", interval_s=0)
    assert out["evaluated"] and out["capture"] is None
    assert out["status"]["store_errors"] == 1 and "outbox full" in out["status"]["last_error"]


def test_a_closed_runtime_slot_is_never_touched(sim: Any) -> None:
    slot = AdapterSlot("nucleo-f401re", sim.url, adapter=sim, closed=True)
    runner = WatchRunner(make_settings({"name": "t"}), {"nucleo-f401re": slot}, None)
    sim.clear_log()
    runner.watches["t"].tick(0.0)
    assert sim.log == []
    assert "shutting down" in runner.watches["t"].last_error


def test_a_missing_adapter_is_reported_not_raised() -> None:
    slot = AdapterSlot("board", "bridge:///dev/ttyACM0", error="no such device")
    runner = WatchRunner(make_settings({"name": "t"}), {"board": slot}, None)
    w = runner.watches["t"]
    w.tick(0.0)
    assert w.state == "backoff" and "no such device" in w.last_error


def test_a_bad_model_fails_construction_in_strict_mode(sim: Any, tmp_path: Path) -> None:
    bad = tmp_path / "bad.tflite"
    bad.write_bytes(b"\x00" * 64)
    settings = make_settings({"name": "m", "model": {"path": str(bad)}, "rule": {"kind": "threshold", "above": 1}})
    with pytest.raises(ModelFileError):
        WatchRunner(settings, {"nucleo-f401re": sim}, None)


def test_in_the_daemon_a_bad_model_disables_only_its_watch(sim: Any, tmp_path: Path) -> None:
    settings = make_settings({"name": "m", "model": {"path": str(tmp_path / "gone.tflite")},
                              "rule": {"kind": "threshold", "above": 1}}, {"name": "ok"})
    runtime = SimpleNamespace(settings=settings, memory=None,
                              adapters={"nucleo-f401re": AdapterSlot.holding("nucleo-f401re", sim)})
    runner = WatchRunner.from_runtime(runtime)
    assert list(runner.watches) == ["ok"]
    broken = next(s for s in runner.status() if s["name"] == "m")
    assert broken["state"] == "error" and "gone.tflite" in broken["last_error"]
    assert runner.run_once("ok", interval_s=0)["evaluated"]


def test_relative_model_paths_resolve_against_the_config_file(sim: Any, tmp_path: Path, model_path: Path) -> None:
    from edge_agent.config import load_settings

    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "mine.tflite").write_bytes(model_path.read_bytes())
    cfg = tmp_path / "edge-agent.toml"
    cfg.write_text('[[watch]]\nname = "x"\nmodel = { path = "models/mine.tflite" }\n'
                   'rule = { kind = "threshold", above = 0.5 }\n')
    runner = WatchRunner(load_settings(cfg), {"nucleo-f401re": sim}, None)
    assert runner.watches["x"].model is not None


def test_watch_adapter_may_be_a_url_opened_and_closed_by_the_runner() -> None:
    runner = WatchRunner(make_settings({"name": "t", "adapter": "sim://nucleo-l476rg", "window": 2}), {}, None)
    port = runner.watches["t"].port
    assert port.url == "sim://nucleo-l476rg"
    assert runner.run_once("t", interval_s=0)["evaluated"]
    runner.close()
    assert port.adapter.closed


@pytest.mark.parametrize(("watches", "adapters"), [
    (({"name": "a"}, {"name": "a"}), {"x": None}),
    (({"name": "a", "adapter": "nope"},), {"x": None}),
    (({"name": "a"},), {}),
])
def test_configuration_mistakes_are_config_errors(watches: tuple[dict[str, Any], ...],
                                                  adapters: dict[str, Any]) -> None:
    with pytest.raises(ConfigError):
        WatchRunner(make_settings(*watches), adapters, None)


def test_unknown_watch_name_is_a_config_error(sim: Any) -> None:
    runner = WatchRunner(make_settings({"name": "a"}), {"nucleo-f401re": sim}, None)
    with pytest.raises(ConfigError):
        runner.run_once("b")


def test_demo_watch_catches_the_scripted_anomaly_of_its_own_sim_board() -> None:
    from edge_agent.watch.demo import DEMO_NAME, demo_watch

    runner = WatchRunner(Settings(watch=[demo_watch(interval_s=0.001)]), {}, None)
    types = [runner.run_once(DEMO_NAME, interval_s=0)["capture"] for _ in range(4)]
    runner.close()
    assert [c.type if c else None for c in types] == [None, None, "anomaly", None]


def test_a_read_only_adapter_refuses_the_forced_measurement_and_the_watch_reports_why() -> None:
    """The BME280 driver triggers forced mode by writing 0xF2/0xF4; a read-only policy refuses it."""
    from edge_agent.bus import open_adapter
    from edge_agent.errors import WriteRefusedError

    settings = make_settings({"name": "t"}, hardware={"safety": {"adapters": {"nucleo-f401re": {"read_only": True}}}})
    with open_adapter("sim://nucleo-f401re", name="nucleo-f401re", safety=settings.hardware.safety) as sim:
        w = WatchRunner(settings, {"nucleo-f401re": sim}, None).watches["t"]
        w.tick(0.0)
    assert w.state == "backoff" and w.errors["other"] == 1
    assert w.last_error.startswith(WriteRefusedError.__name__)
