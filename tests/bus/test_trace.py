"""trace+URL: the inner adapter does the work and applies the policy; the wrapper records the wire traffic."""

from __future__ import annotations

import logging
from types import SimpleNamespace

import pytest

from edge_agent.bus import open_adapter
from edge_agent.bus.trace import TraceAdapter
from edge_agent.bus.transactions import GPIOWrite, I2CRead, I2CWrite, I2CWriteRead, SPITransfer
from edge_agent.drivers.bme280 import BME280
from edge_agent.errors import I2CNackError, InvalidAdapterURL, WriteRefusedError


def test_trace_records_what_the_inner_adapter_did(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="edge_agent.bus.trace")
    adapter = open_adapter("trace+sim://nucleo-f401re")
    assert isinstance(adapter, TraceAdapter)
    bus = adapter.i2c()
    assert bus.read_register(0x76, 0xD0, 1) == b"\x60"
    bus.write_register(0x50, 0x00, b"\x07")
    with pytest.raises(I2CNackError):
        bus.read(0x11, 1)
    adapter.spi(1, 1).transfer(b"\x5a")
    adapter.gpio_write("red_led", 1)
    assert adapter.log == [
        I2CWriteRead(1, 0x76, b"\xd0", 1),
        I2CWrite(1, 0x50, b"\x00\x07"),
        I2CRead(1, 0x11, 1),
        SPITransfer(1, 1, b"\x5a"),
        GPIOWrite("PA5", 1),
    ]
    assert adapter.log[2].error == "I2CNackError"
    assert adapter.inner.led("LD2") == 1  # type: ignore[attr-defined]
    assert any("0x76" in r.getMessage() or "118" in r.getMessage() for r in caplog.records)


def test_trace_keeps_the_inner_safety_policy(linux_env: SimpleNamespace) -> None:
    adapter = open_adapter("trace+linux://?i2c=1", name="pi")
    with pytest.raises(WriteRefusedError) as info:
        adapter.i2c().write_register(0x50, 0x00, b"\x01")
    assert "hardware.safety.adapters.pi.writable_i2c" in str(info.value)
    assert BME280(adapter.i2c()).chip_id() == 0x60
    assert adapter.capabilities()["scheme"] == "trace+linux"


def test_trace_of_an_unknown_scheme_is_an_invalid_url() -> None:
    with pytest.raises(InvalidAdapterURL):
        open_adapter("trace+nope://x")


def test_scan_through_trace_matches_the_inner_scan() -> None:
    adapter = open_adapter("trace+sim://rpi-4b")
    assert adapter.i2c().scan() == [0x20, 0x3C, 0x40, 0x50, 0x76]
    assert sum(1 for t in adapter.log if t.error is None) == 5  # type: ignore[attr-defined]
