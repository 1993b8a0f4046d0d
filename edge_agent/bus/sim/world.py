"""The simulated board's world: I2C targets, SPI targets, GPIO lines, scripted faults, a transaction log.

A :class:`SimWorld` is built from scenario data (TOML, see ``scenarios/default.toml``). The sim://
adapter drives it directly; tests of the linux://, aardvark:// and ftdi:// backends put it behind
fakes of the vendor libraries, so every backend is checked against the same parts.
"""

from __future__ import annotations

import functools
import threading
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from edge_agent.bus.sim.devices import I2C_MODELS, SPI_MODELS, BME280Sim, SimI2CDevice, SimSPIDevice
from edge_agent.bus.transactions import (  # re-exported: the world records these
    GPIOMode,
    GPIOWrite,
    I2CRead,
    I2CWrite,
    I2CWriteRead,
    SPITransfer,
    Transaction,
)
from edge_agent.errors import (
    AdapterUnavailableError,
    BusBusyError,
    BusTimeoutError,
    ConfigError,
    I2CNackError,
    InvalidAddressError,
)

if TYPE_CHECKING:
    from edge_agent.pins.boards import Board

SCENARIO_DIR = Path(__file__).resolve().parent / "scenarios"

# --- scenario schema ------------------------------------------------------------------------------------


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class I2CEntry(_Model):
    """One ``[[i2c]]`` part of a scenario."""

    address: int = Field(ge=0x03, le=0x77)
    device: str
    bus: int | None = None
    params: dict[str, Any] = Field(default_factory=dict)


class SPIEntry(_Model):
    """One ``[[spi]]`` part of a scenario."""

    device: str
    bus: int | None = None
    cs: int = Field(0, ge=0, le=7)
    params: dict[str, Any] = Field(default_factory=dict)


class ButtonEntry(_Model):
    """How a board button behaves (``[gpio.buttons.<label>]``)."""

    active_low: bool = True
    pressed: bool = False


class GPIOSection(_Model):
    """The ``[gpio]`` table: jumpers, held inputs, buttons."""

    jumpers: list[tuple[str, str]] = Field(default_factory=list, description="pairs of lines wired together")
    inputs: dict[str, int] = Field(default_factory=dict, description="lines held at a level from outside")
    buttons: dict[str, ButtonEntry] = Field(default_factory=dict)


FaultKind = Literal["nack", "timeout", "stuck_sda", "unplug"]


class FaultEntry(_Model):
    """One scripted ``[[faults]]`` entry."""

    error: FaultKind
    address: int | None = Field(None, description="I2C target; unset = any address on the bus")
    bus: int | None = None
    on: Literal["read", "write", "any"] = "any"
    after: int = Field(0, ge=0, description="matching transactions that pass before the fault starts")
    count: int | None = Field(1, ge=1, description="transactions that fail; unset = every one")


class Scenario(_Model):
    """A whole scenario file."""

    description: str = ""
    i2c: list[I2CEntry] = Field(default_factory=list)
    spi: list[SPIEntry] = Field(default_factory=list)
    gpio: GPIOSection = Field(default_factory=GPIOSection)
    faults: list[FaultEntry] = Field(default_factory=list)


def scenario_path(name: str) -> Path:
    """A bundled scenario by name ("default") or a file path."""
    if "/" not in name and not name.endswith(".toml"):
        path = SCENARIO_DIR / f"{name}.toml"
        if not path.is_file():
            known = sorted(p.stem for p in SCENARIO_DIR.glob("*.toml"))
            raise ConfigError(f"no bundled scenario {name!r}; bundled: {', '.join(known)}; or give a .toml path")
        return path
    return Path(name)


def load_scenario(name_or_path: str | Path) -> Scenario:
    """Read and validate a scenario file; errors name the file and key path."""
    path = name_or_path if isinstance(name_or_path, Path) else scenario_path(name_or_path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"scenario file {path} does not exist") from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"scenario file {path} cannot be read: {exc}") from None
    return parse_scenario(data, str(path))


