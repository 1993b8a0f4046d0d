"""Adapter URLs and the scheme registry: grammar errors, unknown options, unknown scheme vs missing extra."""

from __future__ import annotations

import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from edge_agent.bus import AdapterURL, open_adapter
from edge_agent.bus.registry import BUILTIN, load_backend
from edge_agent.errors import BackendUnavailable, InvalidAdapterURL


def test_url_parts_are_split_and_text_is_kept() -> None:
    url = AdapterURL.parse("sim://nucleo-f401re?scenario=default")
    assert (url.scheme, url.target, dict(url.options)) == ("sim", "nucleo-f401re", {"scenario": "default"})
    assert str(url) == "sim://nucleo-f401re?scenario=default"
    assert AdapterURL.parse("bridge:///dev/ttyACM0?baud=115200").target == "/dev/ttyACM0"
    assert AdapterURL.parse("ftdi://ftdi:232h/1?mode=spi").base == "ftdi://ftdi:232h/1"
    assert AdapterURL.parse("SIM://x").scheme == "sim"


@pytest.mark.parametrize("text", ["", "nucleo", "://x", "sim://x?a=1&a=2", "sim://x#frag", "s im://x"])
def test_malformed_urls_say_what_the_grammar_is(text: str) -> None:
    with pytest.raises(InvalidAdapterURL):
        AdapterURL.parse(text)


def test_unknown_options_are_rejected_by_name() -> None:
    with pytest.raises(InvalidAdapterURL) as info:
        open_adapter("sim://nucleo-f401re?scenari=default&speed=9")
    assert "'scenari'" in str(info.value) and "'speed'" in str(info.value) and "scenario" in str(info.value)


def test_unknown_scheme_lists_the_known_ones() -> None:
    with pytest.raises(InvalidAdapterURL) as info:
        open_adapter("serial:///dev/ttyUSB0")
    assert not isinstance(info.value, BackendUnavailable)
    for scheme in BUILTIN:
        assert scheme in str(info.value)


def test_known_scheme_with_missing_extra_names_the_pip_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, "edge_agent.bus.linux", raising=False)
    monkeypatch.setitem(sys.modules, "smbus2", None)  # import smbus2 now raises ImportError(name="smbus2")
    with pytest.raises(BackendUnavailable) as info:
        open_adapter("linux://?i2c=1")
    assert not isinstance(info.value, InvalidAdapterURL)
    assert "pip install 'edge-agent[linux]'" in str(info.value)
    assert "smbus2" in str(info.value)


@pytest.mark.parametrize(("scheme", "vendor"), [("aardvark", "aardvark_py"), ("ftdi", "pyftdi")])
def test_each_vendor_backend_maps_its_own_extra(monkeypatch: pytest.MonkeyPatch, scheme: str, vendor: str) -> None:
    monkeypatch.delitem(sys.modules, f"edge_agent.bus.{scheme}", raising=False)
    for name in [m for m in sys.modules if m == vendor or m.startswith(vendor + ".")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, vendor, None)
    with pytest.raises(BackendUnavailable) as info:
        load_backend(scheme)
    assert f"edge-agent[{scheme}]" in str(info.value)


def test_a_missing_backend_module_is_unavailable_not_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [m for m in sys.modules if m.startswith("edge_agent.bus.bridge")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "edge_agent.bus.bridge", None)
    with pytest.raises(BackendUnavailable):
        load_backend("bridge")


def test_bridge_scheme_loads_a_backend_with_the_hook() -> None:
    """The firmware-bridge package plugs into the same open_url hook."""
    module = load_backend("bridge")
    assert callable(module.open_url)


def test_base_install_imports_without_vendor_packages(monkeypatch: pytest.MonkeyPatch) -> None:
    """`pip install edge-agent` has no smbus2/spidev/gpiozero/aardvark_py/pyftdi: the bus package still imports."""
    import importlib

    for name in [m for m in sys.modules if m.startswith("edge_agent.bus") or m.startswith("edge_agent.drivers")]:
        monkeypatch.delitem(sys.modules, name)
    for vendor in ("smbus2", "spidev", "gpiozero", "lgpio", "aardvark_py", "pyftdi", "usb", "serial"):
        monkeypatch.setitem(sys.modules, vendor, None)
    bus = importlib.import_module("edge_agent.bus")
    importlib.import_module("edge_agent.drivers.bme280")
    importlib.import_module("edge_agent.cli.bus")
    adapter = bus.open_adapter("sim://rpi-4b")
    assert adapter.i2c().read_register(0x76, 0xD0, 1) == b"\x60"


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_any_text_parses_or_raises_invalid_adapter_url(text: str) -> None:
    try:
        url = AdapterURL.parse(text)
    except InvalidAdapterURL:
        return
    assert url.scheme and "://" in str(url)


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(["sim://rpi-4b", "sim://nucleo-f401re"]),
       st.dictionaries(st.text("abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=8),
                       st.text("abc0123", max_size=4), max_size=3))
def test_open_adapter_never_leaks_a_non_edge_agent_error(base: str, options: dict[str, str]) -> None:
    from urllib.parse import urlencode

    from edge_agent.errors import EdgeAgentError

    url = base + ("?" + urlencode(options) if options else "")
    try:
        open_adapter(url).close()
    except EdgeAgentError:
        pass
