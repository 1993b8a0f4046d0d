"""The hardware actions: GPIO, I2C, SPI, the sensor driver, an adapter's capabilities.

Each input names its target the way the MCP tools do (``adapter``: a configured adapter by name,
``board``: the configured adapter serving that board) plus ``url``, which the command line uses to
reach an adapter that is not configured (``board`` then names the board for its pin names). The
write policy is the adapters' own (``[hardware.safety]``); writes keep their audit capture.
"""

from __future__ import annotations

import time
from typing import Annotated, Literal

from pydantic import Field

from edge_agent.services.args import (
    AdapterArg,
    AddrArg,
    BoardArg,
    BusArg,
    ByteList,
    PinArg,
    address_fields,
    hex_text,
    json_object,
    jsonable,
    location_fields,
    parse_int,
    to_bytes,
)
from edge_agent.services.core import ActionInput, Resources, action
from edge_agent.services.results import (
    Capabilities,
    GpioResult,
    I2CReadResult,
    I2CScanResult,
    I2CWriteResult,
    SensorReading,
    SpiResult,
)

UrlArg = Annotated[str | None, Field(
    description="Adapter URL for an adapter that is not configured (command line only).", max_length=2000)]


class Target(ActionInput):
    """Which adapter: ``adapter`` by name, ``board`` by board id, or ``url``; none: the first configured."""

    adapter: AdapterArg = None
    board: BoardArg = None
    url: UrlArg = None


class GpioReadIn(Target):
    pin: PinArg
    pull: Literal["up", "down", "none"] | None = Field(
        None, description="Make the line an input with this pull before reading (command line only).")


class GpioWriteIn(Target):
    pin: PinArg
    value: Annotated[int, Field(ge=0, le=1, description="0 (low) or 1 (high).")]


class I2CScanIn(Target):
    bus: BusArg = None


class I2CReadIn(Target):
    addr: AddrArg
    # Python name register_: a field named register would clash with the model class's ABCMeta.register.
    register_: Annotated[int | str | None, Field(alias="register", description="Register to start at; omit for a "
                                                 "plain read.")] = None
    len: Annotated[int, Field(ge=1, le=4096, description="Bytes to read.")] = 1
    bus: BusArg = None


class I2CWriteIn(Target):
    addr: AddrArg
    bytes: ByteList
    register_: Annotated[int | str | None, Field(alias="register", description="Register to write at; omit to "
                                                 "send `bytes` as they are.")] = None
    bus: BusArg = None


class SpiIn(Target):
    bytes: ByteList
    bus: BusArg = None
    cs: Annotated[int, Field(ge=0, le=15)] = 0
    mode: Annotated[int, Field(ge=0, le=3)] = 0
    speed_hz: Annotated[int, Field(ge=1_000, le=100_000_000)] = 1_000_000


class CapabilitiesIn(Target):
    pass


class SensorIn(Target):
    sensor: Literal["bme280"] = "bme280"
    addr: AddrArg = 0x76
    bus: BusArg = None


@action("gpio_read", GpioReadIn, GpioResult)
def gpio_read(res: Resources, a: GpioReadIn) -> GpioResult:
    """Read the level (0 or 1) of a GPIO pin; pins accept names, numbers and aliases like 'red_led'."""
    with res.hardware(a.adapter, a.board, a.url, pins=True) as slot:
        adapter = slot.require()
        name, _ = adapter.resolve_pin(a.pin)
        if a.pull:
            adapter.gpio_mode(a.pin, "in", a.pull)
        value = adapter.gpio_read(a.pin)
    return GpioResult(adapter=slot.name, board=slot.board, pin=name, requested=a.pin, value=value)


@action("gpio_write", GpioWriteIn, GpioResult, writes=True)
def gpio_write(res: Resources, a: GpioWriteIn) -> GpioResult:
    """Drive a GPIO pin low (0) or high (1); the [hardware.safety] policy may refuse and says how to allow it."""
    with res.hardware(a.adapter, a.board, a.url, pins=True) as slot:
        adapter = slot.require()
        name, _ = adapter.resolve_pin(a.pin)
        adapter.gpio_write(a.pin, a.value)
    return GpioResult(adapter=slot.name, board=slot.board, pin=name, requested=a.pin, value=a.value,
                      capture=res.record_write("gpio_write", slot, f"gpio_write {name}={a.value} on {slot.name}",
                                               {"pin": name, "value": a.value}))