def parse_scenario(data: dict[str, Any], origin: str = "scenario") -> Scenario:
    """Validate scenario data (already parsed TOML)."""
    try:
        return Scenario.model_validate(data)
    except ValidationError as exc:
        lines = [f"  {'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()]
        raise ConfigError(f"{origin} is invalid:\n" + "\n".join(lines)) from None


# --- faults -------------------------------------------------------------------------------------------------


@dataclass
class _Fault:
    spec: FaultEntry
    seen: int = 0
    fired: int = 0

    def matches(self, bus: int, address: int, op: str) -> bool:
        s = self.spec
        if s.bus is not None and s.bus != bus:
            return False
        if s.error != "stuck_sda" and s.address is not None and s.address != address:
            return False
        return s.on == "any" or s.on == op

    def fire(self) -> bool:
        """Count a matching transaction; True when this one must fail."""
        self.seen += 1
        if self.seen <= self.spec.after:
            return False
        if self.spec.count is not None and self.fired >= self.spec.count:
            return False
        self.fired += 1
        return True

    @property
    def spent(self) -> bool:
        return self.spec.count is not None and self.fired >= self.spec.count


# --- GPIO lines ---------------------------------------------------------------------------------------------


@dataclass
class Line:
    """State of one simulated GPIO line."""

    name: str
    direction: str = "in"
    pull: str = "none"
    out: int = 0
    held: int | None = None  # level forced from outside (scenario input, button)
    input_only: bool = False
    label: str = ""


# --- the world ----------------------------------------------------------------------------------------------

_F = TypeVar("_F", bound=Callable[..., Any])


def _locked(method: _F) -> _F:
    """Run a SimWorld method under the world's lock (one transaction on the board at a time)."""

    @functools.wraps(method)
    def wrapper(self: SimWorld, *args: Any, **kwargs: Any) -> Any:
        with self.lock:
            return method(self, *args, **kwargs)

    return wrapper  # type: ignore[return-value]



class SimWorld:
    """Parts, wires and faults of one simulated board; every transaction lands in ``log``."""

    def __init__(self, scenario: Scenario, *, board: Board | None = None, i2c_buses: list[int] | None = None,
                 spi_buses: list[int] | None = None) -> None:
        self.scenario = scenario
        self.board = board
        self.i2c_buses = i2c_buses or _bus_numbers(board, "i2c") or [0]
        self.spi_buses = spi_buses or _bus_numbers(board, "spi") or [0]
        self.i2c: dict[int, dict[int, SimI2CDevice]] = {b: {} for b in self.i2c_buses}
        self.spi: dict[tuple[int, int], SimSPIDevice] = {}
        self.log: list[Transaction] = []
        self.recording = True
        # One transaction at a time, as on a real bus (runtime threads share one simulated board).
        self.lock = threading.Lock()
        self._faults: list[_Fault] = []
        self.lines: dict[str, Line] = {}
        self.jumpers: dict[str, str] = {}
        for entry in scenario.i2c:
            self.attach_i2c(entry.device, entry.address, bus=entry.bus, params=entry.params)
        for s in scenario.spi:
            self.attach_spi(s.device, bus=s.bus, cs=s.cs, params=s.params)
        for f in scenario.faults:
            self.add_fault(f)
        self._build_lines(board, scenario)

    #: Oldest half of the log is dropped past this many records, so a long-running simulator stays small.
    log_limit = 100_000

    def _record(self, transaction: Transaction) -> None:
        if self.recording:
            log = self.log
            log.append(transaction)
            if len(log) > self.log_limit:
                del log[: self.log_limit // 2]

    # building ------------------------------------------------------------------------------------
    def attach_i2c(self, kind: str, address: int, *, bus: int | None = None,
                   params: dict[str, Any] | None = None) -> SimI2CDevice:
        """Put a part model of ``kind`` at ``address`` on ``bus`` (default: the first I2C bus)."""
        model = I2C_MODELS.get(kind)
        if model is None:
            raise ConfigError(f"unknown simulated I2C part {kind!r}; known: {', '.join(sorted(I2C_MODELS))}")
        number = self.i2c_buses[0] if bus is None else bus
        if number not in self.i2c:
            raise ConfigError(f"I2C part {kind} at 0x{address:02X}: bus {number} is not on this board "
                              f"(buses: {', '.join(map(str, self.i2c_buses))})")
        device = model(address, _params(model.Params, params or {}, f"i2c {kind} 0x{address:02X}"))
        self.i2c[number][address] = device
        return device

    def attach_spi(self, kind: str, *, bus: int | None = None, cs: int = 0,
                   params: dict[str, Any] | None = None) -> SimSPIDevice:
        """Put an SPI part model on ``bus``.``cs``."""
        model = SPI_MODELS.get(kind)
        if model is None:
            raise ConfigError(f"unknown simulated SPI part {kind!r}; known: {', '.join(sorted(SPI_MODELS))}")
        number = self.spi_buses[0] if bus is None else bus
        if number not in self.spi_buses:
            raise ConfigError(f"SPI part {kind}: bus {number} is not on this board "
                              f"(buses: {', '.join(map(str, self.spi_buses))})")
        device = model(_params(model.Params, params or {}, f"spi {kind} {number}.{cs}"))
        self.spi[(number, cs)] = device
        return device

    def spi_devices(self) -> list[tuple[int, int]]:
        """Chip selects that exist: CS0 and CS1 of every SPI bus, plus any a scenario adds."""
        found = {(b, c) for b in self.spi_buses for c in (0, 1)} | set(self.spi)
        return sorted(found)

    def _build_lines(self, board: Board | None, scenario: Scenario) -> None:
        if board is not None:
            for pin in board.pins:
                self.lines[pin.name] = Line(pin.name)
            for label, name in board.leds.items():
                self.lines.setdefault(name, Line(name)).label = label
            for label, name in board.buttons.items():
                line = self.lines.setdefault(name, Line(name))
                line.label, line.input_only = label, True
                cfg = scenario.gpio.buttons.get(label, ButtonEntry())
                line.held = self._button_level(cfg, cfg.pressed)
        self._buttons = {label: scenario.gpio.buttons.get(label, ButtonEntry())
                         for label in (board.buttons if board is not None else {})}
        for name, level in scenario.gpio.inputs.items():
            self._line(name).held = 1 if level else 0
        for a, b in scenario.gpio.jumpers:
            self._line(a)
            self._line(b)
            self.jumpers[a], self.jumpers[b] = b, a

    def _line(self, name: str) -> Line:
        line = self.lines.get(name)
        if line is None:
            if self.board is not None:
                raise ConfigError(f"scenario names GPIO line {name!r}, which is not a pin of {self.board.id}")
            line = self.lines[name] = Line(name)
        return line

    @staticmethod
    def _button_level(cfg: ButtonEntry, pressed: bool) -> int:
        # Nucleo B1 and the ESP32 BOOT key pull their line to GND when pressed (external pull-up).
        return (0 if pressed else 1) if cfg.active_low else (1 if pressed else 0)

    # faults ---------------------------------------------------------------------------------------
    def add_fault(self, spec: FaultEntry | dict[str, Any]) -> None:
        """Script a fault (same keys as a scenario ``[[faults]]`` entry)."""
        entry = spec if isinstance(spec, FaultEntry) else FaultEntry.model_validate(spec)
        self._faults.append(_Fault(entry))

    def clear_faults(self) -> None:
        """Remove every scripted fault."""
        self._faults.clear()

    def _check_faults(self, who: str, bus: int, address: int, op: str) -> None:
        if not self._faults:
            return
        # Every matching fault counts this transaction (so `after` counts transactions, not survivals);
        # the first one due fires.
        due = [f for f in self._faults if f.matches(bus, address, op) and f.fire()]
        if not due:
            return
        for later in due[1:]:  # only one fault can fail a transaction; the others stay armed
            later.fired -= 1
        self._faults = [f for f in self._faults if not f.spent]
        kind = due[0].spec.error
        if kind == "nack":
            raise I2CNackError(f"{who}: no ACK from target 0x{address:02X} (scripted fault)",
                               adapter=who, address=address)
        if kind == "timeout":
            raise BusTimeoutError(f"{who}: transaction with 0x{address:02X} timed out (scripted fault; "
                                  "a target is stretching SCL)", adapter=who, address=address)
        if kind == "stuck_sda":
            raise BusBusyError(f"{who}: I2C bus {bus} is stuck (SDA held low, scripted fault); "
                               "power-cycle the target or clock SCL to release it", adapter=who, address=address)
        raise AdapterUnavailableError(f"{who}: adapter disappeared mid-transaction (scripted unplug); "
                                      "reconnect it and retry", adapter=who, address=address)

    # I2C --------------------------------------------------------------------------------------------
    def _target(self, who: str, bus: int, address: int) -> SimI2CDevice:
        device = self.i2c.get(bus, {}).get(address)
        if device is None or not device.acknowledges():
            raise I2CNackError(f"{who}: no ACK from target 0x{address:02X} on bus {bus}",
                               adapter=who, address=address)
        return device

    @_locked
    def i2c_read(self, who: str, bus: int, address: int, n: int) -> bytes:
        """START, address+R, ``n`` bytes, STOP."""
        try:
            self._check_faults(who, bus, address, "read")
            result = self._target(who, bus, address).read(n)
        except Exception as exc:
            self._record(I2CRead(bus, address, n, error=type(exc).__name__))
            raise
        self._record(I2CRead(bus, address, n, result))
        return result

    @_locked
    def i2c_write(self, who: str, bus: int, address: int, data: bytes) -> None:
        """START, address+W, ``data``, STOP (empty ``data`` is an SMBus quick write)."""
        try:
            self._check_faults(who, bus, address, "write")
            self._target(who, bus, address).write(data)
        except Exception as exc:
            self._record(I2CWrite(bus, address, data, error=type(exc).__name__))
            raise
        self._record(I2CWrite(bus, address, data))

    def i2c_write_read(self, who: str, bus: int, address: int, data: bytes, n: int) -> bytes:
        """Write then read with a repeated START (one transaction on the wire)."""
        # The hot path of every register read: lock and fault check inlined rather than layered.
        with self.lock:
            try:
                if self._faults:
                    self._check_faults(who, bus, address, "read")
                device = self._target(who, bus, address)
                device.write(data)
                result = device.read(n)
            except Exception as exc:
                self._record(I2CWriteRead(bus, address, data, n, error=type(exc).__name__))
                raise
            if self.recording:
                self._record(I2CWriteRead(bus, address, data, n, result))
            return result

    def device(self, address: int, bus: int | None = None) -> SimI2CDevice:
        """The part model at ``address`` (for tests: ``world.device(0x76).inject_anomaly(...)``)."""
        number = self.i2c_buses[0] if bus is None else bus
        try:
            return self.i2c[number][address]
        except KeyError:
            raise InvalidAddressError(f"no simulated part at 0x{address:02X} on bus {number}",
                                      address=address) from None

    def bme280(self, address: int = 0x76, bus: int | None = None) -> BME280Sim:
        """The simulated BME280 at ``address``."""
        device = self.device(address, bus)
        if not isinstance(device, BME280Sim):
            raise InvalidAddressError(f"the part at 0x{address:02X} is a {device.kind}, not a BME280", address=address)
        return device

    # SPI ------------------------------------------------------------------------------------------------
    @_locked
    def spi_transfer(self, who: str, bus: int, cs: int, data: bytes, mode: int) -> bytes:
        """Clock ``data`` with CS low; the part on that CS (if any) answers on MISO."""
        device = self.spi.get((bus, cs))
        result = device.transfer(data, mode) if device is not None else b"\xff" * len(data)
        self._record(SPITransfer(bus, cs, data, mode, result))
        return result

    # GPIO -----------------------------------------------------------------------------------------------
    def line(self, name: str) -> Line:
        """The line called ``name`` (canonical pin name)."""
        try:
            return self.lines[name]
        except KeyError:
            raise InvalidAddressError(f"the simulated board has no GPIO line {name!r}") from None

    def level(self, name: str) -> int:
        """The level on the wire of line ``name``."""
        line = self.line(name)
        if line.direction == "out":
            return line.out
        if line.held is not None:
            return line.held
        peer = self.jumpers.get(name)
        if peer is not None:
            other = self.lines[peer]
            if other.direction == "out":
                return other.out
            if other.held is not None:
                return other.held
        return 1 if line.pull == "up" else 0  # a floating input reads 0 in the model

    @_locked
    def gpio_write(self, name: str, value: int) -> None:
        """Drive line ``name`` to ``value`` (making it an output)."""
        line = self.line(name)
        line.direction, line.out = "out", value
        self._record(GPIOWrite(name, value))

    @_locked
    def gpio_mode(self, name: str, direction: str, pull: str) -> None:
        """Set line ``name``'s direction and pull."""
        line = self.line(name)
        line.direction, line.pull = direction, pull
        self._record(GPIOMode(name, direction, pull))

    # persistence ---------------------------------------------------------------------------------
    @_locked
    def snapshot(self) -> dict[str, Any]:
        """What a later process needs to continue this board: line states and the parts' registers."""
        lines = {n: [ln.direction, ln.pull, ln.out] for n, ln in self.lines.items() if not ln.input_only}
        parts = {}
        for bus, devices in self.i2c.items():
            for address, dev in devices.items():
                regs = getattr(dev, "regs", None)
                if isinstance(regs, bytearray):
                    parts[f"{bus}:{address}"] = {"kind": type(dev).__name__, "regs": regs.hex(),
                                                 "pointer": int(getattr(dev, "pointer", 0))}
        return {"lines": lines, "i2c": parts}

    @_locked
    def restore(self, data: dict[str, Any]) -> None:
        """Apply a :meth:`snapshot`; entries that do not fit this board and scenario are skipped."""
        for name, state in (data.get("lines") or {}).items():
            line = self.lines.get(name)
            if line is None or line.input_only or not isinstance(state, list) or len(state) != 3:
                continue
            direction, pull, out = state
            if direction in ("in", "out") and pull in ("up", "down", "none") and out in (0, 1):
                line.direction, line.pull, line.out = direction, pull, out
        for key, part in (data.get("i2c") or {}).items():
            bus, _, address = str(key).partition(":")
            dev = self.i2c.get(int(bus), {}).get(int(address)) if bus.isdigit() and address.isdigit() else None
            regs = getattr(dev, "regs", None)
            if dev is None or not isinstance(regs, bytearray) or part.get("kind") != type(dev).__name__:
                continue
            try:
                saved = bytes.fromhex(part.get("regs", ""))
            except ValueError:
                continue
            if len(saved) == len(regs):
                regs[:] = saved
                dev.pointer = int(part.get("pointer", 0)) % len(regs)  # type: ignore[attr-defined]

    def _button_line(self, label: str) -> tuple[Line, ButtonEntry]:
        for line in self.lines.values():
            if line.input_only and (line.label == label or line.name == label):
                return line, self._buttons.get(line.label, ButtonEntry())
        raise InvalidAddressError(f"the simulated board has no button {label!r}; buttons: "
                                  f"{', '.join(sorted(self._buttons)) or '(none)'}")

    def press(self, button: str) -> None:
        """Hold a push button down (by label like "B1" or pin name)."""
        line, cfg = self._button_line(button)
        line.held = self._button_level(cfg, True)

    def release(self, button: str) -> None:
        """Let a push button go."""
        line, cfg = self._button_line(button)
        line.held = self._button_level(cfg, False)

    def led(self, label: str) -> int:
        """1 when the LED called ``label`` (or on pin ``label``) is driven high."""
        for line in self.lines.values():
            if line.label == label or line.name == label:
                return line.out if line.direction == "out" else 0
        raise InvalidAddressError(f"the simulated board has no LED {label!r}")


def _params(model: type[BaseModel], data: dict[str, Any], where: str) -> Any:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        lines = [f"  {where}.params.{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()]
        raise ConfigError("simulated part parameters are invalid:\n" + "\n".join(lines)) from None


def _bus_numbers(board: Board | None, kind: str) -> list[int]:
    # In the board file's order: a board lists its primary bus first (i2c1 on the Pi header, where
    # sensors are wired; i2c0 there is the HAT ID EEPROM bus), and the first bus is the default one.
    if board is None:
        return []
    out = []
    for name in board.buses:
        if name.startswith(kind) and name[len(kind):].isdigit():
            out.append(int(name[len(kind):]))
    return out
