"""The write policy of ``[hardware.safety]``, resolved for one adapter.

Rules, in order:

1. ``hardware.safety.read_only = true`` refuses every write on every adapter.
2. ``hardware.safety.adapters.<key>`` is looked up by adapter name (its ``[[peripherals.boards]]``
   name), then by URL scheme (``sim``, ``linux``, ...). Its ``read_only = true`` refuses every write
   on that adapter; ``read_only = false`` allows every write on it.
3. Otherwise (``read_only`` unset) an adapter allows only the writes named in ``writable_gpio`` /
   ``writable_i2c`` / ``writable_spi``. This holds for the simulator (``sim://``) too as soon as a
   section applies to it, so a policy can be rehearsed before it meets hardware; a simulator that no
   section names is writable (it cannot damage anything).

What counts as a write: an I2C transaction that stores a byte in a register (see
:mod:`edge_agent.bus.i2c_rules` for how each byte's register is worked out), every SPI transfer (MOSI
always drives), and any GPIO call that sets a line's level, direction or pull. Reads are never
refused. A refusal is a :class:`~edge_agent.errors.WriteRefusedError` whose message names the key (and
value) that would allow the write.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

from edge_agent.bus.i2c_rules import I2CRule, check_rule_widths, parse_i2c_rule, spans, stored_registers
from edge_agent.errors import ConfigError, WriteRefusedError
from edge_agent.jsontypes import JsonObject

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
        if read_only is False or (entry is None and scheme in SIMULATED_SCHEMES):
            return cls(key, "open")
        if entry is None:
            return cls(key, "allowlist")
        rules = [parse_i2c_rule(t, f"{prefix}.writable_i2c") for t in entry.writable_i2c]
        i2c = tuple(r for r in rules if r is not None)
        check_rule_widths(i2c, f"{prefix}.writable_i2c")
        spi = [parse_spi_rule(t, f"{prefix}.writable_spi") for t in entry.writable_spi]
        return cls(
            key,
            "allowlist",
            gpio=tuple(entry.writable_gpio),
            i2c=i2c,
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

    def describe(self) -> JsonObject:
        """The policy as data (for capabilities() and `bus` CLI output)."""
        return {
            "mode": self.mode,
            "key": self.adapter_key,
            "writable_gpio": list(self.gpio),
            "writable_i2c": ["*"] if self.i2c_any else [r.text() for r in self.i2c],
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

    def check_i2c(self, adapter: str, bus: int, address: int, wire: bytes, *, then_read: bool = False) -> None:
        """Raise WriteRefusedError unless every register the transaction stores into is allowed.

        ``wire`` is every byte sent after the address byte; ``then_read`` says a repeated START and a read
        follow (a pointer alone is then a read).
        """
        if self.mode == "open":
            return
        rules = [r for r in self.i2c if r.address == address]
        width = next((r.pointer_bytes for r in rules if not r.every_register), 1)
        stored = stored_registers(address, wire, then_read=then_read, pointer_bytes=width)
        if not stored:
            return  # only a register pointer for the read that follows
        digits = 2 * width
        where = f"I2C target 0x{address:02X} on bus {bus}"
        what = f"write {where} (registers {spans(list(stored), digits)})"
        first = min(stored)
        if self.mode == "read_only":
            self._refuse_read_only(adapter, what, address, first)
        if self.i2c_any:
            return
        outside = sorted(r for r in stored if not any(rule.covers(r) for rule in rules))
        if not outside:
            return
        how = stored[outside[0]].how
        listed = ", ".join(f'"{r.text()}"' for r in rules) or "no entry"
        wanted = ", ".join(f'"0x{address:02X}:{span}"' for span in spans(list(stored), digits).split(", "))
        raise WriteRefusedError(
            f"{adapter}: refused to write {where}: the transaction would store into register(s) "
            f"{spans(outside, digits)} (on {how}); {self.key_path('writable_i2c')} does not allow them "
            f"(it has {listed} for this address); to allow it add {wanted} (or \"0x{address:02X}\" for every "
            "register)",
            adapter=adapter,
            address=address,
            register=outside[0],
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

    def check_gpio(self, adapter: str, what: str, given: str | int, *, allowed: bool) -> None:
        """Raise WriteRefusedError unless a line may be changed; ``allowed``: the line is on the resolved allow-list.

        ``what`` says what the call would do ("drive GPIO LD2 (PA5) to 1"), ``given`` is the caller's spelling.
        """
        if self.mode == "open":
            return
        if self.mode == "read_only":
            self._refuse_read_only(adapter, what)
        if allowed:
            return
        raise WriteRefusedError(
            f'{adapter}: refused to {what}: the line is not on {self.key_path("writable_gpio")}; add "{given}" there '
            "(setting a line's level, direction or pull counts as a write)", adapter=adapter
        )


def _toml_key(key: str) -> str:
    return key if key.replace("_", "").replace("-", "").isalnum() else f'"{key}"'
