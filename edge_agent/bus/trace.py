"""``trace+URL``: any adapter, with every transaction recorded and logged (DEBUG, logger ``edge_agent.bus.trace``).

``trace+linux://?i2c=1`` behaves exactly like ``linux://?i2c=1`` (the inner adapter validates, applies the
safety policy and talks to the hardware) and keeps ``adapter.log`` in the simulator's record types, so a
bench session can be read back or compared with a simulated one. ``edge-agent -vv bus scan --url
trace+...`` prints the wire traffic.
"""

from __future__ import annotations

import logging
from collections.abc import Hashable
from typing import Any

from edge_agent.bus.base import Adapter, Direction, I2CBus, ProbeMethod, ProbeState, Pull, SPIDevice
from edge_agent.bus.safety import SafetyPolicy
from edge_agent.bus.transactions import GPIOMode, GPIOWrite, I2CRead, I2CWrite, I2CWriteRead, SPITransfer, Transaction
from edge_agent.bus.url import AdapterURL
from edge_agent.errors import BusError
from edge_agent.jsontypes import JsonObject, JsonValue

log = logging.getLogger(__name__)
PREFIX = "trace+"
LOG_LIMIT = 100_000


def _listed(capabilities: JsonObject, key: str) -> list[JsonValue]:
    """A list an adapter's capabilities name (``i2c`` buses, ``spi`` chip selects)."""
    value = capabilities.get(key)
    return value if isinstance(value, list) else []


