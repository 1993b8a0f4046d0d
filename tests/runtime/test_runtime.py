"""The composition root: components from Settings, graceful degradation, locking, reload, re-indexing."""

from __future__ import annotations

import shutil
import threading
import time
from pathlib import Path

import pytest

from edge_agent.config import Settings, parse_settings
from edge_agent.errors import AdapterUnavailableError, EdgeAgentError
from edge_agent.mcp.tools import Tools
from edge_agent.paths import bundled_datasheets_dir
from edge_agent.runtime import ComponentUnavailable, Runtime


@pytest.fixture
def rt(state: Path) -> Runtime:
    runtime = Runtime.build(Settings(), state)
    yield runtime
    runtime.close()


def test_embedded_defaults_build_a_sim_board_datasheets_and_memory_with_sync_off(rt: Runtime) -> None:
    assert [(s.name, s.url) for s in rt.adapters.values()] == [("nucleo-f401re", "sim://nucleo-f401re")]
    assert rt.components["datasheets"].ok and rt.components["datasheets"].extra["chunks"]
    assert rt.components["memory"].ok and rt.memory is not None
    assert rt.components["sync"].extra["enabled"] is False and rt.sync is None
    status = rt.status()
    assert status["adapters"][0]["ok"] is True and status["memory"]["entries"] == 0


def test_a_broken_board_entry_is_reported_and_the_other_boards_keep_working(state: Path) -> None:
    settings = parse_settings({"peripherals": {"boards": [
        {"board": "nucleo-f401re", "transport": "sim"},
        {"board": "nucleo-f446re", "name": "bench", "transport": "serial", "path": "/dev/ttyACM-missing"},
    ]}})
    rt = Runtime.build(settings, state)
    try:
        broken = rt.adapters["bench"]
        assert broken.adapter is None and broken.error
        with pytest.raises(AdapterUnavailableError) as info, rt.hardware("bench"):
            pass
        assert info.value.adapter == broken.url
        assert Tools(rt).gpio_write("PA5", 1, adapter="nucleo-f401re")["value"] == 1
        assert rt.components["adapters"].ok is False
        assert [a["ok"] for a in rt.status()["adapters"]] == [True, False]
    finally:
        rt.close()


def test_a_board_missing_at_start_is_opened_when_next_used_once_it_is_there(state: Path, tmp_path: Path) -> None:
    # A Nucleo plugged in after the service started (or enumerated late at boot) needs no reload.
    scenario = tmp_path / "bench.toml"
    settings = parse_settings({"peripherals": {"boards": [
        {"board": "nucleo-f401re", "name": "bench", "url": f"sim://nucleo-f401re?scenario={scenario}"},
    ]}})
    rt = Runtime.build(settings, state)
    try:
        slot = rt.adapters["bench"]
        slot.retry_s = 0.0
        assert slot.adapter is None and "does not exist" in slot.error
        with pytest.raises(AdapterUnavailableError), rt.hardware("bench"):
            pass
        scenario.write_text('description = "plugged in"\n')
        assert Tools(rt).gpio_write("PA5", 1, adapter="bench")["value"] == 1
        assert slot.adapter is not None and slot.error == ""
        status = rt.status()
        assert [a["ok"] for a in status["adapters"]] == [True]
        assert status["components"]["adapters"] == {"ok": True, "detail": "1/1 open"}
    finally:
        rt.close()


def test_memory_off_makes_memory_tools_say_why(state: Path) -> None:
    rt = Runtime.build(parse_settings({"memory": {"backend": "none"}}), state)
    try:
        with pytest.raises(ComponentUnavailable) as info:
            Tools(rt).memory_recall("anything")
        assert info.value.component == "the memory store" and "backend" in info.value.reason
    finally:
        rt.close()


