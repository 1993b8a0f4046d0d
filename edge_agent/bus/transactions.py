"""Bus transactions as records: what an adapter did, in the order it did it.

The simulator logs them and the trace wrapper logs the same records for any adapter, so a test
can compare what two backends did on the wire.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# Plain (not frozen) slotted dataclasses: a frozen one costs several times more to build, and one is built
# per transaction. Treat them as read-only records.


@dataclass(slots=True)
class I2CRead:
    """Recorded: START, address+R, ``n`` bytes, STOP."""

    bus: int
    address: int
    n: int
    result: bytes | None = field(default=None, compare=False)
    error: str | None = field(default=None, compare=False)


@dataclass(slots=True)
class I2CWrite:
    """Recorded: START, address+W, ``data``, STOP."""

    bus: int
    address: int
    data: bytes
    error: str | None = field(default=None, compare=False)


@dataclass(slots=True)
class I2CWriteRead:
    """Recorded: write ``data``, repeated START, read ``read_len`` bytes."""

    bus: int
    address: int
    data: bytes
    read_len: int
    result: bytes | None = field(default=None, compare=False)
    error: str | None = field(default=None, compare=False)


@dataclass(slots=True)
class SPITransfer:
    """Recorded: one chip-select-low SPI transfer."""

    bus: int
    cs: int
    data: bytes
    mode: int = field(default=0, compare=False)
    result: bytes | None = field(default=None, compare=False)


@dataclass(slots=True)
class GPIOWrite:
    """Recorded: a GPIO line driven to ``value``."""

    pin: str
    value: int


@dataclass(slots=True)
class GPIOMode:
    """Recorded: a GPIO line's direction/pull change."""

    pin: str
    direction: str
    pull: str


Transaction = I2CRead | I2CWrite | I2CWriteRead | SPITransfer | GPIOWrite | GPIOMode

__all__ = ["GPIOMode", "GPIOWrite", "I2CRead", "I2CWrite", "I2CWriteRead", "SPITransfer", "Transaction"]