@action("i2c_scan", I2CScanIn, I2CScanResult)
def i2c_scan(res: Resources, a: I2CScanIn) -> I2CScanResult:
    """List the 7-bit I2C addresses that acknowledge on a bus (driver-owned ones as busy, unprobed)."""
    with res.hardware(a.adapter, a.board, a.url) as slot:
        i2c = slot.require().i2c(a.bus)
        report = i2c.scan_report()
    return I2CScanResult(adapter=slot.name, bus=i2c.bus, addresses=report.found,
                         addresses_hex=[f"0x{x:02X}" for x in report.found], busy=report.busy,
                         busy_hex=[f"0x{x:02X}" for x in report.busy])


@action("i2c_read", I2CReadIn, I2CReadResult)
def i2c_read(res: Resources, a: I2CReadIn) -> I2CReadResult:
    """Read bytes from an I2C target, optionally starting at a register (write pointer, repeated start, read)."""
    with res.hardware(a.adapter, a.board, a.url) as slot:
        address = parse_int(a.addr, "addr", slot.url)
        reg = None if a.register_ is None else parse_int(a.register_, "register", slot.url)
        i2c = slot.require().i2c(a.bus)
        data = i2c.read(address, a.len) if reg is None else i2c.read_register(address, reg, a.len)
    return I2CReadResult(adapter=slot.name, bus=i2c.bus, **location_fields(address, reg), data=list(data),
                         hex=hex_text(data))


@action("i2c_write", I2CWriteIn, I2CWriteResult, writes=True)
def i2c_write(res: Resources, a: I2CWriteIn) -> I2CWriteResult:
    """Write bytes to an I2C target (after a register number if given); refused unless the safety policy allows."""
    data = to_bytes(a.bytes)
    with res.hardware(a.adapter, a.board, a.url) as slot:
        address = parse_int(a.addr, "addr", slot.url)
        reg = None if a.register_ is None else parse_int(a.register_, "register", slot.url)
        i2c = slot.require().i2c(a.bus)
        if reg is None:
            i2c.write(address, list(data))
        else:
            i2c.write_register(address, reg, list(data))
    return I2CWriteResult(
        adapter=slot.name, bus=i2c.bus, **location_fields(address, reg), written=len(data),
        capture=res.record_write("i2c_write", slot, f"i2c_write 0x{address:02X} {len(data)}B on {slot.name}",
                                 {"bus": i2c.bus, "addr": address, "register": reg, "bytes": list(data)}))


@action("spi_transfer", SpiIn, SpiResult, writes=True)
def spi_transfer(res: Resources, a: SpiIn) -> SpiResult:
    """Full-duplex SPI transfer: clock `bytes` out and return as many bytes read back."""
    data = to_bytes(a.bytes)
    with res.hardware(a.adapter, a.board, a.url) as slot:
        dev = slot.require().spi(a.bus, a.cs, mode=a.mode, speed_hz=a.speed_hz)
        rx = dev.transfer(list(data))
    return SpiResult(
        adapter=slot.name, cs=a.cs, mode=a.mode, rx=list(rx), hex=hex_text(bytes(rx)),
        capture=res.record_write("spi_transfer", slot, f"spi_transfer {len(data)} bytes on {slot.name} cs {a.cs}",
                                 {"bus": a.bus, "cs": a.cs, "mode": a.mode, "bytes": [b for b in data[:64]]}))


@action("hardware_capabilities", CapabilitiesIn, Capabilities)
def hardware_capabilities(res: Resources, a: CapabilitiesIn) -> Capabilities:
    """What an adapter offers: I2C buses, SPI chip selects, GPIO, write policy, and its health."""
    with res.hardware(a.adapter, a.board, a.url) as slot:
        held = slot.require()
        caps = json_object(held.capabilities())
        caps["health"] = jsonable(held.health())
    return Capabilities.model_validate(caps)


@action("sensor_read", SensorIn, SensorReading)
def sensor_read(res: Resources, a: SensorIn) -> SensorReading:
    """Read a sensor through its driver: bme280 gives temperature_c, pressure_hpa, humidity_pct."""
    from edge_agent.drivers.bme280 import BME280

    with res.hardware(a.adapter, a.board, a.url) as slot:
        address = parse_int(a.addr, "addr", slot.url)
        reading = BME280(slot.require().i2c(a.bus), address=address).read()
    return SensorReading(adapter=slot.name, sensor=a.sensor, **address_fields(address), at=time.time(),
                         **json_object(reading))
