"""What the status page shows, from a real runtime on the simulated NUCLEO-F401RE (no browser here)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from edge_agent.bus import open_adapter
from edge_agent.config import Settings, load_settings
from edge_agent.dashboard.chart import format_value, line_chart
from edge_agent.dashboard.collect import Collector, scan_grid
from edge_agent.mcp.tools import Tools
from edge_agent.runtime import Runtime


def _pin(snapshot: dict[str, Any], name: str) -> dict[str, Any]:
    for header in snapshot["boards"][0]["headers"]:
        for pin in header["pins"]:
            if pin["name"] == name:
                return pin
    raise AssertionError(f"{name} not on the page")


def test_the_pin_view_shows_a_write_made_through_the_tools_with_aliases_and_header_position(
        runtime: Runtime) -> None:
    collector = Collector(runtime, clock=iter(range(0, 10_000, 100)).__next__)
    before = _pin(collector.snapshot(), "PA5")
    assert before["level"] == 0 and before["connector"] == "CN10" and before["position"] == 11
    assert "red_led" in before["aliases"] and {"D13", "LD2"} <= set(before["labels"]) and before["role"] == "led"
    Tools(runtime).gpio_write("red_led", 1)
    after = _pin(collector.snapshot(), "PA5")
    assert (after["level"], after["mode"], after["writable"]) == (1, "out", True)
    json.dumps(collector.snapshot())  # the page receives it as JSON


def test_the_user_button_and_a_read_only_adapter_show_as_not_writable(state: Path, tmp_path: Path) -> None:
    rt = Runtime.build(Settings(), state)
    try:
        button = _pin(Collector(rt).snapshot(), "PC13")
        assert button["role"] == "button" and button["writable"] is False and "B1" in button["labels"]
        assert _pin(Collector(rt).snapshot(), "PA5")["writable"] is True
    finally:
        rt.close()
    config = tmp_path / "edge-agent.toml"
    config.write_text('[[peripherals.boards]]\nboard = "nucleo-f401re"\ntransport = "sim"\n'
                      "[hardware.safety]\nread_only = true\n")
    rt = Runtime.build(load_settings(config), tmp_path / "state2")
    try:
        assert _pin(Collector(rt).snapshot(), "PA5")["writable"] is False
    finally:
        rt.close()


def test_the_i2c_grid_reads_like_i2cdetect(runtime: Runtime) -> None:
    scan = Collector(runtime).snapshot()["boards"][0]["i2c"][0]
    assert 0x76 in scan["found"] and not scan["error"]
    grid = scan["grid"]
    assert grid[7][6] == "76"  # row 0x70, column 6
    assert grid[0][0] == "" and grid[0][8] == "--"  # 0x00-0x07 are not probed
    kernel = scan_grid([0x76], busy=[0x68])
    assert kernel[6][8] == "UU" and kernel[7][6] == "76"


def test_an_address_a_kernel_driver_owns_shows_as_uu(runtime: Runtime, monkeypatch: pytest.MonkeyPatch) -> None:
    """As on Linux, where i2c-dev answers EBUSY for an address bound to a driver (an RTC at 0x68)."""
    bus = runtime.slot().adapter.i2c()
    probe = type(bus)._probe_state

    def probe_state(self: Any, address: int, method: Any) -> Any:
        return "busy" if address == 0x68 else probe(self, address, method)

    monkeypatch.setattr(type(bus), "_probe_state", probe_state)
    scan = Collector(runtime).snapshot()["boards"][0]["i2c"][0]
    assert scan["busy"] == [0x68] and scan["grid"][6][8] == "UU" and scan["grid"][7][6] == "76"


def test_levels_come_from_what_the_adapter_did_not_from_reading_lines() -> None:
    """A real backend reports only lines it drove or read; reading a Linux line would reconfigure it."""
    adapter = open_adapter("sim://nucleo-f401re")
    try:
        adapter._gpio_observe = dict  # as a backend that cannot observe lines without side effects
        assert adapter.gpio_states() == {}
        adapter.gpio_write("D13", 1)
        adapter.gpio_read("PA6")
        states = adapter.gpio_states()
        assert states["PA5"]["mode"] == "out" and states["PA5"]["level"] == 1
        assert states["PA6"]["level"] == 0 and "mode" not in states["PA6"]
        assert set(states) == {"PA5", "PA6"}
    finally:
        adapter.close()


def test_watch_readings_are_plotted_with_model_score_and_captures(state: Path) -> None:
    from edge_agent.daemon import load_daemon_settings

    rt = Runtime.build(load_daemon_settings(None), state)  # the demo BME280 watch
    try:
        watch = next(iter(rt.watch))
        now = 0.0
        for _ in range(40):
            now += 1.0
            watch.tick(now)
        page = Collector(rt).snapshot()["watches"][0]
        assert page["name"] == watch.name and page["readings"] == 40
        charts = page["charts"]
        names = [c.split('data-channel="')[1].split('"')[0] for c in charts]
        assert names[:3] == ["temperature_c", "humidity_pct", "pressure_hpa"]
        assert all('data-points="40"' in c and "<polyline" in c for c in charts[:3])
        if watch.model is not None:  # the demo runs its bundled model when an interpreter is installed
            assert names[3] == "model score" and page["last_score"] is not None
            assert f'data-points="{len(watch.scores)}"' in charts[3] and watch.scores
            # The facts show the score formatted as its chart's last value is.
            assert page["last_score_text"] == format_value(page["last_score"])
            assert f'class="last">{page["last_score_text"]}<' in charts[3]
    finally:
        rt.close()


def test_a_chart_marks_captures_and_escapes_names() -> None:
    svg = line_chart([1.0, 2.0, 3.0], [20.0, 21.5, 21.0], label="<t>", unit="°C", marks=[2.0, 99.0])
    assert "<t>" not in svg and "&lt;t&gt;" in svg
    assert svg.count('class="mark"') == 1  # the capture outside the plotted span is not drawn
    assert ">21<" in svg  # the last value
    assert "no readings yet" in line_chart([], [], label="x")
    many = line_chart(list(range(1000)), [float(i % 7) for i in range(1000)], label="x")
    assert many.split('points="')[2].count(",") <= 160


def test_values_are_formatted_one_way_and_tiny_scores_are_not_rounded_to_zero() -> None:
    assert [format_value(v) for v in (21.5, 1013.25, 0.0, 3.51e-07, 123456.0, -0.004)] == [
        "21.5", "1013.25", "0", "3.51e-07", "1.23e+05", "-0.004"]


def test_the_min_and_max_labels_sit_right_of_the_line_and_a_time_axis_runs_under_it() -> None:
    svg = line_chart([1000.0, 1060.0, 1120.0], [1013.25, 1009.5, 1011.0], label="pressure_hpa", unit="hPa")
    xs = [float(p.split(",")[0]) for p in svg.split('<polyline points="')[1].split('"')[0].split()]
    scale_x = [float(x) for x in re.findall(r'<text x="([\d.]+)" y="[\d.]+" text-anchor="end" class="scale">', svg)]
    labels = re.findall(r'class="scale">([^<]+)<', svg)
    assert labels == ["1013.25", "1009.5"]
    # A right-anchored label of n characters reaches at most 6 units per character to the left of its x.
    assert max(xs) < min(scale_x) - 6 * max(len(s) for s in labels)
    times = re.findall(r'class="time" data-t="([\d.]+)">(\d\d:\d\d:\d\d)<', svg)
    assert [float(t) for t, _ in times] == [1000.0, 1120.0] and '<g class="axis">' in svg


def test_memory_counts_by_category_and_namespace_and_the_response_cache(tmp_path: Path) -> None:
    config = tmp_path / "edge-agent.toml"
    config.write_text("[memory]\nresponse_cache_enabled = true\n")
    rt = Runtime.build(load_settings(config), tmp_path / "state")
    try:
        tools = Tools(rt)
        tools.memory_store("the bench PSU is set to 3.3 V", title="psu", memory_type="fact")
        tools.memory_store("use PA5 for the probe LED", title="probe", memory_type="decision",
                           space_path="Devices/bench-1")
        page = Collector(rt).snapshot()
        assert page["memory"]["by_category"] == {"decision": 1, "fact": 1}
        assert sum(page["memory"]["by_namespace"].values()) == 2 and len(page["memory"]["by_namespace"]) == 2
        assert page["cache"]["enabled"] is True and page["cache"]["entries"] == 0 and "tokens_saved" in page["cache"]
        assert page["sync"]["enabled"] is False
    finally:
        rt.close()


def test_sync_shows_queued_in_flight_and_dead_letters(tmp_path: Path) -> None:
    from edge_agent.mcp.tools import CaptureIn

    config = tmp_path / "edge-agent.toml"
    config.write_text('[kumiho]\nenabled = true\nendpoint = "127.0.0.1:9"\n')  # never contacted: sync not started
    rt = Runtime.build(load_settings(config), tmp_path / "state")
    try:
        Tools(rt).memory_reflect("s1", "answered", captures=[CaptureIn(type="fact", title="led",
                                                                        content="the probe LED is on PA5")])
        sync = Collector(rt).snapshot()["sync"]
        assert (sync["enabled"], sync["queued"], sync["in_flight"], sync["dead_letters"]) == (True, 1, 0, 0)
        assert sync["last_success"] is None and sync["last_error"] is None
    finally:
        rt.close()
