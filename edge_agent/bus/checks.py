"""Argument checks and wire limits shared by every bus: 7-bit addresses, lengths, register widths, data.

Each check raises :class:`~edge_agent.errors.InvalidAddressError` with a sentence naming the limit, so a
bad argument never reaches a backend.
"""

from __future__ import annotations

from typing import Literal

from edge_agent.errors import InvalidAddressError

Direction = Literal["in", "out"]
Pull = Literal["up", "down", "none"]
ProbeMethod = Literal["read", "quick"]
#: What a scan learns about one address: it acknowledged, it did not, or a kernel driver owns it
#: (i2cdetect's "UU": not probed, since the driver may be mid-transaction with it).
ProbeState = Literal["ack", "nack", "busy"]

#: 7-bit addresses a scan or a transaction may use; 0x00-0x02 and 0x78-0x7F are reserved by the
#: I2C specification (general call, CBUS, HS-mode controller codes, 10-bit prefix).
I2C_FIRST_ADDRESS = 0x03
I2C_LAST_ADDRESS = 0x77
#: Scans start here, as i2cdetect does: 0x03 is reserved for future use and 0x04-0x07 are the HS-mode
#: controller codes, so nothing should answer there and probing them is pointless.
I2C_SCAN_FIRST = 0x08
#: SMBus block transfers carry at most 32 data bytes (SMBus 3.x, I2C_SMBUS_BLOCK_MAX).
SMBUS_BLOCK_MAX = 32
#: A pin name longer than this is refused before any lookup (the longest real alias is far shorter).
MAX_PIN_CHARS = 100
#: Spellings remembered per adapter ('PA5', 'pa5', 'D13' ...); the oldest is forgotten beyond this.
PIN_CACHE_SIZE = 256
SPI_MODES = (0, 1, 2, 3)


def check_address(address: int, adapter: str) -> int:
    """Return ``address`` if it is a usable 7-bit target address, else raise InvalidAddressError."""
    if not isinstance(address, int) or isinstance(address, bool):
        raise InvalidAddressError(f"{adapter}: I2C address {address!r} is not an integer", adapter=adapter)
    if not I2C_FIRST_ADDRESS <= address <= I2C_LAST_ADDRESS:
        hint = " (10-bit addressing is not supported)" if 0x78 <= address <= 0x3FF else ""
        raise InvalidAddressError(
            f"{adapter}: I2C address 0x{address:02X} is outside the 7-bit range 0x03-0x77{hint}; "
            "7-bit addresses exclude the R/W bit (an 8-bit 0xEC is 0x76)",
            adapter=adapter,
            address=address,
        )
    return address


def check_length(n: int, maximum: int, adapter: str, what: str, address: int | None = None) -> int:
    """Return ``n`` if ``0 < n <= maximum``, else raise InvalidAddressError naming the limit."""
    if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= maximum:
        raise InvalidAddressError(
            f"{adapter}: {what} length {n!r} must be an integer between 1 and {maximum}",
            adapter=adapter,
            address=address,
        )
    return n


def check_register(register: int, width: int, adapter: str, address: int) -> int:
    """Return ``register`` if it fits ``width`` bytes, else raise InvalidAddressError."""
    if width not in (1, 2):
        raise InvalidAddressError(f"{adapter}: register_width must be 1 or 2, not {width!r}", adapter=adapter)
    top = (1 << (8 * width)) - 1
    if not isinstance(register, int) or isinstance(register, bool) or not 0 <= register <= top:
        raise InvalidAddressError(
            f"{adapter}: register {register!r} does not fit {width} byte(s) (0x00-0x{top:X})",
            adapter=adapter,
            address=address,
        )
    return register


def as_bytes(data: bytes | bytearray | memoryview | list[int] | tuple[int, ...], adapter: str) -> bytes:
    """Coerce ``data`` to bytes, raising InvalidAddressError for values outside 0-255."""
    if isinstance(data, bytes):
        return data
    if isinstance(data, int | str):  # bytes(5) would silently mean five zero bytes
        raise InvalidAddressError(f"{adapter}: data must be bytes or a list of integers 0-255, got {data!r}",
                                  adapter=adapter)
    try:
        return bytes(data)
    except (TypeError, ValueError):
        raise InvalidAddressError(f"{adapter}: data must be bytes or integers 0-255, got {data!r}",
                                  adapter=adapter) from None