def test_boards_are_chosen_by_adapter_name_or_board_id(state: Path) -> None:
    settings = parse_settings({"peripherals": {"boards": [
        {"board": "nucleo-f401re", "transport": "sim"}, {"board": "rpi-4b", "name": "pi", "transport": "sim"},
        {"board": "rpi-4b", "name": "pi2", "transport": "sim"}]}})
    rt = Runtime.build(settings, state)
    try:
        assert rt.slot(board="nucleo-f401re").name == "nucleo-f401re"
        assert rt.slot(adapter="pi2").board == "rpi-4b"
        assert rt.slot().name == "nucleo-f401re"
        with pytest.raises(AdapterUnavailableError):
            rt.slot(board="rpi-4b")  # two Pis: the agent must name the adapter
        with pytest.raises(AdapterUnavailableError):
            rt.slot(adapter="nope")
    finally:
        rt.close()


def test_close_waits_for_the_bus_transaction_in_flight(rt: Runtime) -> None:
    order: list[str] = []
    entered, release = threading.Event(), threading.Event()

    def transaction() -> None:
        with rt.hardware() as slot:
            entered.set()
            release.wait(30)
            slot.adapter.gpio_write("PA5", 1)
            order.append("transaction done")

    def shutdown() -> None:
        rt.close()
        order.append("closed")

    tx = threading.Thread(target=transaction)
    tx.start()
    assert entered.wait(30)
    closer = threading.Thread(target=shutdown)
    closer.start()
    time.sleep(0.2)  # give close() the chance to run ahead if it did not wait (it must not)
    release.set()
    tx.join(30)
    closer.join(30)
    assert order == ["transaction done", "closed"]
    with pytest.raises(AdapterUnavailableError), rt.hardware():
        pass


def test_reload_opens_new_boards_and_closes_removed_ones(rt: Runtime) -> None:
    old = rt.adapters["nucleo-f401re"].adapter
    changes = rt.reload(parse_settings({"peripherals": {"boards": [
        {"board": "nucleo-f401re", "transport": "sim"}, {"board": "rpi-4b", "name": "pi", "transport": "sim"}]}}))
    assert changes == ["adapter pi opened"]
    assert rt.adapters["nucleo-f401re"].adapter is old
    changes = rt.reload(parse_settings({"peripherals": {"boards": [{"board": "rpi-4b", "name": "pi",
                                                                    "transport": "sim"}]}}))
    assert changes == ["adapter nucleo-f401re closed"] and old.closed
    assert list(rt.adapters) == ["pi"]


def test_changed_datasheet_files_are_reindexed(state: Path, tmp_path: Path) -> None:
    sheets = tmp_path / "sheets"
    shutil.copytree(bundled_datasheets_dir(), sheets)
    settings = parse_settings({"peripherals": {"datasheet_dir": str(sheets)}})
    rt = Runtime.build(settings, state)
    try:
        assert not rt.reindex_if_changed()
        assert not Tools(rt).datasheet_search("zorbulator flux capacitor")["results"]
        (sheets / "zorbulator.md").write_text("# Zorbulator\n\n## Flux capacitor\n\nThe zorbulator flux capacitor "
                                              "is wired to PA5 through a 330 ohm resistor.\n")
        assert rt.reindex_if_changed()
        hits = Tools(rt).datasheet_search("zorbulator flux capacitor")["results"]
        assert hits and hits[0]["source"].startswith("zorbulator")
        assert rt.jobs["reindex"]["ok"] is True
    finally:
        rt.close()


def test_memory_limit_is_capped_and_min_score_floored_by_the_config(state: Path) -> None:
    settings = parse_settings({"kumiho": {"memory_retrieval_limit": 2}, "memory": {"min_relevance_score": 0.3}})
    rt = Runtime.build(settings, state)
    try:
        tools = Tools(rt)
        for i in range(5):
            tools.memory_store(f"relay number {i} drives the pump on GPIO{17 + i}", title=f"relay {i}")
        found = tools.memory_recall("relay pump", limit=50, min_score=0.0)["results"]
        assert len(found) == 2
        assert all(r["score"] >= 0.3 for r in found)
        assert len(tools.memory_engage("relay pump", limit=50)["results"]) <= 2
    finally:
        rt.close()


