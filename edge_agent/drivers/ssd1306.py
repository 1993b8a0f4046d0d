"""SSD1306 128x64 / 128x32 monochrome OLED over I2C: init sequence, a framebuffer, and text.

Every I2C write starts with a control byte: 0x00 = a stream of commands, 0x40 = a stream of display
data (datasheet 8.1.5.2, Co = 0 and D/C# selecting command or GDDRAM). GDDRAM is 8 rows per byte
("pages"), least significant bit at the top.
"""

from __future__ import annotations

from functools import cache
from importlib import resources

from edge_agent.bus.base import I2CBus

GLYPH_W, GLYPH_H, ADVANCE = 5, 7, 6  # one blank column between characters


@cache
def font() -> dict[str, tuple[int, ...]]:
    """The 5x7 font as {char: 5 column bytes (bit 0 = top row)}, loaded from drivers/data/font5x7.txt."""
    text = resources.files("edge_agent.drivers").joinpath("data/font5x7.txt").read_text(encoding="utf-8")
    glyphs: dict[str, tuple[int, ...]] = {}
    lines = [ln for ln in text.splitlines() if ln and not ln.startswith("# ")]
    i = 0
    while i < len(lines):
        head = lines[i]
        char = " " if head == "= (space)" else head[2:]
        rows = lines[i + 1:i + 1 + GLYPH_H]
        cols = tuple(sum(1 << r for r in range(GLYPH_H) if rows[r][c] == "#") for c in range(GLYPH_W))
        glyphs[char] = cols
        i += 1 + GLYPH_H
    return glyphs


class SSD1306:
    """An SSD1306 at ``address`` (0x3C with SA0 low, 0x3D high)."""

    def __init__(self, bus: I2CBus, address: int = 0x3C, *, width: int = 128, height: int = 64,
                 chunk: int = 16) -> None:
        if height not in (32, 64):
            raise ValueError("height must be 32 or 64")
        self.bus, self.address, self.width, self.height = bus, address, width, height
        self.pages = height // 8
        self.buffer = bytearray(width * self.pages)
        # Small data chunks keep each transaction within SMBus-limited adapters and the serial bridge.
        self.chunk = max(1, min(chunk, bus.max_transfer - 1))

    def command(self, *cmd: int) -> None:
        """Send command bytes (control byte 0x00)."""
        self.bus.write(self.address, bytes([0x00, *cmd]))

    def init(self) -> None:
        """Power-up sequence from the datasheet's application example, horizontal addressing."""
        self.command(0xAE)                                  # display off
        self.command(0xD5, 0x80)                            # clock divide / oscillator
        self.command(0xA8, self.height - 1)                 # multiplex ratio
        self.command(0xD3, 0x00)                            # display offset
        self.command(0x40)                                  # start line 0
        self.command(0x8D, 0x14)                            # charge pump on (internal VCC)
        self.command(0x20, 0x00)                            # horizontal addressing
        self.command(0xA1)                                  # segment remap: column 127 = SEG0
        self.command(0xC8)                                  # COM scan direction: remapped
        self.command(0xDA, 0x12 if self.height == 64 else 0x02)  # COM pins configuration
        self.command(0x81, 0xCF)                            # contrast
        self.command(0xD9, 0xF1)                            # pre-charge period
        self.command(0xDB, 0x40)                            # VCOMH deselect level
        self.command(0xA4)                                  # display follows RAM
        self.command(0xA6)                                  # normal (not inverted)
        self.command(0xAF)                                  # display on

    def clear(self) -> None:
        """Blank the framebuffer (call show() to send it)."""
        self.buffer[:] = bytes(len(self.buffer))

    def text(self, x: int, line: int, text: str) -> int:
        """Draw ``text`` at column ``x`` on text line ``line`` (one line = one 8-row page); returns the end column."""
        glyphs = font()
        if not 0 <= line < self.pages:
            raise ValueError(f"line {line} is outside 0..{self.pages - 1}")
        for ch in text:
            cols = glyphs.get(ch) or glyphs.get(ch.upper()) or glyphs["?"]
            for c, bits in enumerate(cols):
                if 0 <= x + c < self.width:
                    self.buffer[line * self.width + x + c] = bits
            x += ADVANCE
        return x

    def show(self) -> None:
        """Send the whole framebuffer to GDDRAM."""
        with self.bus.lock:  # another thread's commands must not land between the range and the data
            self.command(0x21, 0, self.width - 1)           # column range
            self.command(0x22, 0, self.pages - 1)           # page range
            for i in range(0, len(self.buffer), self.chunk):
                self.bus.write(self.address, b"\x40" + bytes(self.buffer[i:i + self.chunk]))

    def print_lines(self, *lines: str) -> None:
        """Clear the screen and show up to ``pages`` lines of text."""
        self.clear()
        for n, ln in enumerate(lines[:self.pages]):
            self.text(0, n, ln)
        self.show()
