"""How I2C parts store the bytes of one write transaction, as data the write policy reads.

After the address byte, most parts take a register pointer and store each following byte at the
pointer, which then advances by one (auto-increment). Some parts differ, and a policy that assumed
auto-increment everywhere would let a write land outside the registers it allows:

* register/value pairs: the BME280 and BMP280 take ``reg, value, reg, value, ...`` in one write
  (BME280 datasheet 6.2.1, "auto-increment is not supported for writing"), so ``F2 01 E0 B6`` sets
  ctrl_hum and then soft-resets the part;
* page wrap: a 24Cxx EEPROM's address counter rolls over inside its write page, so bytes past the end
  of a page land at the start of the same page (8-byte pages on the 24C01/02, 16 on the 24C04-16,
  32-128 on the parts with two word-address bytes);
* small register files: the pointer wraps at the end of the register file (MCP23017 after 0x15 in
  its BANK = 0 layout, DS3231 after 0x12, DS1307 after its 64 bytes of clock and RAM);
* A/B toggling: an MCP23017 in byte mode (IOCON.SEQOP = 1, BANK = 0) alternates between the A and B
  register of a pair instead of advancing.

The policy assumes plain auto-increment for every part and, at the addresses listed here, also each
listed way the parts that can sit there store data; a write is allowed only if every register that
any of these readings stores into is allowed.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class WriteLayout:
    """How one family of parts stores the data of a write."""

    part: str
    addresses: tuple[int, ...]
    #: Register pointer bytes at the start of a write (two, high byte first, on 24C32 and larger EEPROMs).
    pointer_bytes: int = 1
    #: The payload is register/value pairs instead of one pointer and a stream of values.
    pairs: bool = False
    #: The pointer wraps inside aligned blocks of this many registers (a write page).
    wrap: int | None = None
    #: The part has this many registers: the pointer is taken modulo it and wraps to 0 past the last one.
    registers: int | None = None
    #: The pointer may alternate between the two registers of a pair (register ^ 1) instead of advancing.
    toggles_pairs: bool = False
    #: How the part is described in a refusal.
    how: str = ""

    def stored_registers(self, wire: bytes) -> list[int]:
        """The registers the data bytes of ``wire`` (everything after the address byte) land in, in order.

        A write no longer than the pointer stores nothing (it only sets the pointer for a read).
        """
        if self.pairs:
            return [wire[i] for i in range(0, len(wire) - 1, 2)]
        width = self.pointer_bytes
        if len(wire) <= width:
            return []
        start = int.from_bytes(wire[:width], "big")
        count = len(wire) - width
        if self.registers:
            start %= self.registers
        if self.wrap:
            base, offset = start - start % self.wrap, start % self.wrap
            regs = [base + (offset + i) % self.wrap for i in range(min(count, self.wrap))]
        else:
            regs = list(range(start, start + count))
        if self.registers:
            regs = sorted({r % self.registers for r in regs})
        if self.toggles_pairs:
            regs = sorted(set(regs) | {r ^ 1 for r in regs})
        return regs


#: Plain auto-increment with a one-byte or two-byte pointer: what the policy assumes for every part.
AUTO_INCREMENT = {
    1: WriteLayout("any part", (), 1, how="a part that auto-increments its register pointer"),
    2: WriteLayout("any part", (), 2, how="a part with two-byte register addresses that auto-increments them"),
}

_EEPROM = tuple(range(0x50, 0x58))
_MCP23017 = tuple(range(0x20, 0x28))

LAYOUTS: tuple[WriteLayout, ...] = (
    WriteLayout("BME280/BMP280", (0x76, 0x77), pairs=True,
                how="a BME280 or BMP280, which takes register/value pairs"),
    WriteLayout("24C01 EEPROM", _EEPROM, wrap=8, registers=128,
                how="a 24C01 EEPROM, whose 8-byte write page and 128-byte memory wrap"),
    WriteLayout("24C02 EEPROM", _EEPROM, wrap=8, how="a 24C02 EEPROM, whose 8-byte write page wraps"),
    WriteLayout("24C04-24C16 EEPROM", _EEPROM, wrap=16, how="a 24C04-16 EEPROM, whose 16-byte write page wraps"),
    *(WriteLayout(f"24C{size * 8 // 1024:d} EEPROM", _EEPROM, 2, wrap=page, registers=size,
                  how=f"a 24C{size * 8 // 1024:d} EEPROM, whose {page}-byte write page and memory wrap")
      for size, page in ((4096, 32), (8192, 32), (16384, 64), (32768, 64), (65536, 128))),
    WriteLayout("MCP23017", _MCP23017, registers=0x16, how="an MCP23017, whose pointer wraps after register 0x15"),
    WriteLayout("MCP23017 byte mode", _MCP23017, toggles_pairs=True,
                how="an MCP23017 in byte mode, which toggles between the A and B register of a pair"),
    WriteLayout("DS3231", (0x68,), registers=0x13, how="a DS3231, whose pointer wraps after register 0x12"),
    WriteLayout("DS1307", (0x68,), registers=0x40, how="a DS1307, whose pointer wraps after its 64 registers"),
)


def layouts_at(address: int, pointer_bytes: int) -> tuple[WriteLayout, ...]:
    """Plain auto-increment plus every listed layout of a part that can answer at ``address``."""
    return (AUTO_INCREMENT[pointer_bytes],
            *(lay for lay in LAYOUTS if address in lay.addresses and lay.pointer_bytes == pointer_bytes))
