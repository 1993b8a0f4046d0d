"""What an adapter URL names (:class:`Adapter`): it hands out I2C buses and SPI devices, resolves pin
names and drives GPIO lines, applying the safety policy once for every backend."""

from __future__ import annotations

import abc
import logging
import threading
import time
from collections.abc import Hashable
from typing import TYPE_CHECKING, Any, Self

from edge_agent.bus.checks import MAX_PIN_CHARS, PIN_CACHE_SIZE, SPI_MODES, Direction, Pull
from edge_agent.bus.gpio_grants import GpioGrant, PinSource, resolve_entries, spelled
from edge_agent.bus.i2c import I2CBus
from edge_agent.bus.spi import SPIDevice
from edge_agent.errors import AdapterUnavailableError, BusError, InvalidAddressError, NextStep, echo
from edge_agent.jsontypes import JsonObject

if TYPE_CHECKING:
    from edge_agent.bus.safety import SafetyPolicy
    from edge_agent.bus.url import AdapterURL
    from edge_agent.pins import PinIndex

log = logging.getLogger(__name__)


class ReadOnlyPinError(InvalidAddressError):
    """The pin exists but cannot be driven (an input-only line such as a push button)."""

    def __init__(self, message: str, *, adapter: str, pin: str, hint: NextStep | None = None) -> None:
        super().__init__(message, adapter=adapter, hint=hint)
        self.pin = pin