def test_every_deliberate_tool_error_belongs_to_the_error_tree(rt: Runtime) -> None:
    tools = Tools(rt)
    for call in (lambda: tools.pin_resolve("no_such_pin", board="nucleo-f401re"),
                 lambda: tools.i2c_read("0x99"), lambda: tools.i2c_read("seventy"),
                 lambda: tools.gpio_read("PA5", adapter="missing"),
                 lambda: tools.datasheet_read("no-such-file.md"),
                 lambda: tools.memory_forget("never stored")):
        with pytest.raises(EdgeAgentError):
            call()


def test_watches_run_in_the_background_and_their_captures_reach_memory(state: Path) -> None:
    settings = parse_settings({"watch": [{"name": "bench-env", "sensor": "bme280", "interval_s": 0.02, "window": 2,
                                          "rule": {"kind": "summary", "every_s": 3600}}]})
    rt = Runtime.build(settings, state)
    stop = threading.Event()
    threads: list[threading.Thread] = []
    try:
        assert rt.components["watch"].ok, rt.components["watch"].detail
        rt.start_background(stop)
        threads = list(rt.background.threads.values())
        assert {t.name for t in threads} == {"edge-agent-watch", "edge-agent-jobs"}
        assert rt.watch_captured.wait(60)
        status = rt.status()
        assert status["watch_captures"] >= 1 and status["watches"][0]["name"] == "bench-env"
        assert rt.memory.maintenance.stats()["captures"] >= 1
    finally:
        stop.set()
        rt.close()
    assert threads and not any(t.is_alive() for t in threads)


def test_board_info_answers_for_any_known_board_and_adds_the_adapter_when_configured(rt: Runtime) -> None:
    tools = Tools(rt)
    nucleo = tools.hardware_board_info()
    assert nucleo["board"] == "nucleo-f401re" and nucleo["adapter"]["url"] == "sim://nucleo-f401re"
    pi = tools.hardware_board_info(board="rpi-4b")  # not configured: static board facts only
    assert pi["board"] == "rpi-4b" and pi["pin_count"] > 0 and "adapter" not in pi
    with pytest.raises(EdgeAgentError):
        tools.hardware_board_info(board="no-such-board")


def test_hardware_writes_become_command_captures_only_when_configured(state: Path) -> None:
    off = Runtime.build(Settings(), state / "off")
    try:
        assert "capture" not in Tools(off).gpio_write("PA5", 1)
        assert off.memory.maintenance.stats()["captures"] == 0
    finally:
        off.close()
    on = Runtime.build(parse_settings({"server": {"record_hardware_writes": True}}), state / "on")
    try:
        result = Tools(on).i2c_write(0x76, [0x27], register=0xF4)
        assert result["capture"]["stored"] is True
        exported = list(on.memory.transfer.export())
        assert exported[-1]["capture"]["type"] == "command_execution"
        assert exported[-1]["capture"]["metadata"]["tool"] == "i2c_write"
    finally:
        on.close()


def test_reflect_keeps_kumiho_capture_fields_and_cites_the_source_refs(rt: Runtime) -> None:
    from edge_agent.mcp.tools import CaptureIn

    tools = Tools(rt)
    source = tools.memory_store("LD2 is on PA5", title="led pin", memory_type="fact")
    cap = CaptureIn(type="decision", title="keep LD2 for status", content="Use LD2 (PA5) as the status LED.",
                    event_date="2026-11", decision_state="accepted", origin="bench session")
    result = tools.memory_reflect("s-1", "ok", captures=[cap], source_krefs=[f"mem://{source['id']}"])
    assert result["captures"][0]["source_refs"] == [f"mem://{source['id']}"]
    exported = [e for e in rt.memory.transfer.export() if e.get("capture")]
    meta = exported[-1]["capture"]["metadata"]
    assert meta["event_date"] == "2026-11" and meta["decision_state"] == "accepted"
