"""``writable_i2c`` entries and the registers one I2C write transaction stores into.

The check works on the bytes that go over the wire after the address byte, whichever method sent
them (``write``, ``write_register``, ``write_read``, ``read_register``, directly or through a
``trace+`` wrapper), so every door reaches the same decision:

* a write followed by a repeated START and a read whose bytes only set the register pointer stores
  nothing: it is a read;
* otherwise every register any data byte can land in is collected, reading the bytes as a part with
  an auto-incrementing pointer does and, at addresses where the chip data
  (:mod:`edge_agent.chips.i2c_writes`) lists parts that store differently (register/value pairs,
  page wrap, small register files), as each of those does;
* a plain write with no data byte after the pointer counts as a write to the register it names
  (command-byte parts and output latches such as a PCF8574 store that byte).

The transaction is allowed only if every collected register is inside a rule for its address. A rule
whose registers are written with four hex digits (``0x50:0x0000-0x0FFF``) or exceed 0xFF is for a part
with two-byte register addresses, high byte first (24C32 and larger EEPROMs); its address's writes are
then read with a two-byte pointer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from edge_agent.chips.i2c_writes import AUTO_INCREMENT, WriteLayout, layouts_at
from edge_agent.errors import ConfigError

_NUMBER = re.compile(r"0[xX][0-9a-fA-F]+|\d+")


@dataclass(frozen=True, slots=True)
class I2CRule:
    """One ``writable_i2c`` entry: an address and, unless it allows every register, an inclusive range."""

    address: int
    first: int = 0x00
    last: int = 0xFFFF
    #: Register pointer bytes of the part at this address (2 when the rule writes registers as 0x0000).
    pointer_bytes: int = 1
    every_register: bool = True

    def covers(self, register: int) -> bool:
        """Whether a byte stored at ``register`` is allowed by this rule."""
        return self.every_register or self.first <= register <= self.last

    def text(self) -> str:
        """The rule as a config entry."""
        if self.every_register:
            return f"0x{self.address:02X}"
        digits = 2 * self.pointer_bytes
        if self.first == self.last:
            return f"0x{self.address:02X}:0x{self.first:0{digits}X}"
        return f"0x{self.address:02X}:0x{self.first:0{digits}X}-0x{self.last:0{digits}X}"


def _register_width(text: str, value: int) -> int:
    hex_digits = len(text) - 2 if text.lower().startswith("0x") else 0
    return 2 if value > 0xFF or hex_digits > 2 else 1


def parse_i2c_rule(text: str, key: str) -> I2CRule | None:
    """Parse '0x3C', '0x76:0xF4', '0x76:0xF2-0xF5' or '0x50:0x0000-0x0FFF' ('*' returns None = any)."""
    text = text.strip()
    if text == "*":
        return None
    addr_text, colon, regs = text.partition(":")
    lo, _, hi = regs.partition("-")
    parts = [addr_text] + ([lo] + ([hi] if hi else []) if colon else [])
    if not all(_NUMBER.fullmatch(p.strip()) for p in parts):
        raise ConfigError(
            f"{key}: {text!r} is not an I2C rule; use '0x3C' (any register), '0x76:0xF4', '0x76:0xF2-0xF5', or "
            "'0x50:0x0000-0x0FFF' for a part with two-byte register addresses"
        )
    address = int(addr_text, 0)
    if not 0x03 <= address <= 0x77:
        raise ConfigError(f"{key}: {text!r} has address 0x{address:02X}, outside the 7-bit range 0x03-0x77")
    if not colon:
        return I2CRule(address)
    first = int(lo, 0)
    last = int(hi, 0) if hi else first
    width = max(_register_width(lo.strip(), first), _register_width(hi.strip(), last) if hi else 1)
    if not 0 <= first <= last <= 0xFFFF:
        raise ConfigError(f"{key}: {text!r} has a register range that is empty or above 0xFFFF")
    return I2CRule(address, first, last, width, every_register=False)


def check_rule_widths(rules: tuple[I2CRule, ...], key: str) -> None:
    """Refuse rules for one address that mix one-byte and two-byte register numbers (one part, one width)."""
    widths: dict[int, set[int]] = {}
    for rule in rules:
        if not rule.every_register:
            widths.setdefault(rule.address, set()).add(rule.pointer_bytes)
    for address, found in widths.items():
        if len(found) > 1:
            raise ConfigError(f"{key}: the rules for 0x{address:02X} mix one-byte registers (0xF4) and "
                              "two-byte registers (0x00F4); a part has one register address width, so write them all "
                              "one way")


def stored_registers(address: int, wire: bytes, *, then_read: bool, pointer_bytes: int = 1
                     ) -> dict[int, WriteLayout]:
    """Every register the data of one write to ``address`` can land in, with the first reading that lands there.

    ``wire`` is what follows the address byte; ``then_read`` says a repeated START and a read follow.
    """
    out: dict[int, WriteLayout] = {}
    for layout in layouts_at(address, pointer_bytes):
        for register in layout.stored_registers(wire):
            out.setdefault(register, layout)
    if not out and not then_read and wire:
        # No data after the pointer: a command byte or an output latch takes the byte itself.
        out[int.from_bytes(wire[:pointer_bytes], "big")] = AUTO_INCREMENT[pointer_bytes]
    return out


def spans(registers: list[int], digits: int = 2) -> str:
    """Sorted registers as compact ranges: ``0x01-0x04, 0xE0``."""
    out: list[str] = []
    regs = sorted(registers)
    i = 0
    while i < len(regs):
        j = i
        while j + 1 < len(regs) and regs[j + 1] == regs[j] + 1:
            j += 1
        first, last = regs[i], regs[j]
        out.append(f"0x{first:0{digits}X}" if first == last else f"0x{first:0{digits}X}-0x{last:0{digits}X}")
        i = j + 1
    return ", ".join(out)
