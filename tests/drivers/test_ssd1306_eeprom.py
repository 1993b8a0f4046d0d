"""SSD1306 text and 24Cxx EEPROM drivers against the simulated parts."""

from __future__ import annotations

import pytest

from edge_agent.bus.sim import SimAdapter
from edge_agent.bus.sim.devices import SSD1306Sim
from edge_agent.drivers.eeprom import EEPROM24
from edge_agent.drivers.ssd1306 import SSD1306, font
from edge_agent.errors import BusTimeoutError, InvalidAddressError


def test_font_has_digits_capitals_and_units() -> None:
    glyphs = font()
    for ch in "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ .,:-+/%=()!?_'°":
        assert ch in glyphs and len(glyphs[ch]) == 5
    assert len({glyphs[c] for c in "0123456789"}) == 10  # digits are distinguishable
    assert all(col < 0x80 for cols in glyphs.values() for col in cols)  # 7 rows: bit 7 stays dark


def test_text_lands_in_gddram_as_font_columns(sim: SimAdapter) -> None:
    oled = SSD1306(sim.i2c(), 0x3C)
    oled.init()
    oled.print_lines("T 21.5C", "ok")
    part = sim.device(0x3C)
    assert isinstance(part, SSD1306Sim)
    assert part.display_on and part.addressing == 0
    g = font()
    assert bytes(part.gddram[0][0:5]) == bytes(g["T"])
    assert bytes(part.gddram[0][12:17]) == bytes(g["2"])
    assert bytes(part.gddram[1][0:5]) == bytes(g["O"])  # lowercase drawn as capitals
    assert part.gddram[2] == bytearray(128)


def test_display_data_is_sent_in_small_transactions(sim: SimAdapter) -> None:
    oled = SSD1306(sim.i2c(), 0x3C, chunk=16)
    sim.clear_log()
    oled.show()
    data = [t for t in sim.log if getattr(t, "data", b"")[:1] == b"\x40"]
    assert len(data) == 128 * 8 // 16 and all(len(t.data) == 17 for t in data)


def test_eeprom_write_is_split_at_page_boundaries(sim: SimAdapter) -> None:
    eeprom = EEPROM24(sim.i2c(), 0x50)
    sim.clear_log()
    eeprom.write(0x05, bytes(range(20)))  # 0x05-0x07, 0x08-0x0F, 0x10-0x17, 0x18
    writes = [t.data for t in sim.log if type(t).__name__ == "I2CWrite"]
    assert [w[0] for w in writes] == [0x05, 0x08, 0x10, 0x18]
    assert eeprom.read(0x05, 20) == bytes(range(20))


def test_eeprom_range_is_checked(sim: SimAdapter) -> None:
    eeprom = EEPROM24(sim.i2c(), 0x50)
    with pytest.raises(InvalidAddressError):
        eeprom.read(250, 10)
    with pytest.raises(InvalidAddressError):
        eeprom.write(-1, b"x")


def test_eeprom_that_never_finishes_its_write_cycle_times_out(sim: SimAdapter) -> None:
    sim.device(0x50).params.write_cycle_polls = 1000  # type: ignore[attr-defined]
    with pytest.raises(BusTimeoutError) as info:
        EEPROM24(sim.i2c(), 0x50, max_polls=3).write(0, b"\x01")
    assert info.value.address == 0x50


def test_eeprom_waits_out_a_short_write_cycle(sim: SimAdapter) -> None:
    sim.device(0x50).params.write_cycle_polls = 2  # type: ignore[attr-defined]
    eeprom = EEPROM24(sim.i2c(), 0x50)
    eeprom.write(0x20, b"abc")
    assert eeprom.read(0x20, 3) == b"abc"


def test_eeprom_with_two_byte_word_addresses(sim: SimAdapter) -> None:
    """A 24C32 (4 KiB, 32-byte pages) takes its word address high byte first."""
    sim.world.attach_i2c("24c02", 0x57, params={"size": 4096, "page_size": 32, "address_bytes": 2})
    eeprom = EEPROM24(sim.i2c(), 0x57, part="24c32")
    sim.clear_log()
    eeprom.write(0x0FD0, bytes(range(40)))  # 16 bytes to the end of the page at 0x0FC0, then 24 more
    writes = [t.data for t in sim.log if type(t).__name__ == "I2CWrite"]
    assert [w[:2] for w in writes] == [b"\x0f\xd0", b"\x0f\xe0"]
    assert [len(w) - 2 for w in writes] == [16, 24]
    assert eeprom.read(0x0FD0, 40) == bytes(range(40))