class TraceAdapter(Adapter):
    """Wraps ``inner``; its own checks are open because the inner adapter applies the real policy."""

    def __init__(self, url: AdapterURL, inner: Adapter) -> None:
        super().__init__(url, name=inner.name, board=None, safety=SafetyPolicy.open(inner.safety.adapter_key))
        self.inner = inner
        self.scheme = f"trace+{inner.scheme}"
        self.log: list[Transaction] = []

    def record(self, transaction: Transaction, error: BaseException | None = None) -> None:
        """Keep ``transaction`` and log it."""
        if len(self.log) >= LOG_LIMIT:
            del self.log[: LOG_LIMIT // 2]
        self.log.append(transaction)
        if log.isEnabledFor(logging.DEBUG):
            failed = f" failed: {type(error).__name__}" if error is not None else ""
            log.debug("%s: %s%s", self.inner.url, describe(transaction), failed)

    def _i2c_buses(self) -> list[int]:
        return [b for b in _listed(self.inner.capabilities(), "i2c") if isinstance(b, int)]

    def _open_i2c(self, bus: int) -> I2CBus:
        inner = self.inner.i2c(bus)
        return TraceI2C(self, inner)

    def _spi_buses(self) -> list[tuple[int, int]]:
        items = [item for item in _listed(self.inner.capabilities(), "spi") if isinstance(item, str)]
        return [(int(b), int(c)) for b, c in (item.split(".") for item in items)]

    def _open_spi(self, bus: int, cs: int, mode: int, speed_hz: int) -> SPIDevice:
        return TraceSPI(self, self.inner.spi(bus, cs, mode=mode, speed_hz=speed_hz))

    def _has_gpio(self) -> bool:
        return bool(self.inner.capabilities()["gpio"])

    def _gpio_line(self, pin: Any, raw: str | int) -> Hashable:
        return self.inner.resolve_pin(raw)[0] if self.inner.board else raw

    def _gpio_read(self, line: Any) -> int:
        return self.inner.gpio_read(line)

    def _gpio_write(self, line: Any, value: int) -> None:
        try:
            self.inner.gpio_write(line, value)
        except BusError as exc:
            self.record(GPIOWrite(str(line), value), exc)
            raise
        self.record(GPIOWrite(str(line), value))

    def _gpio_mode(self, line: Any, direction: Direction, pull: Pull) -> None:
        self.inner.gpio_mode(line, direction, pull)
        self.record(GPIOMode(str(line), direction, pull))

    def capabilities(self) -> dict[str, Any]:
        """The inner adapter's capabilities, under this URL."""
        return {**self.inner.capabilities(), "url": self.url, "scheme": self.scheme}

    def _health(self) -> dict[str, Any]:
        health = self.inner.health()
        if not health.get("ok"):
            raise BusError(str(health.get("detail", "inner adapter unhealthy")), adapter=self.url)
        return {"inner": health, "transactions": len(self.log)}

    def _release(self) -> None:
        self.inner.close()


def describe(t: Transaction) -> str:
    """One line in i2ctransfer-like notation: ``i2c1 w1@0x76 d0 r1 -> 60``."""
    if isinstance(t, I2CWriteRead):
        tail = f" -> {t.result.hex(' ')}" if t.result is not None else ""
        return f"i2c{t.bus} w{len(t.data)}@0x{t.address:02X} {t.data.hex(' ')} r{t.read_len}{tail}"
    if isinstance(t, I2CRead):
        tail = f" -> {t.result.hex(' ')}" if t.result is not None else ""
        return f"i2c{t.bus} r{t.n}@0x{t.address:02X}{tail}" + (" NACK" if t.error == "I2CNackError" else "")
    if isinstance(t, I2CWrite):
        nack = " NACK" if t.error == "I2CNackError" else ""
        return f"i2c{t.bus} w{len(t.data)}@0x{t.address:02X} {t.data.hex(' ')}".rstrip() + nack
    if isinstance(t, SPITransfer):
        return f"spi{t.bus}.{t.cs} mode {t.mode} {t.data.hex(' ')} -> {(t.result or b'').hex(' ')}"
    if isinstance(t, GPIOWrite):
        return f"gpio {t.pin} <- {t.value}"
    return f"gpio {t.pin} {t.direction} pull {t.pull}"


class TraceI2C(I2CBus):
    """An inner I2C bus whose transactions are recorded."""

    def __init__(self, adapter: TraceAdapter, inner: I2CBus) -> None:
        super().__init__(adapter, inner.bus, frequency_hz=inner.frequency_hz)
        self.inner = inner
        self.max_transfer = inner.max_transfer
        self.lock = inner.lock  # drivers locking either object serialise on the same bus

    @property
    def _trace(self) -> TraceAdapter:
        adapter = self.adapter
        assert isinstance(adapter, TraceAdapter)
        return adapter

    def _read(self, address: int, n: int) -> bytes:
        try:
            data = self.inner.read(address, n)
        except BusError as exc:
            self._trace.record(I2CRead(self.bus, address, n, error=type(exc).__name__), exc)
            raise
        self._trace.record(I2CRead(self.bus, address, n, data))
        return data

    def _write(self, address: int, data: bytes) -> None:
        try:
            self.inner.write(address, data)
        except BusError as exc:
            self._trace.record(I2CWrite(self.bus, address, data, error=type(exc).__name__), exc)
            raise
        self._trace.record(I2CWrite(self.bus, address, data))

    def _write_read(self, address: int, data: bytes, n: int) -> bytes:
        try:
            result = self.inner.write_read(address, data, n)
        except BusError as exc:
            self._trace.record(I2CWriteRead(self.bus, address, data, n, error=type(exc).__name__), exc)
            raise
        self._trace.record(I2CWriteRead(self.bus, address, data, n, result))
        return result

    def _probe(self, address: int, method: ProbeMethod) -> bool:
        return self._probe_state(address, method) == "ack"

    def _probe_state(self, address: int, method: ProbeMethod) -> ProbeState:
        state = self.inner._probe_state(address, method)
        if state == "busy":
            return state  # not probed: nothing went over the wire
        record = I2CRead(self.bus, address, 1) if method == "read" else I2CWrite(self.bus, address, b"")
        if state == "nack":
            record.error = "I2CNackError"
        self._trace.record(record)
        return state


class TraceSPI(SPIDevice):
    """An inner SPI device whose transfers are recorded."""

    def __init__(self, adapter: TraceAdapter, inner: SPIDevice) -> None:
        super().__init__(adapter, inner.bus, inner.cs, mode=inner.mode, speed_hz=inner.speed_hz)
        self.inner = inner
        self.max_transfer = inner.max_transfer

    def _transfer(self, data: bytes) -> bytes:
        result = self.inner.transfer(data)
        adapter = self.adapter
        assert isinstance(adapter, TraceAdapter)
        adapter.record(SPITransfer(self.bus, self.cs, data, self.mode, result))
        return result
