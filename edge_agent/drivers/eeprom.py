"""24Cxx serial EEPROMs (24C01 to 24C512) over I2C.

Writes are split at page boundaries because a page write wraps inside its page (bytes past the page
end overwrite its start); after each page the part runs an internal write cycle (tWR, 5 ms max on
most parts) during which it does not acknowledge its address, so the driver polls for the ACK
instead of sleeping the worst case. Parts of 512 B to 2 KiB take the high address bits in the
device address (block select); 4 KiB and up use a two-byte word address.
"""

from __future__ import annotations

from edge_agent.bus.base import I2CBus
from edge_agent.drivers import wait_until
from edge_agent.errors import BusTimeoutError, InvalidAddressError

#: (size in bytes, page size) of common parts.
PARTS = {
    "24c01": (128, 8), "24c02": (256, 8), "24c04": (512, 16), "24c08": (1024, 16), "24c16": (2048, 16),
    "24c32": (4096, 32), "24c64": (8192, 32), "24c128": (16384, 64), "24c256": (32768, 64),
    "24c512": (65536, 128),
}


class EEPROM24:
    """A 24Cxx EEPROM at ``address`` (0x50-0x57)."""

    def __init__(self, bus: I2CBus, address: int = 0x50, *, part: str = "24c02", max_polls: int = 50,
                 chunk: int = 32) -> None:
        if part not in PARTS:
            raise ValueError(f"unknown EEPROM part {part!r}; known: {', '.join(PARTS)}")
        self.bus, self.address, self.part = bus, address, part
        self.size, self.page_size = PARTS[part]
        self.word_bytes = 2 if self.size > 2048 else 1
        self.max_polls = max_polls
        # Keep each transaction small enough for SMBus-limited adapters and the serial bridge.
        self.chunk = min(chunk, bus.max_transfer - self.word_bytes)

    def _check(self, offset: int, n: int) -> None:
        if n < 0 or offset < 0 or offset + n > self.size:
            raise InvalidAddressError(
                f"EEPROM {self.part} range {offset}+{n} is outside 0..{self.size - 1}", address=self.address
            )

    def _target(self, offset: int) -> tuple[int, int]:
        """(device address, word address) for a byte offset."""
        if self.word_bytes == 1:
            return self.address | (offset >> 8), offset & 0xFF  # block select bits A8..A10
        return self.address, offset

    def read(self, offset: int, n: int) -> bytes:
        """Read ``n`` bytes starting at ``offset`` (random read, then sequential)."""
        self._check(offset, n)
        out = bytearray()
        with self.bus.lock:
            self._read_into(out, offset, n)
        return bytes(out)

    def _read_into(self, out: bytearray, offset: int, n: int) -> None:
        while len(out) < n:
            pos = offset + len(out)
            take = min(self.chunk, n - len(out))
            if self.word_bytes == 1:  # do not cross a 256-byte block: the block bits are in the address
                take = min(take, 256 - (pos & 0xFF))
            device, word = self._target(pos)
            out += self.bus.read_register(device, word, take, register_width=self.word_bytes)

    def write(self, offset: int, data: bytes) -> None:
        """Write ``data`` at ``offset``, one page at a time, waiting out each write cycle."""
        self._check(offset, len(data))
        with self.bus.lock:
            self._write_pages(offset, data)

    def _write_pages(self, offset: int, data: bytes) -> None:
        done = 0
        while done < len(data):
            pos = offset + done
            room = self.page_size - pos % self.page_size
            take = min(room, len(data) - done, self.chunk)
            device, word = self._target(pos)
            self.bus.write_register(device, word, data[done:done + take], register_width=self.word_bytes)
            self._wait_ready(device)
            done += take

    def _wait_ready(self, device: int) -> None:
        if not wait_until(lambda: self.bus.probe(device), polls=self.max_polls, interval_s=0.001):
            raise BusTimeoutError(
                f"EEPROM at 0x{device:02X} still busy after {self.max_polls} ACK polls; check WP and power",
                adapter=self.bus.adapter.url, address=device,
            )