class Adapter(abc.ABC):
    """What an adapter URL names: hands out I2C buses and SPI devices, and drives GPIO lines."""

    #: URL scheme of this backend.
    scheme: str = ""

    def __init__(self, url: AdapterURL, *, name: str | None, board: str | None, safety: SafetyPolicy) -> None:
        self.parsed_url = url
        self.url: str = str(url)
        self.name: str = name or self.url
        self.board: str | None = board
        self.safety = safety
        self.closed = False
        self._lock = threading.RLock()
        self._i2c: dict[int, I2CBus] = {}
        self._spi: dict[tuple[int, int, int, int], SPIDevice] = {}
        self._pins: dict[str | int, tuple[str, Hashable]] = {}
        # writable_gpio resolved to backend lines once, at open (see fix_gpio_grants); never moved after.
        self._gpio_grants: dict[Hashable, GpioGrant] = {}
        self._gpio_any = False
        self._grants_fixed = False
        self._pin_index: PinIndex | None = None  # None: the default index (board files and bundled datasheets)
        # What this adapter last did to or saw on each GPIO line (canonical name -> mode/level/at), so a
        # status view can show levels without touching the bus: on Linux, reading a line requests it as
        # an input, which would release an output the agent is driving.
        self._gpio_seen: dict[str, dict[str, Any]] = {}

    # context manager -------------------------------------------------------------------------
    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.url!r} name={self.name!r} board={self.board!r}>"

    def _check_open(self) -> None:
        if self.closed:
            raise AdapterUnavailableError(f"{self.url}: adapter is closed; open it again with its URL",
                                          adapter=self.url)

    # ports -----------------------------------------------------------------------------------
    def i2c(self, bus: int | str | None = None) -> I2CBus:
        """The I2C bus ``bus`` (an int, or a board name like "i2c1"); None means the first bus."""
        self._check_open()
        buses = self._i2c_buses()
        if not buses:
            raise InvalidAddressError(f"{self.url}: this adapter has no I2C bus", adapter=self.url)
        number = buses[0] if bus is None else _bus_number(bus, "i2c", self.url)
        if number not in buses:
            raise InvalidAddressError(
                f"{self.url}: I2C bus {bus!r} does not exist; available: {', '.join(map(str, buses))}",
                adapter=self.url,
            )
        with self._lock:
            port = self._i2c.get(number)
            if port is None or port._closed:
                port = self._i2c[number] = self._open_i2c(number)
        return port

    def spi(self, bus: int | str | None = None, cs: int = 0, *, mode: int = 0, speed_hz: int = 1_000_000) -> SPIDevice:
        """The SPI device on ``bus`` (None = first bus) and chip select ``cs`` with ``mode`` 0-3."""
        self._check_open()
        devices = self._spi_buses()
        if not devices:
            raise InvalidAddressError(f"{self.url}: this adapter has no SPI bus", adapter=self.url)
        number = devices[0][0] if bus is None else _bus_number(bus, "spi", self.url)
        if (number, cs) not in devices:
            listed = ", ".join(f"{b}.{c}" for b, c in devices)
            raise InvalidAddressError(
                f"{self.url}: SPI bus.cs {number}.{cs} does not exist; available: {listed}", adapter=self.url
            )
        if mode not in SPI_MODES:
            raise InvalidAddressError(f"{self.url}: SPI mode {mode!r} must be 0, 1, 2 or 3", adapter=self.url)
        if not isinstance(speed_hz, int) or not 1_000 <= speed_hz <= 100_000_000:
            raise InvalidAddressError(
                f"{self.url}: SPI speed_hz {speed_hz!r} must be between 1_000 and 100_000_000", adapter=self.url
            )
        key = (number, cs, mode, speed_hz)
        with self._lock:
            port = self._spi.get(key)
            if port is None or port._closed:
                port = self._spi[key] = self._open_spi(number, cs, mode, speed_hz)
        return port

    # GPIO ------------------------------------------------------------------------------------
    def use_pins(self, index: PinIndex | None) -> None:
        """Resolve pin names with this pin index from now on (None: the default index of the board files and
        the bundled datasheets)."""
        with self._lock:
            self._pin_index = index
            self._pins.clear()

    def resolve_pin(self, pin: str | int) -> tuple[str, Hashable]:
        """Map a pin name, alias or number to (canonical name, backend line id), via the pin resolver."""
        if isinstance(pin, bool) or not isinstance(pin, str | int):
            raise InvalidAddressError(f"{self.url}: pin {echo(repr(pin))} must be a name or a number",
                                      adapter=self.url)
        if isinstance(pin, str) and len(pin) > MAX_PIN_CHARS:
            raise InvalidAddressError(f"{self.url}: pin name {echo(pin)} is longer than {MAX_PIN_CHARS} "
                                      "characters; use the board's pin name or an alias", adapter=self.url)
        hit = self._pins.get(pin)
        if hit is not None:
            return hit
        record = None
        if self.board:
            from edge_agent.pins import resolve

            record = resolve(self.board, pin, self._pin_index)
            name = record.name
        else:
            name = str(pin)
        line = self._gpio_line(record, pin)
        with self._lock:
            while len(self._pins) >= PIN_CACHE_SIZE:  # forget the oldest spelling
                self._pins.pop(next(iter(self._pins)))
            self._pins[pin] = (name, line)
        return name, line

    def gpio_read(self, pin: str | int) -> int:
        """Read the level (0 or 1) of a GPIO line."""
        self._check_open()
        name, line = self.resolve_pin(pin)
        value = self._gpio_read(line)
        self._note_gpio(name, level=value)
        return value

    def gpio_write(self, pin: str | int, value: int) -> None:
        """Drive a GPIO line to ``value`` (0 or 1), making it an output if it is not one."""
        self._check_open()
        if value not in (0, 1) or isinstance(value, float):
            raise InvalidAddressError(f"{self.url}: GPIO value {value!r} must be 0 or 1", adapter=self.url)
        name, line = self.resolve_pin(pin)
        self._check_gpio(line, f"drive GPIO {_shown(name, pin)} to {int(value)}", pin)
        self._gpio_write(line, int(value))
        self._note_gpio(name, mode="out", level=int(value))

    def gpio_mode(self, pin: str | int, direction: Direction, pull: Pull = "none") -> None:
        """Set a GPIO line's direction ("in"/"out") and pull ("up"/"down"/"none").

        A write for the safety policy whatever the direction: making a driven output an input, or changing
        its pull, changes the level on the wire as surely as driving it.
        """
        self._check_open()
        if direction not in ("in", "out"):
            raise InvalidAddressError(f"{self.url}: direction {direction!r} must be 'in' or 'out'",
                                      adapter=self.url)
        if pull not in ("up", "down", "none"):
            raise InvalidAddressError(f"{self.url}: pull {pull!r} must be 'up', 'down' or 'none'", adapter=self.url)
        name, line = self.resolve_pin(pin)
        self._check_gpio(line, f"make GPIO {_shown(name, pin)} an {direction}put with pull {pull}", pin)
        self._gpio_mode(line, direction, pull)
        self._note_gpio(name, mode=direction, pull=pull)

    def _note_gpio(self, name: str, **fields: Any) -> None:
        entry = self._gpio_seen.setdefault(name, {})
        entry.update(fields, at=time.time())

    def gpio_states(self) -> dict[str, JsonObject]:
        """Known state of each GPIO line by canonical name: ``mode`` ("in"/"out"), ``level``, ``pull``.

        Made from what this adapter drove or read (no bus traffic), overlaid with what the backend can
        observe without side effects (:meth:`_gpio_observe`). Lines never touched are absent.
        """
        states = {name: dict(entry) for name, entry in list(self._gpio_seen.items())}
        for name, seen in self._gpio_observe().items():
            states.setdefault(name, {}).update(seen)
        return states

    def gpio_writable(self, pin: str | int) -> bool:
        """Whether the safety policy lets this adapter drive ``pin`` (a check only: nothing is written)."""
        from edge_agent.errors import EdgeAgentError

        try:
            name, line = self.resolve_pin(pin)
            self._check_gpio(line, f"drive GPIO {_shown(name, pin)}", pin)
        except EdgeAgentError:
            return False
        return True

    def fix_gpio_grants(self, pins: PinSource = None) -> None:
        """Resolve the policy's ``writable_gpio`` entries to this adapter's lines, once.

        :func:`~edge_agent.bus.registry.open_adapter` calls this right after the backend opens, with the
        pin index of the configured datasheets (``pins``); the lines stay fixed when the adapter's pin
        index changes later. An entry that does not resolve to one line is a ConfigError naming it.
        """
        from edge_agent.errors import ConfigError, EdgeAgentError

        policy = self.safety
        grants: dict[Hashable, GpioGrant] = {}
        if policy.mode == "allowlist":
            key = policy.key_path("writable_gpio")
            for grant in resolve_entries(policy.gpio, self.board, pins, key):
                try:
                    line = self._gpio_line(grant.pin, spelled(grant.entry))
                except ConfigError:
                    raise
                except EdgeAgentError as exc:
                    raise ConfigError(f"{key}: entry {grant.entry!r} is not a GPIO line of {self.url}: "
                                      f"{exc.message()}") from None
                grants.setdefault(line, grant)
        self._gpio_grants = grants
        self._gpio_any = any(e.strip() == "*" for e in policy.gpio)
        self._grants_fixed = True

    def gpio_grants(self) -> list[str]:
        """The resolved ``writable_gpio`` entries (``red_led -> PA5``), as fixed when the adapter opened."""
        if not self._grants_fixed and self.safety.mode == "allowlist":
            self.fix_gpio_grants()
        return (["*"] if self._gpio_any else []) + [g.describe() for g in self._gpio_grants.values()]

    def _check_gpio(self, line: Hashable, what: str, given: str | int) -> None:
        policy = self.safety
        if policy.writes_open:
            return
        if not self._grants_fixed:
            self.fix_gpio_grants()
        policy.check_gpio(self.url, what, given, allowed=self._gpio_any or line in self._gpio_grants)

    # info ------------------------------------------------------------------------------------
    def capabilities(self) -> JsonObject:
        """What this adapter offers: buses, chip selects, GPIO, limits."""
        try:
            spi = [f"{b}.{c}" for b, c in self._spi_buses()]
        except NotImplementedError:
            spi = []
        return {
            "scheme": self.scheme,
            "url": self.url,
            "name": self.name,
            "board": self.board,
            "i2c": self._i2c_buses(),
            "spi": spi,
            "gpio": self._has_gpio(),
            "ten_bit_addresses": False,
            "writes": {**self.safety.describe(), "writable_gpio_resolved": self.gpio_grants()},
            **self._extra_capabilities(),
        }

    def health(self) -> JsonObject:
        """A small status record: {"ok", "url", "name", ...backend details}."""
        if self.closed:
            return {"ok": False, "url": self.url, "name": self.name, "detail": "closed"}
        try:
            detail = self._health()
        except BusError as exc:
            return {"ok": False, "url": self.url, "name": self.name, "detail": str(exc)}
        return {"ok": True, "url": self.url, "name": self.name, **detail}

    def close(self) -> None:
        """Release every port and the device (idempotent)."""
        with self._lock:
            if self.closed:
                return
            self.closed = True
            ports: list[I2CBus | SPIDevice] = [*self._i2c.values(), *self._spi.values()]
            self._i2c.clear()
            self._spi.clear()
        for port in ports:
            try:
                port.close()
            except BusError as exc:  # closing must not mask the others
                log.warning("%s: closing a port failed: %s", self.url, exc)
        self._release()

    # hooks -------------------------------------------------------------------------------------
    @abc.abstractmethod
    def _i2c_buses(self) -> list[int]: ...

    @abc.abstractmethod
    def _open_i2c(self, bus: int) -> I2CBus: ...

    def _spi_buses(self) -> list[tuple[int, int]]:
        return []

    def _open_spi(self, bus: int, cs: int, mode: int, speed_hz: int) -> SPIDevice:
        raise InvalidAddressError(f"{self.url}: this adapter has no SPI bus", adapter=self.url)

    def _has_gpio(self) -> bool:
        return True

    def _gpio_line(self, pin: Any, raw: str | int) -> Hashable:
        """Backend line id for a resolved ``edge_agent.pins.Pin`` (or None without a board) and the given name."""
        raise InvalidAddressError(f"{self.url}: this adapter has no GPIO lines", adapter=self.url)

    def _gpio_read(self, line: Any) -> int:
        raise InvalidAddressError(f"{self.url}: this adapter has no GPIO lines", adapter=self.url)

    def _gpio_observe(self) -> dict[str, dict[str, Any]]:
        """Line states the backend can see without changing them (a simulator's model); none by default."""
        return {}

    def _gpio_write(self, line: Any, value: int) -> None:
        raise InvalidAddressError(f"{self.url}: this adapter has no GPIO lines", adapter=self.url)

    def _gpio_mode(self, line: Any, direction: Direction, pull: Pull) -> None:
        raise InvalidAddressError(f"{self.url}: this adapter has no GPIO lines", adapter=self.url)

    def _extra_capabilities(self) -> dict[str, Any]:
        return {}

    def _health(self) -> dict[str, Any]:
        return {}

    def _release(self) -> None:  # noqa: B027 - optional hook
        """Free the device handle."""


def _shown(name: str, given: str | int) -> str:
    return name if str(given) == name else f"{given!s} ({name})"


def _bus_number(bus: int | str, kind: str, adapter: str) -> int:
    if isinstance(bus, int) and not isinstance(bus, bool):
        return bus
    if isinstance(bus, str):
        text = bus.strip().lower().removeprefix(kind).removeprefix("-")
        if text.isdigit():
            return int(text)
    raise InvalidAddressError(f"{adapter}: {kind.upper()} bus {bus!r} must be a number like 1 or a name like "
                              f"'{kind}1'", adapter=adapter)
