"""The write policy of ``[hardware.safety]``, resolved for one adapter.

Rules, in order:

1. ``hardware.safety.read_only = true`` refuses every write on every adapter.
2. ``hardware.safety.adapters.<key>`` is looked up by adapter name (its ``[[peripherals.boards]]``
   name), then by URL scheme (``sim``, ``linux``, ...). Its ``read_only = true`` refuses every write
   on that adapter; ``read_only = false`` allows every write on it.
3. Otherwise (``read_only`` unset) the simulator (``sim://``) is writable, and a real adapter allows
   only writes named in ``writable_gpio`` / ``writable_i2c`` / ``writable_spi``.

Reads are never refused. A refusal is a :class:`~edge_agent.errors.WriteRefusedError` whose message
names the key (and value) that would allow the write.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from edge_agent.errors import ConfigError, WriteRefusedError

Mode = Literal["open", "allowlist", "read_only"]


class AdapterRules(Protocol):
    """One ``[hardware.safety.adapters.<key>]`` table as the policy reads it (the configuration's shape)."""

    @property
    def read_only(self) -> bool | None: ...
    @property
    def writable_gpio(self) -> Sequence[str]: ...
    @property
    def writable_i2c(self) -> Sequence[str]: ...
    @property
    def writable_spi(self) -> Sequence[str]: ...


class SafetyRules(Protocol):
    """The ``[hardware.safety]`` section as the policy reads it; the bus takes it as plain data."""

    @property
    def read_only(self) -> bool: ...
    @property
    def adapters(self) -> Mapping[str, AdapterRules]: ...
#: Schemes whose writes cannot damage anything, so they are writable unless configured otherwise.
SIMULATED_SCHEMES = frozenset({"sim"})


@dataclass(frozen=True, slots=True)
class I2CRule:
    """One ``writable_i2c`` entry: an address and an inclusive register range."""

    address: int
    first: int = 0x00
    last: int = 0xFFFF

    def allows(self, address: int, register: int | None, length: int) -> bool:
        """Whether this rule covers a write of ``length`` bytes at ``register`` of ``address``."""
        if address != self.address:
            return False
        if register is None:
            return self.first == 0 and self.last == 0xFFFF
        return self.first <= register and register + max(length, 1) - 1 <= self.last


def parse_i2c_rule(text: str, key: str) -> I2CRule | None:
    """Parse '0x3C', '0x76:0xF4' or '0x76:0xF2-0xF5' ('*' returns None = any)."""
    text = text.strip()
    if text == "*":
        return None
    addr_text, _, regs = text.partition(":")
    try:
        address = int(addr_text, 0)
        if regs:
            lo, _, hi = regs.partition("-")
            first = int(lo, 0)
            last = int(hi, 0) if hi else first
        else:
            first, last = 0x00, 0xFFFF
    except ValueError:
        raise ConfigError(
            f"{key}: {text!r} is not an I2C rule; use '0x3C' (any register), '0x76:0xF4' or '0x76:0xF2-0xF5'"
        ) from None
    if not 0x03 <= address <= 0x77 or not 0 <= first <= last <= 0xFFFF:
        raise ConfigError(f"{key}: {text!r} has an address outside 0x03-0x77 or a bad register range")
    return I2CRule(address, first, last)


def parse_spi_rule(text: str, key: str) -> tuple[int, int] | None:
    """Parse '0.1' (bus.chip-select) ('*' returns None = any)."""
    text = text.strip()
    if text == "*":
        return None
    bus, dot, cs = text.partition(".")
    if not dot or not bus.isdigit() or not cs.isdigit():
        raise ConfigError(f"{key}: {text!r} is not an SPI device; use 'BUS.CS' like '0.0', or '*'")
    return int(bus), int(cs)


@dataclass(slots=True)
class SafetyPolicy:
    """Write permissions for one adapter, built from ``[hardware.safety]``."""

    adapter_key: str
    mode: Mode
    read_only_key: str = "hardware.safety.read_only"
    gpio: tuple[str, ...] = ()
    i2c: tuple[I2CRule, ...] = ()
    i2c_any: bool = False
    spi: frozenset[tuple[int, int]] = field(default_factory=frozenset)
    spi_any: bool = False

    @classmethod
    def for_adapter(cls, config: SafetyRules | None, *, name: str, scheme: str) -> SafetyPolicy:
        """Resolve the policy of adapter ``name`` (URL scheme ``scheme``) from ``config`` (None: defaults)."""
        adapters: Mapping[str, AdapterRules] = config.adapters if config is not None else {}
        # The adapter's own section wins; else its scheme's; refusals then point at the most specific key.
        key = name if name in adapters or scheme not in adapters else scheme
        entry = adapters.get(key)
        if config is not None and config.read_only:
            return cls(key, "read_only", read_only_key="hardware.safety.read_only")
        prefix = f"hardware.safety.adapters.{_toml_key(key)}"
        read_only = entry.read_only if entry is not None else None
        if read_only is True:
            return cls(key, "read_only", read_only_key=f"{prefix}.read_only")
        if read_only is False or (read_only is None and scheme in SIMULATED_SCHEMES):
            return cls(key, "open")
        if entry is None:
            return cls(key, "allowlist")
        rules = [parse_i2c_rule(t, f"{prefix}.writable_i2c") for t in entry.writable_i2c]
        spi = [parse_spi_rule(t, f"{prefix}.writable_spi") for t in entry.writable_spi]
        return cls(
            key,
            "allowlist",
            gpio=tuple(entry.writable_gpio),
            i2c=tuple(r for r in rules if r is not None),
            i2c_any=any(r is None for r in rules),
            spi=frozenset(s for s in spi if s is not None),
            spi_any=any(s is None for s in spi),
        )

    @classmethod
    def open(cls, key: str = "test") -> SafetyPolicy:
        """A policy that allows every write (tests, the simulator)."""
        return cls(key, "open")

    @property
    def writes_open(self) -> bool:
        """True when every write is allowed (no checks needed)."""
        return self.mode == "open"

    def key_path(self, leaf: str) -> str:
        """The config key path of ``leaf`` for this adapter."""
        return f"hardware.safety.adapters.{_toml_key(self.adapter_key)}.{leaf}"

    def gpio_entries(self) -> tuple[str, ...]:
        """The raw ``writable_gpio`` entries (resolved to pins by the adapter)."""
        return self.gpio

    def describe(self) -> dict[str, Any]:
        """The policy as data (for capabilities() and `bus` CLI output)."""
        return {
            "mode": self.mode,
            "key": self.adapter_key,
            "writable_gpio": list(self.gpio),
            "writable_i2c": ["*"] if self.i2c_any else [_rule_text(r) for r in self.i2c],
            "writable_spi": ["*"] if self.spi_any else [f"{b}.{c}" for b, c in sorted(self.spi)],
        }

    # checks --------------------------------------------------------------------------------------
    def _refuse_read_only(self, adapter: str, what: str, address: int | None = None,
                          register: int | None = None) -> None:
        raise WriteRefusedError(
            f"{adapter}: refused to {what}: the adapter is read-only ({self.read_only_key} = true); "
            f"set {self.read_only_key} = false to allow writes",
            adapter=adapter,
            address=address,
            register=register,
        )

    def check_i2c_write(self, adapter: str, bus: int, address: int, register: int | None, length: int = 1) -> None:
        """Raise WriteRefusedError unless a write to ``address``/``register`` is allowed."""
        if self.mode == "open":
            return
        reg = "" if register is None else f" register 0x{register:02X}"
        what = f"write I2C target 0x{address:02X}{reg} on bus {bus}"
        if self.mode == "read_only":
            self._refuse_read_only(adapter, what, address, register)
        if self.i2c_any or any(r.allows(address, register, length) for r in self.i2c):
            return
        value = f"0x{address:02X}" if register is None else f"0x{address:02X}:0x{register:02X}"
        raise WriteRefusedError(
            f"{adapter}: refused to {what}: writes on a real adapter need an allow-list entry; "
            f'add "{value}" (or "0x{address:02X}" for every register) to {self.key_path("writable_i2c")}',
            adapter=adapter,
            address=address,
            register=register,
        )

    def check_spi(self, adapter: str, bus: int, cs: int) -> None:
        """Raise WriteRefusedError unless SPI transfers to ``bus``.``cs`` are allowed (MOSI always writes)."""
        if self.mode == "open":
            return
        what = f"clock data out to SPI device {bus}.{cs}"
        if self.mode == "read_only":
            self._refuse_read_only(adapter, what)
        if self.spi_any or (bus, cs) in self.spi:
            return
        raise WriteRefusedError(
            f'{adapter}: refused to {what}: add "{bus}.{cs}" to {self.key_path("writable_spi")}', adapter=adapter
        )

    def check_gpio_write(self, adapter: str, name: str, given: str | int, allowed: frozenset[str]) -> None:
        """Raise WriteRefusedError unless pin ``name`` (canonical) is in ``allowed`` (canonical names)."""
        if self.mode == "open":
            return
        shown = name if str(given) == name else f"{given!s} ({name})"
        what = f"drive GPIO {shown}"
        if self.mode == "read_only":
            self._refuse_read_only(adapter, what)
        if "*" in allowed or name in allowed:
            return
        raise WriteRefusedError(
            f'{adapter}: refused to {what}: add "{given}" to {self.key_path("writable_gpio")}', adapter=adapter
        )


def _rule_text(rule: I2CRule) -> str:
    if rule.first == 0 and rule.last == 0xFFFF:
        return f"0x{rule.address:02X}"
    if rule.first == rule.last:
        return f"0x{rule.address:02X}:0x{rule.first:02X}"
    return f"0x{rule.address:02X}:0x{rule.first:02X}-0x{rule.last:02X}"


def _toml_key(key: str) -> str:
    return key if key.replace("_", "").replace("-", "").isalnum() else f'"{key}"'
